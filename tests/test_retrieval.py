"""Retrieval evaluation: queries files, the FTS5 retriever and metrics from exact offsets."""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, chunk_document, load_document
from chunktui.engine.analysis.retrieval import (
    BM25Index,
    Query,
    QueryFileError,
    Reference,
    auto_queries,
    chunks_key,
    embedded_text,
    embedded_tokens,
    evaluate_retrieval,
    fts5_query,
    load_queries,
    merge,
    reciprocal_rank,
    span_metrics,
    within_budget,
)
from chunktui.engine.core.tokens import get_counter

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)

# a changelog-like document: every paragraph about one thing, so the right answer is known
NOTES = (
    "Release 2.4 moves the cache to SQLite.\n"
    "The cache directory can be set with HARBOR_CACHE.\n"
    "\n"
    "Rollbacks now keep the previous three releases on each host.\n"
    "A rollback restarts services in reverse dependency order.\n"
    "\n"
    "The health check waits thirty seconds before marking a host unhealthy.\n"
)


# --- metrics on hand-computed cases ----------------------------------------------------------


def test_span_metrics_hand_computed():
    # retrieved union 0..20 (20 chars), reference 15..25 (10 chars), both 15..20 (5 chars)
    m = span_metrics([(0, 10), (5, 20)], [(15, 25)])
    assert m == {"recall": 0.5, "precision": 0.25, "iou": 5 / 25, "hit": 1.0}
    # overlapping references count each character once: 0..6; retrieved 4..10 holds 4..6
    m = span_metrics([(4, 10)], [(0, 4), (2, 6)])
    assert m == {"recall": 2 / 6, "precision": 2 / 6, "iou": 2 / 10, "hit": 1.0}
    # touching is not overlapping
    assert span_metrics([(0, 12)], [(12, 13)]) == {"recall": 0.0, "precision": 0.0, "iou": 0.0, "hit": 0.0}
    assert span_metrics([], [(3, 4)]) == {"recall": 0.0, "precision": 0.0, "iou": 0.0, "hit": 0.0}
    assert span_metrics([(0, 10)], [(0, 10)]) == {"recall": 1.0, "precision": 1.0, "iou": 1.0, "hit": 1.0}


def test_merge_reciprocal_rank_and_budget_hand_computed():
    assert merge([(5, 9), (0, 3), (3, 4), (8, 12), (20, 20)]) == [(0, 4), (5, 12)]
    assert reciprocal_rank([(0, 5), (10, 20), (30, 40)], [(12, 13)]) == 0.5
    assert reciprocal_rank([(0, 5), (10, 12)], [(12, 13)]) == 0.0
    assert within_budget([300, 500, 400], 1000) == 2
    assert within_budget([300, 700, 1], 1000) == 2  # 300 + 700 = 1000 fits, the 1 does not
    assert within_budget([1200, 10], 1000) == 0  # a first chunk over the budget retrieves nothing
    assert within_budget([], 1000) == 0


def test_fts5_query_quotes_every_word_and_ors_them():
    assert fts5_query('NEAR("a" b) OR -c* AND d:e') == '"near" OR "a" OR "b" OR "or" OR "c" OR "and" OR "d" OR "e"'
    assert fts5_query("?!") == ""
    index = BM25Index([SimpleNamespace(text="x AND y", context_text=None, embed_text="x AND y", start=0, end=7)])
    assert list(index.search('AND" OR (')) and list(index.search("--")) == []


def test_evaluation_retrieves_the_paragraph_that_answers():
    doc = Document.from_text(NOTES, path="notes.txt")
    cs = chunk_document(doc, "lines", {"size": 1, "overlap": 0})
    ref = NOTES.index("Rollbacks now keep")
    q = Query("how many releases do rollbacks keep?", (Reference(ref, NOTES.index("\n", ref)),))
    report = evaluate_retrieval(cs, [q], ks=(1, 3))
    (r,) = report.results
    top = cs.chunks[r.ranked[0][0]]
    assert top.text == "Rollbacks now keep the previous three releases on each host.\n"
    assert r.ranked == sorted(r.ranked, key=lambda p: -p[1])
    # the reference is the line without its newline: recall 1, precision 61/62
    assert r.metrics["recall@1"] == 1.0 and r.metrics["precision@1"] == (top.chars - 1) / top.chars
    assert r.metrics["mrr"] == 1.0 and r.metrics["hit@1"] == 1.0
    # the budget holds every matching line here (7 lines, far under 1,000 tokens)
    assert r.metrics["recall@budget"] == 1.0
    assert report.means()["recall@1"] == 1.0


def test_budget_metrics_stop_at_the_embedded_token_budget():
    doc = Document.from_text(NOTES, path="notes.txt")
    cs = chunk_document(doc, "lines", {"size": 1, "overlap": 0})
    q = Query("cache host", (Reference(0, len(NOTES)),))
    tokens = embedded_tokens(cs.chunks)
    report = evaluate_retrieval(cs, [q], ks=(1,), budget=25)
    (r,) = report.results
    every = list(BM25Index(cs.chunks).search(q.question))  # the whole ranking: 4 lines say cache or host
    assert len(every) == 4 and r.ranked == every[: len(r.ranked)]
    taken = within_budget([tokens[p] for p, _ in every], 25)
    assert 0 < taken < len(every)
    assert sum(tokens[p] for p, _ in every[:taken]) <= 25 < sum(tokens[p] for p, _ in every[: taken + 1])
    spans = [(cs.chunks[p].start, cs.chunks[p].end) for p, _ in every[:taken]]
    assert r.metrics["recall@budget"] == span_metrics(spans, [(0, len(NOTES))])["recall"] > 0


def test_retrieval_and_token_counts_use_the_embedded_text():
    """A chunk whose context text differs from its span (subtitle cues) is found by, and
    counted as, the text it embeds."""
    doc = load_document(SAMPLES / "talk.vtt")
    cs = chunk_document(doc, "cues", {})
    with_context = [c for c in cs.chunks if c.context_text and c.context_text != c.text]
    assert with_context, "talk.vtt's cue chunks embed their cue text"
    counter = get_counter(cs.tokenizer)
    tokens = embedded_tokens(cs.chunks)
    for c, t in zip(cs.chunks, tokens):
        assert embedded_text(c) == (c.context_text or c.text) and t == counter.count(embedded_text(c))
    # a timestamp is in every cue's span but in no embedded text: it retrieves nothing
    stamp = doc.text[with_context[0].start : with_context[0].end].split("-->")[0].split()[-1]
    assert stamp in with_context[0].text and stamp not in with_context[0].context_text
    index = BM25Index(cs.chunks)
    assert list(index.search(stamp.replace(":", " ").replace(".", " "))) == []


# --- the ranking is FTS5's bm25(), as SQLite documents it ------------------------------------


def reference_ranking(chunks, question: str) -> list[tuple[int, float]]:
    """BM25 straight from SQLite's description of FTS5's bm25(): k1 1.2, b 0.75, for each phrase
    of the query (each question word, tokenized as FTS5 tokenizes it) idf = ln((N - n + 0.5) /
    (n + 0.5)), 1e-6 when not positive, and score = sum over the phrases in order of
    idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl)), with f the phrase's occurrences in the
    chunk and D its length in tokens, both read from an FTS5 vocabulary table; every chunk holding a
    phrase, best first, equal scores by (start, end)."""
    query = fts5_query(question)  # '"word" OR "word"': each quoted word is a phrase
    words = [w[1:-1].replace('""', '"') for w in query.split(" OR ")] if query else []
    db = sqlite3.connect(":memory:")
    for table, rows in (("chunks", [c.embed_text for c in chunks]), ("words", words)):
        db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize='porter unicode61')")
        db.execute(f"CREATE VIRTUAL TABLE {table}_v USING fts5vocab({table}, 'instance')")
        db.executemany(f"INSERT INTO {table}(rowid, body) VALUES (?, ?)", enumerate(rows))
    positions = collections.defaultdict(set)  # (term, chunk) -> token offsets
    for term, doc, offset in db.execute("SELECT term, doc, offset FROM chunks_v"):
        positions[term, doc].add(offset)
    length = collections.Counter()  # chunk -> tokens
    for (_, doc), offsets in positions.items():
        length[doc] += len(offsets)
    phrases = [[] for _ in words]
    for term, word, offset in db.execute("SELECT term, doc, offset FROM words_v"):
        phrases[word].append((offset, term))
    n, avgdl, k1, b = len(chunks), sum(length.values()) / len(chunks), 1.2, 0.75
    score = {}
    for phrase in (tuple(term for _, term in sorted(p)) for p in phrases):
        freq = {
            doc: sum(
                all(start + j in positions[term, doc] for j, term in enumerate(phrase))
                for start in positions[phrase[0], doc]
            )
            for doc in range(n)
            if phrase and positions.get((phrase[0], doc))
        }
        freq = {doc: f for doc, f in freq.items() if f}
        idf = math.log((n - len(freq) + 0.5) / (len(freq) + 0.5))
        idf = idf if idf > 0.0 else 1e-6
        for doc, f in freq.items():
            score[doc] = score.get(doc, 0.0) + idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * length[doc] / avgdl)))
    return sorted(score.items(), key=lambda hit: (-hit[1], chunks[hit[0]].start, chunks[hit[0]].end))


ODD_QUESTIONS = [
    "How is harbor_cache set? __init__ and café, naïve 3.11.7",
    "the of and to a in is it",
    "rollback rollbacks",
]


@pytest.mark.parametrize(
    ("sample", "queries", "strategy", "params", "header"),
    [
        ("guide.md", "guide.jsonl", "markdown", {}, "none"),
        ("guide.md", "guide.jsonl", "markdown", {}, "path"),
        ("guide.md", "guide.jsonl", "recursive", {"size": 300, "overlap": 60, "unit": "chars"}, "none"),
        ("guide.md", "guide.jsonl", "fixed", {"size": 150, "overlap": 0, "unit": "chars"}, "title"),
        ("essay.txt", "essay.csv", "prose", {}, "none"),
        ("essay.txt", "essay.csv", "recursive", {"size": 800, "overlap": 0, "unit": "chars"}, "none"),
    ],
)
def test_the_ranking_is_bm25_as_fts5_documents_it(sample, queries, strategy, params, header):
    """Every score and the order of every chunk of the ranking, exactly (the same doubles), against
    the formula computed directly, for the hand-written questions, 20 synthetic ones and odd words;
    chunks cut mid-word by `fixed` and context headers included; the index tokenizing every
    embedded text whole and the one taking the chunks' tokens from the document's alike."""
    doc = load_document(SAMPLES / sample)
    cs = chunk_document(doc, strategy, params, context_header=header)
    questions = [q.question for q in load_queries(SAMPLES / "queries" / queries, doc.text)]
    questions += [q.question for q in auto_queries(doc.text, 20)] + ODD_QUESTIONS
    whole, spans = BM25Index(cs.chunks), BM25Index(cs.chunks, doc.text)
    for question in questions:
        expected = reference_ranking(cs.chunks, question)
        assert list(whole.search(question)) == expected, question
        assert list(spans.search(question)) == expected, question


def test_chunks_key_follows_spans_and_embedded_texts():
    cs = chunk_document(load_document(SAMPLES / "talk.vtt"), "cues", {})
    renumbered = [dataclasses.replace(c, index=c.index + 7) for c in cs.chunks]
    assert chunks_key(renumbered) == chunks_key(cs.chunks)
    first = cs.chunks[0]
    assert chunks_key(
        [dataclasses.replace(first, embed_text=first.text, embed_tokens=first.tokens), *cs.chunks[1:]]
    ) != chunks_key(cs.chunks)
    assert chunks_key([dataclasses.replace(first, end=first.end - 1), *cs.chunks[1:]]) != chunks_key(cs.chunks)


# --- properties ------------------------------------------------------------------------------

spans = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 60)).map(lambda t: (t[0], t[0] + t[1])), max_size=8)


@SETTINGS
@given(spans, spans)
def test_iou_is_at_most_recall_and_precision(retrieved, references):
    m = span_metrics(retrieved, references)
    assert m["iou"] <= m["recall"] + 1e-12 and m["iou"] <= m["precision"] + 1e-12
    assert all(0.0 <= v <= 1.0 for v in m.values())
    assert (m["hit"] == 1.0) == (m["recall"] > 0)


WORDS = ["cache", "host", "rollback", "release", "health", "check", "deploy", "yaml", "service", "agent"]
word_docs = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join), min_size=1, max_size=30
).map(lambda lines: "\n".join(lines) + "\n")


@SETTINGS
@given(word_docs, st.integers(1, 4), st.data())
def test_recall_is_one_when_k_covers_every_chunk(text, size, data):
    """`lines` with no overlap covers the text; every line has a word of the question, so every
    chunk is retrieved and k = the chunk count recovers every reference character."""
    cs = chunk_document(Document.from_text(text, path="w.txt"), "lines", {"size": size, "overlap": 0})
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    q = Query(" ".join(WORDS), (Reference(start, end),))
    report = evaluate_retrieval(cs, [q], ks=(len(cs.chunks),), budget=10**9)
    assert report.results[0].metrics[f"recall@{len(cs.chunks)}"] == 1.0
    assert report.results[0].metrics["recall@budget"] == 1.0


@SETTINGS
@given(
    word_docs,
    st.integers(1, 3),
    st.integers(0, 2),
    st.randoms(use_true_random=False),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join), min_size=1, max_size=4),
)
def test_metrics_do_not_change_when_chunks_are_renumbered_and_reordered(text, size, overlap, rnd, questions):
    if overlap >= size:
        overlap = 0
    doc = Document.from_text(text, path="w.txt")
    cs = chunk_document(doc, "lines", {"size": size, "overlap": overlap})
    queries = [Query(qs, (Reference(0, len(text) // 2 or 1),)) for qs in questions]
    shuffled = [dataclasses.replace(c, index=1000 - i) for i, c in enumerate(cs.chunks)]
    rnd.shuffle(shuffled)
    renumbered = SimpleNamespace(chunks=shuffled, tokenizer=cs.tokenizer, document=doc)
    a = evaluate_retrieval(cs, queries, ks=(1, 2, 3), budget=20)
    b = evaluate_retrieval(renumbered, queries, ks=(1, 2, 3), budget=20)
    assert [r.metrics for r in a.results] == [r.metrics for r in b.results]


# --- queries files ----------------------------------------------------------------------------


def write(tmp_path, name, content):
    p = tmp_path / name
    p.write_text(content, encoding="utf-8")
    return p


def test_jsonl_and_csv_queries_files_in_the_published_format(tmp_path):
    start = NOTES.index("thirty seconds")
    ref = {"content": "thirty seconds", "start_index": start, "end_index": start + 14}
    jsonl = write(
        tmp_path,
        "q.jsonl",
        json.dumps({"question": "How long is the health check?", "references": [ref]})
        + "\n\n"
        + json.dumps({"question": "cache variable", "references": [{"content": "HARBOR_CACHE"}]}),
    )
    queries = load_queries(jsonl, NOTES)
    assert queries[0] == Query("How long is the health check?", (Reference(start, start + 14),))
    at = NOTES.index("HARBOR_CACHE")
    assert queries[1].references == (Reference(at, at + len("HARBOR_CACHE")),)  # located by its content
    # Chroma's chunking_evaluation CSV: references as a JSON string, other columns ignored
    rows = (
        'question,references,corpus_id\n"How long is the health check?","'
        + json.dumps([ref]).replace('"', '""')
        + '",notes\n'
    )
    assert load_queries(write(tmp_path, "q.csv", rows), NOTES) == queries[:1]
    # a JSON array of the same objects, whatever the suffix
    array = json.dumps([{"question": "How long is the health check?", "references": [ref]}], indent=2)
    assert load_queries(write(tmp_path, "q.json", array), NOTES) == queries[:1]
    assert load_queries(write(tmp_path, "q.txt", array), NOTES) == queries[:1]


@pytest.mark.parametrize(
    "name, content, problem",
    [
        ("empty.jsonl", "", "no queries in the file (empty)"),
        ("blank.csv", "\n\n", "no queries in the file (empty)"),
        (
            "out.jsonl",
            '{"question": "where?", "references": [{"content": "x", "start_index": 5, "end_index": 999}]}',
            "query 1 ('where?'): reference 1: offsets 5..999 lie outside the file",
        ),
        (
            "neg.jsonl",
            '{"question": "where?", "references": [{"start_index": -1, "end_index": 3}]}',
            "query 1 ('where?'): reference 1: offsets -1..3 lie outside the file",
        ),
        (
            "mismatch.jsonl",
            (
                '{"question": "q1", "references": [{"content": "Release", "start_index": 0, "end_index": 7}]}\n'
                '{"question": "q2", "references": [{"content": "Rollback", "start_index": 0, "end_index": 8}]}'
            ),
            "query 2 ('q2'): reference 1: content does not match the text at 0..8 ('Release ' in the file)",
        ),
        (
            "missing.jsonl",
            '{"question": "q", "references": [{"content": "kubernetes"}]}',
            "query 1 ('q'): reference 1: content not found in the file ('kubernetes')",
        ),
        (
            "ambiguous.jsonl",
            '{"question": "q", "references": [{"content": "cache"}]}',
            "query 1 ('q'): reference 1: content is ambiguous, found 2 times ('cache')",
        ),
        ("noq.jsonl", '{"references": [{"content": "SQLite"}]}', "query 1: no question"),
        ("norefs.jsonl", '{"question": "q", "references": []}', "query 1 ('q'): references must be a non-empty list"),
        (
            "half.jsonl",
            '{"question": "q", "references": [{"start_index": 3}]}',
            "query 1 ('q'): reference 1: start_index and end_index must both be whole numbers",
        ),
        ("bad.jsonl", '{"question": "q", "references": [{"content": "SQLite"}]}\n{oops', "line 2: not JSON"),
        ("bad.csv", "question,answer\nq,a\n", "the CSV header lacks references"),
        ("badrefs.csv", "question,references\nq,[oops\n", "query 1: references is not a JSON list"),
        (
            "array.json",
            '[{"question": "q", "references": [{"content": "SQLite"}]}, "q2"]',
            "query 2: a query is a JSON object with question and references",
        ),
        ("array.json", '[{"question": "q",\n "references": [}]', "line 2: not JSON"),
    ],
)
def test_malformed_queries_files_name_the_query_and_the_problem(tmp_path, name, content, problem):
    p = write(tmp_path, name, content)
    with pytest.raises(QueryFileError) as info:
        load_queries(p, NOTES)
    assert str(info.value).startswith(f"{p}: {problem}")
    assert "\n" not in str(info.value)


def test_missing_queries_file(tmp_path):
    with pytest.raises(QueryFileError, match="no such file"):
        load_queries(tmp_path / "nope.jsonl", NOTES)


# --- synthetic questions and the sample data -----------------------------------------------------


def test_auto_queries_are_seeded_sentences_labelled_synthetic():
    text = (SAMPLES / "guide.md").read_text(encoding="utf-8")
    a, b = auto_queries(text, 12, seed=3), auto_queries(text, 12, seed=3)
    assert a == b and len(a) == 12 and a != auto_queries(text, 12, seed=4)
    for q in a:
        assert q.synthetic
        (ref,) = q.references
        sentence = text[ref.start : ref.end]
        assert sentence == sentence.strip() and "\n\n" not in sentence
        words = q.question.split()
        assert 1 <= len(words) and all(w in sentence for w in words)


def test_shipped_sample_queries_hold_exact_offsets():
    """Every reference of the sample queries gives both its content and its offsets, and
    load_queries checks the one against the other."""
    for doc_name, queries_name in (("guide.md", "guide.jsonl"), ("essay.txt", "essay.csv")):
        path = SAMPLES / "queries" / queries_name
        text = load_document(SAMPLES / doc_name).text
        raw = path.read_text(encoding="utf-8")
        refs = raw.count("content")
        assert refs == raw.count("start_index") == raw.count("end_index") >= 10
        queries = load_queries(path, text)
        assert len(queries) >= 10 and sum(len(q.references) for q in queries) == refs
        for q in queries:
            for ref in q.references:
                assert text[ref.start : ref.end] == text[ref.start : ref.end].strip()
