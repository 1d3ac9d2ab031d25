"""`code` on sources nested deeper than Python's recursion limit (issue 19): the walks over the
syntax tree keep their own stacks, so any depth the parser accepts is chunked."""

from __future__ import annotations

import sys

import pytest

from chunktui.engine import Document, chunk_document


def deep_python_ifs(depth: int) -> str:
    return "".join("    " * i + f"if value > {i}:\n" for i in range(depth)) + "    " * depth + "return value\n"


def deep_js_blocks(depth: int) -> str:
    return "function deep(x) {\n" + "{\n" * depth + "x += 1;\n" + "}\n" * depth + "return x;\n}\n"


def deep_python_defs(depth: int) -> str:
    return "".join(" " * i + f"def f{i}():\n" for i in range(depth)) + " " * depth + "return 0\n"


def deep_js_callbacks(depth: int) -> str:
    return "".join(f"on{i}(() => {{\n" for i in range(depth)) + "done();\n" + "});\n" * depth


@pytest.mark.parametrize(
    "path, src",
    [
        ("deep_ifs.py", deep_python_ifs(500)),
        ("deep_blocks.js", deep_js_blocks(2000)),
        ("deep_defs.py", deep_python_defs(750)),  # 1,024 syntax nodes deep (290 KB: indents grow)
        ("deep_callbacks.js", deep_js_callbacks(750)),  # 3,754 syntax nodes deep
    ],
    ids=["python-500-ifs", "js-2000-blocks", "python-750-defs", "js-750-callbacks"],
)
@pytest.mark.parametrize("limit", [1500, 200])
def test_nesting_deeper_than_the_recursion_limit_is_chunked(path, src, limit):
    assert src.count("\n") > sys.getrecursionlimit() // 2
    cs = chunk_document(Document.from_text(src, path=path), "code", {"max_chunk_size": limit, "overlap_lines": 2})
    assert len(cs.chunks) > 1
    pos = 0
    for c in cs.chunks:
        assert src[c.start : c.end] == c.text and c.start <= pos
        pos = c.end
        # over the limit only where one line is: the innermost lines of deep_ifs are 2 kB of indentation
        own = src[c.start : c.end].splitlines()[-1 - (c.metadata["core_end_line"] - c.metadata["core_start_line"]) :]
        assert len(c.text.encode()) <= limit or c.metadata.get("oversized") and len(own) == 1, (
            c.start_line,
            c.end_line,
        )
    assert pos == len(src)
