"""`code` on real-looking files whose big pieces used to be uncuttable atoms (issue 16): blocks
nested inside expressions, long comments and docstrings, headers left alone at a chunk's end."""

from __future__ import annotations

import re

from chunktui.engine import Document, chunk_document


def run(path: str, src: str, limit: int, **params):
    doc = Document.from_text(src, path=path)
    cs = chunk_document(doc, "code", {"max_chunk_size": limit, "overlap_lines": 0, **params})
    assert "".join(c.text for c in cs.chunks) == src
    return cs


def sizes(cs) -> list[int]:
    return [len(c.text.encode()) for c in cs.chunks]


def assert_all_fit(cs, limit: int):
    assert max(sizes(cs)) <= limit, [(c.start_line, c.end_line, n) for c, n in zip(cs.chunks, sizes(cs)) if n > limit]
    assert not any(c.metadata.get("oversized") for c in cs.chunks)
    assert not any("over max_chunk_size" in w for w in cs.warnings)


def _statements(n: int, indent: str, semi: str = ";") -> str:
    return "".join(
        f"{indent}const part{i} = encodeURIComponent(String(params[{i}] ?? '')) + '&'{semi}\n"
        f"{indent}if (part{i}.length > limit) {{ destination.error(new Error('too long: {i}')){semi} }}\n"
        for i in range(n)
    )


AJAX = (
    "import { Observable } from '../../Observable';\n\n"
    "export function fromAjax<T>(config: AjaxConfig): Observable<AjaxResponse<T>> {\n"
    "  const { queryParams, body: configuredBody, headers: configuredHeaders, ...remainingConfig } = config;\n"
    "  return new Observable((destination) => {\n" + _statements(40, "    ") + "    const xhr = new XMLHttpRequest();\n"
    "    xhr.open(remainingConfig.method, remainingConfig.url, true);\n"
    "    return () => { if (xhr.readyState !== 4) { xhr.abort(); } };\n"
    "  });\n"
    "}\n"
)


def test_callback_passed_to_a_constructor_is_cut_between_its_statements():
    """rxjs ajax.ts: `return new Observable((destination) => { … })` was one 9 kB chunk."""
    cs = run("ajax.ts", AJAX, 1500)
    assert len(AJAX) > 6000 and len(cs.chunks) >= 5
    assert_all_fit(cs, 1500)
    assert "return new Observable((destination) => {" in cs.chunks[0].text + cs.chunks[1].text
    assert cs.chunks[-1].text.rstrip().endswith("});\n}")
    inside = [c for c in cs.chunks if "const part20 " in c.text]
    assert inside and all(c.metadata["scope_chain"] == ["fromAjax", "new Observable callback"] for c in inside)
    assert inside[0].label == "fromAjax > new Observable callback"


def test_rust_loop_and_match_blocks_are_entered():
    arms = "".join(
        f"            Token::Kind{i}(value) => {{\n                total += value * {i};\n"
        f'                seen.push("kind{i}");\n            }}\n'
        for i in range(30)
    )
    src = (
        "pub fn drain(tokens: &mut Lexer) -> u64 {\n    let mut total = 0;\n    let mut seen = Vec::new();\n"
        "    loop {\n        let token = match tokens.next() { Some(t) => t, None => break };\n"
        "        match token {\n" + arms + "            _ => continue,\n        }\n    }\n    total\n}\n"
    )
    cs = run("lexer.rs", src, 600)
    assert_all_fit(cs, 600)
    assert all(c.metadata["scope_chain"] == ["drain"] for c in cs.chunks)


def test_go_struct_field_list_is_cut_between_fields():
    """cobra command.go: `type Command struct` (204 lines, 8 kB) was one chunk."""
    fields = "".join(
        f"\t// Field{i} is the {i}th setting the command reads when it runs;\n"
        f"\t// it defaults to the zero value.\n\tField{i} string\n\n"
        for i in range(60)
    )
    src = (
        "package cobra\n\n// Command is just that, a command for your application.\ntype Command struct {\n"
        + fields
        + "}\n\nfunc (c *Command) Name() string {\n\treturn c.Field0\n}\n"
    )
    cs = run("command.go", src, 1500)
    assert_all_fit(cs, 1500)
    for c in cs.chunks[1:]:  # every cut lands between fields: a chunk starts with a field's comment
        assert c.text.startswith(("\t// Field", "}", "\n")), c.text[:40]
    assert all(c.metadata["scope_chain"] == ["Command"] for c in cs.chunks[1:-1])


def test_object_literal_methods_and_callbacks_are_members_to_cut_between():
    methods = "".join(
        f"  handler{i}(req, res) {{\n    const user = req.session.user{i};\n"
        f"    res.json({{ ok: true, id: {i}, user }});\n  }},\n"
        for i in range(30)
    )
    routes = "".join(f"  app.get('/route{i}', (req, res) => {{\n    res.send('page {i}');\n  }});\n" for i in range(30))
    src = "'use strict';\n\nmodule.exports = {\n" + methods + "};\n\nfunction mount(app) {\n" + routes + "}\n"
    cs = run("routes.js", src, 500)
    assert_all_fit(cs, 500)


def test_a_long_jsdoc_is_cut_between_its_lines_and_a_short_one_stays_with_its_method():
    """rxjs Observable.ts: a 130-line JSDoc glued to `subscribe()` was one 6 kB atom."""
    long_doc = (
        "  /**\n"
        + "".join(f"   * Line {i} of the explanation of how subscribe works.\n" for i in range(130))
        + "   */\n"
    )
    short = "  /**\n   * Returns the source, piped.\n   */\n"
    src = (
        "export class Observable<T> {\n"
        + long_doc
        + "  subscribe(observer?: Partial<Observer<T>>): Subscription {\n    return this._trySubscribe(observer);\n  }\n\n"
        + short
        + "  pipe(): Observable<T> {\n    return this;\n  }\n}\n"
    )
    cs = run("Observable.ts", src, 1500)
    assert_all_fit(cs, 1500)
    [pipe] = [c for c in cs.chunks if "pipe():" in c.text]
    assert "Returns the source, piped." in pipe.text


def test_a_long_line_comment_block_and_a_long_docstring_are_cut():
    """tiktoken lib.rs: a 41-line `//` block (2,229 bytes); a Python module docstring of 6 kB."""
    rust = (
        "".join(f"// Note {i}: the byte pair encoder keeps ranks in a hash map for speed.\n" for i in range(41))
        + "fn byte_pair_merge(piece: &[u8]) -> Vec<usize> {\n    Vec::new()\n}\n"
    )
    assert_all_fit(run("lib.rs", rust, 1500), 1500)
    py = (
        '"""Read and write pickles.\n\n'
        + "".join(f"Paragraph line {i} about the protocol.\n" for i in range(160))
        + '"""\n\nimport io\n\n\ndef dump(obj):\n    return io.BytesIO()\n'
    )
    assert_all_fit(run("pickle_notes.py", py, 1500), 1500)


HEADER = re.compile(r"^\s*((async\s+)?def |class |if |elif |else|for |while |try|except|finally|with )[^\n]*:\s*$")


def test_a_header_always_goes_with_its_first_body_statement():
    """argparse.py at 512 tokens: one chunk's new text was only `def _parse_optional(self, arg_string):`
    (the body fitting the limit alone, not with its header)."""
    body = (
        "".join(
            f"        if arg_string.startswith('--opt{i}'):\n            return self._option_tuple{i}\n"
            for i in range(14)
        )
        + "        return None\n"
    )
    filler = "".join(f"    def helper{i}(self):\n        return {i}\n\n" for i in range(12))
    header = "    def _parse_optional(self, arg_string):\n"
    src = "class ArgumentParser:\n" + filler + header + body + "\n    def after(self):\n        return 0\n"
    inner = "        if arg_string.startswith('--opt0'):\n"
    for limit in (len(body) + 10, len(body) + 30, len(inner) + len(header) + 60, 300):
        cs = run("argparse_like.py", src, limit)
        for c in cs.chunks:  # no chunk ends with a header whose body is left to the next one
            last = [x for x in c.text.splitlines() if x.strip()][-1]
            assert not HEADER.match(last), (limit, c.start_line, c.end_line, last)
        assert_all_fit(cs, limit)


LS_JS = """'use strict'

const { resolve, relative, sep } = require('node:path')
const archy = require('archy')
const { breadth } = require('treeverse')
require('./utils/side-effects.js')

class LS {
  async exec (args) {
    const Arborist = require('@npmcli/arborist')
    const arb = new Arborist({ path: resolve(this.prefix) })
    const tree = await arb.loadActual()
    const { format } = await import('./utils/format.js')
    return format(archy(breadth({ tree, visit: (n) => relative(this.prefix, n.path) + sep })))
  }
}

module.exports = LS
"""


def test_require_and_dynamic_import_are_imports():
    """npm ls.js: CommonJS require() listed no import, so --filter-imports did nothing there."""
    cs = chunk_document(Document.from_text(LS_JS, path="ls.js"), "code", {"filter_imports": True})
    text = "".join(c.text for c in cs.chunks)
    assert "require('node:path')" not in text and "require('archy')" not in text
    assert "require('./utils/side-effects.js')" not in text
    assert [g.start_line for g in cs.gaps if "imports" in g.reason][:1] == [3]
    [cls] = [c for c in cs.chunks if "class LS" in c.text]
    assert {
        "const { resolve, relative, sep } = require('node:path')",
        "const archy = require('archy')",
        "const { breadth } = require('treeverse')",
    } <= set(cls.metadata["imports"])
    names = [
        e["name"]
        for c in chunk_document(Document.from_text(LS_JS, path="ls.js"), "code", {}).chunks
        for e in c.metadata["entities"]
        if e["kind"] == "import"
    ]
    assert "const { format } = await import('./utils/format.js')" in names
    assert "const Arborist = require('@npmcli/arborist')" in names and len(names) == 6


def test_an_uncuttable_statement_leaves_its_comments_to_the_chunks_before():
    """A data table too big for any chunk is oversized alone: the comment above it fits elsewhere."""
    rows = "".join(f"  {{ name: 'alg{i}', bits: {1024 + i}, init: bench_init_{i} }},\n" for i in range(60))
    src = (
        "'use strict'\n\n// Algorithms benchmarked, in the order they are printed.\n"
        "// Each entry names the key size and the set-up function it runs first.\n"
        "const algorithms = [\n" + rows + "]\n\nmodule.exports = algorithms\n"
    )
    cs = run("bench.js", src, 500)
    [big] = [c for c in cs.chunks if c.metadata.get("oversized")]
    assert big.text.startswith("const algorithms = [") and big.text.rstrip().endswith("]")
    assert any("// Each entry names" in c.text for c in cs.chunks if not c.metadata.get("oversized"))


def test_a_header_goes_with_the_first_lines_of_a_docstring_that_fits_only_without_it():
    """_pydecimal.py at 600 chars: `class InvalidOperation(DecimalException):` ended a chunk, its
    571-character docstring began the next."""
    doc = "".join(f"    Something creates a signaling NaN in case {i}\n" for i in range(11))
    src = (
        "class DecimalException(ArithmeticError):\n    pass\n\n\n"
        "class InvalidOperation(DecimalException):\n"
        '    """An invalid operation was performed.\n\n' + doc + '    """\n\n'
        "    def handle(self, context, *args):\n        return NaN\n"
    )
    limit = len(src[src.index('    """') : src.index("\n\n    def")]) + 1
    cs = run("_pydecimal.py", src, limit)
    for c in cs.chunks:
        last = [x for x in c.text.splitlines() if x.strip()][-1]
        assert not HEADER.match(last), (c.start_line, c.end_line, last)
    assert_all_fit(cs, limit)


def test_a_big_object_literal_is_cut_between_its_members():
    """npm's config definitions: `const definitions = { … }`, one statement of many kilobytes."""
    members = "".join(
        f"  option{i}: new Definition('option{i}', {{\n    default: {i},\n    type: Number,\n"
        f"    description: 'How many times to retry step {i}.',\n  }}),\n"
        for i in range(40)
    )
    src = "const definitions = {\n" + members + "}\n\nmodule.exports = definitions\n"
    cs = run("definitions.js", src, 1500)
    assert_all_fit(cs, 1500)
    for c in cs.chunks[1:]:
        assert c.text.startswith(("  option", "}")), c.text[:30]
