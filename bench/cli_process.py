"""Whole processes: `chunktui chunk` as a user runs it, against the scripts a user would write.

The engine bench (bench/run.py) times calls inside one process; a user waits for the
process: interpreter start, imports, the vocabulary, chunking, the export and its check.
Here every command is a fresh process, and the commands take turns round after round
(alternated in one run), so a busy machine slows them alike and the ratios hold.

The corpus is ~6 MB of real text: the standard library's top-level modules and the
documentation shipped in installed packages (bench/corpus.py's `docs`). The issue measured
Node and Rust docs as well; they are not on this machine.

The 1 KB files: the corpus's first 1 KB of whole lines, chunked with `-s recursive` and with no
`-s` (as most users type it: `auto`, which picks `prose` for a .md file), and 1 KB of whole lines of
its docs around their first sentence with a typographic apostrophe, quote or dash, with no `-s`.

Folder runs: a folder of 200 files of about 1 KB (whole lines of the corpus, in order) against one
file holding the same text, both chunked into their own output folders: what each further file of
the folder costs is set against a 1 KB file's whole process, which is what it would cost if the
fixed costs (imports, vocabulary, encoder) were paid per file.

The peers run in `BENCH_PEER_PYTHON` (default: this interpreter), which needs
langchain-text-splitters and tiktoken (the `bench` extra). They load cl100k_base with
`tiktoken.get_encoding`, from tiktoken's own cache folder filled beforehand with the copy
chunktui checks against the published sha256: a warm cache, as a user has after a first run.

    python -m bench.cli_process [--label after] [--rounds 5] [--baseline DIR]

`--baseline DIR` also times the chunktui commands of another copy of the project (say an
earlier commit: `git archive COMMIT | tar -x -C DIR`), in the same rounds, so a change is judged
against the code before it on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from bench.corpus import corpus

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "cli_results.json"
SECTION = ROOT / "bench" / "CLI_BENCHMARKS.md"
CORPUS_CHARS = 6_000_000
STDLIB_SHARE = 0.5  # of the corpus: the standard library's top-level modules, whole files
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CHUNKTUI = [sys.executable, "-c", "import sys; from chunktui.cli import main; sys.exit(main())"]

LANGCHAIN = """
import json, sys
from langchain_text_splitters import RecursiveCharacterTextSplitter
{load}
text = open(sys.argv[1], encoding="utf-8").read()
splitter = RecursiveCharacterTextSplitter(chunk_size=2048, chunk_overlap=128, add_start_index=True)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for i, doc in enumerate(splitter.create_documents([text])):
        start = doc.metadata["start_index"]
        row = {{"index": i, "start": start, "end": start + len(doc.page_content){count}, "text": doc.page_content}}
        out.write(json.dumps(row) + "\\n")
"""
LOAD = 'import tiktoken; enc = tiktoken.get_encoding("cl100k_base")'
ENCODE_ONCE = """
import sys, tiktoken
enc = tiktoken.get_encoding("cl100k_base")
print(len(enc.encode_ordinary(open(sys.argv[1], encoding="utf-8").read())))
"""
PEER_SCRIPTS = {
    "langchain.py": LANGCHAIN.format(load="", count=""),
    "langchain_tiktoken.py": LANGCHAIN.format(load=LOAD, count=', "tokens": len(enc.encode(doc.page_content))'),
    "encode_once.py": ENCODE_ONCE,
}

# (target, numerator, denominator, most): numerator's median at most `most` x denominator's,
# or, without a denominator, at most `most` seconds
TARGETS = [
    (
        "recursive 2048/128 with exact tokens vs LangChain + tiktoken per chunk",
        "chunktui recursive 2048/128",
        "langchain + tiktoken per chunk",
        0.75,
    ),
    (
        "recursive 2048/128 with exact tokens vs plain LangChain",
        "chunktui recursive 2048/128",
        "langchain recursive 2048/128",
        1.5,
    ),
    (
        "recursive --unit tokens 512/50 vs load and encode once",
        "chunktui recursive tokens 512/50",
        "tiktoken load + encode once",
        1.5,
    ),
    ("`chunktui --version`", "chunktui --version", None, 0.150),
    ("`chunktui chunk` on a 1 KB file", "chunktui chunk 1 KB file", None, 0.350),
    ("`chunktui chunk` on a 1 KB .md file, no `-s` (auto: prose)", "chunktui chunk 1 KB .md, auto", None, 0.350),
    (
        "`chunktui chunk` on a 1 KB .md file beyond ASCII, no `-s`",
        "chunktui chunk 1 KB non-ASCII .md, auto",
        None,
        0.350,
    ),
]
FOLDER_FILES = 200  # folder runs: this many ~1 KB files against one file holding the same text
FOLDER_SHARE = 0.1  # each further file may cost at most this share of a 1 KB file's whole process


def build_corpus(folder: Path) -> Path:
    """corpus.md: the stdlib's top-level modules (sorted, whole files) up to half, then docs."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    parts, total = [], 0
    for path in sorted(stdlib.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if total + len(text) > CORPUS_CHARS * STDLIB_SHARE:
            break
        parts.append(text if text.endswith("\n") else text + "\n")
        total += len(parts[-1])
    parts.append(corpus("docs", CORPUS_CHARS - total))
    path = folder / "corpus.md"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def tiktoken_cache(folder: Path) -> Path:
    """tiktoken's cache folder holding cl100k_base, from the copy whose sha256 chunktui checks."""
    from chunktui.engine.core.tokens import TIKTOKEN_EXPECTED_SHA256, resources

    raw = gzip.decompress((resources.files("bpe_openai") / "data" / "cl100k_base.tiktoken.gz").read_bytes())
    assert hashlib.sha256(raw).hexdigest() == TIKTOKEN_EXPECTED_SHA256["cl100k_base"]
    cache = folder / "tiktoken-cache"
    cache.mkdir()
    (cache / hashlib.sha1(CL100K_URL.encode()).hexdigest()).write_bytes(raw)
    return cache


# a sentence's typographic apostrophe, quote or dash: "don’t", "“quoted", "a — b"
TYPOGRAPHIC = re.compile("[a-z]{2} [a-z]+\u2019[a-z]+ [a-z]|[a-z]{2} \u201c[a-z]|[a-z]{2} \u2014 [a-z]")


def beyond_ascii(doc: Path) -> str:
    """About 1 KB of whole lines of the corpus's docs around their first sentence holding a
    typographic apostrophe, quote or dash: prose as most is, ASCII but for a few characters."""
    text = doc.read_text(encoding="utf-8")
    at = TYPOGRAPHIC.search(text, int(len(text) * STDLIB_SHARE)).start()  # type: ignore[union-attr]
    start = text.rindex("\n", 0, at - 300) + 1
    return text[start : start + 1024].rsplit("\n", 1)[0] + "\n"


def build_folder(folder: Path, doc: Path) -> tuple[Path, Path]:
    """FOLDER_FILES files of whole lines, each just over 1 KB, cut in order from the corpus, and one
    file holding the same text: the folder run pays once per file what the one file pays once."""
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
    small = folder / "small-files"
    small.mkdir()
    texts, pos = [], 0
    while len(texts) < FOLDER_FILES:
        start, size = pos, 0
        while size < 1024:
            size, pos = size + len(lines[pos]), pos + 1
        texts.append("".join(lines[start:pos]))
    for i, text in enumerate(texts):
        (small / f"doc{i:03d}.md").write_text(text, encoding="utf-8")
    whole = folder / "same-text.md"
    whole.write_text("".join(texts), encoding="utf-8")
    return small, whole


def chunktui_from(root: Path | None) -> list[str]:
    """The command line run from `root`'s chunktui (ahead of the working directory), or this one's."""
    if root is None:
        return CHUNKTUI
    return [
        sys.executable,
        "-c",
        f"import sys; sys.path.insert(0, {str(root)!r}); from chunktui.cli import main; sys.exit(main())",
    ]


def commands(folder: Path, doc: Path, small: Path, peer: str, baseline: Path | None) -> dict[str, list[str]]:
    cmds = _commands(folder, doc, small, peer, CHUNKTUI)
    files, whole = build_folder(folder, doc)
    chunk = [*CHUNKTUI, "chunk", "-s", "recursive", "--format", "jsonl", "--force"]
    cmds[f"chunktui folder of {FOLDER_FILES} files"] = [*chunk, "-o", str(folder / "out-folder"), str(files)]
    cmds[f"chunktui one file, same {whole.stat().st_size // 1000} KB"] = [
        *chunk,
        "-o",
        str(folder / "out-whole"),
        str(whole),
    ]
    if baseline is not None:
        old = _commands(folder, doc, small, peer, chunktui_from(baseline))
        cmds.update({f"{name} (baseline)": argv for name, argv in old.items() if name.startswith("chunktui")})
    return cmds


def _commands(folder: Path, doc: Path, small: Path, peer: str, chunktui: list[str]) -> dict[str, list[str]]:
    out = str(folder / "out")
    chunk = [*chunktui, "chunk", "-s", "recursive", "--format", "jsonl", "-o", out, "--force"]
    return {
        "chunktui recursive 2048/128": [*chunk, "--size", "2048", "--overlap", "128", str(doc)],
        "langchain recursive 2048/128": [peer, str(folder / "langchain.py"), str(doc), str(folder / "lc.jsonl")],
        "langchain + tiktoken per chunk": [
            peer,
            str(folder / "langchain_tiktoken.py"),
            str(doc),
            str(folder / "lc.jsonl"),
        ],
        "chunktui recursive tokens 512/50": [*chunk, "--unit", "tokens", "--size", "512", "--overlap", "50", str(doc)],
        "tiktoken load + encode once": [peer, str(folder / "encode_once.py"), str(doc)],
        "chunktui --version": [*chunktui, "--version"],
        "chunktui chunk 1 KB file": [*chunk, str(small)],
        "chunktui chunk 1 KB .md, auto": [*chunktui, "chunk", "-o", out, "--force", str(small)],
        "chunktui chunk 1 KB non-ASCII .md, auto": [
            *chunktui,
            "chunk",
            "-o",
            out,
            "--force",
            str(small.with_name("non-ascii.md")),
        ],
    }


def run_once(argv: list[str], env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process; the CPU time (user + system, every thread)
    is what a machine shared with other jobs disturbs least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds: int, baseline: Path | None = None) -> dict:
    peer = os.environ.get("BENCH_PEER_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory(prefix="chunktui-cli-bench-") as tmp:
        folder = Path(tmp)
        doc = build_corpus(folder)
        small = folder / "small.md"
        small.write_text(doc.read_text(encoding="utf-8")[:1024].rsplit("\n", 1)[0] + "\n", encoding="utf-8")
        small.with_name("non-ascii.md").write_text(beyond_ascii(doc), encoding="utf-8")
        for name, script in PEER_SCRIPTS.items():
            (folder / name).write_text(script)
        env = dict(
            os.environ,
            TIKTOKEN_CACHE_DIR=str(tiktoken_cache(folder)),
            XDG_CACHE_HOME=str(folder / "cache"),
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            PYTHONPYCACHEPREFIX=str(folder / "pycache"),
        )
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled modules are cached, as in an install
        cmds = commands(folder, doc, small, peer, baseline)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        cpu: dict[str, list[float]] = {name: [] for name in cmds}
        names = list(cmds)
        for name in names:  # warm the disk cache, fill chunktui's vocabulary cache and the bytecode cache
            run_once(cmds[name], env)
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:  # each round starts elsewhere
                wall, used = run_once(cmds[name], env)
                times[name].append(wall)
                cpu[name].append(used)
        return {
            "corpus_chars": len(doc.read_text(encoding="utf-8")),
            "corpus_bytes": doc.stat().st_size,
            "rounds": rounds,
            "peer_python": peer,
            "baseline": str(baseline) if baseline else None,
            "median_s": {name: statistics.median(ts) for name, ts in times.items()},
            "median_cpu_s": {name: statistics.median(ts) for name, ts in cpu.items()},
            "runs_s": times,
            "runs_cpu_s": cpu,
            "load_average": os.getloadavg(),
            "cores": os.cpu_count(),
        }


def judged(run: dict) -> list[tuple[str, str, bool]]:
    """Each target on the wall-clock medians, with the CPU-time figure beside it."""
    wall, cpu = run["median_s"], run.get("median_cpu_s", {})
    rows = []
    for what, num, den, most in TARGETS:
        if den is None:
            figure = f"{wall[num] * 1000:.0f} ms wall, {cpu.get(num, float('nan')) * 1000:.0f} ms CPU"
            rows.append((what, f"{figure} (at most {most * 1000:.0f} ms)", wall[num] <= most))
        else:
            ratio = wall[num] / wall[den]
            cpu_ratio = cpu[num] / cpu[den] if cpu else float("nan")
            rows.append((what, f"{ratio:.2f}x wall, {cpu_ratio:.2f}x CPU (at most {most}x)", ratio <= most))
    return rows + _folder_target(wall, cpu)


def _folder_target(wall: dict, cpu: dict) -> list[tuple[str, str, bool]]:
    """Each file of a folder run beyond the first, against a 1 KB file's whole process: were the fixed
    costs (imports, vocabulary, encoder) paid per file, a further file would cost about as much."""
    folder = next((n for n in wall if n.startswith("chunktui folder of ")), None)
    whole = next((n for n in wall if n.startswith("chunktui one file, same ")), None)
    if folder is None or whole is None:
        return []
    extra = [(t[folder] - t[whole]) / (FOLDER_FILES - 1) for t in (wall, cpu)]
    share = [e / t["chunktui chunk 1 KB file"] for e, t in zip(extra, (wall, cpu))]
    return [
        (
            f"folder runs: each of {FOLDER_FILES} files beyond the first vs a 1 KB file's whole process",
            f"{extra[0] * 1000:.1f} ms wall ({share[0]:.3f}x), {extra[1] * 1000:.1f} ms CPU ({share[1]:.3f}x) "
            f"(at most {FOLDER_SHARE}x)",
            share[0] <= FOLDER_SHARE,
        )
    ]


def _cell(run: dict, name: str) -> str:
    if name not in run["median_s"]:
        return "-"
    cpu = run.get("median_cpu_s", {}).get(name)
    return f"{run['median_s'][name]:.3f} s" + (f" ({cpu:.3f} s)" if cpu is not None else "")


def render(results: dict) -> str:
    labels = list(results)
    last = results[labels[-1]]
    load = last.get("load_average")
    out = [
        "## Whole processes: the command line against the scripts a user would write",
        "",
        "Rendered from bench/cli_results.json by `python -m bench.cli_process` (its docstring says how).",
        f"Each command a fresh process, {last['rounds']} rounds alternated in one run, medians of wall time "
        "and, in brackets, of CPU time (user + system, all threads). Corpus "
        f"{last['corpus_bytes'] / 1e6:.1f} MB ({last['corpus_chars']:,} characters): the standard library's "
        "top-level modules and the docs shipped in installed packages (no Node or Rust docs on this machine). "
        "chunktui writes JSONL with exact cl100k_base counts per chunk in its manifest and checks the export; "
        "the LangChain scripts write one JSON line per chunk with its start offset."
        + (f" Load average at the end of the last run: {load[0]:.1f} on {last['cores']} cores." if load else ""),
        "",
        "| command | " + " | ".join(labels) + " |",
        "|---|" + "---:|" * len(labels),
    ]
    for name in last["median_s"]:
        out.append(f"| {name} | " + " | ".join(_cell(results[lb], name) for lb in labels) + " |")
    out += ["", f"Targets ({labels[-1]}, judged on wall time):", ""]
    for what, figure, ok in judged(last):
        out.append(f"* {'met' if ok else 'MISSED'}: {what}: {figure}")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="now", help="Name of this run's column (earlier labels are kept).")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="Another copy of the project whose chunktui is timed alongside.")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.pop(args.label, None)
    results[args.label] = measure(args.rounds, args.baseline)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    SECTION.write_text(render(results))
    print(SECTION.read_text())


if __name__ == "__main__":
    main()
