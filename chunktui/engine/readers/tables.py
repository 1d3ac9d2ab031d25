"""CSV/TSV rows with their exact character offsets.

csv.reader does not report offsets, so it is fed one source line at a time and
the lines it pulls for each row give the row's span; a quoted field holding
newlines is therefore one row, exactly as the csv module reads it.
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass

from .documents import Document
from ..core.errors import ChunkingError

_SNIFF_LINES = 50
csv.field_size_limit(sys.maxsize)


@dataclass(frozen=True)
class Row:
    start: int
    end: int  # just past the row's last newline
    line: int  # 1-based first line
    fields: tuple[str, ...]


@dataclass
class Table:
    delimiter: str
    quotechar: str
    header: Row | None
    rows: list[Row]  # data rows, header excluded, blank lines skipped
    sniffed: bool

    @property
    def columns(self) -> list[str]:
        return list(self.header.fields) if self.header else []

    def dialect_info(self) -> dict:
        return {"delimiter": self.delimiter, "quotechar": self.quotechar, "sniffed": self.sniffed}

    def chunk_metadata(self, **more) -> dict:
        """What each chunk of the table says about it, made afresh per chunk: its lists and dicts
        are its own, so a caller changing one chunk's metadata changes no other chunk."""
        return {"columns": self.columns, "rows_total": len(self.rows), "dialect": self.dialect_info(), **more}


def sniff(doc: Document) -> tuple[type[csv.Dialect], bool]:
    """The dialect: tab for .tsv, else csv.Sniffer on the first lines, else plain CSV."""
    if doc.kind == "tsv" or (doc.path or "").lower().endswith(".tsv"):
        return csv.excel_tab, False
    sample = doc.text[: doc.line_start(_SNIFF_LINES + 1)].lstrip("\ufeff")
    try:
        found = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel, False

    class Sniffed(csv.excel):
        # only the delimiter and quote are trusted: the Sniffer misjudges doublequote on small samples
        delimiter = found.delimiter
        quotechar = found.quotechar or '"'
        skipinitialspace = found.skipinitialspace

    return Sniffed, True


def read_table(doc: Document, ctx=None) -> Table:
    """Every row of a delimited document, the first non-blank one taken as the header."""
    dialect, sniffed = sniff(doc)
    text, starts = doc.text, doc.line_starts
    n_lines = doc.line_count
    pulled = 0

    def lines():
        nonlocal pulled
        while pulled < n_lines:
            pulled += 1
            chunk = text[starts[pulled - 1] : doc.line_start(pulled + 1)]
            yield chunk.lstrip("\ufeff") if pulled == 1 else chunk

    reader = csv.reader(lines(), dialect)
    header, rows = None, list[Row]()
    while True:
        first = pulled + 1
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise ChunkingError(f"{doc.path or doc.name}: line {pulled}: {exc}") from None
        if ctx is not None and len(rows) % 4096 == 0:
            ctx.check()
        if not fields:
            continue
        row = Row(starts[first - 1], doc.line_start(pulled + 1), first, tuple(fields))
        if header is None:
            header = row
        else:
            rows.append(row)
    return Table(dialect.delimiter, dialect.quotechar or '"', header, rows, sniffed)


def shape_warnings(table: Table, doc: Document) -> list[str]:
    """Why the rows may not be a table at all, for data and data-rows alike, each naming the file.

    Not an error: a one-column list is a valid CSV, and so is a row that leaves out its
    trailing empty fields (distro-info's debian.csv: releases without end-of-life dates
    yet). But a file where no delimiter was found and most rows are one field, or whose
    rows have more fields than the header, is more likely prose or a log read as CSV.
    """
    if table.header is None:
        return []
    rows = [table.header, *table.rows]
    width = len(table.header.fields)
    single = sum(len(r.fields) == 1 for r in rows)
    longer = sum(len(r.fields) > width for r in table.rows)
    where = doc.path or doc.name
    out = []
    if not table.sniffed and table.delimiter != "\t" and single * 2 > len(rows):
        out.append(
            f"{where}: does not look like CSV/TSV: no delimiter found and {single} of {len(rows)} rows "
            "are a single field (read as one column)"
        )
    if longer * 10 > len(table.rows):  # more than one row in ten
        out.append(
            f"{where}: does not look like CSV/TSV: {longer} of {len(table.rows)} rows have more than the "
            f"header's {width} field{'s' if width != 1 else ''}"
        )
    return out
