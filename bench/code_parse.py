"""Cost of the `code` strategy relative to a bare tree-sitter parse of the same file.

    .venv/bin/python -m bench.code_parse [FILE ...]
    .venv/bin/python -m bench.code_parse --corpus 100k,1m,10m

Without files it builds a large Python and a large TypeScript file from the samples
(imports once, the rest repeated 200 times). Prints, per file, the best-of-N time of a bare parse,
of the `code` strategy alone (parse, entities, chunking, metadata), and of the
full `chunk_document` run (plus token counting), each as a ratio to the parse.

`--corpus` uses the benchmark's code corpus (bench/corpus.py) instead: the parse of the
concatenation against the same files parsed one by one (equal times mean the seams cost
the parser nothing), and the strategy at 512 and 4096 characters as in `bench.run`.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from chunktui.engine import Document, chunk_document
from chunktui.engine.code.languages import detect_language, load_grammar
from chunktui.engine.strategies import Context, get_strategy

ROOT = Path(__file__).parent.parent
REPEAT = 5


def best(fn, n=REPEAT, fresh=None) -> float:
    """Best of n, with garbage collection off as chunk_document has it during a run.

    With `fresh`, each run gets `fn(fresh())`, made untimed: a new Document for a first
    chunking (a Document keeps its parse for re-chunks).
    """
    times = []
    for _ in range(n):
        arg = (fresh(),) if fresh else ()
        gc.disable()
        t0 = time.perf_counter()
        fn(*arg)
        times.append(time.perf_counter() - t0)
        gc.enable()
    return min(times)


def bench(name: str, text: str) -> None:
    import tree_sitter as ts

    language = detect_language(name)
    grammar = load_grammar(language)
    source = text.encode()
    fresh = lambda: Document(text=text, path=name, kind="code", language=language)  # noqa: E731
    strat = get_strategy("code")
    params = strat.validate({})
    parse = best(lambda: ts.Parser(grammar.language).parse(source))
    strategy = best(lambda doc: strat.run(doc, params, Context()), fresh=fresh)
    full = best(lambda doc: chunk_document(doc, "code", params), n=2, fresh=fresh)
    cs = chunk_document(fresh(), "code", params)
    print(f"{name}: {len(source) / 1e6:.2f} MB, {text.count(chr(10))} lines, {len(cs.chunks)} chunks")
    print(f"  bare parse      {parse * 1000:8.1f} ms")
    print(f"  code strategy   {strategy * 1000:8.1f} ms   ratio {strategy / parse:5.2f}x")
    print(f"  chunk_document  {full * 1000:8.1f} ms   ratio {full / parse:5.2f}x (adds cl100k token counts)")


def bench_corpus(sizes: str) -> None:
    import tree_sitter as ts

    from bench.corpus import SIZES, corpus_parts

    parser = ts.Parser(load_grammar("python").language)
    strat = get_strategy("code")
    for key in sizes.split(","):
        parts = corpus_parts("code", SIZES[key])
        text = "".join(parts)
        source, pieces = text.encode(), [p.encode() for p in parts]
        whole = best(lambda: parser.parse(source), 3)
        one_by_one = best(lambda: [parser.parse(p) for p in pieces], 3)
        errors = parser.parse(source).root_node.has_error
        print(f"code {key}: {len(text):,} chars in {len(parts)} files; syntax errors: {'yes' if errors else 'no'}")
        print(f"  parse, concatenated  {whole * 1000:8.1f} ms")
        print(f"  parse, file by file  {one_by_one * 1000:8.1f} ms   ratio {whole / one_by_one:5.2f}x")
        fresh = lambda: Document(text=text, path="corpus.py", kind="code", language="python")  # noqa: E731
        doc = fresh()
        for size in (512, 4096):
            params = strat.validate({"max_chunk_size": size, "unit": "chars", "overlap_lines": 0})
            took = best(lambda d: strat.run(d, params, Context()), 3, fresh=fresh)
            again = best(lambda: strat.run(doc, params, Context()), 3)  # parse kept on doc
            print(
                f"  code strategy {size:5}  {took * 1000:8.1f} ms   ratio {took / whole:5.2f}x"
                f"   (re-chunk of the same Document {again * 1000:.1f} ms)"
            )


def main(argv: list[str]) -> None:
    if argv[:1] == ["--corpus"]:
        bench_corpus(argv[1] if len(argv) > 1 else "100k,1m,10m")
        return
    if argv:
        for f in argv:
            bench(f, Path(f).read_text(encoding="utf-8"))
        return
    for name, sample, marker in (
        ("big_inventory.py", "inventory.py", "\nlogger = "),
        ("big_auth.ts", "auth_middleware.ts", "\n/** Claims"),
    ):
        text = (ROOT / "sample_docs" / sample).read_text()
        head, body = text.split(marker, 1)  # imports once, as in a real file; the rest 200 times
        bench(name, head + (marker + body) * 200)


if __name__ == "__main__":
    main(sys.argv[1:])
