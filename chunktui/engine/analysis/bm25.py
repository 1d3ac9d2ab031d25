"""BM25 exactly as SQLite's FTS5 ranks with `bm25()` under `tokenize='porter unicode61'`, computed
in Python over a document tokenized once.

Why not FTS5 itself: every chunking of a document needs its own FTS5 table, which tokenizes and
stems the whole text again (about 45 ms per MB) and then runs `bm25()` over every row holding a
word of a question; a re-chunk costs less than that. Here the document is tokenized once and kept:
a chunk that is a span of it takes its tokens as a slice of the document's (only a word cut by its
edges, a context header or a context text is tokenized again), and a question's terms are counted
per chunk from their occurrences in the document. The counting, the sums and the sort are numpy's:
all the questions' terms are counted in one pass (in Python, one term at a time, the counting and
the sums took three quarters of an evaluation, 2-3x a re-chunk on their own).

Why the same scores: the tokenizer is SQLite's own, asked rather than imitated. Which characters
start a token, which only continue one (diacritics), and the term each distinct token stems to are
answered by an FTS5 table the first time a character or a token is met (`Fts5Tokenizer`); the
splitting rule itself (a token is a token character followed by token characters and diacritics)
is FTS5's `fts5UnicodeTokenize`. The score is FTS5's formula, summed in its order with the same
doubles: for each phrase of the query idf = ln((N - n + 0.5) / (n + 0.5)), 1e-6 when not positive,
and score = sum over the phrases of idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl)), k1 1.2,
b 0.75, N the chunks, n those holding the phrase, f its occurrences in the chunk, D the chunk's
tokens and avgdl their mean (tests/test_retrieval.py recomputes it and compares with FTS5).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from array import array
from bisect import bisect_left
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, groupby
from math import log
from operator import itemgetter, le
from typing import Any

K1, B = 1.2, 0.75
_WORD = re.compile(r"\w+")
_DOCS_KEPT = 2  # tokenized documents kept: the one shown or swept, and the one before
_HEAD = 32  # ranked chunks turned into Python objects before the rest are
_TEXTS_KEPT = 10_000_000  # characters + terms of the context texts kept tokenized (80 MB at most)
_TOKENS_KEPT = 250_000  # distinct tokens learnt (about 220 bytes each) before a new document starts a new tokenizer


def _numpy() -> Any:
    """numpy, imported when a document is first tokenized or ranked in Python rather than when
    this module is (`chunktui eval` ranks with an FTS5 table and never needs it; the import
    costs about 0.1 s)."""
    import numpy

    return numpy


def query_words(question: str) -> list[str]:
    """The question's distinct words, lower-cased, in order: each is one FTS5 phrase (`fts5_query`)."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))


def fts5_query(question: str) -> str:
    """The question as an FTS5 query (also `chunktui search` over an SQLite export): its distinct
    words, lower-cased, each quoted (FTS5 operators and punctuation become plain words) and ORed;
    each quoted word is one phrase of the ranking."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in query_words(question))


class Fts5Tokenizer:
    """FTS5's `porter unicode61` tokenizer, learnt from SQLite one new character and one new token
    at a time and then applied in Python: a regular expression splits the tokens, a dict gives each
    distinct token its term (an int id). Thread-safe; one per process (`tokenizer()`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE VIRTUAL TABLE probe USING fts5(body, tokenize='porter unicode61')")
        self._db.execute("CREATE VIRTUAL TABLE probe_v USING fts5vocab(probe, 'instance')")
        self._chars: set[str] = set()  # every character classified
        self._separators: set[str] = set()
        self._starts: list[str] = []  # characters that start (and continue) a token
        self._continues: list[str] = []  # characters that only continue one (diacritics)
        self._pattern = self._splitter = re.compile("(?!)")
        self._ids: dict[str, int] = {}  # token as written -> term id
        self._terms: dict[str, int] = {}  # term -> term id
        self._texts: dict[str, list[int]] = {}  # whole embedded texts tokenized (context texts)
        self._texts_size = 0  # their characters and terms
        self._phrases: dict[str, tuple[int, ...]] = {}  # question word -> its phrase

    def _ask(self, rows: list[tuple[int, str]]) -> dict[int, list[str]]:
        """The terms FTS5 makes of each row, in order."""
        self._db.execute("DELETE FROM probe")
        self._db.executemany("INSERT INTO probe(rowid, body) VALUES (?, ?)", rows)
        out: dict[int, list[str]] = defaultdict(list)
        for doc, term in self._db.execute("SELECT doc, term FROM probe_v ORDER BY doc, offset"):
            out[doc].append(term)
        return out

    def pattern(self, text: str) -> re.Pattern[str]:
        """The token pattern, once every character of `text` is classified."""
        new = set(text).difference(self._chars)
        if new:
            with self._lock:
                self._classify(new.difference(self._chars))
        return self._pattern

    def _classify(self, chars: set[str]) -> None:
        """A character alone makes a token if it starts one; between two letters it continues one
        if it is a token character or a diacritic; else it separates."""
        usable = sorted(c for c in chars if not "\ud800" <= c <= "\udfff")  # SQLite cannot take a lone surrogate
        terms = self._ask([row for j, c in enumerate(usable) for row in ((2 * j, c), (2 * j + 1, f"q{c}q"))])
        for j, c in enumerate(usable):
            if terms.get(2 * j):
                self._starts.append(c)
            elif len(terms.get(2 * j + 1, ())) == 1:
                self._continues.append(c)
            else:
                self._separators.add(c)
        self._separators.update(chars.difference(usable))
        start = "".join(map(re.escape, self._starts))
        token = f"[{start}][{start}{''.join(map(re.escape, self._continues))}]*" if start else "(?!)"
        self._pattern, self._splitter = re.compile(token), re.compile(f"({token})")
        self._chars.update(chars)

    def splitter(self, text: str) -> re.Pattern[str]:
        """The pattern whose `split` gives separators and tokens by turns, for `text`."""
        self.pattern(text)
        return self._splitter

    def is_separator(self, char: str) -> bool:
        self.pattern(char)
        return char in self._separators

    def ids(self, words: Sequence[str]) -> list[int]:
        """Each token's term id, asking FTS5 for the tokens not met before."""
        get = self._ids.get
        out = list(map(get, words))
        if None in out:
            with self._lock:
                self._learn([w for w in dict.fromkeys(words) if w not in self._ids])
            out = list(map(self._ids.__getitem__, words))
        return out  # type: ignore[return-value]  # every None was learnt

    def _learn(self, words: list[str]) -> None:
        """Each new token's term, from one row of them all (a space between two: each is one
        token by construction, so the n-th term is the n-th word's)."""
        self._db.execute("DELETE FROM probe")
        self._db.execute("INSERT INTO probe(rowid, body) VALUES (1, ?)", (" ".join(words),))
        terms = [""] * len(words)
        for term, offset in self._db.execute("SELECT term, offset FROM probe_v"):
            terms[offset] = term
        ids, known = self._ids, self._terms
        for word, term in zip(words, terms, strict=True):
            ids[word] = known.setdefault(term, len(known))

    def learnt(self) -> int:
        """How many distinct tokens this tokenizer has learnt (and keeps)."""
        return len(self._ids)

    def term_ids(self, text: str) -> list[int]:
        """The terms of `text`, in order."""
        return self.ids(self.pattern(text).findall(text))

    def text_ids(self, text: str) -> list[int]:
        """`term_ids`, kept per text: the context texts of a chunking mostly come back in the next."""
        ids = self._texts.get(text)
        if ids is None:
            ids = self.term_ids(text)
            if self._texts_size > _TEXTS_KEPT:
                self._texts.clear()
                self._texts_size = 0
            self._texts[text] = ids
            self._texts_size += len(text) + len(ids)
        return ids

    def phrases(self, words: list[str]) -> list[tuple[int, ...]]:
        """Question words as FTS5 reads each quoted word: a phrase of its terms (none for `_`)."""
        new = [w for w in words if w not in self._phrases]
        if new:
            pattern = self.pattern(" ".join(new))
            pieces = [pattern.findall(w) for w in new]
            ids = iter(self.ids([p for ps in pieces for p in ps]))
            for word, ps in zip(new, pieces):
                self._phrases[word] = tuple(next(ids) for _ in ps)
        return list(map(self._phrases.__getitem__, words))


def tokenizer() -> Fts5Tokenizer:
    """This process's tokenizer, the one its kept documents were tokenized with."""
    return _kept_state().tok


class DocumentTokens:
    """A document's tokens: where each starts and ends, its term id, and where each term occurs."""

    def __init__(self, text: str, tok: Fts5Tokenizer) -> None:
        np = _numpy()
        self.text = text
        pieces = tok.splitter(text).split(text)  # separators and tokens by turns: every offset by a running sum
        offsets = list(accumulate(map(len, pieces)))
        # arrays, not lists: 8 bytes a token rather than about 40 (a 1 MB document has some 120,000)
        self.starts = array("q", offsets[:-1:2])
        self.ends = array("q", offsets[1::2])
        self.start_array, self.end_array = (
            np.frombuffer(self.starts, dtype=np.int64),
            np.frombuffer(self.ends, dtype=np.int64),
        )
        ids = tok.ids(pieces[1::2])
        self.ids = np.array(ids, dtype=np.int64)
        # term * size + position for every token, sorted: each term's positions in a run, found by
        # bisection (integers sort in C, faster than ordering the positions by a key)
        self._size = size = len(ids) + 1
        self._keys = np.sort(self.ids * size + np.arange(len(ids), dtype=np.int64))

    def positions(self, terms: Sequence[int]) -> tuple[Any, Any]:
        """Every occurrence of the terms as (which of `terms`, token position), in the order of
        `terms` and by position within each."""
        np = _numpy()
        base = np.asarray(terms, dtype=np.int64) * self._size
        lo = np.searchsorted(self._keys, base)
        found = np.searchsorted(self._keys, base + self._size) - lo
        which = np.repeat(np.arange(len(base)), found)
        return which, self._keys[_ranges(np, lo, found)] - base[which]

    def cover(self, start: int, end: int, tok: Fts5Tokenizer) -> tuple[list[int], int, int, list[int]]:
        """The tokens of text[start:end] as (terms before, a, b, terms after): the document's tokens
        a..b lie whole inside it, and the pieces of words cut by its edges are tokenized apart
        (each edge falls inside a token or beside a separator, so nothing else can differ)."""
        starts, ends = self.starts, self.ends
        a = bisect_left(starts, start)
        before = tok.term_ids(self.text[start : min(ends[a - 1], end)]) if a and ends[a - 1] > start else []
        b = bisect_left(starts, end, a)
        after: list[int] = []
        if b > a and ends[b - 1] > end:
            b -= 1
            after = tok.term_ids(self.text[starts[b] : end])
        return before, a, b, after


class _Kept:
    """What a process keeps from one ranking to the next: a tokenizer and the documents tokenized
    with it. They are kept and dropped together, as a document's term ids mean something only to
    the tokenizer that made them."""

    def __init__(self) -> None:
        self.tok = Fts5Tokenizer()
        self.documents: OrderedDict[str, DocumentTokens] = OrderedDict()
        self.seen: OrderedDict[str, None] = OrderedDict()  # documents ranked once, by an FTS5 table
        self.lock = threading.Lock()

    def document(self, text: str) -> DocumentTokens:
        """The document's tokens, made once and kept for the next chunkings of the same text (a
        caller arriving while another makes them waits for those rather than making them again)."""
        with self.lock:
            doc = self.documents.get(text)
            if doc is None:
                doc = self.documents[text] = DocumentTokens(text, self.tok)
                while len(self.documents) > _DOCS_KEPT:
                    self.documents.popitem(last=False)
            self.documents.move_to_end(text)
            return doc

    def ranked_before(self, text: str) -> bool:
        """Whether the document was ranked or tokenized before (and note that it is now)."""
        with self.lock:
            again = text in self.documents or text in self.seen
            self.seen[text] = None
            self.seen.move_to_end(text)
            while len(self.seen) > _DOCS_KEPT:
                self.seen.popitem(last=False)
            return again


_kept: _Kept | None = None
_kept_lock = threading.Lock()


def _kept_state(text: str | None = None) -> _Kept:
    """This process's tokenizer and documents. Past `_TOKENS_KEPT` learnt tokens, a document not
    kept starts afresh (the app opens file after file; indexes made before keep the old ones)."""
    global _kept
    with _kept_lock:
        if _kept is None or (text is not None and text not in _kept.documents and _kept.tok.learnt() > _TOKENS_KEPT):
            _kept = _Kept()
        return _kept


def forget() -> None:
    """Drop the tokenizer and the documents kept. A forked child does so at once: the tokenizer's
    SQLite connection is its parent's, and a new tokenizer numbers terms anew, so tokens kept
    from the parent would be read with other terms (the sweep's workers then ranked at random)."""
    global _kept, _kept_lock
    _kept, _kept_lock = None, threading.Lock()


os.register_at_fork(after_in_child=forget)


def document_tokens(text: str) -> DocumentTokens:
    """The document's tokens, made once per process and kept (see `_Kept.document`)."""
    return _kept_state(text).document(text)


def bm25_index(chunks: Sequence[Any], text: str) -> BM25Index | Fts5Index:
    """The index for one chunking of the document `text`: an FTS5 table for the first chunking
    the process ranks (tokenizing the document to keep costs a first evaluation about 3x the
    table's insert, and a one-off `chunktui eval` would never get it back), `BM25Index` over the
    document's kept tokens from the second on (a sweep's next cell, the app's next re-chunk).
    Both give the same scores to the last bit."""
    return BM25Index(chunks, text) if _kept_state(text).ranked_before(text) else Fts5Index(chunks)


class Fts5Index:
    """The chunks' embedded texts in an in-memory FTS5 table ranked by its `bm25()`: what
    `BM25Index` computes, with FTS5's own tokenizer and ranking (C), and no tokens kept for the
    next chunking. Equal scores go to the chunk earlier in the document, as there."""

    def __init__(self, chunks: Sequence[Any]) -> None:
        self.keys = [(c.start, c.end) for c in chunks]
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute("CREATE VIRTUAL TABLE chunks USING fts5(body, tokenize='porter unicode61')")
        self.db.executemany(
            "INSERT INTO chunks(rowid, body) VALUES (?, ?)", ((i, c.embed_text) for i, c in enumerate(chunks))
        )

    def search(self, question: str) -> Iterator[tuple[int, float]]:
        """Every chunk holding a word of the question, best first, lazily: SQLite sorts by score
        and only the head a caller reads is turned into Python objects."""
        match = fts5_query(question)
        if not match:
            return
        rows = self.db.execute(
            "SELECT rowid, -bm25(chunks) AS s FROM chunks WHERE chunks MATCH ? ORDER BY s DESC", (match,)
        )
        for _, tied in groupby(rows, key=itemgetter(1)):
            yield from sorted(tied, key=lambda hit: self.keys[hit[0]])

    def close(self) -> None:
        self.db.close()


class BM25Index:
    """The chunks' embedded texts ranked by FTS5's `bm25()` (see the module's docstring).
    `search` gives (chunk position, score) best first, score = -bm25() so that higher is better;
    equal scores go to the chunk earlier in the document (its start, then its end), so the ranking
    does not depend on how the chunks are numbered or listed.

    With `text`, the document the chunks are spans of, a chunk whose embedded text is its span
    (after a context header) takes its tokens from the document's, tokenized once for every
    chunking of it; other chunks, and every chunk without `text`, are tokenized whole."""

    def __init__(self, chunks: Sequence[Any], text: str | None = None) -> None:
        np = _numpy()
        self.keys = [(c.start, c.end) for c in chunks]
        self.in_order = all(map(le, self.keys, self.keys[1:]))
        kept = _kept_state(text)  # the tokenizer and the document's tokens made with it
        self.tok = kept.tok
        self.doc = kept.document(text) if text is not None else None
        self.n = n = len(chunks)
        # each chunk's tokens: terms before a..b (header, cut word), the document's tokens a..b, terms after
        self.parts: list[tuple[list[int], int, int, list[int]]] = self._all_parts(chunks)
        lengths = [len(before) + b - a + len(after) for before, a, b, after in self.parts]
        avgdl = sum(lengths) / n if n and any(lengths) else 1.0  # no token anywhere: nothing matches
        # FTS5's k1 * (1 - b + b * D / avgdl), in Python's doubles (numpy only adds and divides them)
        self.norm = np.array([K1 * (1 - B + B * d / avgdl) for d in lengths], dtype=np.float64)
        spans = [(a, b) if b > a else (0, 0) for _, a, b, _ in self.parts]  # the document's tokens a..b
        self.a = np.array([a for a, _ in spans], dtype=np.int64)
        self.b = np.array([b for _, b in spans], dtype=np.int64)
        self.plain = np.array([b > a and not before and not after for before, a, b, after in self.parts], dtype=bool)
        # the document's tokens cut at every a and b: those from points[k - 1] to points[k] are
        # place k, and the chunks holding them are holders[first[k]:first[k + 1]]
        self.points = np.unique(np.concatenate((self.a, self.b)))
        at_a, at_b = np.searchsorted(self.points, self.a), np.searchsorted(self.points, self.b)
        chunk_of = np.repeat(np.arange(n), at_b - at_a)  # chunk i holds places at_a[i] + 1 .. at_b[i]
        place = _ranges(np, at_a + 1, at_b - at_a)
        self.holders = chunk_of[np.argsort(place, kind="stable")]
        self.first = np.concatenate(([0], np.cumsum(np.bincount(place, minlength=len(self.points) + 1))))
        self.extra: dict[int, list[tuple[int, int]]] = defaultdict(list)  # term -> (chunk, count) outside a..b
        for i, (before, _, _, after) in enumerate(self.parts):
            if before or after:
                for term, f in Counter(before + after).items():
                    self.extra[term].append((i, f))
        self._rows: dict[tuple[int, ...], Any] = {}  # phrase -> its term of every chunk's score, or None

    def _all_parts(self, chunks: Sequence[Any]) -> list[tuple[list[int], int, int, list[int]]]:
        """Every chunk's parts: a chunk that embeds its own span and cuts no word at its edges is
        the document's tokens a..b and nothing else (a and b found for all chunks at once, in C);
        the others go through `_parts`."""
        np, doc = _numpy(), self.doc
        if doc is None or not chunks or not len(doc.ids):  # no tokens: no a..b to find
            return list(map(self._parts, chunks))
        spans = np.array(self.keys, dtype=np.int64).reshape(len(chunks), 2)
        start, end = spans[:, 0], spans[:, 1]
        a, b = np.searchsorted(doc.start_array, start), np.searchsorted(doc.start_array, end)
        cut_before = (a > 0) & (doc.end_array[np.maximum(a - 1, 0)] > start)
        cut_after = (b > a) & (doc.end_array[np.maximum(b - 1, 0)] > end)
        whole = (~(cut_before | cut_after)).tolist()
        return [
            ([], a_i, b_i, []) if clean and c.embed_text == c.text else self._parts(c)
            for c, clean, a_i, b_i in zip(chunks, whole, a.tolist(), b.tolist(), strict=True)
        ]

    def _parts(self, chunk: Any) -> tuple[list[int], int, int, list[int]]:
        embedded, own = chunk.embed_text, chunk.text
        doc = self.doc
        if doc is not None and embedded.endswith(own):
            head = embedded[: len(embedded) - len(own)]
            if not head or self.tok.is_separator(head[-1]):  # the header's tokens end before the text's
                before, a, b, after = doc.cover(chunk.start, chunk.end, self.tok)
                return (self.tok.text_ids(head) + before if head else before), a, b, after
        return self.tok.text_ids(embedded), 0, 0, []

    def _whole(self, i: int) -> list[int]:
        """Chunk i's terms in order."""
        before, a, b, after = self.parts[i]
        if b <= a:
            return before + after
        assert self.doc is not None
        return before + self.doc.ids[a:b].tolist() + after

    # -- counting ------------------------------------------------------------------------------

    def _learn(self, phrases: list[tuple[int, ...]]) -> None:
        """The rows of the phrases not met before: one-term phrases all together, longer ones
        one by one."""
        new = [p for p in dict.fromkeys(phrases) if p not in self._rows]
        singles = [p for p in new if len(p) == 1]
        if singles:
            self._store(singles, *self._term_counts([p[0] for p in singles]))
        np = _numpy()
        for phrase in new:
            if not phrase:
                self._rows[phrase] = None  # a word of no token (`_`): nothing holds it
            elif len(phrase) > 1:
                counts = self._phrase_counts(phrase)
                cell = np.flatnonzero(counts)
                self._store([phrase], cell, counts[cell])

    def _term_counts(self, terms: list[int]) -> tuple[Any, Any]:
        """How often each term occurs in each chunk holding it, as (cells, counts), a cell being
        term row * chunks + chunk, ascending: each occurrence in the document's tokens counts
        once for every chunk holding its place (overlapping chunks share places); then the terms
        outside a..b. Sparse: a terms x chunks array of counts, mostly zeros, cost more to
        allocate and scan than the occurrences to sort."""
        np = _numpy()
        n = self.n
        keys = []
        if self.doc is not None and n:
            which, at = self.doc.positions(terms)
            place = np.searchsorted(self.points, at, side="right")
            first, many = self.first[place], self.first[place + 1] - self.first[place]
            keys.append(np.repeat(which, many) * n + self.holders[_ranges(np, first, many)])
        extra = [(r * n + i, f) for r, term in enumerate(terms) for i, f in self.extra.get(term, ())]
        if extra:
            cells, times = zip(*extra)
            keys.append(np.repeat(np.array(cells, dtype=np.int64), times))
        if not keys:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.unique(np.concatenate(keys), return_counts=True)

    def _phrase_counts(self, phrase: tuple[int, ...]) -> Any:
        """How often a phrase of several terms occurs in each chunk: in the document's tokens of a
        chunk that has no others, else in its terms read whole."""
        np = _numpy()
        counts = np.zeros(self.n, dtype=np.int64)
        doc = self.doc
        if doc is not None:
            starts = doc.positions(phrase[:1])[1]
            starts = starts[starts + len(phrase) <= len(doc.ids)]
            for k, term in enumerate(phrase[1:], 1):
                starts = starts[doc.ids[starts + k] == term]
            # the plain chunks whose tokens a..b hold o..o+len-1: a <= o <= b - len
            inside = np.searchsorted(starts, self.b - len(phrase) + 1) - np.searchsorted(starts, self.a)
            counts = np.where(self.plain, np.maximum(inside, 0), 0)
        for i in np.flatnonzero(~self.plain).tolist():
            counts[i] = _occurrences(self._whole(i), phrase)
        return counts

    def _store(self, phrases: Sequence[tuple[int, ...]], cell: Any, f: Any) -> None:
        """Each phrase's term of the score of the chunks holding it, as (those chunks, their
        terms), from the counts `f` of the ascending cells (phrase row * chunks + chunk) that hold
        it: FTS5's expression with its doubles, idf (Python's log) * (f * (k1 + 1)) / (f + norm).
        Kept sparse: a phrase x chunk array of doubles costs more to allocate than to fill."""
        np = _numpy()
        phrase_of, chunk = np.divmod(cell, self.n)  # row by row: each phrase's chunks in a run, in order
        hits = np.bincount(phrase_of, minlength=len(phrases)).tolist()
        idf = [log((self.n - h + 0.5) / (h + 0.5)) for h in hits]
        idf = [x if x > 0.0 else 1e-6 for x in idf]
        terms = np.array(idf)[phrase_of] * ((f * (K1 + 1.0)) / (f + self.norm[chunk]))
        end = 0
        for phrase, h in zip(phrases, hits, strict=True):
            self._rows[phrase] = (chunk[end : end + h], terms[end : end + h]) if h else None
            end += h

    def search(self, question: str) -> Iterator[tuple[int, float]]:
        """Every chunk holding a phrase of the question, best first: each phrase's terms added in
        the question's order (FTS5's sum), and the chunks holding any (a score above 0) sorted."""
        np = _numpy()
        phrases = self.tok.phrases(query_words(question))
        self._learn(phrases)
        scores = np.zeros(self.n, dtype=np.float64)  # 0.0 + x is x: the first phrase's terms as they are
        for phrase in phrases:
            row = self._rows[phrase]
            if row is not None:
                scores[row[0]] += row[1]  # each chunk once a phrase: in order, as FTS5 sums
        held = np.flatnonzero(scores)
        if self.in_order:  # equal scores in document order: a stable sort of the chunks in order
            order = held[np.argsort(-scores[held], kind="stable")]
        else:
            starts, ends = (np.array([k[j] for k in self.keys], dtype=np.int64)[held] for j in (0, 1))
            order = held[np.lexsort((ends, starts, -scores[held]))]
        for part in (order[:_HEAD], order[_HEAD:]):  # a caller mostly reads the head only
            yield from zip(part.tolist(), scores[part].tolist())

    def prepare(self, questions: Iterable[str]) -> None:
        """Make the rows of all these questions' phrases at once (a batch costs about what one
        question's does), before they are searched one by one."""
        self._learn([p for q in questions for p in self.tok.phrases(query_words(q))])

    def close(self) -> None:
        """Nothing to release (the FTS5 index had a connection); kept for the retrievers' protocol."""


def _ranges(np: Any, starts: Any, lengths: Any) -> Any:
    """The runs starts[j], starts[j] + 1, ..., starts[j] + lengths[j] - 1 one after the other."""
    return np.arange(int(lengths.sum())) + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)


def _occurrences(words: list[int], phrase: tuple[int, ...]) -> int:
    """Where the phrase starts in `words`, counted (FTS5 counts every start, overlapping ones too)."""
    n, first = len(phrase), phrase[0]
    return sum(1 for j, w in enumerate(words) if w == first and tuple(words[j : j + n]) == phrase)
