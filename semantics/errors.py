"""The one error hierarchy of ceplab (DESIGN.md section 3).

Every error ceplab raises on purpose is a :class:`CeplabError`; the CLI maps each class to its exit
code and message in one place (:data:`EXIT_CODES`, :func:`exit_code`) and never shows a traceback
for one of them::

    CeplabError
    ├── InputError            bad user input; names file, line and column         exit 2
    │   ├── ParseError        query text that does not parse or is not well-formed
    │   ├── StreamError       a malformed stream file
    │   └── UnsupportedError  a well-formed query outside what an evaluator supports
    │       └── ModelError    the oracle's program has no unique model for this input
    ├── OracleError           an oracle failed unexpectedly (a bug, not a limit)   exit 4
    └── PeerError             an external peer engine failed or is absent           exit 2

A check that could not finish within its limits is *not* an error: the oracle returns
``asp.oracle.Undecided`` and the CLI exits 3. Nor is an engine that overruns its per-case limit
(``--engine-time``, ``--engine-memory``): that is a finding, the verdict ``engine_limit``, and
``ceplab compare`` exits 5 (``workbench.compare.EXIT_CODES`` has the verdicts' codes).
"""
from __future__ import annotations


class CeplabError(Exception):
    """Base class of every error ceplab raises on purpose.

    Args:
        message: what is wrong, in one sentence.
    """

    def __init__(self, message: str = "", *args: object) -> None:
        self.message = message
        super().__init__(message, *args)

    def __str__(self) -> str:
        return self.message


class InputError(CeplabError):
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
        Exception.__init__(self, str(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"

    def located(self, file: str) -> "InputError":
        """This error with ``file`` as its file when it was raised on text given directly
        (``<string>``): how the CLI names the query file in errors raised on a parsed query."""
        if self.file != "<string>":
            return self
        e = type(self).__new__(type(self))
        e.__dict__.update(self.__dict__)
        e.file = file
        Exception.__init__(e, str(e))
        return e


class ParseError(InputError):
    """Query text that does not parse or is not well-formed (line and column of the culprit)."""


class StreamError(InputError):
    """A stream file that is malformed: bad JSON/CSV/TriG, missing or non-integer time, time going
    backwards, ``attrs`` not an object, ..."""


class UnsupportedError(InputError):
    """A well-formed query (or switch combination) outside what an evaluator supports; the message
    says which evaluator and which construct. The only such class in ceplab: the oracles, the
    engines and the workbench all raise this one."""


class ModelError(UnsupportedError):
    """The oracle's program has no answer set or more than one for this input (the language's
    minimal/stable-model semantics gives no unique answer).

    Attributes:
        count: 0 (no model), or 2 (meaning: at least two).
        rules: the rules (text) blamed, when the oracle can tell.
    """

    def __init__(self, message: str, count: int = 0, rules: tuple[str, ...] | list[str] = (),
                 file: str | None = None, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message, file, line, column)
        self.count = count
        self.rules = tuple(rules)


class OracleError(CeplabError):
    """An unexpected failure inside an oracle call (a bug in ceplab, not a limit and not the
    input's fault)."""


class PeerError(CeplabError):
    """An external peer engine (the real ETALIS, OpenCEP, ...) failed, timed out, or is absent.

    Attributes:
        stderr: the tail of the peer's standard error (may be empty).
    """

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message + (f"\n--- peer stderr (tail) ---\n{stderr[-2000:]}" if stderr else ""))
        self.stderr = stderr


#: CLI exit code per error class; the most specific class listed wins (see :func:`exit_code`).
EXIT_CODES: dict[type, int] = {
    InputError: 2,
    PeerError: 2,
    OracleError: 4,
    CeplabError: 2,
}


def exit_code(e: CeplabError) -> int:
    """The CLI exit code of ``e``: that of the nearest class in its MRO listed in :data:`EXIT_CODES`."""
    for cls in type(e).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return 2
