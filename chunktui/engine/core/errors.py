"""Errors the engine raises; the CLI turns each into a one-line message and exit code 2."""


class ChunktuiError(Exception):
    """Base of every error caused by bad input rather than a bug."""


class DocumentError(ChunktuiError):
    """A file cannot be read as a document (missing, binary, undecodable)."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class PasswordError(DocumentError):
    """An encrypted file read without its password, or with a wrong one: unlike other unreadable
    sources, a review must say so rather than call the source changed."""


class ParamError(ChunktuiError):
    """A strategy parameter is missing, of the wrong type or out of range."""

    def __init__(self, name: str, problem: str, python_problem: str | None = None):
        self.name = name
        self.problem = problem
        # the problem as a Python caller is told it, when it names other flags (`pass --size`)
        self.python_problem = python_problem
        super().__init__(f"--{name.replace('_', '-')}: {problem}")

    def for_python(self, given: dict) -> "ParamError":
        """The same error worded for a Python caller: the keyword, not the command-line flag, and a
        value the caller never passed named as the default it is (`size=100` vs overlap's 200)."""
        problem = self.python_problem or self.problem
        worded = ParamError(self.name, problem)
        note = "" if self.name in given else f" (its default; pass {self.name}= too)"
        worded.args = (f"{self.name}: {problem}{note}",)
        return worded


class UnknownStrategyError(ChunktuiError):
    def __init__(self, name: str, known):
        self.name = name
        super().__init__(f"unknown strategy {name!r} (known: {', '.join(sorted(known))})")


class ChunkingError(ChunktuiError):
    """A strategy could not chunk this document (malformed input it must parse)."""


class Cancelled(Exception):
    """Raised inside a strategy when the caller no longer wants the result."""
