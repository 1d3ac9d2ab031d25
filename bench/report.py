"""Render bench/results.json as BENCHMARKS.md (`python -m bench.report` re-renders it)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from .checks import offsets_ok
from .corpus import SIZES

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = {
    "bad_round_trip": "not at their offset",
    "out_of_order": "before their predecessor",
    "lost_gaps": "misplaced past unchunked text",
    "overlapping": "overlapping without overlap",
}
FLOOR_LABEL = {"scan": "line scan", "encode": "encode pass", "parse": "tree-sitter parse"}

METHOD = """\
## How it is measured

* **Corpora** (bench/corpus.py): real text already on the machine, distinct files
  (deduplicated by content) concatenated in a seeded order to 100 KB, 1 MB and 10 MB,
  the last file cut at a line break; no file gives more than 32 KB (256 KB for markdown,
  which has fewer files) so no single huge file makes one size unlike the others; all
  sizes are 2 bytes a character in Python (no emoji files; a non-Latin-1 file first).
  `docs` = .md/.rst/.txt documentation shipped by
  installed packages (Python, site-packages, /usr/share/doc, node); `markdown` = the .md
  files among them; `code` = the .py files of the Python installation's lib directory
  (standard library and site-packages), each cut only after a top-level statement so every
  piece, and so the whole corpus, is valid Python: a file cut at an arbitrary line break can
  stop inside a string or bracket, and tree-sitter then parses all the files after it as error
  recovery (the 10 MB parse took 3.6x the same files parsed one by one; now about 1.03x, see
  `python -m bench.code_parse --corpus`).
* **Contenders** (bench/contenders.py): chunktui's `chunk_document` end to end (spans,
  lines, byte offsets, hashes, gaps; character modes count sizes in characters, token
  modes count every chunk's exact cl100k tokens) against LangChain
  `RecursiveCharacterTextSplitter(add_start_index=True)` and `MarkdownHeaderTextSplitter`,
  chonkie `RecursiveChunker`/`TokenChunker`/`CodeChunker`, semchunk (offsets=True) and
  semantic-text-splitter `TextSplitter`/`MarkdownSplitter`/`CodeSplitter` (trim=False so
  offsets are comparable). Token modes give every peer the same cl100k_base encoding
  object (semantic-text-splitter uses its bundled tiktoken-rs cl100k), nothing downloaded.
* **Timing**: one thread each (RAYON_NUM_THREADS=1); a fresh splitter per run (no cache
  survives between runs: chunktui's token index is cleared too, so token modes show a
  *first* chunking); within a mode and size the contenders take turns, the order rotating
  each repetition; the figure is the median. A contender slower than `--max-seconds` in
  one run is not repeated (marked *1 run*).
* **Floors**: `re.finditer("\\n")` collecting every line break (the least a
  line/paragraph-aware splitter does), a `str.find("\\n\\n")` paragraph scan, one
  whole-document `encode_ordinary` pass, one bare tree-sitter parse. *Ratio to floor*
  compares with the line scan in character modes, the encode pass in token modes and the
  parse in code modes.
* **Checks** (bench/checks.py), on each contender's first run: chunk count; largest chunk
  against the limit (in the mode's unit; cl100k tokens re-counted directly); offsets:
  `text[start:start+len(chunk)] == chunk`, chunks in source order, no non-blank source
  between chunks, and no overlap when overlap is 0. A contender without offsets shows `-`.
* **Scaling exponent**: log(time ratio) / log(size ratio) between the smallest and the
  largest corpus; 1.0 is linear.
"""


# Issue 7 asked for 2x; issue 17 accepted 2.1x a parse for code at 512 (keeping every binding of an
# imported name listed).
CODE_PARSE_TARGET = 2.1


def _fmt_ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _mbps(nbytes: int, seconds: float) -> str:
    return f"{nbytes / seconds / 1e6:.2f}" if seconds else "-"


def exponent(t_small: float, t_large: float, n_small: int, n_large: int) -> float | None:
    if not (t_small and t_large) or n_large <= n_small:
        return None
    return math.log(t_large / t_small) / math.log(n_large / n_small)


def _floor_key(entry: dict) -> str:
    if entry["family"] == "code":
        return "parse"
    return "encode" if entry["unit"] == "tokens" else "scan"


def mode_rows(entry: dict, data: dict) -> list[dict]:
    """Per contender: medians by size, ratios at the largest size, exponent, checks."""
    sizes = entry_sizes(entry)
    largest, smallest = sizes[-1], sizes[0]
    floors = entry.get("floors") or data["floors"][entry["corpus"]]
    at_largest = entry["by_size"][largest]
    peer_times = [r["median"] for r in at_largest.values() if not r["ours"] and r.get("median")]
    fastest_peer = min(peer_times, default=None)
    floor = floors[largest].get(_floor_key(entry))
    rows = []
    for name, r in at_largest.items():
        row = {"name": name, "ours": r["ours"], "skip": r.get("skip")}
        if not row["skip"]:
            med = {s: entry["by_size"][s][name].get("median") for s in sizes}
            row["mbps"] = {s: _mbps(floors[s]["bytes"], med[s]) if med[s] else "-" for s in sizes}
            row["seconds"] = med[largest]
            row["vs_peer"] = med[largest] / fastest_peer if fastest_peer and med[largest] else None
            row["vs_floor"] = med[largest] / floor if floor and med[largest] else None
            row["exponent"] = (
                exponent(med[smallest], med[largest], floors[smallest]["chars"], floors[largest]["chars"])
                if len(sizes) > 1 and med[smallest]
                else None
            )
            row["check"] = r["check"]
            row["runs"] = len(r["times"])
            row["stopped"] = r.get("stopped")
        rows.append(row)
    rows.sort(key=lambda r: (r["skip"] is not None, r.get("seconds") or 0))
    return rows


def _offsets_cell(check: dict) -> str:
    ok = offsets_ok(check)
    if ok is None:
        return "- (none given)"
    if ok:
        return "ok"
    problems = [f"{check[k]} {label}" for k, label in PROBLEMS.items() if check[k]]
    return "**" + ", ".join(problems) + "**"


def entry_sizes(entry: dict) -> list[str]:
    return [s for s in SIZES if s in entry["by_size"]]


def render_mode(entry: dict, data: dict) -> list[str]:
    sizes = entry_sizes(entry)
    floor_name = FLOOR_LABEL[_floor_key(entry)]
    out = [
        f"### {entry['mode']} ({entry['corpus']} corpus)",
        "",
        "| contender | "
        + " | ".join(f"MB/s {s}" for s in sizes)
        + f" | {sizes[-1]} vs fastest peer | vs {floor_name} | exponent | chunks | largest / limit | offsets |",
        "|---|" + "---:|" * len(sizes) + "---:|---:|---:|---:|---:|---|",
    ]
    for row in mode_rows(entry, data):
        name = f"**{row['name']}**" if row["ours"] else row["name"]
        if row["skip"]:
            out.append(f"| {name} | skipped: {row['skip']} |" + " |" * (len(sizes) + 5))
            continue
        c = row["check"]
        over = f" ({c['over_limit']} over)" if c["over_limit"] else ""
        runs = " (1 run)" if row["runs"] == 1 and row["stopped"] else ""
        exp = "-" if row["exponent"] is None else f"{row['exponent']:.2f}"
        out.append(
            f"| {name}{runs} | "
            + " | ".join(row["mbps"][s] for s in sizes)
            + f" | {_fmt_ratio(row['vs_peer'])} | {_fmt_ratio(row['vs_floor'])} | {exp}"
            + f" | {c['chunks']} | {c['max_size']} / {c['limit']}{over} | {_offsets_cell(c)} |"
        )
    out.append("")
    return out


def targets(data: dict) -> list[tuple[str, str, bool | None]]:
    """(target, measured, met) for every target the issue sets that this run measured."""
    rows = []
    for entry in data["modes"]:
        mode_rows_ = mode_rows(entry, data)
        ours = [r for r in mode_rows_ if r["ours"] and not r["skip"]]
        peers = [r for r in mode_rows_ if not r["ours"] and not r["skip"]]
        largest = entry_sizes(entry)[-1]
        for r in ours:
            label = f"{r['name']}, {entry['mode']}"
            if entry["unit"] != "tokens" and peers:
                fastest = min(peers, key=lambda p: p["seconds"])
                rows.append(
                    (
                        f"{label}: faster than every peer ({largest})",
                        f"{r['vs_peer']:.2f}x the fastest peer ({fastest['name']})",
                        r["vs_peer"] < 1,
                    )
                )
            if entry["family"] == "code" and r["vs_floor"] is not None:
                rows.append(
                    (
                        f"{label}: at most {CODE_PARSE_TARGET}x a bare parse ({largest})",
                        f"{r['vs_floor']:.2f}x",
                        r["vs_floor"] <= CODE_PARSE_TARGET,
                    )
                )
            elif entry["unit"] != "tokens" and r["vs_floor"] is not None:
                rows.append(
                    (
                        f"{label}: within 5x of the delimiter scan ({largest})",
                        f"{r['vs_floor']:.1f}x",
                        r["vs_floor"] <= 5,
                    )
                )
            if r["exponent"] is not None:
                rows.append((f"{label}: scaling exponent at most 1.1", f"{r['exponent']:.2f}", r["exponent"] <= 1.1))
    for t in data["tokens"]:
        first = t["first"] / t["encode"]
        rows.append(
            (f"token counts, first chunking ({t['size']}): at most 1.3x one encode pass", f"{first:.2f}x", first <= 1.3)
        )
        for label, v in t["rechunk"].items():
            ratio = v["seconds"] / t["encode"]
            rows.append(
                (
                    f"token counts, re-chunk to {label} ({t['size']}): at most 0.1x one encode pass",
                    f"{ratio:.3f}x ({v['spans']} chunks)",
                    ratio <= 0.1,
                )
            )
    return rows


def render(data: dict) -> str:
    m = data["machine"]
    out = [
        "# Benchmarks",
        "",
        f"Generated by `{data['command'].strip()}` (`make bench` runs `python -m bench.run`) on "
        f"{data.get('finished', 'an unrecorded date')} in {data.get('seconds', '?')} s; "
        f"median of {data['repeat']} runs. Re-run to refresh: every number below comes from "
        "bench/results.json of that run.",
        "",
        "## Machine",
        "",
        "| nproc | CPU | memory | Python | platform | load average at start (1/5/15 min) | at the end |",
        "|---:|---|---|---|---|---|---|",
        f"| {m['nproc']} | {m['cpu']} | {m['memory']} | {m['python']} | {m['platform']} | {m['load_at_start']} "
        f"| {m.get('load_at_end', 'not recorded')} |",
        "",
        "| package | version |",
        "|---|---|",
    ]
    out += [f"| {k} | {v} |" for k, v in data["versions"].items()]
    out += ["", METHOD, "## Targets", "", "| target | measured | met |", "|---|---|---|"]
    for target, measured, met in targets(data):
        out.append(f"| {target} | {measured} | {'yes' if met else '**no**'} |")
    out += [
        "",
        "## Floors",
        "",
        "| corpus | size | chars | line scan (re.finditer) | paragraph scan (str.find) | encode_ordinary | tree-sitter parse |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for kind, by_size in data["floors"].items():
        for key, f in by_size.items():
            parse = f"{f['parse'] * 1000:.1f} ms" if "parse" in f else "-"
            out.append(
                f"| {kind} | {key} | {f['chars']:,} | {f['scan'] * 1000:.1f} ms | {f['find'] * 1000:.1f} ms"
                f" | {f['encode'] * 1000:.1f} ms | {parse} |"
            )
    out += [
        "",
        "## Modes",
        "",
        "MB/s is UTF-8 megabytes of corpus per second (higher is better); ratios are times at the largest "
        "size (lower is better; below 1.00x is faster than the fastest peer). chunktui rows in bold.",
        "",
    ]
    for entry in data["modes"]:
        out += render_mode(entry, data)
    out += render_repeated(data.get("repeated", []))
    out += render_tokens(data["tokens"])
    return "\n".join(out) + "\n"


def render_repeated(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    out = [
        "## Repeated text",
        "",
        "A document of real sections behind the same licence header, then 150 identical checklists and "
        "300 identical status lines "
        "(bench/repeated.py). Offsets that a library finds with `str.find` land on an earlier copy.",
        "",
        "| mode | contender | chunks | offsets |",
        "|---|---|---:|---|",
    ]
    for r in rows:
        if "skip" in r:
            out.append(f"| {r['mode']} | {r['contender']} | - | skipped: {r['skip']} |")
            continue
        out.append(f"| {r['mode']} | {r['contender']} | {r['chunks']} | {_offsets_cell(r)} |")
    out.append("")
    return out


def render_tokens(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    labels = list(rows[0]["rechunk"])
    out = [
        "## Token counts: first chunking and re-chunk",
        "",
        "`TiktokenCounter.count_spans` over real chunkings of the docs corpus (bench/token_counts.py), "
        "as a ratio to one whole-document `encode_ordinary` pass. *first*: fixed 2048 chars with 10% "
        "overlap, no index kept (it is built by this call); *re-chunk*: other parameters on the same "
        "text. *direct*: encoding every span on its own, what a counter without the index does. "
        "Each figure is the median of the runs (below 1 MB, where a run can take under a millisecond, "
        "five times as many and at least 50); a re-chunk is timed with no garbage collection forced "
        "before it, as an app or a pipeline calls it (the others collect first). A re-chunk costs a few microseconds a span whatever its length: "
        "what it pays for is the characters from a span's ends to the nearest anchors.",
        "",
        "| size | chunks (first) | encode pass | direct | first | "
        + " | ".join(f"re-chunk: {l}" for l in labels)
        + " | exact |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(labels) + "---|",
    ]
    for t in rows:
        e = t["encode"]
        cells = " | ".join(
            f"{v['seconds'] / e:.3f}x ({v['spans']} spans, {v['seconds'] / v['spans'] * 1e6:.0f} µs each)"
            for v in t["rechunk"].values()
        )
        out.append(
            f"| {t['size']} | {t['spans_first']} | {e * 1000:.0f} ms | {t['direct'] / e:.2f}x | "
            f"{t['first'] / e:.2f}x | {cells} | {'yes' if t['exact'] else '**NO**'} |"
        )
    out.append("")
    return out


def write_benchmarks(data) -> None:
    """BENCHMARKS.md: the engine modes rendered from results.json, then the sections kept by hand
    (why the missed targets miss, how many code chunks fit, whole processes against scripted peers,
    the app, retrieval against the peers, retrieval and context header speed, long runs without spaces,
    document readers, corpus runs on every core)."""
    text = render(data)
    for name in (
        "MISSED.md",
        "CODE_FIT.md",
        "CLI_BENCHMARKS.md",
        "CLI_NOTES.md",
        "APP_BENCHMARKS.md",
        "RETRIEVAL_BENCHMARKS.md",
        "RETRIEVAL_SPEED.md",
        "LONG_RUNS.md",
        "READERS.md",
        "PARALLEL_RUNS.md",
    ):
        kept = ROOT / "bench" / name
        if kept.exists():
            text += "\n" + kept.read_text()
    (ROOT / "BENCHMARKS.md").write_text(text)


def main() -> None:
    write_benchmarks(json.loads((ROOT / "bench" / "results.json").read_text()))


if __name__ == "__main__":
    main()
