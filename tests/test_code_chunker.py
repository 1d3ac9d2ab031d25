"""The `code` strategy on one sample per language: syntax-boundary cuts, scope chains, splits, limits."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from chunktui.engine import Document, chunk_document, load_document
from chunktui.engine.code.languages import UnsupportedLanguageError
from chunktui.engine.code.chunker import CodeChunker
from chunktui.engine.code.parse import parse
from chunktui.engine.strategies import Context

ROOT = Path(__file__).parent.parent
SAMPLES = ROOT / "tests" / "code_samples"

# file -> (a method/function and its full scope chain, a nested definition and its chain or None,
#          a function big enough to split and its chain, a limit in bytes that forces the split)
CASES = {
    "sample_docs/inventory.py": (
        ("reserve", ["InventoryService", "reserve"]),
        ("wrapper", ["audited", "decorator", "wrapper"]),
        ["InventoryService", "reconcile"],
        600,
    ),
    "sample_docs/auth_middleware.ts": (
        ("authorize", ["AuthMiddleware", "authorize"]),
        None,
        ["AuthMiddleware", "validateToken"],
        500,
    ),
    "tests/code_samples/shapes.rs": (
        ("fmt", ["Display for Circle", "fmt"]),
        ("weight", ["summarize", "weight"]),
        ["summarize"],
        300,
    ),
    "tests/code_samples/server.go": (("Name", ["Server", "Name"]), None, ["Server", "HandleGet"], 300),
    "tests/code_samples/Ledger.java": (
        ("add", ["Ledger", "add"]),
        ("changed", ["Ledger", "Listener", "changed"]),
        ["Ledger", "rebuild"],
        300,
    ),
    "tests/code_samples/cart.js": (
        ("add", ["Cart", "add"]),
        ("discountFor", ["checkout", "discountFor"]),
        ["checkout"],
        300,
    ),
    "tests/code_samples/Profile.tsx": (
        ("get", ["ProfileStore", "get"]),
        ("save", ["Profile", "save"]),
        ["Profile"],
        250,
    ),
    "tests/code_samples/buffer.c": (("buffer_append", ["buffer_append"]), None, ["buffer_reserve"], 200),
    "tests/code_samples/geometry.cpp": (("norm", ["geo", "Point", "norm"]), None, ["geo::perimeter"], 100),
    "tests/code_samples/Greeter.cs": (
        ("GreetAll", ["Demo", "Greeter", "GreetAll"]),
        None,
        ["Demo", "Greeter", "GreetAll"],
        150,
    ),
    "tests/code_samples/report.rb": (
        ("totals", ["Reports", "Daily", "totals"]),
        None,
        ["Reports", "Daily", "totals"],
        60,
    ),
    "tests/code_samples/deploy.sh": (("log", ["log"]), None, ["deploy"], 80),
}

# node types a chunk may be cut inside of: module roots, bodies/blocks, definitions and compound statements
CONTAINERS = {
    "module",
    "program",
    "source_file",
    "translation_unit",
    "compilation_unit",
    "block",
    "statement_block",
    "class_body",
    "declaration_list",
    "field_declaration_list",
    "compound_statement",
    "statement_list",
    "body_statement",
    "interface_body",
    "enum_body",
    "switch_body",
    "do_group",
    "function_definition",
    "function_declaration",
    "method_declaration",
    "method_definition",
    "function_item",
    "class_definition",
    "class_declaration",
    "impl_item",
    "trait_item",
    "decorated_definition",
    "export_statement",
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "for_expression",
    "if_expression",
    "else_clause",
    "namespace_definition",
    "namespace_declaration",
    "method",
    "class",
    "constructor_declaration",
    "enhanced_for_statement",
    "foreach_statement",
    "for_in_statement",
    "lexical_declaration",
    "variable_declarator",
    "arrow_function",
    "class_specifier",
    "finally_clause",
    "except_clause",
    "elif_clause",
    "with_statement",
    "catch_clause",
    "singleton_method",
    "match_statement",
    "case_clause",
    "object",
}
ANY_PIECE = re.compile(r"\S")


def run(path, **params):
    doc = load_document(ROOT / path)
    return doc, chunk_document(doc, "code", params)


def cut_offsets(cs):
    """Where each chunk's own part (overlap excluded) ends and the next one's begins."""
    doc = cs.document
    return [doc.line_start(c.metadata["core_end_line"] + 1) for c in cs.chunks[:-1]]


def assert_cuts_between_siblings(cs):
    doc = cs.document
    pf = parse(doc, cs.chunks[0].metadata["language"])
    for cut in cut_offsets(cs):
        m = ANY_PIECE.search(doc.text, cut)
        if m is None:
            continue
        b = doc.byte_offset(m.start())
        node = pf.root
        while True:
            inner = next((ch for ch in node.children if ch.start_byte < b < ch.end_byte), None)
            if inner is None:
                break
            node = inner
        if "comment" in node.type or node.type in ("string", "string_content"):  # a comment or docstring
            node = node.parent if node.type == "string_content" else node  # too long: cut between its lines
            assert doc.text[cut - 1] == "\n" and not fits_whole(doc, node, cs), (doc.path, doc.line_of(cut))
            continue
        assert any(ch.start_byte == b for ch in node.children), (doc.path, doc.line_of(cut), node.type)
        assert node.type in CONTAINERS, (doc.path, doc.line_of(cut), node.type)


def fits_whole(doc, node, cs):
    """Would the comment `node`'s lines, with the line before (a header it may have to go with),
    fit the run's limit (bytes)?"""
    first, last = max(1, node.start_point[0]), node.end_point[0] + 1
    return len(doc.text[doc.line_start(first) : doc.line_end(last)].encode()) <= cs.params["size"]


def assert_covering(doc, cs):
    assert cs.gaps == []
    pos = 0
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert c.start <= pos, "a gap between chunks"
        pos = max(pos, c.end)
    assert pos == len(doc.text)


def measure(doc, c):
    return len(doc.text[c.start : c.end].encode("utf-8"))


@pytest.mark.parametrize("path", sorted(CASES))
@pytest.mark.parametrize("limit", [1500, 300, 120])
def test_chunks_cover_file_cut_between_statements_and_fit(path, limit):
    doc, cs = run(path, max_chunk_size=limit)
    assert_covering(doc, cs)
    assert_cuts_between_siblings(cs)
    for c in cs.chunks:
        assert measure(doc, c) <= limit or c.metadata.get("oversized"), (c.index, c.start_line)
        if c.metadata.get("oversized"):
            assert c.overlap_prev_chars == 0
        assert c.overlap_prev_lines <= 10 + 1
    big = sum(1 for c in cs.chunks if c.metadata.get("oversized"))
    assert cs.warnings == (
        [
            f"{doc.path}: {big} chunk{'s' * (big != 1)} over the size limit ({limit:,} bytes): "
            "a statement or line too big to cut, marked oversized"
        ]
        if big
        else []
    )


@pytest.mark.parametrize("path", sorted(CASES))
def test_method_alone_in_its_chunk_knows_its_scope(path):
    (name, chain), _, _, _ = CASES[path]
    doc = load_document(ROOT / path)
    ck = CodeChunker(doc, {"language": "auto"}, Context())
    ent = next(e for e in ck.defs if e.name == name)
    first, last = doc.line_of(ent.extent_start), ent.end_line
    limit = len(doc.text[doc.line_start(first) : doc.line_end(last)].encode())
    _, cs = run(path, max_chunk_size=limit, overlap_lines=0)
    [c] = [c for c in cs.chunks if c.metadata["core_start_line"] == first and c.metadata["core_end_line"] == last]
    assert c.metadata["scope_chain"] == chain
    assert name in [e["name"] for e in c.metadata["entities"]]
    assert c.metadata["split_entity"] is False
    assert c.label == " > ".join(chain)


@pytest.mark.parametrize("path", [p for p in sorted(CASES) if CASES[p][1]])
def test_nested_function_knows_its_enclosing_function(path):
    _, (name, chain), _, _ = CASES[path]
    doc = load_document(ROOT / path)
    ck = CodeChunker(doc, {"language": "auto"}, Context())
    ent = next(e for e in ck.defs if e.name == name)
    assert ent.chain == chain
    _, cs = run(path)
    holder = [c for c in cs.chunks if name in [e["name"] for e in c.metadata["entities"]]]
    assert holder and all(set(c.metadata["scope_chain"]) <= set(chain) for c in holder)


@pytest.mark.parametrize("path", sorted(CASES))
def test_oversized_function_is_split_at_statements(path):
    _, _, chain, limit = CASES[path]
    doc, cs = run(path, max_chunk_size=limit, overlap_lines=0)
    inside = [c for c in cs.chunks if c.metadata["scope_chain"] == chain]
    pieces = [c for c in cs.chunks if c.metadata["split_entity"]]
    assert len(inside) >= 1 and len(pieces) >= 2, [(c.start_line, c.metadata["scope_chain"]) for c in cs.chunks]
    assert all(c.metadata["split_entity"] for c in inside)
    assert all(c.boundary_type == "statement" for c in inside if not c.metadata["entities"])
    assert_cuts_between_siblings(cs)


def test_whole_entity_kept_together_when_it_fits():
    doc, cs = run("sample_docs/inventory.py", max_chunk_size=1500)
    ck = CodeChunker(doc, {"language": "auto"}, Context())
    for ent in ck.defs:
        size = len(doc.text[doc.line_start(doc.line_of(ent.extent_start)) : doc.line_end(ent.end_line)].encode())
        if size <= 1500:
            holders = [
                c
                for c in cs.chunks
                if c.metadata["core_start_line"] <= ent.start_line and ent.end_line <= c.metadata["core_end_line"]
            ]
            assert holders, ent.name


def test_small_neighbours_are_merged():
    doc, cs = run("tests/code_samples/shapes.rs", max_chunk_size=1500)
    assert len(cs.chunks) == 2  # 57 lines, ~1.5 kB: trait, struct, impls and enum share the first chunk
    names = [e["name"] for e in cs.chunks[0].metadata["entities"]]
    assert {"Shape", "Circle", "Shape for Circle", "Display for Circle", "Kind"} <= set(names)


def test_overlap_lines_come_from_previous_chunk_and_shrink_to_fit():
    doc, cs = run("sample_docs/inventory.py", max_chunk_size=700, overlap_lines=10)
    assert any(c.overlap_prev_lines for c in cs.chunks)
    for prev, c in zip(cs.chunks, cs.chunks[1:]):
        assert c.start >= prev.start and c.start == doc.line_start(c.start_line)
        assert c.start_line >= c.metadata["core_start_line"] - 10
        assert measure(doc, c) <= 700 or c.metadata.get("oversized")
    _, no_overlap = run("sample_docs/inventory.py", max_chunk_size=700, overlap_lines=0)
    assert all(c.overlap_prev_chars == 0 for c in no_overlap.chunks)


def test_tokens_and_chars_units_respect_the_limit():
    doc, cs = run("sample_docs/auth_middleware.ts", max_chunk_size=200, unit="tokens")
    assert all(c.tokens <= 200 or c.metadata.get("oversized") for c in cs.chunks)
    doc, cs = run("sample_docs/auth_middleware.ts", max_chunk_size=400, unit="chars")
    assert all(c.chars <= 400 or c.metadata.get("oversized") for c in cs.chunks)


def test_single_statement_bigger_than_limit_is_its_own_oversized_chunk():
    src = "import os\n\nTABLE = [\n" + "".join(f"    {i},\n" for i in range(200)) + "]\n\n\ndef f():\n    return 1\n"
    doc = Document.from_text(src, path="table.py")
    cs = chunk_document(doc, "code", {"max_chunk_size": 200, "overlap_lines": 3})
    big = [c for c in cs.chunks if c.metadata.get("oversized")]
    assert len(big) == 1 and big[0].text.lstrip().startswith("TABLE = [") and big[0].text.rstrip().endswith("]")
    assert all(len(c.text.encode()) <= 200 for c in cs.chunks if not c.metadata.get("oversized"))


def test_imports_used_siblings_and_context_modes():
    doc, cs = run("sample_docs/auth_middleware.ts", max_chunk_size=1200)
    validate = next(c for c in cs.chunks if "validateToken" in [e["name"] for e in c.metadata["entities"]])
    assert 'import { createHash } from "crypto";' in validate.metadata["imports"]
    assert not any("metrics" in i for i in cs.chunks[0].metadata["imports"])  # imports do not use themselves
    assert "authorize(claims: TokenClaims, required: Role): AuthResult" in validate.metadata["siblings"]
    ctx = validate.context_text
    assert ctx.endswith(validate.text)
    assert "Scope: AuthMiddleware" in ctx and 'Uses: import { createHash } from "crypto";' in ctx
    _, names = run(
        "sample_docs/auth_middleware.ts", max_chunk_size=1200, sibling_detail="names", context_mode="minimal"
    )
    v2 = next(c for c in names.chunks if "validateToken" in [e["name"] for e in c.metadata["entities"]])
    assert "authorize" in v2.metadata["siblings"] and "Uses:" not in v2.context_text
    assert "Scope: AuthMiddleware" in v2.context_text
    _, none = run("sample_docs/auth_middleware.ts", context_mode="none", sibling_detail="none")
    assert all(c.context_text is None and c.metadata["siblings"] == [] for c in none.chunks)


def test_entities_carry_signature_docstring_and_ranges():
    doc, cs = run("sample_docs/inventory.py")
    ents = {e["name"]: e for c in cs.chunks for e in c.metadata["entities"]}
    reserve = ents["reserve"]
    assert reserve["kind"] == "method" and reserve["signature"].startswith("async def reserve(self, order_id: str")
    assert reserve["docstring"].startswith("Reserve stock for an order")
    assert (
        doc.text.encode()[reserve["start_byte"] : reserve["end_byte"]].decode().lstrip().startswith("async def reserve")
    )
    assert ents["InventoryService"]["kind"] == "class"
    assert any(
        e["kind"] == "import" and e["name"] == "from typing import Dict, Iterable, List, Optional"
        for e in ents.values()
    )
    _, ts = run("sample_docs/auth_middleware.ts")
    tse = {e["name"]: e for c in ts.chunks for e in c.metadata["entities"]}
    assert tse["validateToken"]["signature"] == "async validateToken(token: string): Promise<TokenClaims>"
    assert tse["TokenClaims"]["kind"] == "interface" and tse["Role"]["kind"] == "enum"
    assert tse["AuthResult"]["kind"] == "type"


def test_filter_imports_leaves_imports_out_but_lists_them():
    doc, cs = run("sample_docs/inventory.py", filter_imports=True)
    assert all("from typing import" not in c.text for c in cs.chunks)
    assert cs.gaps and all("imports" in g.reason for g in cs.gaps)
    assert any("from typing import Dict, Iterable, List, Optional" in c.metadata["imports"] for c in cs.chunks)


# a statement, then an import on the same line: the statement is code and must stay in a chunk
STATEMENT_THEN_IMPORT = {
    "a.py": ("import sys\n\nx = 1; import os\n\n\ndef f():\n    return os.getcwd() + str(x)\n", "x = 1;"),
    "a.go": ('package main; import "os"\n\nfunc f() string {\n\tx, _ := os.Getwd()\n\treturn x\n}\n', "package main;"),
    "a.rs": ("use std::fs;\n\nconst A: i32 = 1; use std::io;\n\nfn f() -> i32 {\n    A + 1\n}\n", "const A: i32 = 1;"),
    "a.cpp": (
        "#include <string>\n\nint counter = 0; using std::string;\n\nint f() {\n    return counter;\n}\n",
        "int counter = 0;",
    ),
    "a.cs": (
        "using System;\n\nnamespace N { } using System.IO;\n\nclass C {\n    int F() { return 1; }\n}\n",
        "namespace N { }",
    ),
    "a.js": (
        "import x from 'x';\n\nlet y = 1; import z from 'z';\n\nfunction f() {\n  return y + z;\n}\n",
        "let y = 1;",
    ),
}


@pytest.mark.parametrize("name", sorted(STATEMENT_THEN_IMPORT))
def test_filter_imports_keeps_a_statement_an_import_follows_on_its_line(name):
    src, statement = STATEMENT_THEN_IMPORT[name]
    doc = Document.from_text(src, path=name)
    cs = chunk_document(doc, "code", {"filter_imports": True, "size": 40, "overlap_lines": 0})
    assert any(statement in c.text for c in cs.chunks)
    assert all(statement not in src[g.start : g.end] for g in cs.gaps)


def test_syntax_errors_still_chunk_with_a_warning():
    src = (ROOT / "tests/code_samples/cart.js").read_text()
    broken = src.replace("const shipping = subtotal > 100 ? 0 : 7.5;", "const shipping = subtotal > 100 ? 0 : ;", 1)
    assert broken != src
    doc = Document.from_text(broken, path="cart.js")
    cs = chunk_document(doc, "code", {"max_chunk_size": 400})
    assert_covering(doc, cs)
    assert cs.warnings and "syntax errors" in cs.warnings[0] and "cart.js" in cs.warnings[0]
    assert any("checkout" in [e["name"] for e in c.metadata["entities"]] for c in cs.chunks)


def test_non_ascii_source_keeps_offsets_and_byte_limit():
    src = (
        '"""Café ☕ módulo."""\n\n\ndef grüß(name):\n    """Sagt hallo 👋."""\n    return f"Grüß {name} ✓"\n\n\n'
        'class Ünïcode:\n    def ñ(self):\n        return "ñandú 🐦"\n'
    )
    doc = Document.from_text(src * 4, path="u.py")
    cs = chunk_document(doc, "code", {"max_chunk_size": 150, "overlap_lines": 2})
    assert_covering(doc, cs)
    assert_cuts_between_siblings(cs)
    for c in cs.chunks:
        assert c.end_byte - c.start_byte == len(c.text.encode())
        assert len(c.text.encode()) <= 150 or c.metadata.get("oversized")
    ents = [e for c in cs.chunks for e in c.metadata["entities"] if e["name"] == "ñ"]
    assert ents and all(e["kind"] == "method" for e in ents)


def test_unsupported_extension_and_language_override():
    doc = Document.from_text("some notes\n", path="notes.md")
    with pytest.raises(UnsupportedLanguageError, match=r"notes\.md.*'\.md'"):
        chunk_document(doc, "code", {})
    script = Document.from_text("def f():\n    return 1\n", path="script.txt")
    cs = chunk_document(script, "code", {"language": "python"})
    assert cs.chunks[0].metadata["language"] == "python"
    assert cs.chunks[0].metadata["entities"][0]["name"] == "f"


def test_empty_file_gives_no_chunks():
    cs = chunk_document(Document.from_text("", path="e.py"), "code", {})
    assert cs.chunks == [] and cs.gaps == []


def test_split_definition_starts_a_fresh_chunk_after_a_half_full_one():
    doc, cs = run("sample_docs/auth_middleware.ts", max_chunk_size=1500, overlap_lines=0)
    ck = CodeChunker(doc, {"language": "auto"}, Context())
    cls = next(e for e in ck.defs if e.name == "AuthMiddleware")
    first = doc.line_of(cls.extent_start)
    [head] = [c for c in cs.chunks if c.start_line == first]
    before = cs.chunks[head.index - 1]
    assert len(before.text.encode()) >= 750  # half full: the class header leads its own chunk
    assert head.boundary_type == "class" and head.metadata["scope_chain"] == ["AuthMiddleware"]


def test_go_import_specs_are_listed_one_by_one_where_used():
    doc, cs = run("tests/code_samples/server.go", max_chunk_size=400, overlap_lines=0)
    first = cs.chunks[0].metadata["entities"]
    assert [e["name"] for e in first if e["kind"] == "import"] == [
        'import "encoding/json"',
        'import "fmt"',
        'import "net/http"',
    ]
    handle = next(c for c in cs.chunks if c.metadata["scope_chain"] == ["Server", "HandleGet"])
    assert 'import "fmt"' in handle.metadata["imports"]
    new = next(c for c in cs.chunks if "NewServer" in [e["name"] for e in c.metadata["entities"]])
    assert 'import "fmt"' not in new.metadata["imports"] or "fmt." in new.text


def test_minified_code_is_one_oversized_chunk_with_a_warning_and_counted_notes():
    src = ";".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(200)) + "\n"
    cs = chunk_document(Document.from_text(src, path="app.min.js"), "code", {"max_chunk_size": 300})
    assert [c.metadata.get("oversized") for c in cs.chunks] == [True]
    assert any("1 chunk over the size limit (300 bytes)" in w for w in cs.warnings), cs.warnings
    one = chunk_document(Document.from_text("import os\n\ndef f():\n    return os.sep\n", path="m.py"), "code", {})
    assert "python: 1 definition, 1 import" in one.notes
    assert not any("max_chunk_size" in w for w in one.warnings)


def test_an_import_repeated_in_several_functions_is_listed_once_per_chunk():
    body = "".join(f"def f{i}(path):\n    import os\n    return os.path.basename(path) + '{i}'\n\n\n" for i in range(6))
    doc = Document.from_text("import sys\n\n\n" + body + "def main():\n    return os.sep, sys.argv\n", path="m.py")
    cs = chunk_document(doc, "code", {"max_chunk_size": 4000})
    last = cs.chunks[-1]
    assert "return os.sep" in last.text
    assert last.metadata["imports"] == ["import sys", "import os"]
    assert last.context_text.count("Uses: import os") == 1


def test_each_chunk_owns_its_metadata_lists_even_where_chunks_share_imports_and_neighbours():
    """Lists made once per set of names (imports) or per place are handed out as copies:
    a caller changing one chunk's list changes no other chunk, nor a later run of the same file."""
    body = "".join(f"def f{i}(path: Any) -> Any:\n    return os.path.join(path, '{i}')\n\n\n" for i in range(12))
    doc = Document.from_text("import os\nfrom typing import Any\n\n\n" + body, path="m.py")
    params = {"max_chunk_size": 120, "unit": "chars", "overlap_lines": 0}
    cs = chunk_document(doc, "code", params)
    uses = ["import os", "from typing import Any"]
    assert len(cs.chunks) >= 3 and all(c.metadata["imports"] == uses for c in cs.chunks)
    for key in ("imports", "siblings", "scope_chain", "entities"):
        assert len({id(c.metadata[key]) for c in cs.chunks}) == len(cs.chunks), key
    before = [(c.metadata["imports"].copy(), c.metadata["siblings"].copy()) for c in cs.chunks]
    cs.chunks[0].metadata["imports"].append("import sys")
    cs.chunks[0].metadata["siblings"].clear()
    assert [(c.metadata["imports"], c.metadata["siblings"]) for c in cs.chunks[1:]] == before[1:]
    again = chunk_document(doc, "code", params)  # the same Document: its parse is reused
    assert [(c.metadata["imports"], c.metadata["siblings"]) for c in again.chunks] == before


@pytest.mark.parametrize("name", ["textwrap.py", "argparse.py"])
def test_error_lines_are_the_error_nodes_a_query_finds(name):
    """The walk that finds syntax errors (a query took quadratic time on 40 KB of `-`) reports the
    lines of the very nodes an `(ERROR)` query captures, on a real module broken in three places."""
    from tree_sitter import Query, QueryCursor

    lines = (Path(textwrap.__file__).parent / name).read_text().splitlines(keepends=True)
    for at in (len(lines) // 4, len(lines) // 2, 3 * len(lines) // 4):
        lines[at] = "def broken(:\n"
    pf = parse(Document.from_text("".join(lines), path=name), "python")
    nodes = QueryCursor(Query(pf.grammar.language, "(ERROR) @error")).captures(pf.root).get("error", [])
    assert pf.error_lines() == sorted({n.start_point[0] + 1 for n in nodes}) and pf.error_lines()


@pytest.mark.parametrize(
    "name, language", [("argparse.py", "python"), ("textwrap.py", "python"), ("json/decoder.py", "python")]
)
def test_definitions_in_a_broken_file_are_those_one_query_finds(name, language):
    """Around syntax errors the entity query runs on the subtrees beside them (one query over an
    ERROR node of many children took quadratic time: a .py file of 100 KB of `-` took 28 s); it
    captures exactly the nodes one query over the whole tree does."""
    from tree_sitter import QueryCursor

    from chunktui.engine.code.entities import _captures

    lines = (Path(textwrap.__file__).parent / name).read_text().splitlines(keepends=True)
    for at, junk in zip(
        (len(lines) // 5, len(lines) // 2, 4 * len(lines) // 5), ("def broken(:\n", "}}} ((\n", "class :\n")
    ):
        lines[at] = junk
    pf = parse(Document.from_text("".join(lines), path=name), language)
    assert pf.root.has_error

    def ids(captures):
        return {k: sorted(n.id for n in v) for k, v in captures.items() if v}

    assert ids(_captures(pf.grammar.query, pf.root)) == ids(QueryCursor(pf.grammar.query).captures(pf.root))


_WALKED = '''\
import os; import sys
# about f
@decorator  # trailing
def f(a):  # note
    """Doc."""
    default = 1
    if a:
        import json
        type Alias = int
    for x in a:
        def inner():  # the body holds no word, and is not walked
            return x.shape
        class Inner: pass
    return default


class C:
    # a method's comment
    @property
    def g(self):
        typed = type(self)
        return typed
'''


@pytest.mark.parametrize("name", ["argparse.py", "textwrap.py", "json/decoder.py", "walked.py"])
def test_the_statement_walk_finds_what_the_query_finds(name, monkeypatch):
    """Python's definitions and imports come from a walk of the statements that skips bodies whose
    text has none of def/class/import/type and hands each node its wrapper, previous sibling and
    body; the entity query over the whole tree (a broken file's way) gives the same entities."""
    from chunktui.engine.code import entities

    text = _WALKED if name == "walked.py" else (Path(textwrap.__file__).parent / name).read_text()

    def fields(found):
        return [
            (e.name, e.kind, e.signature, e.docstring, e.start, e.end, e.extent_start, e.start_line, e.end_line)
            + (e.start_byte, e.end_byte, e.parent and e.parent.name, e.bound, e.owner)
            for e in found[0] + found[1]
        ]

    walked = fields(entities.extract(parse(Document.from_text(text, path=name), "python")))
    monkeypatch.setattr(entities, "_walkable", lambda pf: False)
    assert walked == fields(entities.extract(parse(Document.from_text(text, path=name), "python")))
    if name == "walked.py":  # nested where the walk must go in, and a comment kept off a signature
        assert [(w[0], w[2]) for w in walked] == [
            ("f", "def f(a)"),
            ("<anonymous>", "type Alias = int"),
            ("inner", "def inner()"),
            ("Inner", "class Inner"),
            ("C", "class C"),
            ("g", "def g(self)"),
            ("import os", "import os"),
            ("import sys", "import sys"),
            ("import json", "import json"),
        ]
