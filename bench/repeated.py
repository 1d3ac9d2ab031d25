"""Repeated text: where libraries that locate chunks with str.find put them in the wrong place.

Concatenated files repeat their licence headers, checklists repeat lines, logs
repeat messages. A chunk's offset must be where that chunk came from, not the
first place its text occurs.
"""

from __future__ import annotations

from .checks import check
from .contenders import CONTENDERS, Mode, Skip
from .corpus import corpus

HEADER = (
    '# Licensed under the Apache License, Version 2.0 (the "License");\n'
    "# you may not use this file except in compliance with the License.\n"
    "# You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0\n\n"
)
CHECKLIST = "- [ ] review the change\n- [ ] update the docs\n\n"
STATUS = "status: ok \n\n"


def repeated_text() -> str:
    """Real sections, each behind the same licence header, then runs of identical short blocks."""
    sections = corpus("docs", 60_000).split("\n\n")
    parts = []
    for k in range(0, len(sections), 12):
        parts.append(HEADER)
        parts.append("\n\n".join(sections[k : k + 12]) + "\n\n")
    parts.append(CHECKLIST * 150)
    parts.append(STATUS * 300)
    parts.append(HEADER * 20)
    return "".join(parts)


def repeated_text_probe(log) -> list[dict]:
    text = repeated_text()
    rows = []
    for mode in (Mode("text", "chars", 512, 0.0), Mode("text", "chars", 512, 0.1), Mode("text", "chars", 64, 0.25)):
        for c in CONTENDERS:
            if "text" not in c.families:
                continue
            try:
                result = check(text, c.make(mode, text)(), mode)
            except Skip as exc:
                result = {"skip": str(exc)}
            rows.append({"mode": mode.name, "contender": c.name, **result})
            log(f"repeated {mode.name} {c.name}: {result}")
    return rows
