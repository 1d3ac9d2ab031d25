"""`chunktui chunk FOLDER --jobs N`: the same outputs as one process, index.json, --resume, bad files."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path


import pytest
from support.cli import interrupt_folder_run, run

ROOT = Path(__file__).parent.parent


def outputs(folder: Path) -> dict[str, bytes]:
    """Every output file but index.json, with the output folder's own path taken out."""
    return {
        str(p.relative_to(folder)): p.read_bytes().replace(str(folder).encode(), b"OUT")
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "index.json"
    }


def without_times(files: dict[str, bytes]) -> dict[str, object]:
    return {
        name: (
            {k: v for k, v in json.loads(data).items() if k != "created_at"} if name.endswith("manifest.json") else data
        )
        for name, data in files.items()
    }


def test_two_processes_write_what_one_writes(corpus, tmp_path, monkeypatch):
    """In tasks of three files (a big folder's batches, on a small one), each handed to the pool once.
    Without --jobs, a folder too small for a pool to pay is chunked in this process, and writes
    the same outputs and the same index.json."""
    from chunktui.cli import parallel

    tasks = []

    class CountingPool(parallel.ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            tasks.append(args[0])
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", CountingPool)
    monkeypatch.setattr(parallel, "batch_size", lambda files, workers: 3)
    code, out, err = run("chunk", corpus, "-o", tmp_path / "one", "-f", "jsonl")
    assert code == 0, err
    code, out, err = run("chunk", corpus, "-o", tmp_path / "two", "-f", "jsonl", "--jobs", "2")
    assert code == 0, err
    files = sorted(str(p) for p in corpus.rglob("*.*"))
    assert sorted(str(source) for task in tasks for _, source, _ in task) == files
    assert len(tasks) == -(-len(files) // 3)
    one, two = outputs(tmp_path / "one"), outputs(tmp_path / "two")
    assert len(one) > 20 and without_times(one) == without_times(two)
    index = json.loads((tmp_path / "two" / "index.json").read_text())
    in_process = (tmp_path / "one" / "index.json").read_text().replace(str(tmp_path / "one"), str(tmp_path / "two"))
    assert json.loads(in_process) == index
    assert index["settings"] == {
        "strategy": "auto",
        "params": {},
        "tokenizer": "cl100k_base",
        "format": "jsonl",
        "context_header": "none",
    }
    manifests = sorted((tmp_path / "two").rglob("manifest.json"))
    assert len(index["files"]) == len(manifests)
    for entry in index["files"].values():
        manifest = json.loads((Path(entry["output"]) / "manifest.json").read_text())
        assert (entry["chunks"], entry["source_sha256"]) == (len(manifest["chunks"]), manifest["source_sha256"])
    assert f"into {sum(e['chunks'] for e in index['files'].values()):,} chunks" in out and "with 2 processes" in out


def test_resume_chunks_only_what_changed(corpus, tmp_path):
    out_dir = tmp_path / "out"
    assert run("chunk", corpus, "-o", out_dir, "--jobs", "2")[0] == 0
    before = {p: p.stat().st_mtime_ns for p in out_dir.rglob("manifest.json")}
    changed = corpus / "notes.md"
    changed.write_text(changed.read_text() + "\n## Later\n\nOne more note.\n")
    code, out, err = run("chunk", corpus, "-o", out_dir, "--jobs", "2", "--resume")
    assert code == 0, err
    assert f"Unchanged, skipped (--resume): {len(before) - 1} files" in out and out.startswith("Split 1 file ")
    rewritten = [p for p in out_dir.rglob("manifest.json") if p.stat().st_mtime_ns != before[p]]
    assert [p.parent.name for p in rewritten] == ["notes-md"]
    assert "One more note." in "".join(p.read_text() for p in (out_dir / "notes-md").glob("chunk-*.txt"))
    code, out, err = run("chunk", corpus, "-o", out_dir, "--jobs", "2", "--resume", "-s", "lines")
    assert code == 0 and "skipped" not in out, err  # other settings: every file again, over its earlier output


def test_resume_after_a_run_without_index_reads_each_manifest(corpus, tmp_path):
    """index.json lost (or an older run's): each output folder's manifest.json holds the source's
    sha256 and the settings, and --resume skips what they match, whatever spelling the flags had."""
    out_dir = tmp_path / "out"
    assert run("chunk", corpus, "-o", out_dir, "-s", "lines", "--size", "40")[0] == 0
    before = {p: p.stat().st_mtime_ns for p in out_dir.rglob("manifest.json")}
    (out_dir / "index.json").unlink()
    changed = corpus / "notes.md"
    changed.write_text(changed.read_text() + "\n## Later\n\nOne more note.\n")
    code, out, err = run("chunk", corpus, "-o", out_dir, "-s", "lines", "--chunk-lines", "40", "--resume")
    assert code == 0, err
    assert f"Unchanged, skipped (--resume): {len(before) - 1} files" in out and out.startswith("Split 1 file ")
    assert [p.parent.name for p in out_dir.rglob("manifest.json") if p.stat().st_mtime_ns != before[p]] == ["notes-md"]
    index = json.loads((out_dir / "index.json").read_text())["files"]
    assert len(index) == len(before) and index[str(corpus / "guide.md")]["strategy"] == "lines"
    (out_dir / "index.json").unlink()
    code, out, err = run("chunk", corpus, "-o", out_dir, "--resume")  # auto did not make these: all again
    assert code == 0 and "skipped" not in out, err
    (out_dir / "index.json").unlink()
    code, out, err = run("chunk", corpus, "-o", out_dir, "--resume")
    assert code == 0 and f"Unchanged, skipped (--resume): {len(before)} files" in out, err


def test_resume_does_not_keep_output_made_with_other_values_of_the_same_flags(tmp_path):
    """index.json records the flags as given: `--unit tokens` alone was a size of 1000 tokens, and is
    200 now. A folder exported then was "Unchanged, skipped" by a resumed run that makes size 200.
    Its index (written before the params were recorded) is not trusted; each manifest says 1000."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("guide.md", "essay.txt", "notes.md"):
        shutil.copy(ROOT / "sample_docs" / name, folder / name)
    out_dir = tmp_path / "out"
    flags = ["-s", "recursive", "--unit", "tokens"]
    assert run("chunk", folder, "-o", out_dir, *flags, "--size", "1000", "--overlap", "200")[0] == 0
    index_path = out_dir / "index.json"
    index = json.loads(index_path.read_text())
    index["settings"]["params"] = {"unit": "tokens"}  # as the earlier version wrote it for `--unit tokens`
    for entry in index["files"].values():
        entry.pop("params", None)
    index_path.write_text(json.dumps(index))
    code, out, err = run("chunk", folder, "-o", out_dir, *flags, "--resume")
    assert code == 0 and "skipped" not in out and out.startswith("Split 3 files "), err
    manifests = [json.loads(p.read_text()) for p in out_dir.rglob("manifest.json")]
    assert sorted(m["params"]["size"] for m in manifests) == [200, 200, 200]
    code, out, err = run("chunk", folder, "-o", out_dir, *flags, "--resume")  # now made with them: kept
    assert code == 0 and "Unchanged, skipped (--resume): 3 files" in out, err


def test_ctrl_c_in_a_run_without_jobs_says_what_is_missing(corpus, tmp_path, monkeypatch):
    """A folder too small for a pool runs in this process; Ctrl-C there keeps what was written,
    records it in index.json and says how to finish, as a pool run does."""
    from chunktui.cli import parallel

    calls = []
    chunk_one = parallel.chunk_one

    def interrupted_on_the_third(*args):
        calls.append(args[0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return chunk_one(*args)

    monkeypatch.setattr(parallel, "chunk_one", interrupted_on_the_third)
    out_dir = tmp_path / "out"
    code, out, err = run("chunk", corpus, "-o", out_dir)
    total = len(list(corpus.rglob("*.*")))
    assert code == 130 and out.startswith("Split 2 files ")
    assert err.splitlines()[-1] == (
        f"chunktui: interrupted: {total - 2} files not chunked; run again with --resume to finish"
    )
    index = json.loads((out_dir / "index.json").read_text())["files"]
    assert sorted(index) == sorted(str(source) for source in calls[:2])
    monkeypatch.undo()
    code, out, err = run("chunk", corpus, "-o", out_dir, "--resume")
    assert code == 0 and out.startswith(f"Split {total - 2} files ") and "skipped (--resume): 2 files" in out, err


def test_a_bad_file_is_one_line_and_the_others_are_written(corpus, tmp_path):
    (corpus / "broken.txt").write_bytes(b"\xef\xbb\xbfa byte order mark, then \xff\xfe not UTF-8\n")
    code, out, err = run("chunk", corpus, "-o", tmp_path / "out", "--jobs", "2")
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("chunktui: error:")]
    assert len(errors) == 1 and "broken.txt" in errors[0]
    index = json.loads((tmp_path / "out" / "index.json").read_text())["files"]
    assert [k for k, e in index.items() if "error" in e] == [str(corpus / "broken.txt")]
    assert "Failed: 1 file" in out and (tmp_path / "out" / "guide-md" / "manifest.json").is_file()
    code, out, err = run("chunk", corpus, "-o", tmp_path / "out", "--jobs", "2", "--resume")
    assert code == 2 and "Split 0 files" in out and "Failed: 1 file" in out  # only the failed file is tried again


def test_jobs_refuses_a_dry_run_in_one_line(corpus):
    code, out, err = run("chunk", corpus, "--jobs", "2", "--dry-run")
    assert (code, out, err) == (2, "", "chunktui: error: --jobs: not with --dry-run or --facts\n")
    code, out, err = run("chunk", corpus, "--jobs", "0")
    assert code == 2 and err.startswith("chunktui: error: ") and len(err.splitlines()) == 1


def test_ctrl_c_keeps_finished_files_and_resume_finishes(corpus, tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it, once some files are written."""
    out_dir = tmp_path / "out"
    # one copy of the email package: 46 files, 42 of them not yet chunked when the signal came in two
    # tries (three or four copies only made the resume longer)
    err, missing = interrupt_folder_run(corpus, out_dir, 1, "--jobs", "2")
    written = {p.parent for p in out_dir.rglob("manifest.json")}
    index = json.loads((out_dir / "index.json").read_text())["files"]
    assert {Path(e["output"]) for e in index.values()} == written and 0 < len(written)
    assert not [p for p in out_dir.rglob(".*") if p.name != "index.json"]  # no half-written export left
    assert missing > 0 and len(written) + missing == len(list(corpus.rglob("*.*")))
    code, out, err = run("chunk", corpus, "-o", out_dir, "--jobs", "2", "--resume")
    assert code == 0, err
    assert out.startswith(f"Split {missing:,} files") and f"skipped (--resume): {len(written):,} files" in out


def test_a_worker_told_to_stop_ends_its_file_and_starts_no_other(corpus, tmp_path, monkeypatch):
    """Ctrl-C in the middle of a task of three files: the parent sets the workers' stop event,
    the worker finishes the file it is writing and returns it alone, the others untouched."""
    import threading

    from chunktui.cli import parallel

    stop, chunk_one = threading.Event(), parallel.chunk_one

    def chunk_then_ctrl_c(*args):
        entry = chunk_one(*args)
        stop.set()
        return entry

    monkeypatch.setattr(parallel, "_stop", stop)
    monkeypatch.setattr(parallel, "chunk_one", chunk_then_ctrl_c)
    sources = [corpus / "guide.md", corpus / "notes.md", corpus / "essay.txt"]
    how = ("auto", {}, "cl100k_base", "jsonl", None, "none")
    out = tmp_path / "out"
    done = parallel.chunk_task([(str(s), s, out / s.stem) for s in sources], how, False, 512)
    assert [key for key, _ in done] == [str(sources[0])] and done[0][1]["chunks"] > 0
    assert [p.name for p in out.iterdir()] == ["guide"] and (out / "guide" / "manifest.json").is_file()


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_killed_worker_costs_no_file(corpus, tmp_path):
    """SIGKILL to a worker mid-run, as the kernel's out-of-memory killer sends it: the pool breaks,
    the files in flight are chunked again one at a time, every file is written."""
    import os
    import signal
    import subprocess
    import time

    # one copy of the email package: the kill comes with the first file written, of 46
    shutil.copytree(
        Path(shutil.__file__).parent / "email",
        corpus / "email",
        ignore=shutil.ignore_patterns("__pycache__", "architecture.rst"),
    )
    out_dir = tmp_path / "out"
    command = [
        sys.executable,
        "-c",
        "from chunktui.cli import main; main()",
        "chunk",
        str(corpus),
        "-o",
        str(out_dir),
        "--jobs",
        "2",
    ]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    deadline, workers = time.monotonic() + 120, []
    while not workers and time.monotonic() < deadline and proc.poll() is None:
        if any(out_dir.rglob("manifest.json")):
            workers = [w for child in children(proc.pid) for w in children(child)]  # the forkserver's children
        time.sleep(0.05)
    os.kill(workers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "a worker process died" in err and "Traceback" not in err
    total = len(list(corpus.rglob("*.*")))
    assert out.startswith(f"Split {total:,} files") and len(list(out_dir.rglob("manifest.json"))) == total


def test_resume_without_jobs_runs_one_process_a_core_it_may_use(corpus, tmp_path, monkeypatch):
    """The default counts the cores this process may run on (a container's or taskset's limit),
    not the machine's: pinned to one core, no pool however much work there is, and the same outputs."""
    import os

    from chunktui.cli import parallel

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started on one core")

    monkeypatch.setattr(parallel, "POOL_START", 0.0)
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", no_pool)
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        code, out, err = run("chunk", corpus, "-o", tmp_path / "pinned", "-f", "jsonl", "--resume")
    finally:
        os.sched_setaffinity(0, allowed)
    assert code == 0, err
    assert " process" not in out and "Index: " in out
    monkeypatch.undo()
    assert run("chunk", corpus, "-o", tmp_path / "all", "-f", "jsonl", "--jobs", "2")[0] == 0
    assert without_times(outputs(tmp_path / "pinned")) == without_times(outputs(tmp_path / "all"))


def test_a_parquet_folder_run_writes_one_verified_dataset(corpus, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out_dir = tmp_path / "out"
    code, out, err = run("chunk", corpus, "-o", out_dir, "-f", "parquet")  # no --jobs: a folder run is one
    assert code == 0, err
    index = json.loads((out_dir / "index.json").read_text())["files"]
    parts = [pq.read_table(Path(e["output"]) / "chunks.parquet") for _, e in sorted(index.items())]
    dataset = pq.read_table(out_dir / "corpus.parquet")
    assert dataset.to_pylist() == [row for part in parts for row in part.to_pylist()]
    assert dataset.num_rows == sum(e["chunks"] for e in index.values()) > 50
    sources = json.loads(dataset.schema.metadata[b"chunktui.sources"])
    assert [s["source"] for s in sources] == sorted(index)
    assert f"Dataset: {out_dir}/corpus.parquet ({dataset.num_rows:,} chunks)" in out
    # a file --resume skips whose chunks.parquet was edited since: its text no longer has its sha256
    part = Path(index[str(corpus / "guide.md")]["output"]) / "chunks.parquet"
    table = pq.read_table(part)
    texts = table.column("text").to_pylist()
    texts[0] = texts[0].replace("e", "3")
    pq.write_table(table.set_column(table.column_names.index("text"), "text", pa.array(texts)), part)
    before = (out_dir / "corpus.parquet").read_bytes()
    code, out, err = run("chunk", corpus, "-o", out_dir, "-f", "parquet", "--resume")
    assert code == 2 and "Dataset:" not in out
    assert err.splitlines() == [
        f"chunktui: error: {out_dir}/corpus.parquet: chunk-0001 of {corpus}/guide.md "
        "read back does not match its sha256; nothing written"
    ]
    assert (out_dir / "corpus.parquet").read_bytes() == before and not list(out_dir.glob(".*tmp"))


def test_without_jobs_a_pool_starts_only_where_it_pays(corpus):
    """The sample folder (17 files, 0.2 MB) is less work than a pool's start, on any number of
    cores; forty times as many files are not, from two cores on."""
    from chunktui.cli.parallel import pool_pays
    from chunktui.formats.discover import plan_jobs

    jobs = plan_jobs([corpus], None, 0, [])
    assert not pool_pays(jobs, 2) and not pool_pays(jobs, 64)
    assert pool_pays(jobs * 40, 2) and not pool_pays(jobs * 40, 1)


def small_folder(tmp_path: Path) -> Path:
    """Three modules of the standard library: a folder run small enough to chunk in this process."""
    folder = tmp_path / "src"
    folder.mkdir()
    for name in ("bisect.py", "colorsys.py", "keyword.py"):
        shutil.copy(Path(shutil.__file__).parent / name, folder / name)
    return folder


def failing_open(name: str, err: int):
    """open() as the full (ENOSPC: the file is made, its first write fails) or read-only (EROFS:
    it cannot be made) disk would give it, for the file called `name` only."""
    import builtins
    import errno
    import os

    real = builtins.open

    def fake(path, *args, **kwargs):
        if Path(path).name != name:
            return real(path, *args, **kwargs)
        if err == errno.EROFS:
            raise OSError(err, os.strerror(err), str(path))
        fh = real(path, *args, **kwargs)

        def full(data):
            raise OSError(err, os.strerror(err))

        fh.write = full
        return fh

    return fake


@pytest.mark.parametrize("err, why", [(28, "disk full"), (30, "Read-only file system")])
def test_an_index_that_cannot_be_written_is_one_line_and_the_outputs_stay(tmp_path, monkeypatch, err, why):
    """Found by review: the run crashed (an internal error, exit 1) and a full disk left an empty
    .index.json.tmp. The files' exports are complete and kept; --resume finds them by their manifests."""
    from chunktui.cli import parallel

    folder, out_dir = small_folder(tmp_path), tmp_path / "out"
    monkeypatch.setattr(parallel, "open", failing_open(".index.json.tmp", err), raising=False)
    code, out, err_text = run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "jsonl")
    assert code == 2 and "Traceback" not in err_text
    assert [line for line in err_text.splitlines() if "error" in line] == [
        f"chunktui: error: {out_dir}: cannot write index.json ({why}); the index was not written, "
        "the files' outputs written are kept"
    ]
    assert out.startswith("Split 3 files ") and "Index:" not in out
    assert sorted(p.name for p in out_dir.iterdir()) == ["bisect-py", "colorsys-py", "keyword-py"]
    monkeypatch.undo()
    code, out, _ = run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "jsonl", "--resume")
    assert code == 0 and "Unchanged, skipped (--resume): 3 files" in out and (out_dir / "index.json").is_file()


def interrupted_open(name: str):
    """open() whose file called `name` takes part of its first write and then gets Ctrl-C, as a
    second Ctrl-C while a stopped run writes its index would."""
    import builtins

    real = builtins.open

    def fake(path, *args, **kwargs):
        fh = real(path, *args, **kwargs)
        if Path(path).name == name:
            write = fh.write

            def interrupted(data):
                write(data[: len(data) // 2])
                fh.flush()
                raise KeyboardInterrupt

            fh.write = interrupted
        return fh

    return fake


def test_ctrl_c_while_the_index_is_written_leaves_the_earlier_index_and_nothing_aside(tmp_path, monkeypatch):
    from chunktui.cli import parallel

    folder, out_dir = small_folder(tmp_path), tmp_path / "out"
    assert run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "jsonl")[0] == 0
    earlier = (out_dir / "index.json").read_bytes()
    monkeypatch.setattr(parallel, "open", interrupted_open(".index.json.tmp"), raising=False)
    code, _, err = run("chunk", folder, "-o", out_dir, "-s", "lines", "-f", "jsonl", "--force")
    assert code == 130 and err.strip().splitlines()[-1] == "chunktui: interrupted", err
    assert (out_dir / "index.json").read_bytes() == earlier
    assert sorted(p.name for p in out_dir.iterdir()) == ["bisect-py", "colorsys-py", "index.json", "keyword-py"]


def test_ctrl_c_while_the_index_is_renamed_waits_for_it_and_says_it_is_in_place(tmp_path, monkeypatch):
    import os
    import signal

    folder, out_dir = small_folder(tmp_path), tmp_path / "out"
    replace = os.replace

    def interrupted_replace(src, dst, *args, **kwargs):
        if Path(dst).name == "index.json":
            signal.raise_signal(signal.SIGINT)
        return replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", interrupted_replace)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's shell gives it
    try:
        code, _, err = run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "jsonl")
    finally:
        signal.signal(signal.SIGINT, handler)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == (
        f"chunktui: interrupted ({out_dir}/index.json was written in full before it stopped)"
    )
    assert json.loads((out_dir / "index.json").read_text())["settings"]["strategy"] == "recursive"
    assert sorted(p.name for p in out_dir.iterdir()) == ["bisect-py", "colorsys-py", "index.json", "keyword-py"]


def test_a_corpus_dataset_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path, monkeypatch):
    """Found by review: pyarrow's OSError on a full disk was an internal error (exit 1)."""
    import errno

    import pyarrow.parquet as pq

    write_table = pq.write_table

    def disk_full_on_the_corpus(table, where, *args, **kwargs):
        if Path(where).name == ".corpus.parquet.tmp":
            Path(where).write_bytes(b"PAR1")  # the start of the file made it
            raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")
        return write_table(table, where, *args, **kwargs)

    monkeypatch.setattr(pq, "write_table", disk_full_on_the_corpus)
    folder, out_dir = small_folder(tmp_path), tmp_path / "out"
    code, out, err = run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "parquet")
    assert code == 2 and "Traceback" not in err
    assert [line for line in err.splitlines() if "error" in line] == [
        f"chunktui: error: {out_dir}/corpus.parquet: cannot write (disk full); nothing written"
    ]
    assert "Dataset:" not in out and f"Index: {out_dir}/index.json" in out
    assert sorted(p.name for p in out_dir.iterdir()) == ["bisect-py", "colorsys-py", "index.json", "keyword-py"]


def test_ctrl_c_while_the_corpus_dataset_is_written_leaves_nothing_aside(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    write_table = pq.write_table

    def interrupted_on_the_corpus(table, where, *args, **kwargs):
        if Path(where).name == ".corpus.parquet.tmp":
            Path(where).write_bytes(b"PAR1")  # the start of the file made it
            raise KeyboardInterrupt
        return write_table(table, where, *args, **kwargs)

    monkeypatch.setattr(pq, "write_table", interrupted_on_the_corpus)
    folder, out_dir = small_folder(tmp_path), tmp_path / "out"
    code, _, err = run("chunk", folder, "-o", out_dir, "-s", "recursive", "-f", "parquet")
    assert code == 130 and err.strip().splitlines()[-1] == "chunktui: interrupted", err
    assert sorted(p.name for p in out_dir.iterdir()) == ["bisect-py", "colorsys-py", "index.json", "keyword-py"]
