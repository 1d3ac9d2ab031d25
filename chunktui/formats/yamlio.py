"""Safe YAML in and out, with multi-line text as readable `|` blocks that still round-trip exactly."""

from __future__ import annotations

from functools import cache

from chunktui.engine.errors import DocumentError

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
    """(yaml, its loader, our dumper), imported on first use: a JSONL export never pays for PyYAML.

    The pure-Python emitter on purpose: libyaml's escapes every emoji and so
    double-quotes whole chunks; loading uses libyaml for speed when present.
    """
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(str, _represent_str)
    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader), Dumper


def dump_yaml(data, stream=None):
    """safe_dump with key order kept, unicode as is and `|` blocks for multi-line text."""
    yaml, _, dumper = _yaml()
    return yaml.dump(data, stream, Dumper=dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def read_yaml(path):
    """safe_load of `path`; unreadable or malformed files raise DocumentError naming it."""
    yaml, loader, _ = _yaml()
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.load(fh, Loader=loader)
    except FileNotFoundError:
        raise DocumentError(path, "no such file") from None
    except IsADirectoryError:
        raise DocumentError(path, "is a folder, not a file") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(path, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise DocumentError(path, f"cannot read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DocumentError(path, f"not valid YAML{where}: {problem}") from None
