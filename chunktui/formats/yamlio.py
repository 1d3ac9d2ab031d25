"""Safe YAML in and out, with multi-line text as readable `|` blocks that still round-trip exactly."""

from __future__ import annotations

import itertools
import re
from functools import cache

from chunktui.engine.readers.documents import read_file_bytes
from chunktui.engine.core.errors import DocumentError

_INT_TAG = "tag:yaml.org,2002:int"

# YAML reads these as line breaks (or strips them) unless they are escaped, which
# only the double-quoted style does; PyYAML would otherwise emit them raw.
_RAW_BREAKS = ("\r", "\x85", "\u2028", "\u2029", "\ufeff")


def _represent_str(dumper, value: str):
    if any(ch in value for ch in _RAW_BREAKS):
        style = '"'
    elif "\n" in value and all(ch.isprintable() or ch == "\n" for ch in value):
        style = "|"
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


@cache
def _yaml():
    """(yaml, safe loader, our loader, our dumper, libyaml's dumper or None), built on first use:
    this module is imported by every export (the formats are listed from it), and a JSON export
    has no use for PyYAML.

    The pure-Python emitter is the one whose output is chunktui's: libyaml's escapes every emoji
    (so double-quotes whole chunks) and folds long double-quoted lines otherwise. libyaml's is
    used only for what both write byte for byte alike (`dump_yaml`); loading uses libyaml for
    speed when present.
    """
    import yaml

    safe_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(safe_loader):  # type: ignore[valid-type,misc]  # the C loader when built with libyaml
        """Safe loading where a whole number is only what chunktui writes: ASCII digits, optional sign.

        YAML 1.1 also reads `1_000`, `0x1F`, `017` (octal 15) and `1:30` (sexagesimal 90) as numbers;
        here they stay text, which a parameter then refuses as the CLI and the app refuse it.
        """

    Loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _INT_TAG]
        for first, resolvers in safe_loader.yaml_implicit_resolvers.items()
    }
    Loader.add_implicit_resolver(_INT_TAG, re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(str, _represent_str)
    fast = None
    if hasattr(yaml, "CSafeDumper"):  # PyYAML built with libyaml

        class FastDumper(yaml.CSafeDumper):
            pass

        FastDumper.add_representer(str, _represent_str)
        fast = FastDumper
    return yaml, safe_loader, Loader, Dumper, fast


def dump_yaml(data, stream=None):
    """safe_dump with key order kept, unicode as is and `|` blocks for multi-line text; written
    to `stream`, or returned as a string without one.

    A mapping whose last value is a list (chunks.yaml's chunks: for the 6 MB corpus's 3,484,
    2.0-2.2 s of CPU against 7.6-8.7 s) is written its items a run at a time: at column 0, as
    the whole mapping has them, each run of items whose every string both emitters write alike
    (`_emitted_alike`; 3,184 of those chunks) by libyaml's, the others by the pure-Python one.
    The bytes are those the pure-Python emitter writes for the whole."""
    text = "".join(_pieces(data))
    if stream is None:
        return text
    stream.write(text)
    return None


def _pieces(data) -> list[str]:
    """`data` as YAML in pieces that join into the pure-Python emitter's output for it."""
    yaml, _, _, dumper, fast = _yaml()

    def dump(value, how=dumper) -> str:
        return yaml.dump(value, Dumper=how, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)

    key = next(reversed(data), None) if isinstance(data, dict) else None
    items = data[key] if key is not None else None
    if fast is None or not isinstance(items, list) or not items:
        return [dump(data)]
    probe = dump({key: [None]})
    if probe.count("\n") != 2 or not probe.endswith(":\n- null\n"):  # a key written on several lines
        return [dump(data)]
    head = {k: v for k, v in data.items() if k != key}
    pieces = [dump(head)] if head else []
    pieces.append(probe.removesuffix("- null\n"))  # "chunks:\n", as the whole writes the key
    for alike, run in itertools.groupby(items, key=_emitted_alike):
        pieces.append(dump(list(run), fast if alike else dumper))
    # Each piece is a stream of its own, which an emitter ends with "..." after a `|+` block;
    # within the whole, the next item follows instead.
    return [p[:-4] if p.endswith("\n...\n") else p for p in pieces[:-1]] + pieces[-1:]


# A string both emitters write alike: what libyaml sees as printable (the BMP but controls, line
# separators and the byte order mark) on one line, plain or single-quoted; on several lines, a `|`
# block (our representer's test, no emoji, no space before a line break or at the end, not `|+`).
# Anything else may be double-quoted, whose long lines the two fold differently.
_OUTSIDE_LIBYAML = re.compile(r"[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")


def _emitted_alike(value) -> bool:
    """Whether libyaml's emitter writes `value` (its strings, its keys: short one-line ones) as the
    pure-Python emitter does, at any indent."""
    if isinstance(value, str):
        if "\n" not in value:
            return not _OUTSIDE_LIBYAML.search(value)
        return (
            value.replace("\n", "").isprintable()
            and (value.isascii() or max(value) < "\U00010000")
            and " \n" not in value
            and not value.endswith((" ", "\n\n"))
            and value != "\n"
        )
    if isinstance(value, dict):
        return all(
            isinstance(k, str) and len(k) < 100 and "\n" not in k and _emitted_alike(k) and _emitted_alike(v)
            for k, v in value.items()
        )
    if isinstance(value, (list, tuple)):
        return all(_emitted_alike(v) for v in value)
    return value is None or isinstance(value, (bool, int, float))


def read_yaml(path, limit: int | None = None, what: str = "this file"):
    """safe_load of `path`, a regular file of at most `limit` bytes, without anchors or aliases.

    Unreadable or malformed files raise DocumentError naming them. Neither a profile nor a
    chunks.yaml needs an anchor, and aliases nested a few levels deep expand without bound
    ("billion laughs": nine levels of nine take gigabytes) once anything walks the value, so
    every anchor and alias is refused from the parser's events, before a value is built.
    """
    yaml, _, loader, _, _ = _yaml()
    data = read_file_bytes(path, limit, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(path, f"not UTF-8 text (byte {exc.start})") from None
    del data
    try:
        if "&" in text:  # no anchor without "&", and an alias without its anchor is a YAML error
            _refuse_anchors(text, path)
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DocumentError(path, f"not valid YAML{where}: {problem}") from None


def _refuse_anchors(text: str, path) -> None:
    """DocumentError at the first anchor (`&name`) or alias (`*name`); one pass of libyaml's events."""
    yaml, safe_loader, _, _, _ = _yaml()
    for event in yaml.parse(text, Loader=safe_loader):
        if getattr(event, "anchor", None) is not None:
            kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
            raise DocumentError(
                path,
                f"YAML {kind} {'*' if kind == 'alias' else '&'}{event.anchor} at line "
                f"{event.start_mark.line + 1}: anchors and aliases are not allowed here",
            )
