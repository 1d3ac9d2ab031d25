"""Hostile inputs of issue 19: nesting past the recursion limit, special files behind every option,
unbounded YAML and sweep grids, wrongly typed chunks.yaml files, out-of-order subtitle cues and
parameters validated alike everywhere. Each case is one error line and exit 2, or a result that
keeps the offset invariant; never a traceback, a hang or memory without bound.
"""

from __future__ import annotations

import json

import pytest

from chunktui.engine import chunk_document, load_document
from test_bad_inputs import assert_clean_error, invoke, work  # noqa: F401 (work is a fixture)
from test_properties import check_invariants


# --------------------------------------------------------------------------- deep nesting


def nested_jsonl(depth: int) -> str:
    """Events of a JSONL log, one of them carrying a payload nested `depth` objects deep."""
    return ('{"ts": "2024-05-01T10:00:00Z", "level": "INFO", "msg": "start"}\n'
            '{"ts": "2024-05-01T10:00:01Z", "broken": ' + '[' * depth + '}\n'
            '{"ts": "2024-05-01T10:00:02Z", "payload": ' + '{"a": ' * depth + '1' + '}' * depth + '}\n'
            '{"trace": ' + '[' * depth + ']' * depth + ', "user": "x", "ts": "2024-05-01T10:00:03Z"}\n')


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_jsonl_nested_past_the_recursion_limit_is_chunked(depth, work):
    path = work / "events.jsonl"
    path.write_text(nested_jsonl(depth))
    cs = chunk_document(load_document(path), "log", {})
    check_invariants(cs)
    meta = cs.chunks[0].metadata
    assert meta["json_keys"] == ["ts", "level", "msg", "payload", "trace", "user"]
    assert meta["json_invalid_lines"] == 1  # the unclosed one, as json.loads would say
    assert meta["ts_start"] == "2024-05-01T10:00:00Z" and meta["ts_end"] == "2024-05-01T10:00:03Z"
    code, out, err = invoke("chunk", path, "-o", work / "out")
    assert code == 0 and "Traceback" not in out + err, err
