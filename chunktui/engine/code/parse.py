"""Parse a document with tree-sitter and map the tree's byte points back to character offsets.

Tree-sitter speaks UTF-8 bytes and (row, byte column) points; the engine speaks
code-point offsets. Converting through the row keeps it cheap: only the bytes of
one line are ever decoded, and pure-ASCII lines need no decoding at all.
"""

from __future__ import annotations

from array import array
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING

from ..readers.documents import Document
from .languages import Grammar, load_grammar

if TYPE_CHECKING:
    from tree_sitter import Node, Tree


@dataclass
class ParsedFile:
    """A parse and what maps its points to characters. It keeps no reference to its Document: the
    Document caches it, and each holding the other made a cycle, which only the collector's oldest
    generation frees (a 10 MB file's parse lived on after its Document until such a pass)."""

    doc: InitVar[Document]
    grammar: Grammar
    tree: Tree
    source: bytes
    # where each row starts, then the text's end: an array, which the collector does not walk (a
    # list is a visit per line for every collection while the parse is cached)
    row_starts: array[int] = field(init=False, repr=False)
    ascii: bool = field(init=False, repr=False)  # the text is ASCII: a byte column is a character's

    def __post_init__(self, doc: Document) -> None:
        self.row_starts = array("q", doc.line_starts)
        self.row_starts.append(len(doc.text))
        self.ascii = doc._ascii

    @property
    def root(self) -> Node:
        """A new root node object each time: a node keeps the list of children it made, so one
        kept with the parse would keep every node a walk made from it (at 10 MB, 190,000 nodes
        and 35,000 lists for each collection to walk, for as long as the parse is cached).
        Making the top level again costs a few milliseconds."""
        return self.tree.root_node

    def char_at(self, point, byte: int) -> int:
        """Character offset of a tree-sitter (row, byte column) point at byte offset `byte`."""
        row, col = point
        base = self.row_starts[row]
        if col == 0 or self.ascii:
            return base + col
        head = self.source[byte - col : byte]  # the row up to the point, in bytes
        if head.isascii():
            return base + col
        return base + len(head.decode("utf-8", "ignore"))

    def start(self, node) -> int:
        return self.char_at(node.start_point, node.start_byte)

    def end(self, node) -> int:
        return self.char_at(node.end_point, node.end_byte)

    def text(self, node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def error_lines(self) -> list[int]:
        """1-based lines of ERROR nodes (syntax the grammar could not parse), found by a walk that
        enters only nodes holding an error: a query over the whole tree took time quadratic in the
        size of a broken file's error nodes (40 KB of `-` in a .py file: 2.6 s, against 0.01 s)."""
        lines = set()
        root = self.root
        stack = [root] if root.has_error else []
        while stack:
            node = stack.pop()
            if node.is_error:
                lines.add(node.start_point[0] + 1)
            stack.extend(c for c in node.children if c.has_error)
        return sorted(lines)


def last_row(node) -> int:
    """The row of a node's last character (a node ending with a newline ends on the row before)."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def parse(doc: Document, language: str) -> ParsedFile:
    import tree_sitter as ts

    grammar = load_grammar(language)
    source = doc.text.encode("utf-8", "surrogatepass")
    tree = ts.Parser(grammar.language).parse(source)
    return ParsedFile(doc, grammar, tree, source)
