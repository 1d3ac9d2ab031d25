"""Token counts are tiktoken's own, from a vocabulary that is checked before it is trusted.

The reference encoder is built the way `tiktoken.get_encoding` builds it (the
constructor in tiktoken_ext.openai_public with its published hash), only fed
from the local BPE file instead of the network.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from chunktui.engine.core import tokens
from chunktui.engine.core.tokens import TokenizerError, get_counter, get_encoding, load_ranks

SAMPLES = sorted(p for p in (Path(__file__).resolve().parent.parent / "sample_docs").iterdir() if p.is_file())
TRICKY = [
    "",
    " ",
    "\n",
    "\r\n\r\n",
    "   \n\t  x",
    "Hello, world!",
    "don't  I'LL we've",
    "12345678 3.14159",
    "日本語のテキスト",
    "e\u0301 é",
    "👩\u200d👩\u200d👧 🎉🎉",
    "<|endoftext|> stays ordinary text",
    "def f(x):\n    return x ** 2\n",
    "    \n\n\n   trailing   ",
    "a" * 5000,
    " " * 300 + "x",
]


def _local_bpe(name: str) -> bytes:
    return gzip.decompress((resources.files("bpe_openai") / "data" / f"{name}.tiktoken.gz").read_bytes())


@pytest.fixture(scope="module", params=["cl100k_base", "o200k_base"])
def reference(request, tmp_path_factory):
    """(name, spec dict, tiktoken Encoding) exactly as tiktoken_ext builds it, offline."""
    name = request.param
    local = tmp_path_factory.mktemp("bpe") / f"{name}.tiktoken"
    local.write_bytes(_local_bpe(name))
    real_loader = tiktoken.load.load_tiktoken_bpe
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache: the hash check runs on the file itself
        mp.setattr(
            openai_public,
            "load_tiktoken_bpe",
            lambda url, expected_hash=None: real_loader(str(local), expected_hash=expected_hash),
        )
        spec = getattr(openai_public, name)()
    return name, spec, tiktoken.Encoding(**spec)


def test_spec_matches_tiktoken_ext(reference):
    name, spec, ref = reference
    ours = get_encoding(name)
    assert tokens.ENCODING_SPECS[name]["pat_str"] == spec["pat_str"]
    assert tokens.ENCODING_SPECS[name]["special_tokens"] == spec["special_tokens"]
    assert load_ranks(name) == spec["mergeable_ranks"]
    assert ours.n_vocab == ref.n_vocab  # the fixture's Encoding is tiktoken.Encoding(**spec)


def test_encodings_identical_on_samples_and_edge_cases(reference):
    name, _, ref = reference
    ours = get_encoding(name)
    texts = TRICKY + [p.read_text(encoding="utf-8") for p in SAMPLES]
    for text in texts:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
        assert get_counter(name).count(text) == len(ref.encode_ordinary(text))


def test_count_spans_is_exact_on_a_big_document(reference):
    """Spans of a large text (where counters may reuse one encoding pass) count as if encoded alone."""
    name, _, ref = reference
    text = "".join(p.read_text(encoding="utf-8") for p in SAMPLES) * 2
    assert len(text) > 100_000
    step = 997
    spans = [(s, min(len(text), s + 1500)) for s in range(0, len(text), step)]
    spans += [(0, len(text)), (5, 6), (len(text) - 1, len(text))]
    counts = get_counter(name).count_spans(text, spans)
    assert counts == [len(ref.encode_ordinary(text[s:e])) for s, e in spans]


def test_each_encoding_is_built_once():
    assert get_encoding("cl100k_base") is get_encoding("cl100k_base")


def test_plain_counters():
    assert get_counter("chars").count("é🎉") == 2
    assert get_counter("bytes").count("é🎉") == 6
    lines = get_counter("lines")
    assert [lines.count(t) for t in ("", "\n", "a", "a\n", "a\nb", "a\r\nb\r\n")] == [0, 1, 1, 1, 2, 2]
    text = "ab\ncd é"
    for name in ("chars", "bytes", "lines"):
        counter = get_counter(name)
        assert counter.count_spans(text, [(0, 3), (3, 7), (0, 7)]) == [
            counter.count(text[s:e]) for s, e in [(0, 3), (3, 7), (0, 7)]
        ]


def test_unknown_tokenizer_is_a_clean_error():
    with pytest.raises(TokenizerError, match="unknown tokenizer 'gpt2'"):
        get_counter("gpt2")


def _fake_bpe_package(tmp_path, monkeypatch, data: bytes):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))  # the bundled file is read
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "cl100k_base.tiktoken.gz").write_bytes(data)
    monkeypatch.setattr(tokens, "resources", type("R", (), {"files": staticmethod(lambda pkg: tmp_path)}))


def test_corrupted_bpe_file_is_refused(tmp_path, monkeypatch):
    raw = bytearray(_local_bpe("cl100k_base"))
    line_end = raw.index(b"\n")
    raw[line_end - 1 : line_end] = b"9"  # one rank changed: still parses, but is not the published file
    _fake_bpe_package(tmp_path, monkeypatch, gzip.compress(bytes(raw)))
    with pytest.raises(TokenizerError, match="differs from tiktoken's published hash"):
        load_ranks("cl100k_base")


def test_truncated_bpe_file_is_refused(tmp_path, monkeypatch):
    raw = _local_bpe("cl100k_base")
    _fake_bpe_package(tmp_path, monkeypatch, gzip.compress(raw[: len(raw) // 2]))
    with pytest.raises(TokenizerError, match="hash"):
        load_ranks("cl100k_base")


def test_missing_bpe_file_names_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(tokens, "resources", type("R", (), {"files": staticmethod(lambda pkg: tmp_path)}))
    with pytest.raises(TokenizerError, match="bpe-openai"):
        load_ranks("cl100k_base")


def _no_bundled_file(tmp_path, monkeypatch):
    """bpe_openai without its data: only the cache can give the ranks now."""
    monkeypatch.setattr(tokens, "resources", type("R", (), {"files": staticmethod(lambda pkg: tmp_path / "gone")}))


def test_parsed_vocabulary_is_cached_per_machine(reference, tmp_path, monkeypatch):
    """The first load writes the parsed ranks to the user cache folder; the next process reads
    them from there (here: with the bundled file gone) and counts exactly as tiktoken does."""
    name, spec, ref = reference
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert load_ranks(name) == spec["mergeable_ranks"]
    assert tokens.ranks_cache_path(name).parent == tmp_path / "cache" / "chunktui"
    assert tokens.ranks_cache_path(name).is_file()
    _no_bundled_file(tmp_path, monkeypatch)
    cached = load_ranks(name)
    assert cached == spec["mergeable_ranks"]
    enc = tiktoken.Encoding(
        name=name, pat_str=spec["pat_str"], mergeable_ranks=cached, special_tokens=spec["special_tokens"]
    )
    text = "".join(p.read_text(encoding="utf-8") for p in SAMPLES)
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.fixture(scope="module")
def sound_cache(reference, tmp_path_factory) -> bytes:
    """The cache file load_ranks writes for the reference's vocabulary, made once per vocabulary:
    each damage below starts from a copy of it instead of parsing the bundled file again."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        load_ranks(reference[0])
        return tokens.ranks_cache_path(reference[0]).read_bytes()


@pytest.mark.parametrize("damage", ["truncated", "one byte flipped", "header of another vocabulary", "empty"])
def test_damaged_cache_is_rebuilt_not_trusted(reference, sound_cache, tmp_path, monkeypatch, damage):
    name, spec, _ = reference
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tokens.ranks_cache_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    good = sound_cache
    if damage == "truncated":
        bad = good[: len(good) - 1000]
    elif damage == "one byte flipped":
        bad = bytearray(good)
        bad[len(good) // 2] ^= 0x01
        bad = bytes(bad)
    elif damage == "header of another vocabulary":
        other = next(n for n in tokens.TIKTOKEN_EXPECTED_SHA256 if n != name)
        bad = good.replace(
            tokens.TIKTOKEN_EXPECTED_SHA256[name].encode(), tokens.TIKTOKEN_EXPECTED_SHA256[other].encode(), 1
        )
    else:
        bad = b""
    path.write_bytes(bad)
    assert load_ranks(name) == spec["mergeable_ranks"]  # rebuilt from the bundled file
    assert path.read_bytes() == good  # and the cache written again
    path.write_bytes(bad)
    _no_bundled_file(tmp_path, monkeypatch)
    with pytest.raises(TokenizerError, match="not found"):  # a damaged cache alone is never used
        load_ranks(name)


def test_unwritable_cache_folder_only_skips_caching(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    ranks = load_ranks("cl100k_base")
    assert len(ranks) == 100256
    assert not tokens.ranks_cache_path("cl100k_base").exists()
    assert list(tmp_path.iterdir()) == [blocker]  # no temporary file left behind


def test_encodings_load_lazily():
    """Listing strategies (what `chunktui --help` needs) must not pay for loading a vocabulary."""
    code = (
        "import chunktui.engine as e\n"
        "from chunktui.engine.core import tokens\n"
        "e.all_strategies()\n"
        "e.get_counter('cl100k_base')\n"
        "print(len(tokens._encodings))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def read_within(path: Path, seconds: float = 2.0) -> tuple[bool, list]:
    """tokens._read_cache of `path` in a thread: whether it returned within `seconds`, and what.
    A reader still blocked in a FIFO's open is let go (a writer opens and closes it)."""
    import os
    import threading

    got: list = []
    reader = threading.Thread(
        target=lambda: got.append(tokens._read_cache(path, tokens._CACHE_MAGIC, "cl100k_base")), daemon=True
    )
    reader.start()
    reader.join(seconds)
    returned = not reader.is_alive()
    if not returned and path.is_fifo():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(seconds)
    return returned, got


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "link to /dev/zero", "over the size bound"])
def test_a_cache_path_that_is_no_cache_file_is_not_read(tmp_path, monkeypatch, kind):
    """Found by review: a FIFO at the cache path hung the run for ever, and a link to /dev/zero
    would be read without end; neither is a regular file, so neither is read. Nor is a sound
    cache file bigger than a cache file can be (a huge file there would be read whole)."""
    import os

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = tokens.ranks_cache_path("cl100k_base")
    path.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a fifo":
        os.mkfifo(tmp_path / "fifo")
        path.symlink_to(tmp_path / "fifo")
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:
        tokens._write_cache(path, tokens._CACHE_MAGIC, "cl100k_base", b"a payload the header vouches for")
        assert read_within(path) == (True, [b"a payload the header vouches for"])  # within the bound
        monkeypatch.setattr(tokens, "CACHE_MAX_BYTES", path.stat().st_size - 1)
    assert read_within(path) == (True, [None])


def test_a_relative_xdg_cache_home_is_ignored(tmp_path, monkeypatch):
    """The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored (found by review: a cache was
    written under whatever folder the run started in)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relcache")
    assert tokens.ranks_cache_path("cl100k_base").parent == tmp_path / "home" / ".cache" / "chunktui"
