"""Token counters: chars, bytes, lines and the two tiktoken encodings, loaded offline.

The BPE ranks come from the `bpe-openai` wheel and are checked against the sha256
that tiktoken publishes for them, so no count is ever made with a tampered or
truncated vocabulary, and nothing is downloaded. Parsing that file is most of a short
run's time, so the parsed table is cached once per machine (see `load_ranks`).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import marshal
import os
import stat
import sys
import threading
from binascii import a2b_base64
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypedDict

from .errors import ChunktuiError

TIKTOKEN_EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


class EncodingSpec(TypedDict):
    """What tiktoken's Encoding needs besides the ranks: the pre-tokenizer pattern, the special tokens."""

    pat_str: str
    special_tokens: dict[str, int]


ENCODING_SPECS: dict[str, EncodingSpec] = {
    "cl100k_base": {
        "pat_str": _CL100K_PAT,
        "special_tokens": {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    },
    "o200k_base": {
        "pat_str": _O200K_PAT,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
}

COUNTER_NAMES = ("chars", "bytes", "lines", "cl100k_base", "o200k_base")
DEFAULT_TOKENIZER = "cl100k_base"
DEFAULT_BUDGET = 512  # tokens a chunk may hold before it is flagged (a common embedding-model input limit)


class TokenizerError(ChunktuiError):
    pass


class _PackageFiles:
    """`importlib.resources.files` for a package that is found but not imported: bpe_openai's
    __init__ decodes every vocabulary it ships (about a second) just to list special tokens."""

    @staticmethod
    def files(package: str) -> Path:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"{package} is not installed")
        return Path(spec.submodule_search_locations[0])


resources = _PackageFiles()  # stands in for importlib.resources (and is what tests replace)


def load_ranks(name: str) -> dict[bytes, int]:
    """Mergeable ranks of `name`: from this machine's cache when it holds a sound copy, else
    parsed from the bundled file (refused if its hash is wrong) and cached for the next run."""
    ranks = _read_cached_ranks(name)
    if ranks is None:
        ranks = _parse_bundled_ranks(name)
        _write_cached_ranks(name, ranks)
    return ranks


def _parse_bundled_ranks(name: str) -> dict[bytes, int]:
    """Mergeable ranks of `name` from the bundled copy, refusing it if its hash is wrong."""
    try:
        ref = resources.files("bpe_openai") / "data" / f"{name}.tiktoken.gz"
        raw = gzip.decompress(ref.read_bytes())
    except (FileNotFoundError, ModuleNotFoundError, OSError) as exc:
        raise TokenizerError(f"{name}: local BPE file not found (install bpe-openai==0.1.4): {exc}") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != TIKTOKEN_EXPECTED_SHA256[name]:
        raise TokenizerError(f"{name}: local BPE file hash {digest} differs from tiktoken's published hash")
    return {a2b_base64(token): int(rank) for token, rank in (line.split() for line in raw.splitlines() if line)}


# The cache files: a header line, then a payload. The header names the vocabulary's published
# sha256 and the payload's own sha256, checked before the payload is used, so a truncated or
# corrupt file, or one of another vocabulary or format, is rebuilt, never trusted. What this
# guards against is damage: a file deliberately forged with a self-consistent header is out of
# scope, as is anything else in the user's own cache folder (whoever can write there can as well
# change the installed package). Only a regular file of at most CACHE_MAX_BYTES is read: a FIFO
# there would block the run, a link to /dev/zero never end. Three payloads: the ranks as marshal
# (loads in about a third of the time parsing the base64 file takes), for tiktoken's Encoding;
# the same ranks as small_bpe's hash table, read in place by the short texts' encoder; and the
# token index's lead table, a byte a token (0.4 ms to read against 33-36 ms of CPU to build from
# the ranks).
_CACHE_MAGIC = b"chunktui-ranks 1"
_TABLE_MAGIC = b"chunktui-table 1"
LEAD_MAGIC = b"chunktui-lead 1"  # the token index's lead table (token_index._lead_table)


def ranks_cache_path(name: str) -> Path:
    """Where `name`'s parsed ranks are cached: the user cache folder, keyed by the vocabulary's
    sha256 and the marshal format (another Python may write another)."""
    return _cache_folder() / f"{name}-{TIKTOKEN_EXPECTED_SHA256[name][:16]}-m{marshal.version}.ranks"


def table_cache_path(name: str) -> Path:
    """Where `name`'s rank table for short texts is cached (its words are in this machine's byte order)."""
    return _cache_folder() / f"{name}-{TIKTOKEN_EXPECTED_SHA256[name][:16]}-{sys.byteorder}.table"


CACHE_MAX_BYTES = 64 * 1024 * 1024  # the biggest cache file, o200k_base's table, is 5.1 MB


def _cache_folder() -> Path:
    """`$XDG_CACHE_HOME/chunktui`, or `~/.cache/chunktui` when it is unset or, as the XDG spec
    says to treat it, relative (it would put a cache in whatever folder a run starts from)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "chunktui"


def read_cache_file(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at `path` if it holds at most `limit` (CACHE_MAX_BYTES); None
    when it is missing, unreadable, bigger or not a regular file (checked on the open descriptor,
    opened without blocking: a FIFO's open would wait for a writer, a device's read never end)."""
    limit = CACHE_MAX_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(st.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == st.st_size else None  # not a file that changed while read


def _read_cached_ranks(name: str) -> dict[bytes, int] | None:
    payload = _read_cache(ranks_cache_path(name), _CACHE_MAGIC, name)
    ranks = None if payload is None else marshal.loads(payload)
    return ranks if isinstance(ranks, dict) else None


def rank_table(name: str):
    """`name`'s ranks as small_bpe's RankTable, from the cache, which is built from `load_ranks`
    when it lacks a sound copy."""
    from .small_bpe import RankTable, table_payload

    return RankTable(
        cached_payload(table_cache_path(name), _TABLE_MAGIC, name, lambda: table_payload(load_ranks(name)))
    )


def lead_cache_path(name: str) -> Path:
    """Where the token index's table of the characters each token of `name` ends is cached."""
    return _cache_folder() / f"{name}-{TIKTOKEN_EXPECTED_SHA256[name][:16]}.lead"


def cached_payload(path: Path, magic: bytes, name: str, build: Callable[[], bytes]) -> bytes:
    """The payload cached at `path` for vocabulary `name`, built and cached when the cache lacks a
    sound copy."""
    payload = _read_cache(path, magic, name)
    if payload is None:
        payload = build()
        _write_cache(path, magic, name, payload)
    return payload


def _read_cache(path: Path, magic: bytes, name: str) -> bytes | None:
    """The payload of the cache file at `path`, or None when it is missing, not a regular file of
    a cache's size, or its header does not vouch for it (another format, another vocabulary, a
    payload whose sha256 differs)."""
    data = read_cache_file(path)
    if data is None:
        return None
    header, _, payload = data.partition(b"\n")
    if header != _cache_header(magic, name, payload):
        return None
    return payload


def _cache_header(magic: bytes, name: str, payload: bytes) -> bytes:
    return b" ".join([magic, TIKTOKEN_EXPECTED_SHA256[name].encode(), hashlib.sha256(payload).hexdigest().encode()])


def _write_cached_ranks(name: str, ranks: dict[bytes, int]) -> None:
    _write_cache(ranks_cache_path(name), _CACHE_MAGIC, name, marshal.dumps(ranks))


def _write_cache(path: Path, magic: bytes, name: str, payload: bytes) -> None:
    """Write the cache whole or not at all (a temporary file renamed); an unwritable cache
    folder only means the next run builds the payload again."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(_cache_header(magic, name, payload) + b"\n" + payload)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


_lock = threading.Lock()
_encodings: dict = {}


def get_encoding(name: str):
    """The tiktoken Encoding `name`, built once per process on first use."""
    enc = _encodings.get(name)
    if enc is not None:
        return enc
    if name not in ENCODING_SPECS:
        raise TokenizerError(f"unknown tokenizer {name!r} (known: {', '.join(COUNTER_NAMES)})")
    with _lock:
        enc = _encodings.get(name)
        if enc is None:
            import tiktoken

            spec = ENCODING_SPECS[name]
            enc = tiktoken.Encoding(
                name=name,
                pat_str=spec["pat_str"],
                mergeable_ranks=load_ranks(name),
                special_tokens=spec["special_tokens"],
            )
            _encodings[name] = enc
    return enc


def long_piece_encoder(name: str):
    """The encoder of `name` that splits huge pre-tokenizer pieces (long_pieces.py)."""
    from . import long_pieces, token_index

    return long_pieces.piece_encoder(
        name, get_encoding(name), ENCODING_SPECS[name]["pat_str"], token_index.split_finders(name)
    )


# Characters a process may encode per encoding with small_bpe before tiktoken's encoder is built
# instead: past this many, building it (100-165 ms) costs less than encoding on in Python.
SMALL_TEXT_BUDGET = 64 * 1024
_small_encoders: dict = {}
_small_spent: dict[str, int] = {}


def small_encoder(name: str, text: str):
    """small_bpe's encoder of `name` when it is the one to encode `text`: tiktoken's is not built
    yet in this process, the text is one small_bpe encodes exactly, and the process has encoded
    fewer than SMALL_TEXT_BUDGET characters so; else None."""
    from . import small_bpe

    if name in _encodings or name not in small_bpe.PATTERNS or not small_bpe.fits(text):
        return None
    spent = _small_spent.get(name, 0) + len(text)
    if spent > SMALL_TEXT_BUDGET:
        return None
    _small_spent[name] = spent
    encoder = _small_encoders.get(name)
    if encoder is None:
        with _lock:
            encoder = _small_encoders.get(name)
            if encoder is None:
                encoder = _small_encoders[name] = small_bpe.SmallEncoder(name, rank_table(name))
    return encoder


def small_index(name: str, text: str):
    """small_bpe's SmallIndex of `text` when `small_encoder` takes the text, else None: a short
    text's spans are counted without tiktoken's encoder being built."""
    from .small_bpe import SmallIndex

    small = small_encoder(name, text)
    leads = None if small is None else small.token_leads(text)
    if small is None or leads is None:
        return None
    anchors = None
    if len(text) >= SMALL_ANCHORS_FROM:
        from .token_index import anchor_rules

        anchors = anchor_rules(name)
    return SmallIndex(text, small, leads, anchors, lambda span: len(encode_ordinary(name, span)))


# A short text's spans are counted whole below this many characters, and from the token index's
# anchors from it: importing token_index costs 25-39 ms (its patterns), which counting whole spans
# of a 4 KB text costs no more than; at 16 KB, `lines` and `semantic` took 160-220 ms counting
# whole spans, 45-60 ms from the anchors (chunk_document's CPU, alternated; 1-4 KB: the same)
SMALL_ANCHORS_FROM = 4096


def encode_ordinary(name: str, text: str):
    """tiktoken's `encode_ordinary(text)` under encoding `name`, in time linear in the text's
    length even when it holds a huge piece (a long run of letters, punctuation or whitespace)."""
    from .long_pieces import MIN_CHARS

    small = small_encoder(name, text)
    tokens = None if small is None else small.encode(text)
    if tokens is not None:
        return tokens
    encoding = get_encoding(name)
    if len(text) >= MIN_CHARS:
        try:
            tokens = long_piece_encoder(name).encode(text)
        except UnicodeEncodeError:  # lone surrogates: tiktoken's own replacement, as below
            tokens = None
        if tokens is not None:
            return tokens
    return encoding.encode_ordinary(text)


class Counter:
    """Counts the size of text in one unit; `count_spans` lets big inputs share work."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)

    def count_spans(self, text: str, spans) -> list[int]:
        """Sizes of text[s:e] for each (s, e); subclasses may reuse work across spans."""
        return [self.count(text[s:e]) for s, e in spans]

    def counts_in_order(self, text: str, spans) -> Iterator[list[int]]:
        """count_spans of spans in text order (their ends never decreasing), in groups front to
        back, each as soon as it can be counted: a token counter whose index is still encoding
        gives each group once the encode covers it (see index_ahead), the others all at once."""
        yield self.count_spans(text, spans)

    def index_ahead(self, text: str) -> None:
        """Prepare, in the background, what counting spans over most of `text` will need (the
        token counters start their index); nothing for the others."""


class CharCounter(Counter):
    name = "chars"

    def count_spans(self, text, spans):
        return [e - s for s, e in spans]


class ByteCounter(Counter):
    name = "bytes"

    def count(self, text: str) -> int:
        return len(text.encode("utf-8", "surrogatepass"))


class LineCounter(Counter):
    """Lines as an editor shows them: a final line without a newline still counts."""

    name = "lines"

    def count(self, text: str) -> int:
        if not text:
            return 0
        return text.count("\n") + (0 if text.endswith("\n") else 1)


class TiktokenCounter(Counter):
    def __init__(self, name: str):
        if name not in ENCODING_SPECS:
            raise TokenizerError(f"unknown tokenizer {name!r} (known: {', '.join(COUNTER_NAMES)})")
        self.name = name
        self._small = None  # the last short text's SmallIndex: its chunks are counted on it next

    @property
    def encoding(self):
        return get_encoding(self.name)

    def count(self, text: str) -> int:
        return len(encode_ordinary(self.name, text))

    def span_index(self, text: str):
        """The token index of `text` (see token_index.py): exact `count(s, e)` for any span and
        `token_ends()` as candidate cuts, for strategies that size many cuts. A big text's
        index is kept, so a re-chunk reuses it; a short text's is small_bpe's, made in Python
        (tiktoken's encoder is not built), and the counter keeps the last one."""
        if len(text) < INDEX_MIN_CHARS:
            small = self._small
            if small is None or small.text != text:
                small = self._small = small_index(self.name, text)
            if small is not None:
                return small
        from . import token_index

        if len(text) >= INDEX_MIN_CHARS:
            return token_index.get_index(text, self.name, self.encoding)
        return token_index.TokenIndex(text, self.name, self.encoding)

    def index_ahead(self, text: str) -> None:
        """Start encoding a big text for its token index on a thread of its own
        (token_index.build_ahead), for a caller that will count spans over most of it. The
        vocabulary is built here first (GIL-bound, 65 ms): built on that thread it shared the GIL
        with the caller's work, and the encode, which lets go of it, started that much later."""
        if len(text) >= INDEX_MIN_CHARS:
            get_encoding(self.name)
            from . import token_index

            token_index.build_ahead(text, self.name)

    def counts_in_order(self, text: str, spans) -> Iterator[list[int]]:
        if len(text) >= INDEX_MIN_CHARS:
            from . import token_index

            if token_index.cached_index(text, self.name) is None and token_index.is_building(text, self.name):
                yield from token_index.counts_in_order(text, self.name, self.encoding, spans)
                return
        yield self.count_spans(text, spans)

    def count_spans(self, text, spans):
        """Exact counts; a big text is encoded once and each span reuses that pass.

        The index (token_index.py) is kept for the text, so re-chunking the same
        document with new parameters only re-encodes the few characters around
        each span's ends.
        """
        spans = list(spans)
        if len(text) >= INDEX_MIN_CHARS:
            from . import token_index

            index = token_index.cached_index(text, self.name)
            if index is None and token_index.is_building(text, self.name):  # see index_ahead
                return token_index.counts_while_encoding(text, self.name, self.encoding, spans)
            if index is None and _worth_indexing(text, spans):
                index = token_index.get_index(text, self.name, self.encoding)
            if index is not None:
                return index.count_spans(spans)
        small = self._small
        if small is not None and small.text == text:
            return [small.count(s, e) for s, e in spans]
        return [len(self._encode_span(text[s:e])) for s, e in spans]

    def _encode_span(self, text: str):
        small = small_encoder(self.name, text)
        tokens = None if small is None else small.encode(text)
        return tokens if tokens is not None else self.encoding.encode_ordinary(text)


# below this many characters, encoding each span directly is cheap enough
INDEX_MIN_CHARS = 64 * 1024


def _worth_indexing(text: str, spans) -> bool:
    """Index when the spans cover at least half the text: then one pass is no dearer."""
    if len(text) < INDEX_MIN_CHARS:
        return False
    return sum(e - s for s, e in spans) * 2 >= len(text)


_counters: dict[str, Counter] = {}


def get_counter(name: str) -> Counter:
    """The counter for `name` (chars, bytes, lines, cl100k_base, o200k_base)."""
    counter = _counters.get(name)
    if counter is None:
        if name == "chars":
            counter = CharCounter()
        elif name == "bytes":
            counter = ByteCounter()
        elif name == "lines":
            counter = LineCounter()
        else:
            counter = TiktokenCounter(name)
        _counters[name] = counter
    return counter
