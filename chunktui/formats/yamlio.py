"""Safe YAML in and out, with multi-line text as readable `|` blocks that still round-trip exactly."""

from __future__ import annotations

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
    """(yaml, safe loader, our loader, our dumper), built on first use: this module is imported
    by every export (the formats are listed from it), and a JSON export has no use for PyYAML.

    The pure-Python emitter on purpose: libyaml's escapes every emoji and so
    double-quotes whole chunks; loading uses libyaml for speed when present.
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
    return yaml, safe_loader, Loader, Dumper


def dump_yaml(data, stream=None):
    """safe_dump with key order kept, unicode as is and `|` blocks for multi-line text."""
    yaml, _, _, dumper = _yaml()
    return yaml.dump(
        data, stream, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )


def read_yaml(path, limit: int | None = None, what: str = "this file"):
    """safe_load of `path`, a regular file of at most `limit` bytes, without anchors or aliases.

    Unreadable or malformed files raise DocumentError naming them. Neither a profile nor a
    chunks.yaml needs an anchor, and aliases nested a few levels deep expand without bound
    ("billion laughs": nine levels of nine take gigabytes) once anything walks the value, so
    every anchor and alias is refused from the parser's events, before a value is built.
    """
    yaml, _, loader, _ = _yaml()
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
    yaml, safe_loader, _, _ = _yaml()
    for event in yaml.parse(text, Loader=safe_loader):
        if getattr(event, "anchor", None) is not None:
            kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
            raise DocumentError(
                path,
                f"YAML {kind} {'*' if kind == 'alias' else '&'}{event.anchor} at line "
                f"{event.start_mark.line + 1}: anchors and aliases are not allowed here",
            )
