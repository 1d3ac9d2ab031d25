"""Cost of the `code` strategy relative to a bare tree-sitter parse of the same file.

    .venv/bin/python -m bench.code_parse [FILE ...]
    .venv/bin/python -m bench.code_parse --corpus 100k,1m,10m

Without files it builds a large Python and a large TypeScript file from the samples
(imports once, the rest repeated 200 times). Prints, per file, the best-of-N time of a bare parse,
of the `code` strategy alone (parse, entities, chunking, metadata), and of the
full `chunk_document` run (plus token counting), each as a ratio to the parse.

`--corpus` uses the benchmark's code corpus (bench/corpus.py) instead: the parse of the
concatenation against the same files parsed one by one (equal times mean the seams cost
the parser nothing), and the strategy at 512 and 4096 characters as in `bench.run`, in CPU
time, once with the collector paused (as the command line runs it) and once with it on (as
`bench.run` and a library caller that leaves it on run it), with the collector's own time.
The library stopped pausing the collector (issue 17): at 10 MB and 512 characters its passes
over the run's growing heap are the difference between the two.
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


def best(fn, n=REPEAT, fresh=None, clock=time.perf_counter) -> float:
    """Best of n, with garbage collection paused, as the command line runs a file.

    With `fresh`, each run gets `fn(fresh())`, made untimed: a new Document for a first
    chunking (a Document keeps its parse for re-chunks).
    """
    times = []
    for _ in range(n):
        arg = (fresh(),) if fresh else ()
        gc.disable()
        t0 = clock()
        fn(*arg)
        times.append(clock() - t0)
        gc.enable()
    return min(times)


def best_collecting(fn, n: int, fresh) -> tuple[float, float]:
    """Best CPU time of n runs of `fn(fresh())` with the collector on, and the collector's CPU
    time in that run (its passes, timed by gc.callbacks)."""
    spent = [0.0, 0.0]  # a pass's start, the run's total

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            spent[0] = time.process_time()
        else:
            spent[1] += time.process_time() - spent[0]

    runs = []
    for _ in range(n):
        arg = fresh()
        gc.collect()
        spent[1] = 0.0
        gc.callbacks.append(watch)
        t0 = time.process_time()
        fn(arg)
        took = time.process_time() - t0
        gc.callbacks.remove(watch)
        runs.append((took, spent[1]))
    return min(runs)


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
        whole = best(lambda: parser.parse(source), 3, clock=time.process_time)
        one_by_one = best(lambda: [parser.parse(p) for p in pieces], 3, clock=time.process_time)
        errors = parser.parse(source).root_node.has_error
        print(f"code {key}: {len(text):,} chars in {len(parts)} files; syntax errors: {'yes' if errors else 'no'}")
        print(f"  parse, concatenated  {whole * 1000:8.1f} ms")
        print(f"  parse, file by file  {one_by_one * 1000:8.1f} ms   ratio {whole / one_by_one:5.2f}x")
        fresh = lambda: Document(text=text, path="corpus.py", kind="code", language="python")  # noqa: E731
        doc = fresh()
        for size in (512, 4096):
            params = strat.validate({"max_chunk_size": size, "unit": "chars", "overlap_lines": 0})
            run = lambda d: strat.run(d, params, Context())  # noqa: E731
            took = best(run, 3, fresh=fresh, clock=time.process_time)
            on, collecting = best_collecting(run, 3, fresh)
            again = best(lambda: strat.run(doc, params, Context()), 3, clock=time.process_time)  # parse kept
            print(
                f"  code strategy {size:5}  {took * 1000:8.1f} ms   ratio {took / whole:5.2f}x  collector paused"
                f"   (re-chunk of the same Document {again * 1000:.1f} ms)"
            )
            print(
                f"  code strategy {size:5}  {on * 1000:8.1f} ms   ratio {on / whole:5.2f}x  collector on"
                f" ({collecting * 1000:.0f} ms of it in its passes)"
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
