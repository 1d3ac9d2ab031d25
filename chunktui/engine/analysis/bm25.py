"""BM25 exactly as SQLite's FTS5 ranks with `bm25()` under `tokenize='porter unicode61'`, computed
in Python over a document tokenized once.

Why not FTS5 itself: every chunking of a document needs its own FTS5 table, which tokenizes and
stems the whole text again (about 45 ms per MB) and then runs `bm25()` over every row holding a
word of a question; a re-chunk costs less than that. Here the document is tokenized once and kept:
a chunk that is a span of it takes its tokens as a slice of the document's (only a word cut by its
edges, a context header or a context text is tokenized again), and a question's terms are counted
per chunk from their occurrences in the document.

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
from bisect import bisect_left, bisect_right
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Iterator, Sequence
from itertools import accumulate, compress, groupby, repeat
from math import log
from operator import add, itemgetter, le, mul, sub
from typing import Any

K1, B = 1.2, 0.75
_WORD = re.compile(r"\w+")
_DOCS_KEPT = 2  # tokenized documents kept: the one shown or swept, and the one before
_TOKENS_KEPT = 250_000  # distinct tokens learnt (about 220 bytes each) before a new document starts a new tokenizer


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
            if len(self._texts) > 100_000:
                self._texts.clear()
            ids = self._texts[text] = self.term_ids(text)
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
        self.text = text
        pieces = tok.splitter(text).split(text)  # separators and tokens by turns: every offset by a running sum
        offsets = list(accumulate(map(len, pieces)))
        # arrays, not lists: 8 bytes a token rather than about 40 (a 1 MB document has some 120,000)
        self.starts = array("q", offsets[:-1:2])
        self.ends = array("q", offsets[1::2])
        ids = tok.ids(pieces[1::2])
        self.ids = array("q", ids)
        # term * size + position for every token, sorted: each term's positions in a run, found by
        # bisection (integers sort in C, faster than ordering the positions by a key)
        self._size = size = len(ids) + 1
        self._keys = array("q", sorted(map(add, map(mul, ids, repeat(size)), range(len(ids)))))
        self._where: dict[int, list[int]] = {}  # the positions of the terms asked for

    def where(self, term: int) -> list[int] | None:
        """The token positions of a term, sorted (a list: bisection and indexing are faster on one)."""
        found = self._where.get(term)
        if found is None:
            base = term * self._size
            lo = bisect_left(self._keys, base)
            hi = bisect_left(self._keys, base + self._size, lo)
            if lo == hi:
                return None
            found = self._where[term] = list(map(sub, self._keys[lo:hi], repeat(base)))  # asked-for terms only
        return found

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
        self.keys = [(c.start, c.end) for c in chunks]
        self.in_order = all(map(le, self.keys, self.keys[1:]))
        kept = _kept_state(text)  # the tokenizer and the document's tokens made with it
        self.tok = kept.tok
        self.doc = kept.document(text) if text is not None else None
        self.n = n = len(chunks)
        # each chunk's tokens: terms before a..b (header, cut word), the document's tokens a..b, terms after
        self.parts: list[tuple[list[int], int, int, list[int]]] = list(map(self._parts, chunks))
        lengths = [len(before) + b - a + len(after) for before, a, b, after in self.parts]
        avgdl = sum(lengths) / n if n else 1.0
        self.norm = [K1 * (1 - B + B * d / avgdl) for d in lengths]  # FTS5's k1 * (1 - b + b * D / avgdl)
        self.regions = _Regions(self.parts)
        self.plain = {i for i, (before, a, b, after) in enumerate(self.parts) if b > a and not before and not after}
        self.extra: dict[int, list[tuple[int, int]]] = defaultdict(list)  # term -> (chunk, count) outside a..b
        for i, (before, _, _, after) in enumerate(self.parts):
            if before or after:
                for term, f in Counter(before + after).items():
                    self.extra[term].append((i, f))
        self._contributions: dict[tuple[int, ...], dict[int, float]] = {}

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

    def _postings(self, phrase: tuple[int, ...]) -> dict[int, int]:
        """How often the phrase occurs in each chunk holding it."""
        doc = self.doc
        where = doc.where(phrase[0]) if doc is not None else None
        if len(phrase) == 1:
            counts = self.regions.count(where) if where is not None else {}
            for i, f in self.extra.get(phrase[0], ()):
                counts[i] = counts.get(i, 0) + f
            return counts
        counts = {}
        if doc is not None and where is not None:  # in the document's tokens of a chunk that has no others
            n, rest, ids = len(phrase), array("q", phrase[1:]), doc.ids
            for o in where:
                if ids[o + 1 : o + n] == rest:
                    for i in self.regions.holders(o):
                        if i in self.plain and o + n <= self.parts[i][2]:
                            counts[i] = counts.get(i, 0) + 1
        for i in range(self.n):  # the others, read whole
            if i not in self.plain:
                f = _occurrences(self._whole(i), phrase)
                if f:
                    counts[i] = f
        return counts

    def _contribution(self, phrase: tuple[int, ...]) -> dict[int, float]:
        """Each chunk's term of the score for one phrase, FTS5's expression with its doubles."""
        out = self._contributions.get(phrase)
        if out is None:
            counts = self._postings(phrase) if phrase else {}
            hits = len(counts)
            idf = log((self.n - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            norm = self.norm
            out = self._contributions[phrase] = {i: idf * ((f * (K1 + 1.0)) / (f + norm[i])) for i, f in counts.items()}
        return out

    def search(self, question: str) -> Iterator[tuple[int, float]]:
        """Every chunk holding a phrase of the question, best first."""
        scores: dict[int, float] = {}
        get = scores.get
        for phrase in self.tok.phrases(query_words(question)):
            terms = self._contribution(phrase)
            if not scores:
                scores.update(terms)
                continue
            for i, value in terms.items():
                scores[i] = get(i, 0.0) + value
        if not self.in_order:
            keys = self.keys
            yield from sorted(scores.items(), key=lambda hit: (-hit[1], keys[hit[0]]))
            return
        # equal scores in document order: by position, then by score with a stable sort
        yield from sorted(sorted(scores.items()), key=itemgetter(1), reverse=True)

    def close(self) -> None:
        """Nothing to release (the FTS5 index had a connection); kept for the retrievers' protocol."""


class _Regions:
    """The document's tokens cut at every chunk's a and b, each run between two cuts a region,
    found by bisection in `bounds` (each region's first and past-last token, in order): a token at
    t lies in the region of `code_at[bisect_right(bounds, t)]`. A region's code is the chunk's
    position where one chunk holds it (and holds no other region so coded), else -2 - m with
    `shared[m]` the chunks holding it (overlaps); -1 between regions."""

    def __init__(self, parts: Sequence[tuple[list[int], int, int, list[int]]]) -> None:
        opening, closing = defaultdict(list), defaultdict(list)
        for i, (_, a, b, _) in enumerate(parts):
            if b > a:
                opening[a].append(i)
                closing[b].append(i)
        self.shared: list[tuple[int, ...]] = []
        self.bounds: list[int] = []
        self.codes: list[int] = []
        coded: set[int] = set()
        points = sorted(opening.keys() | closing.keys())
        active: dict[int, None] = {}
        for p, q in zip(points, points[1:]):
            for i in closing.get(p, ()):
                del active[i]
            active.update(dict.fromkeys(opening.get(p, ())))
            if not active:
                continue
            if len(active) == 1 and next(iter(active)) not in coded:
                code = next(iter(active))
                coded.add(code)
            else:
                code = -2 - len(self.shared)
                self.shared.append(tuple(active))
            self.bounds += (p, q)
            self.codes.append(code)
        self.code_at = [-1] * (len(self.bounds) + 1)
        self.code_at[1::2] = self.codes

    def holders(self, t: int) -> tuple[int, ...]:
        """The chunks holding the document's token t."""
        code = self.code_at[bisect_right(self.bounds, t)]
        return (code,) if code >= 0 else () if code == -1 else self.shared[-2 - code]

    def count(self, where: list[int]) -> dict[int, int]:
        """How many of the token positions `where` (sorted) each chunk holds, for those holding
        any: each position bisected into the bounds when they are few, else every bound bisected
        into the positions (both in C: a common word occurs thousands of times, a chunking has a
        few thousand bounds); then the shared regions' counts go to each of their chunks."""
        counts: dict[int, int]
        if len(where) < len(self.bounds):
            counts = Counter(map(self.code_at.__getitem__, map(bisect_right, repeat(self.bounds), where)))
        else:
            cut = list(map(bisect_left, repeat(where), self.bounds))
            inside = list(map(sub, cut[1::2], cut[::2]))
            counts = dict(compress(zip(self.codes, inside), inside))
        for code in [code for code in counts if code < 0]:
            f = counts.pop(code)
            if code != -1:
                for i in self.shared[-2 - code]:
                    counts[i] = counts.get(i, 0) + f
        return counts


def _occurrences(words: list[int], phrase: tuple[int, ...]) -> int:
    """Where the phrase starts in `words`, counted (FTS5 counts every start, overlapping ones too)."""
    n, first = len(phrase), phrase[0]
    return sum(1 for j, w in enumerate(words) if w == first and tuple(words[j : j + n]) == phrase)
