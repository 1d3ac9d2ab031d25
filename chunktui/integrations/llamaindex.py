"""`ChunktuiNodeParser`: a LlamaIndex NodeParser that chunks with a chunktui configuration.

    from chunktui.integrations.llamaindex import ChunktuiNodeParser

    parser = ChunktuiNodeParser.from_profile("profile.yaml")        # what the app saved
    parser = ChunktuiNodeParser("markdown", max_chars=1200)
    nodes = parser.get_nodes_from_documents(documents)

Each node's `start_char_idx` and `end_char_idx` are the chunk's span in its document's text,
with PREVIOUS/NEXT relationships between the nodes of one document. LlamaIndex's own parsers
leave the offsets to `NodeParser._postprocess_parsed_nodes`, which finds each node's text with
`str.find` after the previous node's start: on overlapping chunks of repeated text it finds an
earlier copy. The chunk metadata (`chunk_metadata`) is kept out of the text LlamaIndex embeds
and puts in prompts. Needs the `llamaindex` extra (llama-index-core).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from llama_index.core.node_parser import NodeParser
from llama_index.core.node_parser.node_utils import build_nodes_from_splits
from llama_index.core.schema import BaseNode, MetadataMode, TextNode
from pydantic import PrivateAttr

import chunktui
from chunktui.integrations._metadata import chunk_metadata, named_document


class ChunktuiNodeParser(NodeParser):
    """Parses with `chunktui.Chunker(strategy, tokenizer=..., **params)`: the same strategies,
    parameters and checks as `chunktui chunk`."""

    _chunker: Any = PrivateAttr()

    def __init__(self, strategy: str = "auto", *, tokenizer: str | None = None, **params: Any) -> None:
        fields = {k: params.pop(k) for k in list(params) if k in NodeParser.model_fields}
        super().__init__(**fields)
        self._chunker = chunktui.Chunker(strategy, tokenizer=tokenizer, **params)

    @classmethod
    def from_profile(cls, path: str | os.PathLike, **fields: Any) -> ChunktuiNodeParser:
        """The parser of a profile saved by the app (ctrl+s);
        `fields` are NodeParser's own (include_metadata, include_prev_next_rel, ...)."""
        from chunktui.formats.profiles import load_profile

        profile = load_profile(path)
        return cls(
            profile.strategy,
            tokenizer=profile.tokenizer,
            context_header=profile.context_header,
            **profile.params,
            **fields,
        )

    @property
    def chunker(self) -> chunktui.Chunker:
        return self._chunker

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        parsed: list[BaseNode] = []
        for node in nodes:
            name = node.metadata.get("file_path") or node.metadata.get("file_name")
            chunkset = self._chunker.chunk(named_document(node.get_content(metadata_mode=MetadataMode.NONE), name))
            pieces = build_nodes_from_splits([c.text for c in chunkset.chunks], node, id_func=self.id_func)
            for piece, c in zip(pieces, chunkset.chunks, strict=True):
                meta = chunk_metadata(c, chunkset)
                piece.start_char_idx, piece.end_char_idx = c.start, c.end
                piece.metadata = meta
                piece.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys, *meta]
                piece.excluded_llm_metadata_keys = [*node.excluded_llm_metadata_keys, *meta]
            parsed.extend(pieces)
        return parsed

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict) -> list[BaseNode]:
        """NodeParser's (source and PREVIOUS/NEXT relationships, the document's metadata) with
        each node's exact span put back over the offsets it finds with `str.find`."""
        spans = [(n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, spans):
            if isinstance(node, TextNode) and span is not None:  # every node _parse_nodes makes is one
                node.start_char_idx, node.end_char_idx = span
        return nodes
