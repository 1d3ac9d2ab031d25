"""chunktui: see, tune and export how documents are chunked."""

__version__ = "0.1.0"
