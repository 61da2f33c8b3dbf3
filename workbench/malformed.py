"""Malformed-input campaigns: ``ceplab fuzz LANG --malformed`` (robustness; issue 15, item 5).

Every mutant is a function of ``(language, seed, case id)`` alone (:func:`draw_case`):

1. a *base case*: one of the language's bundled real-data cases (``Language.real_cases``; its stream cut to a
   random slice of at most :data:`MAX_EVENTS` events with ``Language.drop_events``) or, for about a third of the
   cases, a case of the language's random generator (``Language.random_case``, its stream cut to its first
   :data:`MAX_EVENTS` events);
2. its files: the query text; the stream written in one of the language's stream file formats
   (``Language.stream_formats``, :class:`ceplab.workbench.language.StreamFormat`; default the JSON Lines form of
   ``stream_to_json``); for about a third of the cases one of the language's bundled static graphs
   (``Language.bundled_graphs``), passed as ``--NAME FILE``;
3. one or two mutations of one of those files: text mutations (:data:`TEXT_OPS`: character and token
   deletions, insertions and duplications, truncation, non-ASCII names, huge numbers) of a query or graph or
   stream file, or stream-level mutations (:data:`STREAM_OPS`: out-of-order, duplicate and huge time stamps,
   found with the format's ``time_pattern``; truncated, dropped, duplicated and swapped lines).

:func:`run_mutant` writes the mutant's files to a temporary folder and runs them through the CLI's own entry
point in this process (``ceplab compare LANG QUERY STREAM [--NAME GRAPH] --json``: the Typer app, ``SystemExit``
caught, stdout and stderr captured), under a per-case wall-clock and memory limit that the campaign's engine
limit machinery enforces (:func:`ceplab.workbench.limits.call_limited`: an in-process timer and address-space
cap on the Spark executors). The CLI's own engine limit is switched off (``--engine-time 0``) so that the one
limit covers parsing, the oracle and the engine; the oracle keeps its own time limit (``--timeout``). Each
mutant ends in one class (:data:`CLASSES`):

* ``ok``: exit 0 (oracle and engine agree);
* ``clean_error``: exit 2 with a message naming one of the mutant's files (``file:line:column`` or ``file``);
* ``undecided``: exit 3 (the oracle could not decide within its limits);
* ``traceback``: an uncaught exception, "Traceback" in the output, or an exit code outside 0/1/2/3/5;
* ``hang``: the per-case limit was exceeded (or the CLI reported an engine limit, exit 5);
* ``disagreement``: exit 1 on a mutant that parsed (oracle and engine differ);
* ``unlocated``: exit 2 with a message that names none of the mutant's files.

The last four are *findings* (:data:`FINDINGS`): each is saved as a reproducer, a folder
``OUT/<lang>/malformed/case-<id>-<class>/`` with the mutated files and ``case.json`` (the command that
replays it, the class, the exit code, stderr and the traceback). The campaign runs on Spark
(``spark.range`` + ``mapInPandas``, in waves like :func:`ceplab.workbench.spark.fuzz`, resumable), writes
``results.parquet`` and ``summary.json`` in ``OUT/<lang>/malformed/``, and counts the classes on the
progress bar. This module names no language: what it knows of a language's files comes from its
``Language`` members.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import random
import re
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

# ----------------------------------------------------------------------------- text mutations
#: Characters :func:`mutate` inserts (brackets, punctuation, quotes, operators, space, newline, letters, digits,
#: a non-ASCII letter).
DEFAULT_INSERTS = list("{}()[]<>.;,:\"'\\#@?!+*/&|^=_ aZ09\né")

#: Numbers a ``huge-number`` / ``huge-time`` mutation writes (decimal text): beyond 64 bits, at the 64-bit
#: edges, negative, zero, floating-point extremes.
HUGE_NUMBERS = ("99999999999999999999999999999999999999", "9223372036854775808", "-9223372036854775809",
                "18446744073709551616", "4294967296", "-1", "0", "1e308", "-0", "1" + "0" * 400)

#: Text a ``non-ascii-name`` mutation puts into a name: accented and non-Latin letters, a combining mark, a
#: zero-width space, an emoji, a right-to-left mark.
NON_ASCII = ("é", "名前", "Ω", "ß", "\u0301", "\u200b", "🙂", "\u200f", "Ж")

#: Mutations of any text file (query, graph, stream).
TEXT_OPS = ("char-delete", "char-insert", "char-duplicate", "token-delete", "token-insert", "token-duplicate",
            "truncate", "non-ascii-name", "huge-number")

#: Mutations of a stream file only (they use the format's time-stamp pattern, or its lines).
STREAM_OPS = ("out-of-order-time", "duplicate-time", "huge-time", "truncate-line", "drop-line", "duplicate-line",
              "swap-lines")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"\d+")


def mutate(text: str, op: int, tokens: bool, rng: random.Random, inserts: Sequence[str] = DEFAULT_INSERTS) -> str:
    """``text`` with one character (``tokens`` false) or whitespace-separated token deleted (``op`` 0), inserted
    (1: a character from ``inserts``, or a copy of another token) or duplicated (2: a run of 1-9 characters, or
    the token). An empty ``text`` (no tokens) gets a character inserted."""
    if not tokens or not text.split():
        k = rng.randrange(len(text) + 1)
        if op == 0:
            return text[:k] + text[k + 1:]
        if op == 1:
            return text[:k] + rng.choice(list(inserts)) + text[k:]
        j = min(len(text), k + rng.randrange(1, 10))
        return text[:j] + text[k:j] + text[j:]
    toks = [t for t in text.replace("\n", " \n ").split(" ") if t]
    k = rng.randrange(len(toks))
    if op == 0:
        del toks[k]
    elif op == 1:
        toks.insert(k, rng.choice(toks))
    else:
        toks.insert(k, toks[k])
    return " ".join(toks).replace(" \n ", "\n")


def _replace_match(text: str, pattern: re.Pattern, rng: random.Random, new: Any) -> str:
    """``text`` with one random match of ``pattern`` (group 0) replaced by ``new(old)``; unchanged if none."""
    ms = list(pattern.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    return text[:m.start()] + new(m.group(0)) + text[m.end():]


def text_op(op: str, text: str, rng: random.Random) -> str:
    """``text`` with the mutation ``op`` (one of :data:`TEXT_OPS`) applied at a random place.

    Raises:
        ValueError: an unknown ``op``.
    """
    kinds = {"delete": 0, "insert": 1, "duplicate": 2}
    unit, _, kind = op.partition("-")
    if unit in ("char", "token") and kind in kinds:
        return mutate(text, kinds[kind], unit == "token", rng)
    if op == "truncate":
        return text[:rng.randrange(len(text) + 1)]
    if op == "non-ascii-name":
        ch = rng.choice(NON_ASCII)
        return _replace_match(text, _NAME, rng, lambda s: (lambda k: s[:k] + ch + s[k:])(rng.randrange(len(s) + 1)))
    if op == "huge-number":
        return _replace_match(text, _NUMBER, rng, lambda s: rng.choice(HUGE_NUMBERS))
    raise ValueError(f"unknown text mutation {op!r}; known: {', '.join(TEXT_OPS)}")


def stream_op(op: str, text: str, time_pattern: str, rng: random.Random) -> str:
    """``text`` (a stream file) with the stream-level mutation ``op`` (one of :data:`STREAM_OPS`).

    Time-stamp mutations rewrite group 1 of matches of ``time_pattern`` (``re.MULTILINE``; one per event):
    ``out-of-order-time`` swaps two different time stamps (or, if all are equal, makes one larger than the
    next), ``duplicate-time`` copies one event's time stamp onto another, ``huge-time`` replaces one by a number
    of :data:`HUGE_NUMBERS`. A text without time stamps gets a line mutation instead. Line mutations cut one
    non-empty line at a random column, drop it, duplicate it, or swap two lines.

    Raises:
        ValueError: an unknown ``op``.
    """
    if op not in STREAM_OPS:
        raise ValueError(f"unknown stream mutation {op!r}; known: {', '.join(STREAM_OPS)}")
    ms = list(re.finditer(time_pattern, text, re.MULTILINE))
    if op.endswith("-time") and ms:
        edits: dict[int, str] = {}
        i = rng.randrange(len(ms))
        if op == "huge-time":
            edits[i] = rng.choice(HUGE_NUMBERS)
        elif op == "duplicate-time":
            j = rng.randrange(len(ms))
            edits[i] = ms[j].group(1) if j != i or len(ms) == 1 else ms[(i + 1) % len(ms)].group(1)
        else:
            pairs = [(a, b) for a in range(len(ms)) for b in range(a + 1, len(ms))
                     if ms[a].group(1) != ms[b].group(1)]
            if pairs:
                a, b = rng.choice(pairs)
                edits[a], edits[b] = ms[b].group(1), ms[a].group(1)
            else:
                a = min(i, len(ms) - 2) if len(ms) > 1 else 0
                try:
                    edits[a] = str(int(ms[a].group(1)) + 1 + rng.randrange(5))
                except ValueError:
                    edits[a] = "1"
        out = text
        for k in sorted(edits, reverse=True):
            m = ms[k]
            out = out[:m.start(1)] + edits[k] + out[m.end(1):]
        return out
    lines = text.split("\n")
    full = [k for k, ln in enumerate(lines) if ln.strip()]
    if not full:
        return text_op("char-insert", text, rng)
    k = rng.choice(full)
    if op in ("truncate-line",) or op.endswith("-time"):
        lines[k] = lines[k][:rng.randrange(len(lines[k]))]
    elif op == "drop-line":
        del lines[k]
    elif op == "duplicate-line":
        lines.insert(k, lines[k])
    else:
        j = rng.choice(full)
        lines[k], lines[j] = lines[j], lines[k]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- cases
#: At most this many events of a bundled stream go into a mutant (a random slice).
MAX_EVENTS = 12

#: Share of the mutants whose base case comes from the language's random generator (when it has one).
P_RANDOM_BASE = 0.35

#: Share of the mutants that pass one of the language's bundled graphs (when it has any).
P_GRAPH = 0.35

#: Hidden faults for the tests of the campaign itself: ``traceback`` makes the language's ``parse_file`` (the
#: first thing ``ceplab compare`` calls on a mutant) raise an uncaught ``RuntimeError``, ``hang`` makes it sleep
#: past any limit.
FAULTS = ("traceback", "hang")

#: Every class a mutant can end in (see the module docstring), and those that are findings.
CLASSES = ("ok", "clean_error", "undecided", "traceback", "hang", "disagreement", "unlocated")
FINDINGS = ("traceback", "hang", "disagreement", "unlocated")


@dataclass
class MalformedCase:
    """One mutant: its files and how they were made.

    Attributes:
        case_id: the case id; ``base``: the base case's name (``random`` for a generator case).
        query: the query text; ``stream``: the stream file's text, written with suffix ``suffix``.
        graphs: ``[(input name, file name, text)]``: graphs passed as ``--NAME FILE``.
        target: the file mutated: ``query``, ``stream`` or ``graph``.
        ops: the mutations applied, in order.
    """

    case_id: int
    base: str
    query: str
    stream: str
    suffix: str
    graphs: list[tuple[str, str, str]] = field(default_factory=list)
    target: str = "query"
    ops: list[str] = field(default_factory=list)

    def files(self) -> dict[str, str]:
        """``{file name: text}`` of the mutant's files."""
        out = {"query.query": self.query, f"stream{self.suffix}": self.stream}
        for _name, fname, text in self.graphs:
            out[fname] = text
        return out

    def args(self, lang: str, folder: Path | str, oracle_s: float) -> list[str]:
        """The ``ceplab`` arguments that run the mutant's files in ``folder``."""
        d = Path(folder)
        out = ["compare", lang, str(d / "query.query"), str(d / f"stream{self.suffix}")]
        for name, fname, _text in self.graphs:
            out += [f"--{name}", str(d / fname)]
        return out + ["--json", "--engine-time", "0", "--engine-memory", "0", "--timeout", f"{oracle_s:g}"]


def case_rng(seed: int, lang: str, case_id: int) -> random.Random:
    """The generator of mutant ``case_id`` (depends only on seed, language and id)."""
    return random.Random(f"ceplab:malformed:{lang}:{seed}:{case_id}")


def _generic_jsonl(lang: Any) -> Any:
    from ceplab.workbench.language import StreamFormat

    def dumps(stream: Any) -> str:
        return "".join(json.dumps(x, sort_keys=True) + "\n" for x in lang.stream_to_json(stream))

    return StreamFormat(".jsonl", dumps, r'": (-?\d+)[,}]')


def stream_formats(lang: Any) -> tuple:
    """The language's :class:`StreamFormat` s, or the JSON Lines form of its ``stream_to_json`` (any integer
    field counts as a time stamp) when it declares none."""
    return tuple(lang.stream_formats) or (_generic_jsonl(lang),)


@functools.lru_cache(maxsize=None)
def _bases(lang_name: str) -> tuple:
    from ceplab.workbench import language

    return tuple(language.get(lang_name).real_cases())


def draw_case(lang: Any, seed: int, case_id: int) -> MalformedCase:
    """Mutant ``case_id`` of ``lang``'s campaign with ``seed`` (see the module docstring).

    Raises:
        ValueError: the language has neither bundled real-data cases nor a random generator.
    """
    rng = case_rng(seed, lang.name, case_id)
    bases = _bases(lang.name)
    if lang.random_case is not None and (not bases or rng.random() < P_RANDOM_BASE):
        qtext, stream, _options = lang.random_case(rng, rng.randint(1, 8))
        if len(stream) > MAX_EVENTS:    # a generator may draw long streams on purpose (window expiry); a mutated
            # window on one of them (a huge WITHIN) makes an exponential but legitimate computation, not a hang
            stream = lang.drop_events(stream, range(MAX_EVENTS, len(stream)))
        base = "random"
    elif bases:
        base, qtext, full = bases[rng.randrange(len(bases))]
        k = rng.randint(1, MAX_EVENTS)
        lo = rng.randrange(max(1, len(full) - k + 1))
        stream = lang.drop_events(full, [i for i in range(len(full)) if not lo <= i < lo + k])
    else:
        raise ValueError(f"language {lang.name!r} has no real-data cases and no random generator to mutate")
    fmt = rng.choice(stream_formats(lang))
    case = MalformedCase(case_id, base, qtext, fmt.dumps(stream), fmt.suffix)
    if lang.bundled_graphs and rng.random() < P_GRAPH:
        name, path = lang.bundled_graphs[rng.randrange(len(lang.bundled_graphs))]
        case.graphs.append((name, f"graph-{name}{Path(path).suffix}", Path(path).read_text(encoding="utf-8")))
    targets = ["query", "stream"] + (["graph"] if case.graphs else [])
    case.target = rng.choice(targets)
    for _ in range(rng.choice((1, 1, 2))):
        if case.target == "stream" and rng.random() < 0.6:
            op = rng.choice(STREAM_OPS)
            case.stream = stream_op(op, case.stream, fmt.time_pattern, rng)
        else:
            op = rng.choice(TEXT_OPS)
            if case.target == "query":
                case.query = text_op(op, case.query, rng)
            elif case.target == "stream":
                case.stream = text_op(op, case.stream, rng)
            else:
                name, fname, text = case.graphs[0]
                case.graphs[0] = (name, fname, text_op(op, text, rng))
        case.ops.append(op)
    return case


# ----------------------------------------------------------------------------- one mutant through the CLI
#: The console script :func:`run_cli` runs (``[project.scripts]``): found through the package metadata, so that
#: this module does not import the CLI module, which imports it.
SCRIPT = "ceplab"


@functools.lru_cache(maxsize=1)
def cli_entry_point() -> Any:
    """The function of the ``ceplab`` console script (``main(argv)``, :func:`ceplab.workbench.cli.main`).

    Raises:
        LookupError: ceplab is not installed (no ``ceplab`` console script in the package metadata).
    """
    import importlib.metadata

    eps = list(importlib.metadata.entry_points(group="console_scripts", name=SCRIPT))
    if not eps:
        raise LookupError(f"no {SCRIPT!r} console script: install ceplab (pip install -e .)")
    return eps[0].load()


def run_cli(args: list[str]) -> tuple[int | None, str, str, str | None]:
    """Run ``ceplab ARGS`` in this process through the console script's own function (:func:`cli_entry_point`:
    the Typer app, as ``ceplab`` runs it).

    Returns:
        ``(exit code, stdout, stderr, traceback)``: the exit code is None and ``traceback`` the formatted
        traceback when the command raised an uncaught exception (``Exception``); else ``traceback`` is None.
        ``BaseException`` s that are not ``SystemExit`` (``EngineLimitExceeded``, ``KeyboardInterrupt``)
        propagate.
    """
    main = cli_entry_point()
    out, err = io.StringIO(), io.StringIO()
    code: int | None = 0
    tb = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Exception:  # noqa: BLE001 - what the campaign looks for
            code, tb = None, traceback.format_exc()
    return code, out.getvalue(), err.getvalue(), tb


_LOCATED = r":\d+:\d+"


def classify(code: int | None, stdout: str, stderr: str, tb: str | None, paths: Iterable[str]) -> tuple[str, str]:
    """``(class, where)`` of one CLI run on a mutant's files (``paths``; see :data:`CLASSES`); ``where`` is
    ``line:column``, ``line``, ``file`` or ``""``: how precisely a ``clean_error`` names its place."""
    if tb is not None or "Traceback (most recent call last)" in stderr + stdout:
        return "traceback", ""
    if code == 0:
        return "ok", ""
    if code == 3:
        return "undecided", ""
    if code == 5:
        return "hang", ""
    if code == 1:
        return "disagreement", ""
    if code == 2:
        for p in paths:
            if re.search(re.escape(p) + _LOCATED, stderr):
                return "clean_error", "line:column"
        for p in paths:
            if re.search(re.escape(p) + r":\d+", stderr):
                return "clean_error", "line"
        if any(p in stderr for p in paths):
            return "clean_error", "file"
        return "unlocated", ""
    return "traceback", ""


@contextlib.contextmanager
def _fault(lang: Any, fault: str | None) -> Iterator[None]:
    """Register a copy of ``lang`` whose ``parse_file`` misbehaves (:data:`FAULTS`) for the ``with`` body."""
    if not fault:
        yield
        return
    from ceplab.workbench import language

    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")

    def bad(path: Any) -> Any:
        if fault == "hang":
            while True:
                time.sleep(0.05)
        raise RuntimeError(f"injected fault: parse_file crashed on {path}")

    language.add(dataclasses.replace(lang, parse_file=bad))
    try:
        yield
    finally:
        language.remove(lang.name)


def run_mutant(lang_name: str, seed: int, case_id: int, time_s: float | None = 10.0,
               memory_mb: int | None = 2048, oracle_s: float = 5.0, fault: str | None = None) -> dict:
    """Draw mutant ``case_id`` (:func:`draw_case`), write its files to a temporary folder and run ``ceplab
    compare`` on them in this process under the per-case limit (``time_s`` wall-clock seconds, ``memory_mb``
    MiB; None: none) and the oracle limit ``oracle_s`` seconds.

    Returns:
        A JSON-able row: ``case_id, class, where, exit_code, seconds, base, target, ops, format, message`` (the
        first line of stderr, at most 300 characters); for a finding also ``files`` (``{name: text}``),
        ``args`` (with the files as bare names), ``stdout``, ``stderr`` and ``traceback``.
    """
    from ceplab.workbench import language
    from ceplab.workbench.limits import EngineLimitExceeded, EngineLimits, call_limited

    lang = language.get(lang_name)
    case = draw_case(lang, seed, case_id)
    row: dict[str, Any] = {"case_id": case_id, "base": case.base, "target": case.target, "ops": case.ops,
                           "format": case.suffix}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ceplab-malformed-") as d:
        for name, text in case.files().items():
            Path(d, name).write_text(text, encoding="utf-8")
        args = case.args(lang_name, d, oracle_s)
        limits = EngineLimits(time_s=time_s, memory_mb=memory_mb)
        try:
            with _fault(lang, fault):
                code, out, err, tb = call_limited(run_cli, args, limits=limits)
            cls, where = classify(code, out, err, tb, [str(Path(d, n)) for n in case.files()])
        except EngineLimitExceeded as e:
            code, out, err, tb = None, "", f"per-case limit: {e.reason}", None
            cls, where = "hang", ""
        row.update({"class": cls, "where": where, "exit_code": code, "seconds": time.perf_counter() - t0,
                    "message": (err.strip().split("\n", 1)[0] if err.strip() else "")[:300].replace(d + "/", "")})
        if cls in FINDINGS:
            row.update(files=case.files(), args=[a.replace(d + "/", "") for a in args],
                       stdout=out[-4000:].replace(d + "/", ""), stderr=err[-4000:].replace(d + "/", ""),
                       traceback=tb[-6000:].replace(d + "/", "") if tb else None)
    return row


# ----------------------------------------------------------------------------- the campaign
@dataclass
class MalformedSummary:
    """Counts of one language's malformed-input campaign (``summary.json``)."""

    lang: str
    cases: int = 0
    ok: int = 0
    clean_error: int = 0
    undecided: int = 0
    traceback: int = 0
    hang: int = 0
    disagreement: int = 0
    unlocated: int = 0
    located: dict = field(default_factory=dict)
    by_target: dict = field(default_factory=dict)
    by_op: dict = field(default_factory=dict)
    seconds: float = 0.0
    seed: int = 0
    time_s: float | None = None
    memory_mb: int | None = None
    oracle_s: float = 0.0
    master: str = ""
    cores: int = 0
    out: str = ""
    reproducers: list[str] = field(default_factory=list)
    complete: bool = False
    rows: list[dict] = field(default_factory=list, repr=False)

    @property
    def findings(self) -> int:
        """Tracebacks, hangs, disagreements and unlocated errors: what makes the campaign fail."""
        return sum(getattr(self, k) for k in FINDINGS)

    @property
    def per_minute(self) -> float:
        """Mutants per minute (wall clock of the Spark jobs)."""
        return 60.0 * self.cases / self.seconds if self.seconds > 0 else 0.0

    def count(self, rows: list[dict]) -> None:
        """Fill the counts from the campaign's rows (sorted by case id)."""
        rows.sort(key=lambda r: r["case_id"])
        self.rows = rows
        self.cases = len(rows)
        for r in rows:
            setattr(self, r["class"], getattr(self, r["class"]) + 1)
            if r["class"] == "clean_error":
                self.located[r["where"]] = self.located.get(r["where"], 0) + 1
            t = self.by_target.setdefault(r["target"], {})
            t[r["class"]] = t.get(r["class"], 0) + 1
            for op in r["ops"]:
                o = self.by_op.setdefault(op, {})
                o[r["class"]] = o.get(r["class"], 0) + 1

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        del d["rows"]
        d["seconds"] = round(self.seconds, 3)
        d["per_minute"] = round(self.per_minute, 1)
        d["findings"] = self.findings
        return d

    def write(self) -> Path:
        """Write ``summary.json`` in the campaign folder."""
        p = Path(self.out) / "summary.json"
        p.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        return p


class _MutantRows:
    """``mapInPandas`` function: one JSON row (:func:`run_mutant`) per case id that arrives (column ``id``)."""

    def __init__(self, lang_name: str, seed: int, time_s: float | None, memory_mb: int | None, oracle_s: float,
                 fault: str | None) -> None:
        self.args = (lang_name, seed)
        self.kw = {"time_s": time_s, "memory_mb": memory_mb, "oracle_s": oracle_s, "fault": fault}

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd

        for pdf in batches:
            yield pd.DataFrame({"row": [json.dumps(run_mutant(*self.args, int(cid), **self.kw))
                                        for cid in pdf["id"]]})


def write_reproducer(row: dict, lang_name: str, seed: int, folder: Path) -> Path:
    """Write a finding's files and ``case.json`` (command, class, exit code, output, traceback) into
    ``folder/case-<id>-<class>/``; returns that folder."""
    d = folder / f"case-{row['case_id']:05d}-{row['class']}"
    d.mkdir(parents=True, exist_ok=True)
    for name, text in row["files"].items():
        (d / name).write_text(text, encoding="utf-8")
    args = [str(d / a) if a in row["files"] else a for a in row["args"]]
    case = {k: row.get(k) for k in ("case_id", "class", "exit_code", "base", "target", "ops", "format", "message",
                                     "stdout", "stderr", "traceback", "seconds")}
    case.update(lang=lang_name, seed=seed, command="ceplab " + " ".join(_quote(a) for a in args),
                regenerate=f"python -c \"from ceplab.workbench.malformed import run_mutant; "
                           f"print(run_mutant({lang_name!r}, {seed}, {row['case_id']}))\"")
    (d / "case.json").write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return d


def _quote(a: str) -> str:
    import shlex

    return shlex.quote(a)


def campaign(langs: Iterable[str], cases: int = 200, seed: int = 0, master: str = "local[*]",
             out: str | Path = "ceplab-out/fuzz", spark: Any = None, remote: str | None = None,
             progress: bool = True, time_s: float | None = 10.0, memory_mb: int | None = 2048,
             oracle_s: float | None = None, resume: bool = False, waves: int | None = None,
             fault: str | None = None, stop_after_waves: int | None = None,
             partitions: int | None = None) -> list[MalformedSummary]:
    """Run a malformed-input campaign per language (see the module docstring).

    Args:
        langs: registered language names; ``cases``: mutants per language; ``seed``: campaign seed.
        master / remote / spark: where to run (as :func:`ceplab.workbench.spark.fuzz`; a given ``spark`` is not
            stopped).
        out: output folder; ``out/<lang>/malformed/`` receives ``results.parquet``, ``summary.json``, the waves
            and the reproducers.
        time_s, memory_mb: the per-mutant limit (wall-clock seconds, MiB; None: none).
        oracle_s: the oracle's time limit per mutant (seconds; default half of ``time_s``, at most 20).
        resume: keep the waves an interrupted campaign with the same parameters finished.
        waves: Spark jobs per language (default: up to :data:`ceplab.workbench.spark.MAX_WAVES`).
        partitions: Spark tasks per language, split over the waves (default: about 20, at least 4 per core).
        fault: a hidden fault (:data:`FAULTS`), for the tests of the campaign itself.
        stop_after_waves: raise ``KeyboardInterrupt`` after this many waves (for the tests of ``resume``).

    Raises:
        ceplab.workbench.spark.ResumeError: ``resume`` on a folder written with other parameters.
        RuntimeError: Spark could not start.
    """
    from ceplab.workbench import spark as S

    if oracle_s is None:
        oracle_s = min(20.0, time_s / 2) if time_s else 20.0
    own = spark is None
    if own:
        spark = S.spark_session(master, remote=remote)
    sc = S.context(spark)
    par = S._parallelism(spark)
    summaries = []
    try:
        with S._progress(progress) as bar:
            for name in langs:
                summaries.append(_campaign(spark, sc, par, bar, name, cases, seed, Path(out), time_s, memory_mb,
                                           oracle_s, resume, waves, fault, stop_after_waves, partitions))
    finally:
        if own:
            spark.stop()
    return summaries


def _campaign(spark: Any, sc: Any, par: int, bar: Any, name: str, cases: int, seed: int, out: Path,
              time_s: float | None, memory_mb: int | None, oracle_s: float, resume: bool, waves: int | None,
              fault: str | None, stop_after_waves: int | None, partitions: int | None = None) -> MalformedSummary:
    import shutil

    from ceplab.workbench import spark as S

    folder = out / name / "malformed"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("case-*"):
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    (folder / "summary.json").unlink(missing_ok=True)
    n_waves = max(1, min(cases, waves)) if waves else min(S.MAX_WAVES, max(1, cases // (8 * par)))
    params = {"lang": name, "seed": seed, "cases": cases, "time_s": time_s, "memory_mb": memory_mb,
              "oracle_s": oracle_s, "fault": fault, "malformed": True}
    n_waves, done = S._wave_state(folder, params, n_waves, resume)
    summ = MalformedSummary(lang=name, seed=seed, time_s=time_s, memory_mb=memory_mb, oracle_s=oracle_s,
                            out=str(folder), master=S._master_name(spark), cores=par)
    slices = max(1, min(cases, partitions or max(4 * par, 20)))
    task = bar.add_task(f"malformed {name}", total=cases, rate="")
    rows: list[dict] = []
    tally: dict[str, int] = {}
    t0 = time.perf_counter()

    def show(k: int) -> None:
        el = time.perf_counter() - t0
        found = ", ".join(f"{tally[c]} {c.replace('_', ' ')}" for c in CLASSES if tally.get(c))
        bar.update(task, completed=k, rate=(f"{60 * k / el:.0f}/min" if k and el > 0 else "")
                   + (f"  {found}" if found else ""))

    ran = 0
    group = f"ceplab-malformed-{name}-{seed}-{time.time_ns()}"
    mapper = _MutantRows(name, seed, time_s, memory_mb, oracle_s, fault)
    for w in range(n_waves):
        lo, hi = cases * w // n_waves, cases * (w + 1) // n_waves
        if w in done:
            got = done[w]
        else:
            if stop_after_waves is not None and ran >= stop_after_waves:
                raise KeyboardInterrupt
            got = S.run_rows_job(spark, sc, f"{group}-{lo}", f"ceplab fuzz {name} --malformed: cases {lo}..{hi - 1}",
                                 lo, hi, max(1, min(hi - lo, slices // n_waves)), mapper,
                                 lambda k: show(len(rows) + k))
            S._save_wave(folder, w, got)
            ran += 1
        rows.extend(got)
        for r in got:
            tally[r["class"]] = tally.get(r["class"], 0) + 1
        show(len(rows))
    summ.seconds = time.perf_counter() - t0
    summ.count(rows)
    if rows:
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        pdf = pd.DataFrame({"case_id": [r["case_id"] for r in rows], "class": [r["class"] for r in rows],
                            "where": [r["where"] for r in rows],
                            "exit_code": [r["exit_code"] if r["exit_code"] is not None else -1 for r in rows],
                            "seconds": [float(r["seconds"]) for r in rows], "base": [r["base"] for r in rows],
                            "target": [r["target"] for r in rows], "ops": [",".join(r["ops"]) for r in rows],
                            "format": [r["format"] for r in rows], "message": [r["message"] for r in rows]})
        target = folder / "results.parquet"      # one file, written on the driver (no Spark job for a small table)
        if target.is_dir():
            shutil.rmtree(target)
        pq.write_table(pa.Table.from_pandas(pdf, preserve_index=False), target)
    summ.write()
    for r in rows:
        if r["class"] in FINDINGS:
            summ.reproducers.append(str(write_reproducer(r, name, seed, folder)))
    summ.complete = True
    summ.write()
    return summ
