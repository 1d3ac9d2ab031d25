"""`chunk_bag`: a Dask Bag of texts chunked on the cluster into a Bag of chunk rows.

    import dask.bag as db
    from chunktui.integrations.dask import chunk_bag

    texts = db.from_sequence([("guide.md", guide), ("notes.md", notes)], npartitions=2)
    rows = chunk_bag(texts, "profile.yaml")          # or chunk_bag(texts, strategy="lines", size=40)
    rows.to_dataframe().to_parquet("chunks/")       # with pandas: the columns of `--format parquet`

Each row is a dict of the `--format parquet` / chunks.db columns (`chunk_rows.CHUNK_COLUMNS`),
made by the same engine code as `chunktui chunk`. A Bag (not a DataFrame) because it needs no
pandas, and a DataFrame is one `to_dataframe()` away. Needs the `dask` extra.
"""

from __future__ import annotations

import os
from typing import Any

import chunktui
from chunktui.formats.chunk_rows import CHUNK_COLUMNS, chunk_rows
from chunktui.integrations._metadata import named_document

COLUMNS = tuple(name for name, _ in CHUNK_COLUMNS)


def chunk_bag(
    bag,
    profile: str | os.PathLike | None = None,
    *,
    strategy: str = "auto",
    tokenizer: str | None = None,
    context_header: str = "none",
    **params: Any,
):
    """The Bag of chunk rows of a Bag of texts, each a `str` or a `(name, text)` pair (the name,
    a file name, lets `auto` pick the strategy by the file's kind and fills the `source` column).
    The configuration is a saved profile's, else `strategy`, `tokenizer` and the strategy's
    parameters; it is checked here, before anything runs on the cluster."""
    if profile is not None:
        from chunktui.formats.profiles import load_profile

        saved = load_profile(profile)
        strategy, tokenizer, context_header, params = (
            saved.strategy,
            saved.tokenizer,
            saved.context_header,
            saved.params,
        )
    chunker = chunktui.Chunker(strategy, tokenizer=tokenizer, context_header=context_header, **params)
    config = (chunker.strategy, chunker.tokenizer, chunker.context_header, chunker.params)
    return bag.map_partitions(_chunk_partition, config)


def _chunk_partition(items, config) -> list[dict]:
    """On a worker: every text of one partition chunked, its rows in order."""
    strategy, tokenizer, context_header, params = config
    chunker = chunktui.Chunker(strategy, tokenizer=tokenizer, context_header=context_header, **params)
    rows: list[dict] = []
    for item in items:
        name, text = item if isinstance(item, tuple) else (None, item)
        chunkset = chunker.chunk(named_document(text, name))
        rows.extend(dict(zip(COLUMNS, row)) for row in chunk_rows(chunkset))
    return rows
