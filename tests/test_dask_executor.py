"""`chunktui chunk FOLDER --executor dask` and `chunktui.integrations.dask.chunk_bag`, on Dask
LocalClusters the tests start: the local run's outputs, an unreachable scheduler in one line, a
worker that dies on one file costing only that file."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import cloudpickle
import dask
import dask.bag as db
import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

import chunktui
from support.cli import interrupt_folder_run, run
from chunktui.formats.chunk_rows import chunk_rows
from chunktui.integrations.dask import COLUMNS, chunk_bag

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def threads_cluster():
    """Two one-thread workers in this process: the quickest cluster to start."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster:
        yield cluster


def outputs(folder: Path) -> dict[str, object]:
    """Every output file (index.json too), the output folder's path and the manifests' times taken out."""
    files = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            data = p.read_bytes().replace(str(folder).encode(), b"OUT")
            if p.name == "manifest.json":
                data = {k: v for k, v in json.loads(data).items() if k != "created_at"}
            files[str(p.relative_to(folder))] = data
    return files


def test_a_cluster_writes_what_local_processes_write(corpus, tmp_path, threads_cluster):
    code, out, err = run("chunk", corpus, "-o", tmp_path / "local", "-f", "parquet", "--jobs", "2")
    assert code == 0, err
    code, out, err = run(
        "chunk",
        corpus,
        "-o",
        tmp_path / "dask",
        "-f",
        "parquet",
        "--executor",
        "dask",
        "--scheduler",
        threads_cluster.scheduler_address,
    )
    assert code == 0, err
    local, dask_run = outputs(tmp_path / "local"), outputs(tmp_path / "dask")
    assert len(local) > 20 and local == dask_run and "corpus.parquet" in dask_run  # one dataset, as locally
    assert out.startswith(f"Split {len(list(corpus.rglob('*.*'))):,} files")


def test_an_unreachable_scheduler_is_one_line(corpus, tmp_path):
    code, out, err = run(
        "chunk", corpus, "-o", tmp_path / "out", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"
    )
    assert code == 2 and out == ""
    assert err.startswith("chunktui: error: --scheduler: cannot reach tcp://127.0.0.1:9: ") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
    code, out, err = run("chunk", corpus, "--scheduler", "tcp://127.0.0.1:9")
    assert (code, err) == (2, "chunktui: error: --scheduler: only with --executor dask\n")


class CrashOn(WorkerPlugin):
    """Makes the worker process exit at once when it reads a file of this name, as a crash in a
    native library or the nanny's memory limit ends it."""

    def __init__(self, name: str):
        self.name = name

    def setup(self, worker):
        from chunktui.formats import discover

        load, name = discover.load_source, self.name

        def load_or_die(source, options=None):
            if Path(source).name == name:
                os._exit(1)
            return load(source, options)

        discover.load_source = load_or_die


def test_a_worker_dying_on_one_file_costs_only_that_file(corpus, tmp_path):
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this module
    shutil.copy(corpus / "guide.md", corpus / "crash-me.md")
    # workers forked from a server that has imported distributed (as dask's own tests start them),
    # not two interpreters spawned to import it each: how a worker starts is not what this is about
    with (
        dask.config.set(
            {"distributed.scheduler.allowed-failures": 0, "distributed.worker.multiprocessing-method": "forkserver"}
        ),
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        ) as cluster,
        Client(cluster) as client,
    ):
        client.register_plugin(CrashOn("crash-me.md"))
        code, out, err = run(
            "chunk", corpus, "-o", tmp_path / "out", "--executor", "dask", "--scheduler", cluster.scheduler_address
        )
    assert code == 2, err
    errors = [line for line in err.splitlines() if line.startswith("chunktui: error:")]
    assert errors == [
        f"chunktui: error: {corpus / 'crash-me.md'}: its worker process died on it (killed, out of memory or a crash)"
    ]
    assert "Traceback" not in err
    index = json.loads((tmp_path / "out" / "index.json").read_text())["files"]
    written = [k for k, e in index.items() if "error" not in e]
    assert len(written) == len(list(corpus.rglob("*.*"))) - 1 == len(list((tmp_path / "out").rglob("manifest.json")))
    assert "Failed: 1 file" in out and f"on the Dask cluster at {cluster.scheduler_address}." in out


def test_chunk_bag_gives_the_parquet_exports_rows(threads_cluster):
    guide = (ROOT / "sample_docs" / "guide.md").read_text(encoding="utf-8")
    code = Path(json.__file__).read_text(encoding="utf-8")
    texts = db.from_sequence([("guide.md", guide), ("json/__init__.py", code), guide], npartitions=2)
    with Client(threads_cluster):
        rows = chunk_bag(texts).compute()
    expected = []
    for name, text in (("guide.md", guide), ("json/__init__.py", code), (None, guide)):
        cs = chunktui.Chunker("auto").chunk(chunktui.Document.from_text(text, path=name))
        expected += [dict(zip(COLUMNS, row)) for row in chunk_rows(cs)]
    assert len(rows) > 10 and rows == expected
    assert {r["source"] for r in rows} == {"guide.md", "json/__init__.py", None}
    assert all(r["text"] == guide[r["start_char"] : r["end_char"]] for r in rows if r["source"] == "guide.md")


def test_without_a_scheduler_a_local_cluster_of_jobs_processes_runs_it(tmp_path):
    """No --scheduler: the run starts its own LocalCluster (worker processes) and closes it."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "sample_docs", corpus, ignore=shutil.ignore_patterns("queries", "*.mbox", "*.pdf", "*.docx"))
    code, out, err = run("chunk", corpus, "-o", tmp_path / "local", "--jobs", "2")
    assert code == 0, err
    code, out, err = run("chunk", corpus, "-o", tmp_path / "dask", "--executor", "dask", "--jobs", "2")
    assert code == 0, err
    assert "with 2 processes" in out and outputs(tmp_path / "local") == outputs(tmp_path / "dask")


def test_ctrl_c_stops_a_dask_run_without_tracebacks_and_resume_finishes(corpus, tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: the LocalCluster's
    workers (in that group) ignore it, the run stops, the files being written are finished and
    recorded in index.json (none is written but not recorded), and --resume chunks the rest."""
    out_dir = tmp_path / "out"
    # one copy of the email package: 46 files, 43-44 of them not yet chunked when the signal came in
    # three tries (three or four copies only made the resume longer)
    err, missing = interrupt_folder_run(corpus, out_dir, 1, "--executor", "dask", "--jobs", "2")
    index = json.loads((out_dir / "index.json").read_text())["files"]
    total = len(list(corpus.rglob("*.*")))
    assert missing > 0 and len(index) + missing == total
    assert {Path(e["output"]) for e in index.values()} == {p.parent for p in out_dir.rglob("manifest.json")}
    code, out, err = run("chunk", corpus, "-o", out_dir, "--executor", "dask", "--jobs", "2", "--resume")
    assert code == 0, err
    assert out.startswith(f"Split {missing:,} files") and len(list(out_dir.rglob("manifest.json"))) == total
