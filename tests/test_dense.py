"""`eval --model FOLDER`: dense retrieval with a model2vec model the test builds itself (no download).

The model's vectors are one-hot, one dimension per word, so a text's embedding is its word
counts, normalized, and cosine similarity is word overlap: the expected ranking is known.
"""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from model2vec import StaticModel
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.normalizers import Lowercase
from tokenizers.pre_tokenizers import Whitespace

from chunktui.cli.commands import cli
from chunktui.engine import Document, chunk_document
from chunktui.engine.core.errors import ChunktuiError
from chunktui.engine.analysis.retrieval import DenseIndex, Query, Reference, evaluate_retrieval, load_model

NOTES = (
    "Release 2.4 moves the cache to SQLite.\n"
    "The cache directory can be set with HARBOR_CACHE.\n"
    "Rollbacks now keep the previous three releases on each host.\n"
    "A rollback restarts services in reverse dependency order.\n"
    "The health check waits thirty seconds before marking a host unhealthy.\n"
)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    words = sorted(set(re.findall(r"\w+", NOTES.lower())))
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(words)}}
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = Lowercase()
    tokenizer.pre_tokenizer = Whitespace()
    vectors = np.eye(len(vocab), dtype=np.float32)
    vectors[:2] = 0  # unknown words and padding weigh nothing
    folder = tmp_path_factory.mktemp("model")
    StaticModel(vectors=vectors, tokenizer=tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


def test_dense_index_ranks_by_cosine_of_word_counts(model_dir):
    cs = chunk_document(Document.from_text(NOTES, path="notes.txt"), "lines", {"size": 1, "overlap": 0})
    index = DenseIndex(cs.chunks, load_model(model_dir))
    hits = index.search("how many releases does a rollback keep on each host")
    assert len(hits) == len(cs.chunks)  # a dense retriever ranks every chunk
    assert cs.chunks[hits[0][0]].text.startswith("Rollbacks now keep")
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    # cosine of word counts: 5 shared words (keep releases on each host) of the line's 10 and the
    # question's 7 that the vocabulary knows ('how', 'many', 'does' weigh nothing)
    assert hits[0][1] == pytest.approx(5 / (10 * 7) ** 0.5, rel=1e-5)
    ref = NOTES.index("Rollbacks")
    report = evaluate_retrieval(cs, [Query("rollbacks releases", (Reference(ref, ref + 9),))], ks=(1,), index=index)
    assert report.results[0].metrics["recall@1"] == 1.0


def test_eval_command_with_a_local_model(model_dir, tmp_path):
    doc = tmp_path / "notes.txt"
    doc.write_text(NOTES)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"question": "health check seconds", "references": [{"content": "thirty seconds"}]}))
    code_args = [
        "eval",
        str(doc),
        "--queries",
        str(queries),
        "-s",
        "lines",
        "--size",
        "1",
        "--overlap",
        "0",
        "--model",
        str(model_dir),
    ]
    result = CliRunner().invoke(cli, code_args + ["--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["retriever"].startswith(f"dense: cosine of model2vec embeddings ({model_dir})")
    top = data["queries"][0]["retrieved"][0]
    assert NOTES[top["start"] : top["end"]].startswith("The health check")
    assert data["means"]["recall@1"] == 1.0
    table = CliRunner().invoke(cli, code_args)
    assert table.exit_code == 0 and "retriever: dense: cosine of model2vec embeddings" in table.stdout


def test_missing_or_unreadable_model_is_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{")
    (broken / "model.safetensors").write_text("not tensors")
    (broken / "tokenizer.json").write_text("{}")
    for folder, problem in (
        (tmp_path / "nope", "no such folder (a local model2vec model; nothing is downloaded)"),
        ("minishlab/potion-base-8M", "no such folder"),
        (empty, "not a readable model2vec model"),
        (broken, "not a readable model2vec model"),
    ):
        result = CliRunner().invoke(
            cli, ["eval", "sample_docs/guide.md", "--auto-queries", "3", "--model", str(folder)]
        )
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.startswith(f"chunktui: error: --model: {folder}: {problem}")
        assert result.stderr.count("\n") == 1
        with pytest.raises(ChunktuiError):
            load_model(folder)
