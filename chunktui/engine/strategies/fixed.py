"""`fixed`: windows of `size` bytes (or chars, or tokens), backed off to the last delimiter.

From ai_chunk's fixed mode: walk the text in windows; in each window search
backwards for any delimiter character and cut there, else hard-cut at the size.
Unlike byte-slicing tools, a byte window never ends inside a UTF-8 character,
and a token window holds exactly as many tokens as the chunk text encodes to.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from . import Order, Param, Proposal, Strategy, register
from ._delimiters import decode_delimiters
from ..core.model import Span, SpanTable


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class _Chars:
    exact = True  # `reach` is the exact window end

    def __init__(self, text: str):
        self.text = text

    def size(self, s: int, e: int) -> int:
        return e - s

    def fit_end(self, s: int, limit: int) -> int:
        return min(len(self.text), s + limit)

    reach = fit_end

    def back_start(self, end: int, amount: int, floor: int) -> int:
        return max(end - amount, floor + 1)


class _Bytes:
    """Byte windows cut back to the last character boundary (a char is 1 to 4 bytes)."""

    exact = True

    def __init__(self, text: str):
        self.text = text

    def size(self, s: int, e: int) -> int:
        return len(_utf8(self.text[s:e]))

    def fit_end(self, s: int, limit: int) -> int:
        window = self.text[s : s + limit]  # every char is >= 1 byte, so this covers `limit` bytes
        data = _utf8(window)
        if len(data) <= limit:
            return s + len(window)
        cut = limit
        while cut > 0 and data[cut] & 0xC0 == 0x80:
            cut -= 1
        return s + max(1, len(data[:cut].decode("utf-8", "surrogatepass")))

    reach = fit_end

    def back_start(self, end: int, amount: int, floor: int) -> int:
        first = max(end - amount, floor + 1)
        data = _utf8(self.text[first:end])
        if len(data) <= amount:
            return first
        skip = len(data) - amount
        while skip < len(data) and data[skip] & 0xC0 == 0x80:
            skip += 1
        return end - len(data[skip:].decode("utf-8", "surrogatepass"))


class _Tokens:
    """Token windows: candidate cuts are where the whole text's tokens end, and every count is
    exact (a substring may encode differently); both come from the text's token index, which
    encodes the text once and re-encodes only the few characters around a span's ends."""

    exact = False

    def __init__(self, text: str, counter):
        self.text = text
        index = counter.span_index(text)
        self.size = index.count
        self.bounds = index.token_ends()
        self.end_of_tokens = index.end_of_tokens
        self.start_of_tokens = index.start_of_tokens

    def reach(self, s: int, limit: int) -> int:
        """Where `limit` tokens from `s` end by the whole-text encoding, one token generous:
        how far to look for a delimiter before the cut is counted exactly."""
        return self.bounds[min(bisect_right(self.bounds, s) + limit, len(self.bounds) - 1)]

    def fit_end(self, s: int, limit: int) -> int:
        bounds, size = self.bounds, self.size
        first = bisect_right(bounds, s)  # bounds[first] ends the (possibly partial) first token
        # start at the cut where the whole text's `limit`-th token after s ends, not `limit` cuts
        # on: where several tokens end in one character (CJK, emoji) that was a few times too far,
        # and the walk back re-counted a growing span once a cut (35 s for 200 KB of CJK at 512)
        j = max(first, min(bisect_right(bounds, self.end_of_tokens(s, limit)) - 1, len(bounds) - 1))
        count = size(s, bounds[j])
        while j > first and count > limit:
            j -= 1
            count = size(s, bounds[j])
        if count > limit:
            # even one token does not fit from here: take the most characters that do, at least one
            e = bounds[j] - 1
            while e > s + 1 and size(s, e) > limit:
                e -= 1
            return max(e, s + 1)
        while count < limit and j + 1 < len(bounds):
            ahead = size(s, bounds[j + 1])
            if ahead > limit:
                break
            j, count = j + 1, ahead
        return bounds[j]

    def back_start(self, end: int, amount: int, floor: int) -> int:
        bounds, size = self.bounds, self.size
        lowest = bisect_right(bounds, floor)  # first cut strictly after the previous start
        k = bisect_left(bounds, end)
        i = max(lowest, bisect_left(bounds, self.start_of_tokens(end, amount)))  # as in fit_end
        while i < k and size(bounds[i], end) > amount:
            i += 1
        while i - 1 >= lowest and size(bounds[i - 1], end) <= amount:
            i -= 1
        return bounds[i] if i < k else end


def _last_delimiter(text: str, delimiters: str, lo: int, hi: int) -> int:
    """Highest index in [lo, hi) holding any delimiter character, or -1."""
    return max((text.rfind(d, lo, hi) for d in delimiters), default=-1)


def run(doc, params, ctx) -> Proposal:
    text, n = doc.text, len(doc.text)
    size, unit, overlap, prefix = params["size"], params["unit"], params["overlap"], params["prefix"]
    delimiters = decode_delimiters("delimiters", params["delimiters"])
    walker: _Tokens | _Bytes | _Chars
    if unit == "tokens":
        walker = _Tokens(text, ctx.counter("tokens"))
    elif unit == "bytes":
        walker = _Bytes(text)
    else:
        walker = _Chars(text)
    if unit == "chars" and not delimiters:
        return Proposal(_char_windows(n, size, overlap))
    spans: list[Span] = []
    start, prev_end = 0, 0
    boundary, label = "start", "start of text"
    while start < n:
        ctx.check()
        end, cut_type, cut_label = None, "size", f"{size} {unit}"
        if delimiters:
            reach = walker.reach(start, size)
            if reach >= n and (walker.exact or walker.size(start, n) <= size):
                end = n
            else:
                # the cut must move past the previous chunk's end, or overlap would make no progress
                lo = max(start, prev_end)
                shift = 0 if prefix else 1  # the cut is before or after the delimiter
                p = _last_delimiter(text, delimiters, lo + 1 - shift, min(reach + 1 - shift, n))
                # a shorter text can encode to more tokens (BPE is not monotonic): then try earlier
                while p >= 0 and not walker.exact and walker.size(start, p + shift) > size:
                    p = _last_delimiter(text, delimiters, lo + 1 - shift, p)
                if p >= 0:
                    end = p + shift
                    cut_type = "delimiter"
                    cut_label = f"{'before' if prefix else 'after'} {text[p]!r}"
        if end is None:
            end = walker.fit_end(start, size)
            if end <= prev_end:
                # the overlap left no room for the next character: give up just enough overlap
                start = min(prev_end, walker.back_start(prev_end + 1, size, start - 1))
                end = walker.fit_end(start, size)
        metadata = {}
        if end - start == 1 and walker.size(start, end) > size:
            metadata["oversized"] = True
        spans.append(Span(start, end, boundary, label, metadata=metadata))
        if end >= n:
            break
        boundary, label = cut_type, cut_label
        prev_end = end
        start = walker.back_start(end, overlap, start) if overlap else end
        ctx.progress(end / n)
    return Proposal(spans)


def _char_windows(n: int, size: int, overlap: int) -> SpanTable:
    """Hard cuts in characters: what the loop in `run` makes, in closed form. Each window
    starts `size - overlap` after the previous one (overlap < size), and the last reaches n."""
    step = size - overlap
    last = -(-max(0, n - size) // step) * step  # the first start whose window reaches n
    starts = list(range(0, last + 1, step)) if n else []
    ends = [s + size for s in starts]
    if ends:
        ends[-1] = n
    rest = len(starts) - 1
    return SpanTable(starts, ends, ["start", *["size"] * rest], ["start of text", *[f"{size} chars"] * rest])


def _validate(values: dict) -> None:
    decode_delimiters("delimiters", values["delimiters"])


register(
    Strategy(
        name="fixed",
        summary="Windows of `size` bytes, chars or tokens, each cut back to its last delimiter "
        "character if there is one; never splits a UTF-8 character.",
        params=(
            Param("size", "int", 512, "Largest chunk, in `unit`s.", min=1, max=100_000_000, step=256),
            Param(
                "unit",
                "choice",
                "tokens",
                "What `size` and `overlap` count: UTF-8 bytes, characters or tokens of the run's tokenizer.",
                choices=("bytes", "chars", "tokens"),
            ),
            Param(
                "delimiters",
                "str",
                "",
                "Characters to cut after, searched backwards from the window "
                "end (\\n \\t \\r \\\\ are escapes); empty: hard cut at `size`.",
            ),
            Param(
                "prefix",
                "bool",
                False,
                "Put the delimiter at the start of the next chunk instead of the end of this one.",
            ),
            Param(
                "overlap",
                "int",
                0,
                "How much of the end of a chunk the next one repeats, in `unit`s (smaller than size).",
                min=0,
                max=100_000_000,
                step=64,
            ),
        ),
        run=run,
        constraints=(Order("overlap", "size"),),
        validate_extra=_validate,
        max_size=lambda p: (p["unit"], p["size"]),
    )
)
