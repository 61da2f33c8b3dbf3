"""Errors for bad user input: every one names the file, line and column it is about.

The CLI prints ``str(err)`` and exits 2; no traceback is ever shown for these.
"""
from __future__ import annotations


class InputError(Exception):
    """Base class of user-input errors.

    Args:
        message: what is wrong, in one sentence.
        file: the file name (``"<string>"`` for text given directly).
        line: 1-based line number, or None when the error is about the whole file.
        column: 1-based column number, or None.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message = message
        self.file = file or "<string>"
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class ParseError(InputError):
    """Query text that does not parse or is not well-formed (line and column of the culprit)."""


class StreamError(InputError):
    """A stream file that is malformed: bad JSON/CSV, missing or non-integer time, time going
    backwards, ``attrs`` not an object, ..."""


class UnsupportedError(InputError):
    """A well-formed query outside what an evaluator supports (the message says which path)."""
