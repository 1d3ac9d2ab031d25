"""Every use of tiktoken's private API, in one place (tiktoken is pinned in pyproject.toml).

The token index reads what tiktoken keeps to itself: the rank table of the vocabulary (which
characters each token ends), and the Rust encoder behind an Encoding, whose methods skip work
the public API does (a buffer of token ids with no Python int per token; one pre-tokenizer
piece encoded without the regex). PRIVATE lists each name used; tests/test_compat.py checks
that the installed tiktoken has every one and names any that is missing."""

from __future__ import annotations

# what is read, on what: an Encoding, and the CoreBPE object behind it
PRIVATE = {
    "Encoding": ("_mergeable_ranks", "_core_bpe"),
    "CoreBPE": ("encode_ordinary", "encode_to_tiktoken_buffer", "encode_single_piece"),
}


def mergeable_ranks(encoding) -> dict[bytes, int]:
    """The vocabulary: each token's bytes and its id."""
    return encoding._mergeable_ranks


def core_bpe(encoding):
    """The Rust encoder of `encoding`, whose methods PRIVATE["CoreBPE"] lists."""
    return encoding._core_bpe
