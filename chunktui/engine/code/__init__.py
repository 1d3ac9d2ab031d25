"""Code chunking on tree-sitter syntax trees: languages, parsing, entities, scopes, chunker."""

from .languages import LANGUAGE_NAMES, UnsupportedLanguageError, detect_language

__all__ = ["LANGUAGE_NAMES", "UnsupportedLanguageError", "detect_language"]
