"""Chunk source code along its syntax tree.

The file becomes a row-ordered list of atoms: groups of sibling nodes that share
a line (or a comment glued to what it documents). A group that does not fit the
limit is opened up: entities, blocks and compound statements are replaced by
their children and grouped again, so cuts land between statements of a body,
never inside one; a statement holding a block (a callback passed as an argument,
an object literal, a struct's fields) is cut inside that block, and a comment or
docstring too long for a chunk between its lines. Atoms are then merged greedily
up to the limit, overlap lines are borrowed from the previous chunk while the
limit allows, and each chunk is told where it lives (scope chain, entities,
siblings, imports).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate, chain, islice
from typing import cast

from ..core.derived import derived
from ..core.model import LazyContexts, LazyMetadata, Metadata, SpanTable, one_line
from ..strategies import Proposal
from .entities import Entity, extract
from .languages import COMMENT_LIKE, MEMBER_SCOPES, SCOPE_KINDS, SPECS, detect_language, is_control
from .parse import ParsedFile, last_row, parse
from .scope import ScopeTree

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_ASCII_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")  # the same tokens on ASCII text, found sooner
_NON_WS = re.compile(r"\S")
_to_dict = Entity.to_dict
_SIBLINGS_EACH_SIDE = 3
_JS_LIKE = ("javascript", "typescript", "tsx")
_JS_FUNCTION_HOLDERS = {
    "lexical_declaration",
    "variable_declaration",
    "variable_declarator",
    "arrow_function",
    "function_expression",
    "function",
    "generator_function",
    "expression_statement",
}
# bodies made of members: their header may stand alone when the first member fits only without it
_MEMBER_BODIES = {"class_body", "declaration_list", "interface_body", "class_specifier"}
_BOUNDARY = {
    "function": "function",
    "method": "method",
    "import": "import",
    "class": "class",
    "struct": "class",
    "interface": "class",
    "trait": "class",
    "impl": "class",
    "enum": "class",
    "module": "class",
    "namespace": "class",
}


# An atom is an indivisible run of whole lines, a tuple (start, end, oversized, blank, imports_only,
# opens) in characters; `opens`: the header of a definition too big for one chunk. Tuples, not
# objects: a big file makes a hundred thousand of them.


def _is_comment(node) -> bool:
    t = node.type
    return "comment" in t or t in COMMENT_LIKE


def _groups(
    nodes, comment_ids: frozenset, import_ids: frozenset = frozenset(), required: frozenset = frozenset()
) -> Iterator[tuple[int, int, list, bool | None]]:
    """Siblings on a shared line stay together, and a comment sticks to the line below it.

    Each group is (first row, last row, nodes, imports) (`last_row` inlined: this runs for every
    statement of the file). `imports` is True for import statements and comments only, told here
    where the node kinds are read anyway (None while only comments were seen). Kinds are
    compared by id (`Grammar.comment_ids`, `import_ids`): reading a type name makes a string.
    `required`: where statements that are imports of no import kind start (`const x = require('x')`).
    Made one at a time, as they are used: a list of a body's groups (the file's top level: tens
    of thousands) lived long enough for the collector's oldest generation to walk it.
    """
    own_line = False  # does the last node of the current group start its own line?
    prev_last, prev_comment = -1, False
    # a bool, so that `imports` stays one: an empty set there reads as "not False" below, and a
    # statement followed by an import on its line (`x = 1; import os`) became imports only
    by_start = bool(required)
    first = -1  # the current group: first >= 0 once there is one
    group: list = []
    group_imports: bool | None = None
    for n in nodes:
        row = n.start_point[0]
        end_row, end_col = n.end_point
        last = end_row - 1 if end_col == 0 and end_row > row else end_row
        kind = n.kind_id
        comment = kind in comment_ids  # _is_comment(n)
        imports = kind in import_ids or (by_start and n.start_byte in required)
        if first >= 0 and (row <= prev_last or (own_line and prev_comment and row == prev_last + 1)):
            group.append(n)
            if group_imports is not False and not comment:
                group_imports = imports
            own_line = own_line and row > prev_last
        else:
            if first >= 0:
                yield first, prev_last, group, group_imports
            first, group, group_imports = row, [n], None if comment else imports
            own_line = True
        prev_last, prev_comment = last, comment
    if first >= 0:
        yield first, prev_last, group, group_imports


def _let_go(nodes: list) -> Iterator:
    """The nodes of `nodes` one at a time, each dropped from the list as it is handed out: a node
    keeps the children lists a walk made under it, and the top level of a big file held them all
    until the walk ended (at 10 MB, 33,000 lists the collector's oldest generation walked)."""
    for i, n in enumerate(nodes):
        nodes[i] = None
        yield n


class _Piece:
    """A stand-in node for some whole rows of the file: a line of a comment too long for any
    chunk, or the text around the blocks a statement holds. Only what `_groups` and `split` read."""

    __slots__ = ("end_point", "start_point")
    kind_id, child_count, start_byte = -1, 0, -1  # the same for every piece: set once, on the class

    def __init__(self, first_row: int, last_row: int):
        self.start_point, self.end_point = (first_row, 0), (last_row, 1)


class _Atomizer:
    """Turns the tree into atoms no bigger than the limit where the syntax allows.

    The walk keeps its own stack (a file nested thousands deep is still chunked), and a
    header opened out of a definition or compound statement is held until the first atom of
    its body arrives, so the two share an atom whenever they fit together.
    """

    def __init__(
        self,
        pf: ParsedFile,
        fits,
        bounds: Sequence[int],
        required: frozenset = frozenset(),
        limit: int | None = None,
    ):
        """`fits(first_row, last_row)`; `limit`: where rows fit if `bounds` says they span no
        more than it (a plain unit: `fits` is that arithmetic), None where only `fits` can tell."""
        self.pf, self.fits, self.bounds, self.required, self.limit = pf, fits, bounds, required, limit
        grammar = pf.grammar
        spec = grammar.spec
        blocks = set(grammar.known) - set(spec.entities)
        entities = set(spec.entities) | {"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"}
        openable = blocks | {"ERROR"}
        if spec.name in _JS_LIKE:
            openable |= _JS_FUNCTION_HOLDERS
        # node kinds by id (reading a type name makes a string); ERROR's id is outside the kind count
        named = [*grammar.kind_names, (0xFFFF, "ERROR")]
        self.block_ids = frozenset(i for i, t in named if t in blocks)
        self.entity_ids = frozenset(i for i, t in named if t in entities)
        self.openable_ids = frozenset(i for i, t in named if t in openable or is_control(t))
        members = {t for t, kind in spec.entities.items() if kind in MEMBER_SCOPES} | _MEMBER_BODIES
        self.member_ids = frozenset(i for i, t in named if t in members)
        self.comment_only_ids = frozenset(i for i, t in named if "comment" in t)
        self.string_statement_ids = (
            frozenset(i for i, t in named if t == "expression_statement") if spec.docstring_in_body else frozenset()
        )
        self.out: list[tuple] = []  # the atoms

    def can_open(self, n) -> bool:
        """Bodies, compound statements, and definitions that have a body (not `type X = A | B`)."""
        kind = n.kind_id
        if kind in self.openable_ids:
            return True
        return kind in self.entity_ids and (
            n.child_by_field_name("body") is not None or any(c.kind_id in self.block_ids for c in n.children)
        )

    def is_prose(self, n) -> bool:
        """A comment, or a string standing as a statement (a Python docstring): text, not code."""
        kind = n.kind_id
        if kind in self.comment_only_ids:
            return True
        return kind in self.string_statement_ids and n.named_child_count == 1 and n.named_children[0].type == "string"

    def has_header(self, n) -> bool:
        """Does opening `n` leave a header (`def f():`, `if x {`, `impl T {`) ahead of its body?
        A bare body (a Python block, a module) starts with a statement of its own."""
        return n.kind_id not in self.block_ids or not n.children[0].is_named

    def inner_blocks(self, node) -> list:
        """The outermost nodes inside `node` that open up and span lines (a callback's body, a
        `loop`, a struct's field list), with the text around them as pieces: a statement that
        holds a block is cut inside that block, and nowhere else. Empty if it holds none."""
        found, stack = [], [node]
        while stack:
            n = stack.pop()
            if not n.child_count or n.start_point[0] == n.end_point[0]:  # a leaf holds no block
                continue
            if n is not node and self.can_open(n):
                found.append(n)
            else:
                stack.extend(reversed(n.children))
        if not found:
            return []
        out, row, pos = [], node.start_point[0], node.start_byte
        for b in found:
            if b.start_byte > pos:
                out.append(_Piece(row, b.start_point[0]))
            out.append(b)
            row, pos = b.end_point[0], b.end_byte
        if node.end_byte > pos:
            out.append(_Piece(row, last_row(node)))
        return out

    def open_group(self, g: list, head: int) -> tuple[list, bool, bool]:
        """A group too big for a chunk (from row `head`: a header waiting for it included), its
        nodes replaced by their parts: (the nodes, did any open, does what opened leave a header
        ahead of its body)."""
        opened: list = []
        changed, header = False, False
        fits, i = self.fits, 0
        while i < len(g):
            n = g[i]
            i += 1
            if self.is_prose(n):  # with the comments right after it: text, cut between its lines
                j = i
                while j < len(g) and g[j].kind_id in self.comment_only_ids:
                    j += 1
                a, b = n.start_point[0], last_row(g[j - 1])
                if a < b and not fits(head if i == 1 else a, b):
                    rows = range(a, b + 1)
                    opened.extend(map(_Piece, rows, rows))
                    changed, i = True, j
                    continue
            if n.child_count and self.can_open(n):
                opened.extend(n.children)
                changed = True
                header = header or self.has_header(n)
            elif n.child_count and (inner := self.inner_blocks(n)):
                opened.extend(inner)
                changed = header = True
            else:
                opened.append(n)
        if not changed and len(g) > 1 and g[0].kind_id in self.comment_only_ids:
            # a statement too big to cut: the comments above it go apart, line by line
            k = next((k for k, n in enumerate(g) if n.kind_id not in self.comment_only_ids), 0)
            if k and g[k].start_point[0] > last_row(g[k - 1]):  # the statement starts a line of its own
                rows = range(g[0].start_point[0], g[k].start_point[0])
                return [*map(_Piece, rows, rows), *g[k:]], True, False
        return opened, changed, header

    def split(self, nodes) -> int:
        """Atoms of `nodes` (the file's top level) into `self.out`, blank lines between them as
        atoms of their own; returns where the last atom ends. An atom is made where its rows are
        known (a list of row tuples turned into atoms afterwards was a second pass over 140,000
        of them at 10 MB), and a group's size is read from `bounds` at once where the unit allows
        (`limit`: a call less for each of the file's groups)."""
        fits, grammar, bounds = self.fits, self.pf.grammar, self.bounds
        plain = self.limit is not None
        limit = self.limit or 0
        comment_ids, import_ids = grammar.comment_ids, grammar.import_ids
        out = self.out
        append = out.append
        pos = 0  # where the last atom ends

        def flush(first: int, last: int, oversized: bool, imports_only: bool, opens: bool) -> None:
            nonlocal pos
            s = bounds[first]
            if s > pos:
                append((pos, s, False, True, False, False))
            pos = bounds[last + 1]
            append((s, pos, oversized, False, imports_only, opens))

        held = None  # (first, last, loose) of a header waiting for the first atom of its body;
        # loose: a class-like header, which a member (not its docstring) that fits only without it
        # may leave alone
        opens = False  # the next row starts a definition that had to be opened
        stack = [_groups(nodes, comment_ids, import_ids, self.required)]
        while stack:
            for first, last, g, imports in stack[-1]:
                if (
                    held is not None
                    and held[2]
                    and not fits(held[0], last)
                    and fits(first, last)
                    and not self.is_prose(g[0])
                ):  # a class's docstring is cut to go with it
                    flush(held[0], held[1], False, False, opens)
                    held, opens = None, False
                head = first if held is None else held[0]
                s, e = bounds[head], bounds[last + 1]
                if e - s <= limit if plain else fits(head, last):  # flush(), inlined
                    if s > pos:
                        append((pos, s, False, True, False, False))
                    append((s, e, False, False, imports is True and held is None, opens))
                    pos, held, opens = e, None, False
                    continue
                opened, changed, header = self.open_group(g, head)
                if not changed:  # a statement that cannot be cut: the header waiting for it goes alone
                    if held is not None:
                        flush(held[0], held[1], False, False, opens)
                        held, opens = None, False
                    flush(first, last, not fits(first, last), imports is True, opens)
                    opens = False
                    continue
                opens = opens or any(n.kind_id in self.entity_ids for n in g)
                loose = any(n.kind_id in self.member_ids for n in g)
                groups = _groups(opened, comment_ids, import_ids, self.required)
                if header:
                    ahead = list(islice(groups, 2))
                    if len(ahead) > 1:
                        h_first, h_last = ahead[0][0], ahead[0][1]
                        if held is not None and fits(held[0], h_last):
                            held = (held[0], h_last, loose)  # nested headers wait together
                            del ahead[0]
                        elif fits(h_first, h_last):
                            if held is not None:
                                flush(held[0], held[1], False, False, opens)
                            held = (h_first, h_last, loose)
                            del ahead[0]
                    groups = chain(ahead, groups)
                stack.append(groups)
                break
            else:
                stack.pop()
        return pos

    def atoms(self) -> list[tuple]:
        text_end = self.pf.row_starts[-1]
        top = self.pf.root.children  # the root node goes at once, and its hold on this list with it
        pos = self.split(_let_go(top)) if top else 0
        if pos < text_end:
            self.out.append((pos, text_end, False, True, False, False))
        return self.out


def _cuts(chain: list, s2: int, e2: int) -> bool:
    """Does [s2, e2) hold part, but not all, of a definition of `chain` other than a class-like scope?

    Classes, impls, traits and namespaces are cut between their members all the
    time; a cut inside a function, type, enum or interface is what users must see.
    """
    for e in chain:
        if e.kind not in MEMBER_SCOPES and not (s2 <= e.extent_start and e.end <= e2):
            return True
    return False


def _runs(atoms: list[tuple], filter_imports: bool):
    """Contiguous runs of atoms to chunk, and the import ranges left out as declared gaps."""
    if not filter_imports:
        return ([atoms] if atoms else []), []
    runs: list[list] = []
    gaps: list[tuple[int, int, str]] = []
    cur: list = []
    for a in atoms:
        start, end, _, blank, imports_only, _ = a
        if imports_only:
            if cur:
                runs.append(cur)
            cur = []
            if gaps and gaps[-1][1] == start:
                gaps[-1] = (gaps[-1][0], end, gaps[-1][2])
            else:
                gaps.append((start, end, "imports (filtered; listed in each chunk's imports)"))
        elif blank and gaps and gaps[-1][1] == start and not cur:
            gaps[-1] = (gaps[-1][0], end, gaps[-1][2])
        else:
            cur.append(a)
    if cur:
        runs.append(cur)
    return runs, gaps


def _merge(run: list[tuple], fits_span, half_full) -> list[tuple[int, int, bool]]:
    """Greedy merge of adjacent atoms while the result fits; blank lines join a neighbour.

    A definition that has to be split starts a fresh chunk unless the current one is
    less than half full, so its pieces begin with its signature rather than trailing
    after unrelated code.
    """
    out: list[tuple[int, int, bool]] = []
    # the chunk being grown, in locals (a list a chunk, tens of thousands at 10 MB, lived long
    # enough to be walked by the collector's oldest generation)
    cur_s, cur_e, cur_o = -1, -1, False
    pending: tuple[int, int] | None = None  # blank lines the previous chunk had no room for
    for start, end, oversized, blank, _, opens in run:
        if (
            pending is None
            and cur_s >= 0
            and not cur_o
            and not oversized
            and fits_span(cur_s, end)
            and not (opens and half_full(cur_s, cur_e))
        ):
            cur_e = end
        elif blank and cur_s >= 0 and cur_o:
            cur_e = end  # an oversized chunk may as well keep the blank lines after it
        elif blank:
            pending = (start, end) if pending is None else (pending[0], end)
        else:
            if cur_s >= 0:
                out.append((cur_s, cur_e, cur_o))
            if pending is not None and (oversized or fits_span(pending[0], end)):
                cur_s, cur_e, cur_o = pending[0], end, oversized
            else:
                if pending is not None:
                    out.append((pending[0], pending[1], False))
                cur_s, cur_e, cur_o = start, end, oversized
            pending = None
    if cur_s >= 0:
        out.append((cur_s, cur_e, cur_o))
    if pending is not None:
        out.append((pending[0], pending[1], False))
    return out


def _parsed(doc, language: str) -> tuple[ParsedFile, list, list]:
    pf = parse(doc, language)
    defs, imports = extract(pf)
    return pf, defs, imports


def _without_imports(text: str, s: int, e: int, imports: list) -> str:
    """text[s:e] with the parts of `imports` (sorted by start) inside it blanked (same length):
    an import does not "use" the names it binds."""
    parts: list[str] = []
    pos = s
    for imp in imports:
        a, b = max(imp.start, pos), min(imp.end, e)
        if b > a:
            parts += (text[pos:a], " " * (b - a))
            pos = b
    if not parts:
        return text[s:e]
    parts.append(text[pos:e])
    return "".join(parts)


# A chunk's row (`CodeChunker.describe`): (scope names, defs lo, hi, imports lo, hi, its scope's index
# in defs or -1, start, end, whether it cuts a definition, its own first and last line, oversized):
# atoms and tuples of strings, which the collector stops tracking.


class _Describer:
    """What each chunk's metadata and context text say beyond its row: its siblings, the imports
    its code uses, the context text itself. Made when first read (see `CodeContexts`), each
    chunk's siblings and uses once for both. Holds the file's text and lists, not the chunker or the
    parse: for as long as a chunk of the build lives (about 2 MB more for a 3 MB file's 7,000 chunks
    once everything is read)."""

    def __init__(self, chunker: CodeChunker, rows: list[tuple]):
        ck = chunker
        self.text, self.defs, self.imports, self.rows = ck.doc.text, ck.defs, ck.imports, rows
        self.levels = ck.tree.levels  # each scope's definitions (None: the top level)
        self.sibling_detail, self.context_mode = ck.params.get("sibling_detail", "signatures"), ck._context_mode
        self.comment = ck.pf.grammar.spec.comment
        self.context_head, self.uses_prefix = f"{self.comment} {ck.doc.path or '<text>'}", f"\n{self.comment} Uses: "
        self.import_starts = ck._import_starts
        self.import_reach = list(accumulate((i.end for i in self.imports), max))  # how far imports 0..k reach
        self.import_signatures = [i.signature for i in self.imports]
        self.importers: dict[str, set[int]] = {}
        first_with: dict[str, int] = {}  # `import os` in ten functions is listed once, as its first copy
        for k, imp in enumerate(self.imports):
            k = first_with.setdefault(imp.signature, k)
            for name in imp.bound:
                self.importers.setdefault(name, set()).add(k)
        self.used_by_names: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.level_index = {e: k for level in self.levels.values() for k, e in enumerate(level)}
        self.made: list[tuple | None] = [None] * len(rows)  # each row's (siblings, uses), once made

    def siblings_and_uses(self, i: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = self.made[i]
        if found is None:
            _, d_lo, d_hi, _, _, k, start, end = self.rows[i][:8]
            siblings = (
                self._siblings(self.defs[k] if k >= 0 else None, d_lo, d_hi) if self.sibling_detail != "none" else ()
            )
            found = self.made[i] = (siblings, self._used_imports(start, end))
        return found

    def _used_imports(self, s: int, e: int) -> tuple[str, ...]:
        """Signatures of the imports whose names [s, e) uses.

        Made once per set of names: in a long file the same imports (os, re, typing...) come back
        in chunk after chunk, and share one tuple (each chunk's metadata gets a list of its own
        when read).
        """
        if not self.importers:
            return ()
        # only the imports that reach into [s, e) are blanked: most chunks hold none
        lo, hi = bisect_right(self.import_reach, s), bisect_left(self.import_starts, e)
        body = self.text[s:e] if lo >= hi else _without_imports(self.text, s, e, self.imports[lo:hi])
        names = self.importers.keys() & (_ASCII_IDENT if body.isascii() else _IDENT).findall(body)
        if not names:
            return ()
        key = tuple(sorted(names))  # not a frozenset: a tuple of strings is one the collector stops tracking
        found = self.used_by_names.get(key)
        if found is None:
            used = sorted(set().union(*map(self.importers.__getitem__, names)))
            found = self.used_by_names[key] = tuple(map(self.import_signatures.__getitem__, used))
        return found

    def _siblings(self, scope, d_lo: int, d_hi: int) -> tuple[str, ...]:
        """Up to three definitions each side of what the chunk holds, at the level of `scope` (the
        innermost definition holding it, or None)."""
        first = last = None  # the first and last definitions the chunk holds at that level
        for d in self.defs[d_lo:d_hi]:
            if d.parent is scope:
                last = d
                if first is None:
                    first = d
        if first is None:
            if scope is None:
                return ()
            first = last = scope
            scope = scope.parent
        level = self.levels.get(scope)
        if not level:
            return ()
        a, b = self.level_index[first], self.level_index[last]
        picked = level[max(0, a - _SIBLINGS_EACH_SIDE) : a] + level[b + 1 : b + 1 + _SIBLINGS_EACH_SIDE]
        return tuple(x.name for x in picked) if self.sibling_detail == "names" else tuple(x.signature for x in picked)

    def context(self, i: int) -> str:
        """The text for an embedding model (not for context mode "none")."""
        names, d_lo, d_hi, _, _, k, start, end = self.rows[i][:8]
        siblings, uses = self.siblings_and_uses(i)
        c = self.comment
        parts = [self.context_head]  # joined once: the code and the imports can be long
        if names:
            parts.append(f"\n{c} Scope: {' > '.join(names)}")
        if self.context_mode == "full":
            if names and not d_lo <= k < d_hi:  # the scope holding the chunk is not one it defines
                parts.append(f"\n{c} Inside: {self.defs[k].signature}")
            sigs = [d.signature for d in self.defs[d_lo:d_hi] if d.kind in SCOPE_KINDS]
            if sigs:
                parts.append(f"\n{c} Defines: " + "; ".join(sigs))
            if siblings:
                parts.append(f"\n{c} Siblings: " + "; ".join(siblings))
            if uses:  # a name many imports bind lists them all: they can outweigh the code
                parts += (self.uses_prefix, self.uses_prefix.join(uses))
        parts.append("\n\n")
        parts.append(self.text[start:end])
        return "".join(parts)


class CodeContexts(LazyContexts):
    """Each chunk's context text, made when first read (see `LazyContexts`)."""

    def __init__(self, describer: _Describer):
        self.describer = describer

    def __len__(self) -> int:
        return len(self.describer.rows)

    def texts(self, indices: Sequence[int]) -> list[str | None]:
        return list(map(self.describer.context, indices))


class CodeMetadata(LazyMetadata):
    """Each chunk's metadata as one row of atoms and shared tuples (see above `_Describer`): its scope's
    names, the ranges of the definitions and imports it holds (into the file's lists, kept with
    the parse), whether it cuts a definition, its own lines and whether it is oversized; its
    siblings and the signatures of the imports it uses come from the `_Describer`. The dicts and
    lists a caller sees are made when first read (see `LazyMetadata`): at 10 MB and 512
    characters, the 23,000 chunks' 90,000 lists made the collector's passes cost 0.8 s of a 5 s
    run."""

    def __init__(self, language: str, describer: _Describer):
        self.language, self.describer = language, describer
        self.defs, self.imports, self.rows = describer.defs, describer.imports, describer.rows

    def __len__(self) -> int:
        return len(self.rows)

    def metadata(self, i: int) -> Metadata:
        names, d_lo, d_hi, i_lo, i_hi, _, _, _, split, first, last, oversized = self.rows[i]
        siblings, uses = self.describer.siblings_and_uses(i)
        meta = {
            "language": self.language,
            "scope_chain": list(names),
            "entities": [*map(_to_dict, self.defs[d_lo:d_hi]), *map(_to_dict, self.imports[i_lo:i_hi])],
            "siblings": list(siblings),
            "imports": list(uses),
            "split_entity": split,
            "core_start_line": first,
            "core_end_line": last,
        }
        if oversized:
            meta["oversized"] = True
        return Metadata(meta)

    def oversized_count(self) -> int:
        return sum(row[-1] for row in self.rows)


class CodeChunker:
    """One parsed file and everything needed to chunk it and describe each chunk."""

    def __init__(self, doc, params: dict, ctx):
        self.doc, self.params, self.ctx = doc, params, ctx
        language = params.get("language", "auto")
        if language != "auto":
            self.language = detect_language(None, language)
        else:
            self.language = doc.language if doc.language in SPECS else detect_language(doc.path)
        # parse and entities do not depend on the parameters: a re-chunk of the same Document
        # (the app's size keys, a sweep's cells) reuses them (read-only from here on)
        self.pf, self.defs, self.imports = derived(doc, ("code", self.language), lambda: _parsed(doc, self.language))
        self.tree = ScopeTree(self.defs)
        self._import_starts = [i.start for i in self.imports]
        self._scopes: dict = {}  # scope entity -> (names, label, its index in defs)
        self._def_index: dict | None = None  # entity -> its index in defs, made when a scope is first seen
        self._context_mode = params.get("context_mode", "full")
        unit = params.get("unit", "bytes")
        self._plain = unit == "chars" or (unit == "bytes" and doc._ascii)  # size is e - s
        self._line_tokens: list[int] | None = None
        if unit == "chars":
            self.measure = lambda s, e: e - s
        elif unit == "bytes":
            self.measure = lambda s, e: doc.byte_offset(e) - doc.byte_offset(s)
        else:
            counter = ctx.counter("tokens")
            self.measure = lambda s, e: counter.count(doc.text[s:e])
            starts = doc.line_starts
            counts = counter.count_spans(doc.text, [(a, b) for a, b in zip(starts, starts[1:] + [len(doc.text)])])
            self._line_tokens = list(accumulate(counts, initial=0))

    def fits(self, s: int, e: int, limit: int) -> bool:
        """Does [s, e) (whole lines) fit `limit`? Tokens are estimated from per-line counts and
        counted exactly only near the limit, so sizing stays linear in the file."""
        if self._line_tokens is None or e <= s:
            return self.measure(s, e) <= limit
        doc = self.doc
        estimate = self._line_tokens[doc.line_of(e - 1)] - self._line_tokens[doc.line_of(s) - 1]
        if estimate <= 0.8 * limit:
            return True
        if estimate > 1.25 * limit:
            return False
        return self.measure(s, e) <= limit

    # -- boundaries --------------------------------------------------------------------
    def span_fits(self, limit: int):
        """`fits` at a fixed limit, as plain arithmetic where the unit allows (chars; bytes of ASCII)."""
        if self._plain:
            return lambda s, e: e - s <= limit
        return lambda s, e: self.fits(s, e, limit)

    def atoms(self, limit: int) -> list[tuple]:
        bounds = self.pf.row_starts  # bounds[r]: where 0-based row r starts; one more ends the last
        fits = self.span_fits(limit)
        if self._plain:
            rows_fit = lambda a, b: bounds[b + 1] - bounds[a] <= limit  # noqa: E731
        else:
            rows_fit = lambda a, b: fits(bounds[a], bounds[b + 1])  # noqa: E731
        # JavaScript's require('x') statements are imports by where they start, not by their kind
        required = frozenset(i.start_byte for i in self.imports) if self.language in _JS_LIKE else frozenset()
        return _Atomizer(self.pf, rows_fit, bounds, required, limit if self._plain else None).atoms()

    def sized_cores(self) -> tuple[list[tuple[int, int, bool]], list]:
        limit = self.params["size"]
        runs, gaps = _runs(self.atoms(limit), self.params.get("filter_imports", False))
        cores = []
        fits, half = self.span_fits(limit), self.span_fits(limit // 2)
        for run in runs:
            self.ctx.check()
            cores += _merge(run, fits, lambda s, e: not half(s, e))
        return cores, gaps

    def toplevel_cores(self) -> list[tuple[int, int, bool]]:
        """One chunk per top-level definition; the preamble joins the first one."""
        doc = self.doc
        top_rows = {e.start_line - 1 for e in self.defs if e.parent is None}
        root = self.pf.root
        groups = _groups(root.children, self.pf.grammar.comment_ids) if root.child_count else []
        starts, seen_first = [], False
        for first, last, g, _ in groups:
            if any(first <= r <= last for r in top_rows) and any(not _is_comment(n) for n in g):
                if seen_first:
                    starts.append(doc.line_start(first + 1))
                seen_first = True
        bounds = [0] + starts + [len(doc.text)]
        return [(a, b, False) for a, b in zip(bounds, bounds[1:]) if b > a]

    # -- spans -------------------------------------------------------------------------
    def spans(self, cores, overlap_lines: int = 0, limit: int | None = None) -> SpanTable:
        doc = self.doc
        starts: list[int] = []
        types: list[str] = []
        labels: list[str] = []
        rows: list[tuple] = []
        fits = self.span_fits(limit) if limit is not None else None
        for i, (s, e, oversized) in enumerate(cores):
            self.ctx.check()
            start = s
            if i and overlap_lines and not oversized and cores[i - 1][1] == s:
                first = doc.line_of(s)
                lo = max(doc.line_of(cores[i - 1][0]), first - overlap_lines)
                while lo < first and limit is not None and not self.fits(doc.line_start(lo), e, limit):
                    lo += 1
                start = doc.line_start(lo)
            btype, label, row = self.describe(i, start, s, e, fits is not None and not fits(s, e))
            starts.append(start)
            types.append(btype)
            labels.append(label)
            rows.append(row)
            if i % 64 == 0:
                self.ctx.progress(0.5 + 0.5 * i / max(1, len(cores)))
        describer = _Describer(self, rows)
        metadata = CodeMetadata(self.language, describer)
        ends = [e for _, e, _ in cores]
        contexts = CodeContexts(describer) if self._context_mode != "none" else None
        return SpanTable(starts, ends, types, labels, metadata, contexts)

    def describe(self, index: int, start: int, core_s: int, core_e: int, oversized: bool) -> tuple:
        """The boundary type, label and `CodeMetadata` row of the chunk [start, core_e) whose own
        lines (no overlap) start at core_s. Its siblings, the imports it uses and its context
        text are left to the first read (see `_Describer`)."""
        text = self.doc.text
        m = _NON_WS.search(text, core_s, core_e)
        s2 = m.start() if m else core_s
        e2 = core_e
        while e2 > s2 and text[e2 - 1].isspace():
            e2 -= 1
        tree = self.tree
        if e2 > s2:
            # what holds the first character; what holds [s2, e2) is a prefix of it (nested
            # definitions end no later than their parents)
            head = tree.chain_for(s2, s2 + 1)
            k = len(head)
            while k and head[k - 1].end < e2:
                k -= 1
            chain = head[:k]
            # a cut in what holds the first character, or else the last (asked only then)
            split = _cuts(head, s2, e2) or _cuts(tree.chain_for(e2 - 1, e2), s2, e2)
        else:
            chain, split = [], False
        d_lo, d_hi = tree.defined_range(core_s, core_e)
        starts = self._import_starts
        i_lo, i_hi = bisect_left(starts, core_s), bisect_left(starts, core_e)
        names, scope_label, scope_index = self._scope_names(chain[-1]) if chain else ((), None, -1)
        btype, label = self._boundary(index, s2, scope_label, self.defs[d_lo:d_hi], self.imports[i_lo:i_hi])
        line_starts = self.doc.line_starts
        row = (
            names,
            d_lo,
            d_hi,
            i_lo,
            i_hi,
            scope_index,
            start,
            core_e,
            split,
            bisect_right(line_starts, core_s),  # doc.line_range(core_s, core_e)
            bisect_right(line_starts, max(core_s, core_e - 1)),
            oversized,
        )
        return btype, label, row

    def _scope_names(self, scope) -> tuple[tuple[str, ...], str, int]:
        """A scope's chain of names, their `A > b` form and its index in defs, made once per scope
        (many chunks share one)."""
        found = self._scopes.get(scope)
        if found is None:
            if self._def_index is None:
                self._def_index = {e: k for k, e in enumerate(self.defs)}  # entities hash by identity
            names = tuple(scope.chain)
            found = self._scopes[scope] = (names, " > ".join(names), self._def_index[scope])
        return found

    def _boundary(self, index, s2, scope_label, defined, local_imports) -> tuple[str, str]:
        for d in defined:
            if d.extent_start <= s2 <= d.start or d.start == s2:
                return _BOUNDARY.get(d.kind, "entity"), one_line(d.signature)
        if local_imports and local_imports[0].start <= s2 + 1:
            return "import", one_line(local_imports[0].signature)
        if scope_label is not None:
            return "statement", one_line(scope_label)
        text = self.doc.text
        nl = text.find("\n", s2, s2 + 200)
        first_line = text[s2 : nl if nl >= 0 else s2 + 80]
        return ("start" if index == 0 else "block"), one_line(first_line, 80)

    def warnings(self) -> list[str]:
        if not self.pf.root.has_error:
            return []
        lines = self.pf.error_lines()
        where = (
            f"near line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:10]))}"
            if lines
            else "(missing tokens)"
        )
        return [f"{self.doc.path or '<text>'}: syntax errors {where}; chunked along the parts that parsed"]


def run_code(doc, params: dict, ctx, *, toplevel: bool = False) -> Proposal:
    """The `code` and `code-toplevel` strategies."""
    ck = CodeChunker(doc, params, ctx)
    ctx.progress(0.2)
    if toplevel:
        cores, gaps = ck.toplevel_cores(), list[tuple[int, int, str]]()
        spans = ck.spans(cores)
    else:
        cores, gaps = ck.sized_cores()
        spans = ck.spans(cores, params["overlap_lines"], params["size"])
    notes = [f"{ck.language}: {_count(len(ck.defs), 'definition')}, {_count(len(ck.imports), 'import')}"]
    warnings = ck.warnings()
    big = cast(CodeMetadata, spans.metadata).oversized_count()
    if big:  # minified code or a huge literal: say why a chunk breaks the limit the user set
        warnings.append(
            f"{ck.doc.path or '<text>'}: {_count(big, 'chunk')} over the size limit "
            f"({params['size']:,} {params.get('unit', 'bytes')}): a statement or line too "
            "big to cut, marked oversized"
        )
    return Proposal(spans, gaps=gaps, warnings=warnings, notes=notes)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
