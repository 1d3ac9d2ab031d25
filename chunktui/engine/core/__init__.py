"""The engine's core: the chunk model, token counting and its index, errors, statistics and the
per-document cache. It imports no other part of the engine (checked by the import contracts in
pyproject.toml), so every other part can build on it."""
