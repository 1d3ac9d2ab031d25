"""Entities of a source file: what is defined where, with its signature and documentation.

Entity nodes are found with one tree-sitter query (run in C), so the cost is in
the number of definitions, not the number of syntax nodes.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain

from .languages import CLOSURES, EXTRA_KINDS
from .parse import ParsedFile, last_row
from .scope import nest

_WS = re.compile(r"\s+")
_STRING = re.compile(r"^[rRbBuUfF]*(\"\"\"|'''|\"|')(.*)\1$", re.S)
_COMMENT_MARKS = re.compile(r"^\s*(///?!?|#!?|/\*\*?|\*/|\*(?!/))\s?")
_SIGNATURE_MAX = 240
_COMMENT_START = {"python": b"#"}  # the text of every comment starts so, by language (see _signature)
_NAME_TYPES = {
    "identifier",
    "field_identifier",
    "type_identifier",
    "qualified_identifier",
    "operator_name",
    "destructor_name",
    "namespace_identifier",
    "constant",
    "scoped_identifier",
    "property_identifier",
}


@dataclass(eq=False, slots=True)
class Entity:
    """One definition (or import) with its place in the file and in the scope tree.

    Slots, and no children list (the scope tree keeps each level): a big file has tens of
    thousands of entities, kept with the parse, and every container object is work for each garbage
    collection; a child and its parent holding each other made the whole parse a cycle, freed only
    by the collector's oldest generation once the Document went.
    """

    name: str
    kind: str
    signature: str
    docstring: str
    start: int  # char offsets of the definition, decorators/export included
    end: int
    extent_start: int  # where its leading comments begin (they travel with it)
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    parent: Entity | None = field(repr=False, default=None)
    bound: tuple[str, ...] = ()  # names an import binds
    owner: str | None = None  # Go: the receiver type a top-level method belongs to

    @property
    def chain(self) -> list[str]:
        out: list[str] = []
        e: Entity | None = self
        while e is not None:
            out.append(e.name)
            if e.parent is None and e.owner:
                out.append(e.owner)
            e = e.parent
        return out[::-1]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "signature": self.signature,
            "docstring": self.docstring,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "start_byte": self.start_byte,
            "end_byte": self.end_byte,
            "parent": self.parent.name if self.parent else self.owner,
        }


_IMPORT, _ENTITY, _CONTAINER = "import", "entity", "container"  # a node's role in the statement walk


def find_nodes(pf: ParsedFile) -> tuple[list, list]:
    """Definition and import nodes, found by the grammar's query (see `_statement_walk` for
    where a walk finds them sooner), in no particular order."""
    captures = _captures(pf.grammar.query, pf.root)
    closures = [n for n in captures.get("closure", ()) if n.start_point[0] < n.end_point[0]]
    requires = list({n.id: n for n in map(require_statement, captures.get("require", ()))}.values())
    return captures.get("entity", []) + closures, captures.get("import", []) + requires


def _walkable(pf: ParsedFile) -> bool:
    """Can `_statement_walk` find the definitions and imports? Where they can only be statements
    (Python) and the tree parsed without errors (an ERROR node can hold anything)."""
    return bool(pf.grammar.spec.statement_containers) and not pf.root.has_error


def _statement_walk(pf: ParsedFile) -> Iterator[tuple]:
    """Definition and import nodes in file order, with what the walk learned on the way there:
    (node, is a definition, its "body" field, the node it really starts at (see `_outer`), the
    sibling before that one).

    A query visits every node of the tree, and its captures come in no particular order.
    Walking the statement containers in order finds the same nodes, in file order, while
    visiting a fraction of them (a third of the query's time). The walk knows each node's
    parent and previous sibling, which cost a node object each to ask for (`.parent` and
    `.prev_sibling` look for them from the node's parent down, each time), and a definition's
    body, whose children it walks next (`extract` reads the docstring from the same list).
    """
    g = pf.grammar
    ids = _kind_ids(g)
    # kinds told by id (reading a node's type name makes a string), one lookup for the many
    # statements that are none of the three
    role = ids.roles
    wrappers = ids.wrappers
    words = _WORDS.get(g.spec.name)
    find = pf.source.find
    # a frame: the children left to see, the (outer node, its previous sibling) of the wrapper
    # whose children they are (None: no wrapper), and the last child seen before the walk went
    # down into it
    stack: list[list] = [[iter(pf.root.children), None, None]]  # pre-order: a definition before its body
    while stack:
        frame = stack[-1]
        it, wrap, prev = frame
        for c in it:
            r = role.get(c.kind_id)
            if r is None:
                prev = c
                continue
            outer, before = (c, prev) if wrap is None else wrap
            if r is _IMPORT:
                yield c, False, None, outer, before
            elif r is _ENTITY:
                body = c.child_by_field_name("body")  # a definition holds statements only there
                yield c, True, body, outer, before
                if body is not None and (
                    words is None or any(find(w, body.start_byte, body.end_byte) >= 0 for w in words)
                ):
                    frame[2] = c
                    stack.append([iter(body.children), None, None])
                    break
            else:
                frame[2] = c
                stack.append([iter(c.children), (outer, before) if c.kind_id in wrappers else None, None])
                break
            prev = c
        else:
            stack.pop()


def _captures(query, root) -> dict[str, list]:
    """The query's captures under `root`. A subtree with no syntax error takes one query; where an
    error is, the walk goes down to the subtrees around it, asking only whether the node itself
    matches: tree-sitter's cursor takes time quadratic in an ERROR node's children (a .py file of
    20,000 `-` is one ERROR node of 20,000 leaves: 0.5 s a pattern, and 4x that at twice the size)."""
    from tree_sitter import QueryCursor

    out: dict[str, list] = {}

    def add(found: dict) -> None:
        for name, nodes in found.items():
            out.setdefault(name, []).extend(nodes)

    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error:
            add(QueryCursor(query).captures(node))
            continue
        if not node.is_error:  # a statement holding an error may still be a definition
            own = QueryCursor(query)
            own.set_max_start_depth(0)
            add(own.captures(node))
        stack.extend(c for c in node.children if c.child_count)  # a leaf is no definition or import
    return out


# what a require('x') or import('x') call can sit in, up to the statement that is the import
_REQUIRE_HOLDERS = frozenset(
    {
        "call_expression",
        "member_expression",
        "await_expression",
        "parenthesized_expression",
        "variable_declarator",
        "assignment_expression",
    }
)
_REQUIRE_STATEMENTS = frozenset({"lexical_declaration", "variable_declaration", "expression_statement"})


def require_statement(call):
    """The statement a CommonJS require('x') or dynamic import('x') call makes an import of
    (`const {a, b} = require('x');`, `require('x');`), or the call itself where it sits deeper
    in other code (`return import('./page.js')`)."""
    node = call.parent
    while node is not None and node.type in _REQUIRE_HOLDERS:
        node = node.parent
    return node if node is not None and node.type in _REQUIRE_STATEMENTS else call


class _Ids:
    """A grammar's node kind ids that `extract` tests nodes against (a kind id is cheaper to
    read than a type name, which makes a string)."""

    __slots__ = ("comments", "expression_statements", "leading", "roles", "strings", "wrappers")

    def __init__(self, g) -> None:
        self.comments = g.ids_where(lambda t: "comment" in t)
        self.leading = self.comments | g.kind_ids({"attribute_item"})
        self.expression_statements = g.kind_ids({"expression_statement"})
        self.strings = g.kind_ids({"string"})
        spec = g.spec
        self.wrappers = g.kind_ids(spec.wrappers)
        roles = dict.fromkeys(g.kind_ids(spec.statement_containers), _CONTAINER)
        roles.update(dict.fromkeys(g.kind_ids(spec.entities), _ENTITY))
        roles.update(dict.fromkeys(g.kind_ids(spec.import_items or spec.imports), _IMPORT))
        self.roles = roles


_IDS: dict[str, _Ids] = {}
# words every definition or import (and so every statement holding one) has in its text, by
# language: a body that has none of them holds none, and `_statement_walk` does not go in (most
# function bodies: their statements are half the walk, and a byte search is cheaper)
_WORDS = {"python": (b"def", b"class", b"import", b"type")}


def _kind_ids(g) -> _Ids:
    found = _IDS.get(g.spec.name)
    if found is None:
        found = _IDS[g.spec.name] = _Ids(g)
    return found


def extract(pf: ParsedFile) -> tuple[list[Entity], list[Entity]]:
    """(definitions nested into a scope tree, imports), both in file order."""
    g = pf.grammar
    ids = _kind_ids(g)
    kinds, extra, items = g.spec.entities, EXTRA_KINDS, g.spec.import_items
    defs, imports = [], []
    type_of: dict[int, str] = {}  # kind id -> type name, read once a kind
    if _walkable(pf):
        found: Iterable[tuple] = _statement_walk(pf)
    else:
        nodes, import_nodes = find_nodes(pf)
        # a query's captures: sorted, and a node two patterns match taken once
        nodes = list({n.id: n for n in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))}.values())
        import_nodes = sorted(import_nodes, key=lambda n: n.start_byte)
        found = chain(
            ((n, True, n.child_by_field_name("body"), None, None) for n in nodes),
            ((n, False, None, None, None) for n in import_nodes),
        )
    for node, is_def, body, outer, before in found:
        k = node.kind_id
        t = type_of.get(k)
        if t is None:
            t = type_of[k] = node.type
        if outer is None:
            outer = _outer(pf, node, t)
            before = outer.prev_sibling
        if is_def:
            defs.append(_entity(pf, ids, node, t, kinds.get(t) or extra.get(t, "function"), body, outer, before))
            continue
        e = _entity(pf, ids, node, t, "import", node.child_by_field_name("body"), outer, before)
        if t in items:
            e.signature = f"import {e.signature}"  # a Go import spec, listed on its own
        e.name = e.signature
        e.bound = tuple(dict.fromkeys(_bound_names(pf, node, t)))
        imports.append(e)
    nest(defs)
    return defs, imports


def _entity(pf: ParsedFile, ids: _Ids, node, t: str, kind: str, body, outer, before) -> Entity:
    """`t` is node.type, read once by the caller: each read makes a new string. `body`: the node's
    "body" field; `outer`: where it really starts (`_outer`), `before`: the sibling before that."""
    leading = _leading_comments(outer, before, ids.leading)
    start_point, end_point = outer.start_point, outer.end_point
    ascii = pf.ascii  # a byte offset is a character's (char_at's answer, without the call)
    start = outer.start_byte if ascii else pf.char_at(start_point, outer.start_byte)
    extent = pf.start(leading[0]) if leading else start
    if t == "function_definition" and pf.grammar.spec.name == "cpp":  # `void Cls::f()`
        declared = _declarator_name_node(node)
        if declared is not None and declared.type == "qualified_identifier":
            kind = "method"
    end_row, end_col = end_point
    return Entity(  # by position (a keyword call costs more, once per definition): see the fields above
        _name(pf, node, t) if kind != "import" else "",  # extract names an import by its signature
        kind,
        _signature(pf, ids, node, t, body),
        _docstring(pf, ids, leading, body),
        start,
        outer.end_byte if ascii else pf.char_at(end_point, outer.end_byte),
        extent,
        start_point[0] + 1,
        end_row if end_col == 0 and end_row > start_point[0] else end_row + 1,  # last_row + 1
        outer.start_byte,
        outer.end_byte,
        None,
        (),
        _receiver(pf, node) if t == "method_declaration" else None,
    )


def _outer(pf: ParsedFile, node, node_type: str):
    """The node a definition really starts at: its decorators, `export`, `template<>`, `const x =`."""
    wrappers = pf.grammar.spec.wrappers
    parent = node.parent
    if node_type == "variable_declarator" and parent is not None and parent.named_child_count == 1:
        node, parent = parent, parent.parent
    while parent is not None and parent.type in wrappers:
        node, parent = parent, parent.parent
    return node


def _leading_comments(node, prev, kinds: frozenset) -> list:
    """Comments (and Rust attributes: `kinds`) directly above a node, with no blank line between;
    `prev` is the node's previous sibling."""
    out, cur = [], node
    while prev is not None and prev.kind_id in kinds and last_row(prev) + 1 >= cur.start_point[0]:
        before = prev.prev_sibling
        if before is not None and last_row(before) == prev.start_point[0]:
            break  # a trailing comment of the statement before
        out.append(prev)
        cur, prev = prev, before
    return out[::-1]


def _receiver(pf: ParsedFile, node) -> str | None:
    """`Server` for Go's `func (s *Server) Name()` (a method_declaration): the type the method hangs off."""
    receiver = node.child_by_field_name("receiver")
    if receiver is None or pf.grammar.spec.name != "go":
        return None
    param = next((c for c in receiver.named_children if c.type == "parameter_declaration"), None)
    typ = param.child_by_field_name("type") if param is not None else None
    m = re.match(r"\*?\s*([A-Za-z_]\w*)", pf.text(typ)) if typ is not None else None
    return m.group(1) if m else None


def _declarator_name_node(node):
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in _NAME_TYPES:
        nxt = d.child_by_field_name("declarator") or d.child_by_field_name("name")
        d = nxt
    return d


def _closure_name(pf: ParsedFile, node) -> str:
    """`new Observable callback`, `app.get callback`: a function passed to a call, by the call."""
    call = node.parent.parent if node.parent is not None else None
    callee = None if call is None else call.child_by_field_name("function") or call.child_by_field_name("constructor")
    if call is None or callee is None:
        return "<anonymous>"
    name = " ".join(pf.text(callee).split())
    if len(name) > 60:
        name = name[:59] + "…"
    return f"{'new ' if call.type == 'new_expression' else ''}{name} callback"


def _name(pf: ParsedFile, node, node_type: str) -> str:
    if node_type in CLOSURES:
        return _closure_name(pf, node)
    if node_type == "impl_item":
        typ, trait = node.child_by_field_name("type"), node.child_by_field_name("trait")
        return (
            f"{pf.text(trait)} for {pf.text(typ)}" if trait is not None else pf.text(typ) if typ is not None else "impl"
        )
    name = node.child_by_field_name("name")
    if name is None:
        name = _declarator_name_node(node)
    if name is None and node_type == "type_definition":
        name = node.child_by_field_name("declarator")
    if name is None:
        return "<anonymous>"
    text = pf.text(name)
    return text if text.isidentifier() else _WS.sub(" ", text)  # most names have no space to squeeze


def _body(node, node_type: str, body):
    """What follows a definition's signature; `body` is its "body" field."""
    if body is not None:
        return body
    if node_type == "variable_declarator":
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
    if body is None and node_type == "type_spec":
        typ = node.child_by_field_name("type")
        if typ is not None and typ.named_child_count:
            body = (
                typ.children[-1]
                if typ.type == "struct_type"
                else next((c for c in typ.children if c.type == "{"), None)
            )
    return body


def _signature(pf: ParsedFile, ids: _Ids, node, node_type: str, body) -> str:
    """The declaration up to its body, on one line: `async getUser(id: string): Promise<User>`."""
    start = node.parent if node_type == "variable_declarator" and node.parent is not None else node
    own_body = body is not None  # the "body" field: a child of node
    body = _body(node, node_type, body)
    end = node.end_byte
    if body is not None and body.start_byte > start.start_byte:
        end = body.start_byte
        mark = _COMMENT_START.get(pf.grammar.spec.name)
        if own_body and (mark is None or pf.source.find(mark, start.start_byte, end) >= 0):
            # stop before any comment that precedes the body (`def f():  # note`); with no
            # comment mark in the text, there is none, and what follows the sibling before the
            # body is whitespace, which the join below drops (`.prev_sibling` searches the node)
            before = body.prev_sibling
            while before is not None and before.kind_id in ids.comments:
                before = before.prev_sibling
            if before is not None:
                end = before.end_byte
    text = " ".join(pf.source[start.start_byte : end].decode("utf-8", "replace").split())  # = _WS.sub + strip
    if body is not None:
        text = text.rstrip("{:").rstrip()
    if node_type == "type_spec":
        text = "type " + text
    return text if len(text) <= _SIGNATURE_MAX else text[: _SIGNATURE_MAX - 1] + "…"


def _docstring(pf: ParsedFile, ids: _Ids, leading, body) -> str:
    if pf.grammar.spec.docstring_in_body:
        doc = python_docstring(pf, ids, body)
        if doc:
            return doc
    lines = []
    for c in leading:
        if c.kind_id not in ids.comments:
            continue
        for line in pf.text(c).splitlines():
            line = _COMMENT_MARKS.sub("", line).rstrip()
            if line.endswith("*/"):
                line = line[:-2].rstrip()
            lines.append(line)
    return "\n".join(lines).strip()


def python_docstring(pf: ParsedFile, ids: _Ids, body) -> str:
    """The string literal that opens a Python module, class or function body, cleaned."""
    if body is None or not body.child_count:
        return ""
    first = body.child(0)  # the walk may not have made the children (see _WORDS)
    if not first.is_named:
        first = next((c for c in body.children if c.is_named), None)
    if first is None or first.kind_id not in ids.expression_statements or first.named_child_count != 1:
        return ""
    literal = first.named_child(0)
    if literal.kind_id not in ids.strings:
        return ""
    m = _STRING.match(pf.text(literal))
    return inspect.cleandoc(m.group(2)) if m else ""


def _bound_names(pf: ParsedFile, node, t: str) -> list[str]:
    """Names an import statement (of type `t`) makes available in the file."""
    lang = pf.grammar.spec.name
    text = pf.text
    if lang == "python":
        out = []
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                out.append(text(child.child_by_field_name("alias")))
            elif t == "import_statement":
                out.append(text(child).split(".")[0])
            else:
                out.append(text(child).split(".")[-1])
        return out
    if lang in ("javascript", "typescript", "tsx") and t != "import_statement":
        return _required_names(pf, node)
    if lang in ("javascript", "typescript", "tsx"):
        out = []
        clause = next((c for c in node.children if c.type == "import_clause"), None)
        for c in clause.children if clause is not None else []:
            if c.type == "identifier":
                out.append(text(c))
            elif c.type == "namespace_import":
                out += [text(x) for x in c.children if x.type == "identifier"]
            elif c.type == "named_imports":
                for spec in c.named_children:
                    n = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                    if n is not None:
                        out.append(text(n))
        return out
    if lang == "rust":
        return _rust_use(pf, node.child_by_field_name("argument"))
    if lang == "go":
        out = []
        for spec in [node] if t == "import_spec" else _descendants(node, "import_spec"):
            alias, path = spec.child_by_field_name("name"), spec.child_by_field_name("path")
            if alias is not None and text(alias) not in ("_", "."):
                out.append(text(alias))
            elif alias is None and path is not None:
                out.append(text(path).strip('"`').rsplit("/", 1)[-1])
        return out
    if t in ("import_declaration", "using_directive", "using_declaration"):
        if "*" in text(node) or "static" in text(node).split()[:2] and t == "using_directive":
            return []
        alias = node.child_by_field_name("name")
        if alias is not None and "=" in text(node):
            return [text(alias)]
        words = re.findall(r"[A-Za-z_]\w*", text(node).rstrip(";"))
        return words[-1:] if words else []
    return []


def _required_names(pf: ParsedFile, node) -> list[str]:
    """Names a require('x') statement binds: `const a = …`, `const {b, c: d} = …` (b, d), `e = …`."""
    out = []
    targets = [d.child_by_field_name("name") for d in node.named_children if d.type == "variable_declarator"]
    if node.type == "expression_statement" and node.named_child_count:
        expr = node.named_children[0]
        if expr.type == "assignment_expression":
            targets.append(expr.child_by_field_name("left"))
    for target in targets:
        if target is None:
            continue
        if target.type == "identifier":
            out.append(pf.text(target))
        elif target.type == "object_pattern":
            for p in target.named_children:
                value = p.child_by_field_name("value") if p.type == "pair_pattern" else p
                if value is not None and value.type in ("identifier", "shorthand_property_identifier_pattern"):
                    out.append(pf.text(value))
    return out


def _rust_use(pf: ParsedFile, node) -> list[str]:
    if node is None:
        return []
    t = node.type
    if t == "use_as_clause":
        return [pf.text(node.child_by_field_name("alias"))]
    if t in ("identifier", "type_identifier"):
        return [pf.text(node)]
    if t == "scoped_identifier":
        name = pf.text(node.child_by_field_name("name"))
        return [pf.text(node.child_by_field_name("path")).rsplit("::", 1)[-1]] if name == "self" else [name]
    if t == "scoped_use_list":
        return _rust_use(pf, node.child_by_field_name("list"))
    if t == "use_list":
        return [n for c in node.named_children for n in _rust_use(pf, c)]
    return []


def _descendants(node, node_type: str):
    for c in node.named_children:
        if c.type == node_type:
            yield c
        else:
            yield from _descendants(c, node_type)
