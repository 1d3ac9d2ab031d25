"""semantic (semantic-boundary): cuts land on the best structural boundary near the target."""

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, ParamError, chunk_document, get_strategy, load_document
from chunktui.engine.strategies.markdown import scan_markdown, split_lines
from chunktui.engine.strategies.semantic import classify

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"


def para(n: int, word: str = "text") -> list[str]:
    return [f"{word} line {i} of a paragraph that has no structure" for i in range(n)]


def run(text: str, kind: str, language: str | None = None, **params):
    doc = Document(text=text, kind=kind, language=language)
    cs = chunk_document(doc, "semantic", params)
    for c in cs.chunks:
        assert c.text == text[c.start : c.end]
    return cs


def test_heading_beats_a_blank_line_closer_to_the_target():
    # size 20: the cut may fall on lines 16..26; a paragraph starts at 21 (the target), a heading at 24
    lines = ["# Guide"] + para(18) + [""] + para(3) + ["## Install"] + para(30)
    cs = run("\n".join(lines) + "\n", "markdown", size=20, overlap=0)
    second = cs.chunks[1]
    assert second.start_line == 24
    assert (second.boundary_type, second.boundary_label) == ("heading", "## Install")
    assert second.metadata["header_path"] == ["Guide", "Install"]
    assert cs.chunks[0].boundary_type == "heading" and cs.chunks[0].boundary_label == "# Guide"


def test_closest_boundary_wins_among_equals():
    lines = para(17) + [""] + para(3) + [""] + para(40)  # paragraphs start at 19 and 23; target 21
    cs = run("\n".join(lines), "prose", size=20, overlap=0)
    assert cs.chunks[1].start_line == 19
    assert cs.chunks[1].boundary_type == "paragraph"


def test_hash_comment_inside_a_code_fence_is_not_a_heading():
    lines = (
        ["# Setup"]
        + para(15)
        + ["```bash"]
        + [f"echo step {i}" for i in range(3)]
        + ["# configure the thing", "make install"]
        + [f"echo more {i}" for i in range(10)]
        + ["```"]
        + para(20)
    )
    text = "\n".join(lines) + "\n"
    cs = run(text, "markdown", size=20, overlap=0)
    assert all(c.boundary_label != "# configure the thing" for c in cs.chunks)
    assert all("configure the thing" not in c.metadata.get("header_path", []) for c in cs.chunks)
    # no candidate in the window (16..26 is inside the fence): a hard cut at the target line
    assert cs.chunks[1].start_line == 21 and cs.chunks[1].boundary_type == "line"


def test_no_boundary_falls_back_to_exact_size_cuts():
    text = "\n".join(f"row {i}" for i in range(95))  # the last 35 lines fit 30 + 25%: one tail chunk
    cs = run(text, "log", size=30, overlap=0)
    assert [(c.start_line, c.end_line) for c in cs.chunks] == [(1, 30), (31, 60), (61, 95)]
    assert [c.boundary_type for c in cs.chunks] == ["start", "line", "line"]


def test_overlap_repeats_the_previous_chunks_last_lines():
    text = "\n".join(f"row {i}" for i in range(95))
    cs = run(text, "log", size=30, overlap=5)
    a, b, c = cs.chunks
    assert (a.start_line, a.end_line) == (1, 30)
    assert (b.start_line, b.end_line) == (26, 60)
    assert b.metadata["core_start_line"] == 31
    assert b.overlap_prev_lines == 5 and a.overlap_next_lines == 5
    assert b.text.startswith("row 25\n")


def test_tail_within_the_window_joins_the_last_chunk():
    text = "\n".join(f"row {i}" for i in range(24))  # 24 <= 20 + 25%
    assert len(run(text, "log", size=20, overlap=0).chunks) == 1


PYTHON = '''"""Module doc."""

import os
from typing import (
    Any,
    Dict,
)

LIMIT = 3


def helper(x):
    return x + 1


@dataclass
class Store:
    """A store."""

    items: Dict[str, Any]

    def get(self, key):
        value = self.items[key]

        return value
'''


def test_python_definitions_imports_and_decorators():
    cls = classify(Document(text=PYTHON, kind="code", language="python"))
    found = {i: (cls.kind[i], cls.label[i]) for i in range(1, cls.count + 1) if cls.kind[i] not in (None, "paragraph")}
    assert found == {
        9: ("import", "after imports"),  # first line after the multi-line import block
        12: ("function", "helper()"),
        16: ("class", "Store"),  # the decorator line, not the class line
        22: ("function", "get()"),
    }
    assert cls.context(22) == ("Store", "get")
    assert cls.context(16) == ("Store",) and cls.context(13) == ("helper",)
    assert cls.score[16] > cls.score[12] > cls.score[22] > cls.score[9]


def test_class_beats_function_in_the_window():
    body = [f"    x{i} = {i}" for i in range(8)]
    lines = ["def a():"] + body + ["", "def b():"] + body + ["", "class C:"] + body * 4
    cs = run("\n".join(lines) + "\n", "code", "python", size=16, overlap=2)
    second = cs.chunks[1]
    assert second.metadata["core_start_line"] == 21
    assert (second.boundary_type, second.boundary_label) == ("class", "C")
    assert second.metadata["scope_chain"] == ["C"]
    assert second.start_line == 19  # two overlap lines before the cut


@pytest.mark.parametrize(
    "language, line, expected",
    [
        ("typescript", "export class AuthMiddleware {", ("class", "AuthMiddleware")),
        ("typescript", "export async function loadKeys(url: string) {", ("function", "loadKeys()")),
        (
            "typescript",
            "export const extractBearer = (header?: string): string | undefined => {",
            ("function", "extractBearer()"),
        ),
        ("typescript", "export const pick = <T>(...xs: T[]): T =>", ("function", "pick()")),
        ("typescript", "  async validateToken(token: string): Promise<TokenClaims> {", ("function", "validateToken()")),
        ("typescript", "export interface TokenClaims {", ("class", "TokenClaims")),
        ("go", "func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {", ("function", "Handle()")),
        ("go", "type Server struct {", ("class", "Server")),
        ("rust", "pub async fn fetch(url: &str) -> Result<String> {", ("function", "fetch()")),
        ("rust", "impl Display for Token {", ("class", "impl Display for Token")),
        ("rust", "pub(crate) trait Store {", ("class", "Store")),
        (
            "java",
            "    public static List<String> parseLines(String raw) throws IOException {",
            ("function", "parseLines()"),
        ),
        ("java", "public final class Parser {", ("class", "Parser")),
        ("csharp", "    private async Task<int> CountAsync(CancellationToken ct)", ("function", "CountAsync()")),
        ("c", "static int parse_header(const char *buf, size_t len)", ("function", "parse_header()")),
        ("bash", "deploy() {", ("function", "deploy()")),
    ],
)
def test_definitions_in_common_languages(language, line, expected):
    cls = classify(Document(text=f"x\n\n{line}\n", kind="code", language=language))
    assert (cls.kind[3], cls.label[3]) == expected


@pytest.mark.parametrize(
    "line",
    [
        "    if (ready) {",
        "    return compute(a, b)",
        "  const value = compute(a);",
        "    foo.bar(x);",
        "  } else if (x) {",
        "    print(value)",
        "  describe('thing', () => {",
        "> Pricing for the Team tier is still undecided (Priya?).",
    ],
)
def test_statements_are_not_definitions(line):
    cls = classify(Document(text=f"x\n{line}\n", kind="code", language="typescript"))
    assert cls.kind[2] is None


@pytest.mark.parametrize(
    "language, text, line, scope",
    [
        (
            "csharp",
            "namespace Demo\n{\n    public class Greeter\n    {\n        public void Greet(string name)\n"
            "        {\n            Console.WriteLine(name);\n        }\n    }\n}\n",
            7,
            ("Demo", "Greeter", "Greet"),
        ),
        ("python", "class A:\n    def run(\n        self,\n    ) -> None:\n        work()\n", 5, ("A", "run")),
        (
            "cpp",
            "class Point {\npublic:\n    double norm() const {\n        return 1;\n    }\n};\n",
            4,
            ("Point", "norm"),
        ),
        ("ruby", "class Report\n  def self.load(text)\n    parse(text)\n  end\nend\n", 3, ("Report", "load")),
    ],
)
def test_scope_chain_survives_braces_signatures_and_access_labels(language, text, line, scope):
    assert classify(Document(text=text, kind="code", language=language)).context(line) == scope


def test_only_source_code_gets_definitions_and_imports():
    text = "import os\n\ndef handler(event):\n    return event\n"
    for kind in ("email", "log", "config"):
        cls = classify(Document(text=text, kind=kind))
        assert [cls.kind[i] for i in range(1, 5)] == [None, None, "paragraph", None]


def test_params_are_validated_and_alias_resolves():
    assert get_strategy("semantic-boundary").name == "semantic"
    with pytest.raises(ParamError):
        chunk_document(Document.from_text("a\n"), "semantic", {"size": 10, "overlap": 10})


def test_guide_md_cuts_at_headings_outside_code_fences():
    doc = load_document(SAMPLES / "guide.md")
    size = 40
    cs = chunk_document(doc, "semantic", {"size": size, "overlap": 5})
    lines = split_lines(doc.text, doc.line_count)
    scan = scan_markdown(doc)
    heads = {line: title for line, _, title in scan.headings}
    assert len(cs.chunks) > 2
    for prev, c in zip(cs.chunks, cs.chunks[1:]):
        core = c.metadata["core_start_line"]
        assert not scan.in_fence[core]
        assert core - prev.metadata["core_start_line"] <= size + size // 4
        assert c.start_line == core - 5
        if c.boundary_type == "heading":
            assert lines[core - 1].lstrip("# ").strip() == heads[core]
            assert c.metadata["header_path"][-1] == heads[core]
    assert sum(c.boundary_type == "heading" for c in cs.chunks) >= len(cs.chunks) - 1


def test_inventory_py_chunks_start_at_definitions():
    doc = load_document(SAMPLES / "inventory.py")
    cs = chunk_document(doc, "semantic", {"size": 40, "overlap": 5})
    lines = split_lines(doc.text, doc.line_count)
    kinds = {c.boundary_type for c in cs.chunks[1:]}
    assert kinds & {"class", "function"}
    for c in cs.chunks[1:]:
        if c.boundary_type in ("class", "function"):
            core = c.metadata["core_start_line"]
            name = c.boundary_label.rstrip("()")
            # the cut is the definition line or the decorators/comments right above it
            following = lines[core - 1 : core + 5]
            assert any(f"def {name}(" in l or f"class {name}" in l for l in following)
            assert c.metadata["scope_chain"][-1] == name


FRAGMENTS = [
    "word ",
    "\n",
    "\n\n",
    "\r\n",
    "# Title\n",
    "## Sub\n",
    "```\n# no\n```\n",
    "def f(x):\n",
    "    return x\n",
    "class A:\n",
    "import os\n",
    "@deco\n",
    "é🎉",
    "\t",
    "x = 1;\n",
]
docs = st.tuples(
    st.lists(st.sampled_from(FRAGMENTS), max_size=150).map("".join),
    st.sampled_from([("markdown", None), ("code", "python"), ("prose", None), ("code", "java")]),
)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(doc=docs, size=st.integers(1, 30), overlap=st.integers(0, 29))
def test_cores_tile_the_lines_within_the_window(doc, size, overlap):
    assume(overlap < size)
    text, (kind, language) = doc
    d = Document(text=text, kind=kind, language=language)
    cs = chunk_document(d, "semantic", {"size": size, "overlap": overlap})
    expected = 1
    for i, c in enumerate(cs.chunks):
        core_a, core_b = c.metadata["core_start_line"], c.metadata["core_end_line"]
        assert core_a == expected and c.end_line == core_b
        assert c.start_line == max(1, core_a - overlap)
        assert core_b - core_a + 1 <= size + size // 4
        if i + 1 < len(cs.chunks):
            assert core_b - core_a + 1 >= size - size // 4
        expected = core_b + 1
    assert expected == d.line_count + 1


# As dataclasses.py documents astuple(): the docstring's example holds a decorator, a class and
# a blank line, none of which is a boundary of the code (a cut landed there, as class "C").
ASTUPLE = '''"""Utilities for record classes."""

import copy


def astuple(obj, *, tuple_factory=tuple):
    """Return the fields of a dataclass instance as a new tuple of field values.

    Example usage::

      @dataclass
      class C:
          x: int
          y: int

      def total(c):
          return c.x + c.y

      c = C(1, 2)
      assert astuple(c) == (1, 2)

    If given, 'tuple_factory' will be used instead of built-in tuple.
    """
    if not hasattr(obj, "__dataclass_fields__"):
        raise TypeError("astuple() should be called on dataclass instances")
    return _astuple_inner(obj, tuple_factory)


def _astuple_inner(obj, tuple_factory):
    return tuple_factory(copy.deepcopy(v) for v in vars(obj).values())
'''


@pytest.mark.parametrize("language", ["python", None])  # the syntax tree; triple quotes without one
def test_definitions_and_blank_lines_inside_a_docstring_are_not_boundaries(language):
    doc = Document(text=ASTUPLE, kind="code", language=language)
    cls = classify(doc)
    docstring = range(ASTUPLE.splitlines().index("      @dataclass") - 3, ASTUPLE.splitlines().index('    """') + 2)
    assert [i for i in docstring if cls.kind[i] is not None] == []
    assert (cls.kind[6], cls.label[6]) == ("function", "astuple()")
    assert cls.context(20) == ("astuple",) and cls.context(26) == ("astuple",)
    for strategy in ("semantic", "adaptive"):
        for c in chunk_document(doc, strategy, {"size": 12, "overlap": 0}).chunks:
            assert c.boundary_label != "C" and "C" not in c.metadata.get("scope_chain", ())


def test_a_block_comment_and_a_template_string_hold_no_definitions():
    text = (
        "/**\n * Usage:\n *\nfunction fake() {}\nclass Fake {}\n */\nexport function real() {\n"
        "  const page = `\n<p>\n\nfunction inPage() {}\n`;\n  return page;\n}\n"
    )
    cls = classify(Document(text=text, kind="code", language="javascript"))
    assert [(i, cls.kind[i], cls.label[i]) for i in range(1, cls.count + 1) if cls.kind[i]] == [
        (1, "function", "real()")
    ]  # the doc comment opens the definition it documents


def test_a_stray_triple_quote_in_a_log_keeps_the_boundaries_after_it():
    """One triple quote that never closes made every later line 'inside a string', so a log's
    blank-line boundaries after it became hard cuts (found by review)."""
    from chunktui.engine import Document, chunk_document

    lines = []
    for i in range(400):
        lines += [
            f"2025-01-01 10:00:{i % 60:02d} INFO request {i}" + (" user typed " + "'" * 3 + "hello" if i == 3 else ""),
            "",
        ]
    text = "\n".join(lines)
    stray = chunk_document(Document.from_text(text, path="app.log", kind="log"), "semantic", {"size": 20, "overlap": 0})
    clean = chunk_document(
        Document.from_text(text.replace("'" * 3, "'"), path="app.log", kind="log"),
        "semantic",
        {"size": 20, "overlap": 0},
    )
    assert [c.boundary_type for c in stray.chunks] == [c.boundary_type for c in clean.chunks]
