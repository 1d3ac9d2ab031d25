"""Bridges from a tuned chunktui configuration into the pipelines people already run.

`chunktui.integrations.langchain.ChunktuiSplitter` (a LangChain TextSplitter) and
`chunktui.integrations.llamaindex.ChunktuiNodeParser` (a LlamaIndex NodeParser) chunk with
the engine and give every piece its exact offsets from the chunk's span, never from a search
for its text. Each needs its framework (the `langchain` or `llamaindex` extra); importing this
package needs neither.
"""
