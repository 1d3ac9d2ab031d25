"""Long runs without spaces (letters, DNA, CJK, digits, base64, one huge word), the same on every
call: the inputs of the long-run tests, in this process and in a child."""

from __future__ import annotations

import base64
import random


def long_run(kind: str, n: int) -> str:
    """n characters of one kind of run, the same on every call."""
    rng = random.Random(n)
    if kind == "letter":
        return "a" * n
    if kind == "dna":
        return ("ACGT" * (n // 4 + 1))[:n]
    if kind == "cjk":
        return "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(n))
    if kind == "digits":
        return "".join(rng.choice("0123456789") for _ in range(n))
    if kind == "base64":
        return base64.b64encode(rng.randbytes(n))[:n].decode()
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))  # one huge word


KINDS = ("letter", "dna", "cjk", "digits", "base64", "word")


class RecordingBPE:
    """tiktoken's CoreBPE, noting the longest text or bytes handed to it in one call."""

    def __init__(self, bpe):
        self.bpe, self.longest = bpe, 0

    def __getattr__(self, attr):
        method = getattr(self.bpe, attr)

        def call(data, *rest):
            self.longest = max(self.longest, len(data))
            return method(data, *rest)

        return call


class RecordingEncoding:
    """A tiktoken Encoding whose every encode goes through a RecordingBPE: `_core_bpe.longest` is
    the longest input tiktoken was given at once, the measure of work the long-run tests read."""

    def __init__(self, encoding):
        self._core_bpe = RecordingBPE(encoding._core_bpe)
        self._mergeable_ranks = encoding._mergeable_ranks
        self.encode_ordinary = self._core_bpe.encode_ordinary
