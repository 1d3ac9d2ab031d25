"""The Python BM25 (chunktui/engine/analysis/bm25.py) against SQLite's FTS5 itself: the same
scores to the last bit and the same ranking, on texts that cut words, overlap, carry headers and
mix scripts, diacritics and underscores; and a document tokenized once for every chunking."""

from __future__ import annotations

import random
import sqlite3
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, chunk_document
from chunktui.engine.analysis import bm25
from chunktui.engine.analysis.retrieval import BM25Index, auto_queries, evaluate_retrieval, fts5_query

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


def fts5_ranking(chunks, question: str) -> list[tuple[int, float]]:
    """What FTS5 answers: its bm25() over the embedded texts, best first, ties by (start, end)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE chunks USING fts5(body, tokenize='porter unicode61')")
    db.executemany("INSERT INTO chunks(rowid, body) VALUES (?, ?)", ((i, c.embed_text) for i, c in enumerate(chunks)))
    match = fts5_query(question)
    rows = (
        db.execute("SELECT rowid, -bm25(chunks) FROM chunks WHERE chunks MATCH ?", (match,)).fetchall() if match else []
    )
    return sorted(rows, key=lambda hit: (-hit[1], chunks[hit[0]].start, chunks[hit[0]].end))


def test_hand_computed_scores():
    """Three chunks, the question "cache": n = 1 of N = 3, idf = ln(2.5 / 1.5); chunk 0 holds it
    twice in 4 tokens ("caches" stems to it too), avgdl = (4 + 2 + 3) / 3 = 3."""
    text = "cache the caches now|rollback hosts|one more word"
    chunks = [
        SimpleNamespace(start=s, end=e, text=text[s:e], embed_text=text[s:e]) for s, e in ((0, 20), (21, 35), (36, 49))
    ]
    idf, norm = bm25.log(2.5 / 1.5), 1.2 * (1 - 0.75 + 0.75 * 4 / 3)
    expected = [(0, idf * (2 * 2.2) / (2 + norm))]
    assert list(BM25Index(chunks, text).search("Cache?")) == expected == fts5_ranking(chunks, "Cache?")
    assert list(BM25Index(chunks, text).search("_ __")) == [] == fts5_ranking(chunks, "_ __")


# words FTS5 splits, folds or stems differently from Python's \w: diacritics alone and combined,
# underscores, digits, other scripts, a private-use character, ß and the Porter suffixes
WORDS = [
    "cache",
    "caching",
    "cached",
    "rollback",
    "rollbacks",
    "naïve",
    "nai\u0301ve",
    "\u0301x",
    "harbor_cache",
    "__init__",
    "3.11",
    "Straße",
    "STRASSE",
    "καλημέρα",
    "日本語",
    "\ue000z",
    "éé",
    "ﬁle",
    "a",
    "x1",
    "harbor",
    "roll",
    "cach",
]
texts = st.lists(st.sampled_from(WORDS + [" ", "\n", ".", ", ", "-", "\u0301"]), min_size=8, max_size=60).map("".join)


@SETTINGS
@given(texts, st.data())
def test_same_scores_and_ranking_as_fts5(text, data):
    """Chunks at random spans (cutting words, overlapping, some with a header in front, one whose
    embedded text is not its span) ranked as FTS5 ranks them, with the document and without."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=4, max_size=12)))
    chunks = []
    for j, (s, e) in enumerate(zip(cuts, cuts[1:])):
        e = min(len(text), e + data.draw(st.integers(0, 6)))  # overlap the next chunk sometimes
        if e <= s:
            continue
        head = data.draw(st.sampled_from(["", "guide.md > Cache\n\n", "naïve_x ", "harbor"]))
        own = data.draw(st.sampled_from([None, "rollback caching"])) if j == 0 else None
        chunks.append(SimpleNamespace(start=s, end=e, text=text[s:e], embed_text=own or head + text[s:e]))
    question = " ".join(data.draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5)))
    expected = fts5_ranking(chunks, question)
    assert list(BM25Index(chunks, text).search(question)) == expected
    assert list(BM25Index(chunks).search(question)) == expected


def test_phrases_across_cut_words_headers_and_overlaps():
    """Question words FTS5 reads as phrases of two terms (harbor_cache: "harbor cache"), counted
    only where both terms follow each other: across a header's blank line too, never across a
    chunk's edge; 40 seeded chunkings."""
    text = "harbor rollback harbor_cache x harbor cache caching harbor. Cache harbor_caches, harbor\ncache " * 3
    rng = random.Random(0)
    for _ in range(40):
        cuts = [0, *sorted(rng.sample(range(1, len(text)), 5)), len(text)]
        chunks = []
        for s, e in zip(cuts, cuts[1:]):
            e = min(len(text), e + rng.choice((0, 0, 9)))  # sometimes into the next chunk
            head = rng.choice(("", "harbor\n\n", "guide > harbor"))
            chunks.append(SimpleNamespace(start=s, end=e, text=text[s:e], embed_text=head + text[s:e]))
        for question in ("harbor_cache roll", "cache harbor_cache harbor", "caches_harbor"):
            assert list(BM25Index(chunks, text).search(question)) == fts5_ranking(chunks, question), (cuts, question)


def test_chunks_inside_chunks():
    """A chunk holding two others (a section and its paragraphs) counts the words around and
    between them as well as theirs; a common word (counted by bisection) and a rare one alike."""
    text = "cache harbor cache. " * 12
    spans = [(0, len(text)), (20, 60), (100, 140), (100, 120)]
    chunks = [SimpleNamespace(start=s, end=e, text=text[s:e], embed_text=text[s:e]) for s, e in spans]
    for question in ("cache", "harbor", "cache harbor"):
        assert list(BM25Index(chunks, text).search(question)) == fts5_ranking(chunks, question), question


def test_a_document_is_tokenized_once_for_every_chunking(monkeypatch):
    """The first chunking of a document is ranked by an FTS5 table, the next ones by its tokens,
    made once and kept (only the words their chunks cut are tokenized again); rankings equal to
    FTS5's and to an index made with nothing kept."""
    text = "\n\n".join(
        f"Section {i}: the cache keeps {i % 7} releases; rollbacks restart services in order." for i in range(150)
    )
    doc = Document.from_text(text, path="notes.md")
    queries = auto_queries(text, 20)
    made = []
    monkeypatch.setattr(bm25, "DocumentTokens", lambda *a: made.append(1) or ORIGINAL(*a))
    bm25.forget()
    chunkings = [
        chunk_document(doc, "fixed", {"size": size, "overlap": overlap, "unit": "chars"})
        for size, overlap in ((400, 0), (333, 50), (250, 20))
    ]
    assert isinstance(bm25.bm25_index(chunkings[0].chunks, text), bm25.Fts5Index) and made == []
    reports = [evaluate_retrieval(cs, queries) for cs in chunkings]
    assert len(made) == 1
    for cs, report in zip(chunkings, reports):
        by_fts5 = evaluate_retrieval(cs, queries, index=bm25.Fts5Index(cs.chunks))
        assert [r.ranked for r in report.results] == [r.ranked for r in by_fts5.results]
    bm25.forget()
    fresh = evaluate_retrieval(chunkings[-1], queries, index=BM25Index(chunkings[-1].chunks, text))
    assert [r.ranked for r in fresh.results] == [r.ranked for r in reports[-1].results]
    assert len(made) == 2


def test_a_document_without_a_token_ranks_only_its_headers():
    """A chunk of punctuation only has no token of the document; one with a context header has
    the header's (the chunks' token ranges were looked up in an empty array: IndexError). With no
    header, no chunk has a token: the mean length was 0 and the index divided by it."""
    text = "... --- !!!"
    chunks = [
        SimpleNamespace(start=0, end=3, text=text[0:3], embed_text=text[0:3]),
        SimpleNamespace(start=4, end=11, text=text[4:11], embed_text="notes.md " + text[4:11]),
    ]
    for question in ("notes", "notes md", "dots"):
        assert list(BM25Index(chunks, text).search(question)) == fts5_ranking(chunks, question)
    untitled = [SimpleNamespace(start=c.start, end=c.end, text=c.text, embed_text=c.text) for c in chunks]
    assert list(BM25Index(untitled, text).search("notes")) == [] == fts5_ranking(untitled, "notes")  # was 0 / 0


def test_the_context_texts_kept_tokenized_are_bounded_by_their_size(monkeypatch):
    """Context texts (code scopes, cues) are kept tokenized for the next chunking; they were
    bounded by their number (100,000), not their size: 100,000 texts of 2 KB kept 200 MB."""
    monkeypatch.setattr(bm25, "_TEXTS_KEPT", 5_000, raising=False)
    tok = bm25.Fts5Tokenizer()
    texts = [f"def handler_{i}(event):\n    return cache[{i}] " * 20 for i in range(40)]
    for text in texts:
        assert tok.text_ids(text) == tok.term_ids(text)
        assert sum(len(t) + len(ids) for t, ids in tok._texts.items()) <= 5_000 + len(text) + len(tok.term_ids(text))


def test_a_long_lived_process_keeps_a_bounded_vocabulary(monkeypatch):
    """The app opens file after file: each tokenized document taught the tokenizer its tokens
    for good (about 220 bytes each). Past the bound, the next new document starts a tokenizer
    anew; an index made before keeps the old one and still ranks as FTS5 does."""
    monkeypatch.setattr(bm25, "_TOKENS_KEPT", 400, raising=False)
    bm25.forget()
    words = [f"w{i:04d}" for i in range(1500)]
    texts = [" ".join(words[k * 300 : (k + 1) * 300]) + ". cache rollback harbor." for k in range(5)]
    kept = []
    for text in texts:
        chunks = [
            SimpleNamespace(start=s, end=min(s + 200, len(text)), embed_text="") for s in range(0, len(text), 200)
        ]
        for c in chunks:
            c.text = c.embed_text = text[c.start : c.end]
        kept.append((BM25Index(chunks, text), chunks, text))
        assert bm25.tokenizer().learnt() <= 400 + 310
    for index, chunks, text in kept:
        question = f"{text.split()[7]} cache {text.split()[250]}"
        assert list(index.search(question)) == fts5_ranking(chunks, question)
    bm25.forget()


ORIGINAL = bm25.DocumentTokens
