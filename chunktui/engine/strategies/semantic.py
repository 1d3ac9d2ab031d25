"""`semantic` (aiwg semantic-boundary): about `size` lines a chunk, cut at the best boundary near the target.

Every line is classified once as a possible chunk start, with a score:
markdown heading H1-H3 (6), H4-H6 (5), class-like definition (4), function (3),
first line after an import block (2), paragraph start after a blank line (1);
nested definitions and paragraphs score 0.5 less, and a definition's
decorators, attributes and doc comments move its cut up to them. Headings count
only in markdown and prose (outside fenced code), definitions and imports only
in source code (regexes for Python, JS/TS, Go, Rust, Java/C#/C/C++, Ruby,
shell), so a `# comment` is never a heading; logs, mail, data and config are
cut at blank lines. Nothing inside a string, docstring or comment is a boundary
(a docstring's `class C:` example is text): for code with a tree-sitter grammar
the syntax tree tells which lines start inside one, elsewhere triple-quoted and
fenced blocks are skipped. Code chunks carry the scope chain of their first core
line (by indentation), markdown chunks the header path.

The next cut is the best-scoring line within +-25% of the target, the closest
to the target on ties; with no candidate it is a hard cut at the target
("line"). A tail no longer than target + 25% joins the last chunk. As in aiwg,
each chunk starts `overlap` lines before its cut, repeating the previous
chunk's last lines; boundary_type/label describe the cut that starts the chunk.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from collections.abc import Callable

from . import Order, Param, Proposal, Strategy, register
from ..core.derived import derived
from ..core.errors import ChunkingError
from ..core.model import Span, one_line
from ..core.tokens import DEFAULT_BUDGET
from .markdown import heading_label, scan_markdown, split_lines

SCORES = {"heading": 6.0, "class": 4.0, "function": 3.0, "import": 2.0, "paragraph": 1.0}
NESTED_PENALTY = 0.5
WINDOW = 0.25  # the cut may move this share of the target away from it

_ID = r"[A-Za-z_$][\w$]*"
_CLASS_RES = (
    re.compile(
        r"(?:export\s+(?:default\s+)?)?(?:(?:public|private|protected|internal|static|final|abstract|"
        r"sealed|partial|data|open|declare)\s+)*(?:class|interface|enum|struct|record|trait|module|object|namespace)\s+("
        + _ID
        + r"(?:\."
        + _ID
        + ")*)"
    ),
    re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:struct|enum|trait|union|mod)\s+([A-Za-z_]\w*)"),
    re.compile(r"(?:unsafe\s+)?(impl\b(?:\s*<[^>{]*>)?\s+[^{]+?)\s*(?:\bwhere\b.*)?\{?$"),
    re.compile(r"type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\b"),
    re.compile(r"(?:export\s+)?(?:declare\s+)?type\s+(" + _ID + r")\s*(?:<[^=]*>)?\s*="),
)
_FUNC_RES = (
    re.compile(r"(?:async\s+)?def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)"),
    re.compile(r"(?:export\s+(?:default\s+)?)?(?:async\s+)?function\b\s*\*?\s*(" + _ID + ")"),
    re.compile(
        r"(?:export\s+)?(?:const|let|var)\s+(" + _ID + r")\s*(?::[^=]*)?=\s*(?:async\s+)?"
        r"(?:function\b|(?:<[^>]*>\s*)?(?:\([^)]*\)|" + _ID + r")\s*(?::[^=]*)?=>|\($)"
    ),
    re.compile(r"func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"),
    re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern(?:\s+\"[^\"]*\")?)\s+)*fn\s+([A-Za-z_]\w*)"),
    re.compile(r"function\s+([A-Za-z_][\w-]*)"),
)
_SHELL_FUNC = re.compile(r"([A-Za-z_][\w-]*)\s*\(\)\s*\{")
_FIRST_WORD = re.compile(r"[\w$]+")
# words that can open a definition matched by _CLASS_RES / _FUNC_RES
_DEF_WORDS = frozenset(
    "export async def class function const let var func pub fn impl unsafe type struct enum trait union mod "
    "interface record module object public private protected internal static final abstract sealed partial "
    "data open declare extern namespace".split()
)
# lines that continue the definition above them rather than close it: a brace or bracket
# on its own line, the end of a multi-line signature, a C++ access label
_CONTINUES = re.compile(r"[{)\]]|(?:public|private|protected)\s*:")
# Java / C# / C / C++ / TypeScript method signatures: modifiers and types, a name, an open parameter list.
_SIGNATURE = re.compile(
    r"((?:[\w$<>\[\],.?*&:]+\s+)*?)(~?" + _ID + r")\s*(?:<[^>()]*>)?\s*\([^;]*?(?:\{\}?|\)|,|\()\s*$"
)
_NOT_NAMES = frozenset(
    "if for while switch catch return new throw typeof else do try finally using lock foreach sizeof case await "
    "yield delete super this function print elif except with assert raise not and or in is".split()
)
_IMPORT = re.compile(
    r"(?:import\b|from\s+\.*[\w.]*\s+import\b|use\s+[\w:{]|using\s+[\w.=\s]+;|#\s*include\b|require\b|"
    r"package\s+[\w.]+\s*;?\s*$|extern\s+crate\b|export\s+(?:\*|\{[^}]*\})\s*from\b|"
    r"(?:const|let|var)\s+[\w{}\s,]+=\s*require\()"
)
_PARAGRAPH = re.compile(r"^[ \t\r]*\n(?=[ \t]*\S)", re.M)  # a blank line before a non-blank one
_QUOTED = re.compile(r'"""|\'\'\'|```')  # opens and closes a block where no syntax tree is at hand
_COMMENT_PREFIXES = ("#", "//", "/*", "*", "@", "--")
_NO_SIGNATURE_LANGS = frozenset({"python", "ruby", "bash"})


@dataclass
class Lines:
    """Per-line classification, computed once: index i is line i (1-based), index 0 unused."""

    lines: list[str]
    score: list[float]
    kind: list[str | None]
    label: list[str]
    context_key: str  # "header_path" (markdown) or "scope_chain" (code)
    context_lines: list[int] = field(default_factory=lambda: [0])  # lines where the context changes
    context_values: list[tuple[str, ...]] = field(default_factory=lambda: [()])

    @property
    def count(self) -> int:
        return len(self.lines)

    def set_context(self, line: int, value: tuple[str, ...]) -> None:
        """From `line` on, `value` is in force (lines must come in order)."""
        if self.context_lines[-1] == line:
            self.context_values[-1] = value
        elif self.context_values[-1] != value:
            self.context_lines.append(line)
            self.context_values.append(value)

    def context(self, line: int) -> tuple[str, ...]:
        """Header path or scope chain in force at `line`."""
        return self.context_values[bisect_right(self.context_lines, line) - 1]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _balance(line: str) -> int:
    return line.count("(") + line.count("{") - line.count(")") - line.count("}")


def _definition(stripped: str, allow_signature: bool) -> tuple[str, str] | None:
    """("class" | "function", label) when the line opens a definition."""
    word = _FIRST_WORD.match(stripped)
    if word and word.group() in _DEF_WORDS:
        for rx in _CLASS_RES:
            m = rx.match(stripped)
            if m:
                return "class", m.group(1).strip()
        for rx in _FUNC_RES:
            m = rx.match(stripped)
            if m:
                return "function", m.group(1) + "()"  # every pattern's one group names the function
    elif "()" in stripped:
        m = _SHELL_FUNC.match(stripped)
        if m:
            return "function", m.group(1) + "()"
    if (
        allow_signature
        and "(" in stripped
        and len(stripped) < 300
        and not stripped.endswith(";")
        and not any(q in stripped for q in "\"'`")
        and "=>" not in stripped
    ):
        m = _SIGNATURE.match(stripped)
        if m and m.group(2) not in _NOT_NAMES:
            words = m.group(1).split()
            if not (words and words[0] in _NOT_NAMES) and (words or stripped.endswith(("{", "{}"))):
                return "function", m.group(2) + "()"
    return None


def _short(text: str, width: int = 40) -> str:
    text = one_line(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def classify(doc) -> Lines:
    """Score every line of `doc` as a chunk start; one pass, no per-chunk rescans.

    Once per document, kind and language (shared, read-only): re-chunking with
    new parameters reuses it.
    """
    return derived(doc, ("semantic_lines", doc.kind, doc.language), lambda: _classify(doc))


def _classify(doc) -> Lines:
    lines = split_lines(doc.text, doc.line_count)
    n = len(lines)
    markdown = doc.kind in ("markdown", "prose")
    cls = Lines(lines, [0.0] * (n + 2), [None] * (n + 2), [""] * (n + 2), "header_path" if markdown else "scope_chain")
    score, kind, label = cls.score, cls.kind, cls.label

    def mark(i: int, k: str, lab: str, value: float) -> None:
        if value > score[i]:
            score[i], kind[i], label[i] = value, k, lab

    if markdown:
        scan = scan_markdown(doc)
        starts = doc.line_starts
        for m in _PARAGRAPH.finditer(doc.text):
            i = bisect_right(starts, m.end())
            if i <= n and not scan.in_fence[i]:
                mark(i, "paragraph", _short(lines[i - 1]), SCORES["paragraph"])
        path: tuple[tuple[int, str], ...] = ()
        for i, level, title in scan.headings:
            path = tuple(p for p in path if p[0] < level) + ((level, title),)
            mark(i, "heading", heading_label(level, title), SCORES["heading"] - (level > 3))
            cls.set_context(i, tuple(t for _, t in path))
        return cls

    code = doc.kind == "code"  # elsewhere (logs, mail, data, config) only blank lines are boundaries
    quoted = _quoted_lines(doc, n)
    allow_signature = doc.language not in _NO_SIGNATURE_LANGS
    stack: list[tuple[int, str]] = []  # open definitions: (indent, name)
    import_depth = 0  # open brackets of a multi-line import
    after_imports = False
    comment_start = 0  # first line of the comment run just before the current line
    prev_blank = True
    for i in range(1, n + 1):
        if quoted[i]:  # text of a string or comment: no boundary, no scope change
            prev_blank = False
            continue
        line = lines[i - 1]
        stripped = line.strip()
        if not stripped:
            prev_blank = True
            comment_start = 0
            continue
        if import_depth > 0:
            import_depth += _balance(line)
            prev_blank = False
            continue
        indent = _indent(line)
        if code and indent == 0 and _IMPORT.match(stripped):
            import_depth = max(0, _balance(stripped))
            after_imports, comment_start, prev_blank = True, 0, False
            continue
        is_comment = code and stripped.startswith(_COMMENT_PREFIXES)
        closed = False
        while stack and not is_comment and indent <= stack[-1][0] and not _CONTINUES.match(stripped):
            stack.pop()
            closed = True
        found = _definition(stripped, allow_signature) if code and not is_comment else None
        first = comment_start or i
        if found:
            k, lab = found
            stack.append((indent, lab.rstrip("()")))
            mark(first, k, lab, SCORES[k] - (NESTED_PENALTY if indent else 0))
        if found or closed:  # a definition's decorators and doc comments belong to its scope
            cls.set_context(first if found else i, tuple(name for _, name in stack))
        if after_imports and not is_comment:
            mark(first, "import", "after imports", SCORES["import"])
            after_imports = False
        if prev_blank and i > 1:
            mark(i, "paragraph", _short(stripped), SCORES["paragraph"] - (NESTED_PENALTY if indent else 0))
        comment_start = (comment_start or i) if is_comment else 0
        prev_blank = False
    return cls


def _quoted_lines(doc, n: int) -> bytearray:
    """Index 1..n: 1 on a line that starts inside a string, docstring or comment opened on an
    earlier line. Code with a grammar asks the syntax tree; other text (or code whose grammar is
    missing) pairs up triple quotes and fences, found in one pass over the text."""
    flags = bytearray(n + 2)
    spans = _string_rows(doc) if doc.kind == "code" else None
    if spans is None:
        spans, opened = [], None
        for m in _QUOTED.finditer(doc.text):
            if opened is None:
                opened = m
            elif m.group() == opened.group():
                spans.append((doc.line_of(opened.start()) + 1, doc.line_of(m.start())))
                opened = None
        # an opener never closed is a stray quote in a log line, not a string to the end of the
        # file: left unpaired, it keeps every boundary after it
    for first, last in spans:
        if first <= last:
            flags[first : last + 1] = b"\x01" * (last - first + 1)
    return flags


def _string_rows(doc) -> list[tuple[int, int]] | None:
    """(first, last) 1-based lines after the opening line of every multi-line string or comment
    of `doc`'s syntax tree, or None without a grammar for its language. Only nodes spanning lines
    are opened, so the walk costs about one step a line."""
    from ..code.languages import SPECS
    from ..code.parse import last_row, parse

    if doc.language not in SPECS:
        return None
    try:
        root = parse(doc, doc.language).root
    except (ChunkingError, ImportError):  # a grammar wheel missing or broken
        return None
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        for child in stack.pop().children:
            first, last = child.start_point[0], last_row(child)
            if first == last:
                continue
            kind = child.type
            if "string" in kind or "comment" in kind or "heredoc" in kind or kind == "text_block":
                spans.append((first + 2, last + 1))  # rows are 0-based: the lines after the first
            else:
                stack.append(child)
    return spans


def best_cut(cls: Lines, first: int, target: int) -> int:
    """The line to start the next chunk at, for a chunk whose core starts at `first`."""
    centre = first + target
    reach = int(target * WINDOW)
    lo, hi = max(first + 1, centre - reach), min(cls.count, centre + reach)
    best, best_key = min(centre, cls.count), (0.0, 0)
    score = cls.score
    for i in range(lo, hi + 1):
        key = (score[i], -abs(i - centre))
        if key > best_key:
            best, best_key = i, key
    return best


class TokenCap:
    """Fits line ranges to a token cap, by bisection on exact counts of the run's tokenizer (one
    encoding of the text, kept for a big one, then a few characters a count)."""

    def __init__(self, doc, ctx, limit: int):
        self.doc, self.limit = doc, limit
        counter = ctx.counter("tokens")
        index = counter.span_index(doc.text) if hasattr(counter, "span_index") else None
        self.count: Callable[[int, int], int] = (
            index.count if index is not None else (lambda s, e: counter.count(doc.text[s:e]))
        )

    def fits(self, first: int, last: int) -> bool:
        return self.count(self.doc.line_start(first), self.doc.line_end(last)) <= self.limit

    def fit(self, start: int, core: int, last: int) -> tuple[int, int, bool]:
        """(start, last, oversized) for lines start..last whose core starts at `core`: the last line
        moved up until they fit, the overlap (start..core-1) shortened only when the first core
        line alone does not fit with it; `oversized` when that line alone is over the cap."""
        if self.fits(start, last):
            return start, last, False
        if self.fits(start, core):
            lo, hi = core, last - 1  # the greatest last line that fits
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if self.fits(start, mid) else (lo, mid - 1)
            return start, lo, False
        lo, hi = min(start + 1, core), core  # the least overlap start that fits with the core's first line
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.fits(mid, core) else (mid + 1, hi)
        return lo, core, not self.fits(core, core)


def _best_up_to(cls: Lines, first: int, limit: int) -> int:
    """The cut at or before `limit` for a core starting at `first`: the best boundary in the second
    half of the lines that fit, the latest on ties, else `limit`."""
    best, best_score = limit, 0.0
    for i in range(limit, max(first + 1, (first + limit + 1) // 2) - 1, -1):
        if cls.score[i] > best_score:
            best, best_score = i, cls.score[i]
    return best


def plan(
    doc,
    ctx,
    cls: Lines,
    target_for: Callable[[int], int],
    overlap: int,
    extra: Callable[[int, int], dict] | None = None,
    max_tokens: int = 0,
) -> list[Span]:
    """Spans whose cores tile the lines, each cut chosen by `best_cut` around `target_for(core_start)`,
    then moved up (to the best boundary in the second half of what fits) while the chunk is over
    `max_tokens` (0: no cap)."""
    n = cls.count
    cap = TokenCap(doc, ctx, max_tokens) if max_tokens else None
    spans: list[Span] = []
    first = 1
    while first <= n:
        ctx.check()
        ctx.progress((first - 1) / n)
        target = max(1, target_for(first))
        if n - first + 1 <= target + int(target * WINDOW):
            cut = n + 1
        else:
            cut = best_cut(cls, first, target)
        start_line = max(1, first - overlap)
        oversized = False
        if cap is not None:
            start_line, last, oversized = cap.fit(start_line, first, cut - 1)
            if last < cut - 1:
                cut = _best_up_to(cls, first, last + 1)
        if (kind := cls.kind[first]) is not None:
            btype, blabel = kind, cls.label[first]
        elif first == 1:
            btype, blabel = "start", "start"
        else:
            btype, blabel = "line", f"line {first}"
        meta: dict[str, object] = {"core_start_line": first, "core_end_line": cut - 1}
        context = cls.context(first)
        if context:
            meta[cls.context_key] = list(context)
        if extra is not None:
            meta.update(extra(first, target))
        if oversized:
            meta["over_max_tokens"] = True  # not `oversized`: that says over the size in lines
        spans.append(Span(doc.line_start(start_line), doc.line_end(cut - 1), btype, blabel, metadata=meta))
        first = cut
    return spans


def run(doc, params, ctx) -> Proposal:
    size = params["chunk_lines"]
    return Proposal(
        plan(doc, ctx, classify(doc), lambda _first: size, params["overlap_lines"], max_tokens=params["max_tokens"])
    )


def overlap_lines_param() -> Param:
    """The overlap of the strategies sized in lines (lines, semantic, adaptive), declared once."""
    return Param(
        "overlap_lines",
        "int",
        20,
        "Lines each chunk repeats from the end of the previous one.",
        min=0,
        max=1_000_000,
        step=5,
        aliases=("overlap",),
    )


def max_tokens_param() -> Param:
    """The token cap of the strategies sized in lines: 200 lines of a config file, an XML table or an
    API reference are 2,000-2,800 tokens, four times the default budget, so by default a chunk
    also stops before the budget."""
    return Param(
        "max_tokens",
        "int",
        DEFAULT_BUDGET,
        "Most tokens per chunk, overlap included: the cut moves "
        "up to fit (0: no cap); one line over it alone is flagged over_max_tokens.",
        min=0,
        max=10_000_000,
        step=64,
    )


def max_lines(size: int, overlap: int) -> int:
    """Longest chunk for a target of `size` lines: the target, the window beyond it, the overlap."""
    return size + int(size * WINDOW) + overlap


register(
    Strategy(
        name="semantic",
        summary="About `chunk_lines` lines a chunk, cut at the best heading, definition, import-block end or blank line near the "
        "target (never inside a string, docstring or comment).",
        params=(
            Param(
                "chunk_lines",
                "int",
                200,
                "Target lines per chunk; the cut may move up to 25% to reach a boundary.",
                min=1,
                max=1_000_000,
                step=10,
                aliases=("size",),
            ),
            overlap_lines_param(),
            max_tokens_param(),
        ),
        run=run,
        aliases=("semantic-boundary",),
        kinds=("code", "markdown"),
        constraints=(Order("overlap_lines", "chunk_lines"),),
        size_param="chunk_lines",
        overlap_param="overlap_lines",
        max_size=lambda p: ("lines", max_lines(p["chunk_lines"], p["overlap_lines"])),
    )
)
