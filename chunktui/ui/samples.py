"""Where the bundled sample documents live (for `chunktui demo`)."""

from __future__ import annotations

from pathlib import Path

import chunktui

SAMPLE_DIR_NAME = "sample_docs"
# the order the demo visits them in: one of each kind
DEMO_ORDER = ("guide.md", "essay.txt", "inventory.py", "auth_middleware.ts", "service.log", "events.jsonl",
              "orders.csv", "orders.tsv", "talk.vtt", "talk.srt", "threads.mbox", "notes.md")


def find_sample_docs(cwd: Path | None = None) -> Path | None:
    """sample_docs/ beside the package (a source checkout), else under the current folder."""
    package_root = Path(chunktui.__file__).resolve().parent.parent
    for candidate in (package_root / SAMPLE_DIR_NAME, (cwd or Path.cwd()) / SAMPLE_DIR_NAME):
        if candidate.is_dir():
            return candidate
    return None


def demo_files(folder: Path) -> list[Path]:
    """Sample files in demo order; files not in the list follow alphabetically."""
    present = [folder / name for name in DEMO_ORDER if (folder / name).is_file()]
    rest = sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name not in DEMO_ORDER and p.name != "README.md")
    return present + rest
