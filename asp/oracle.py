"""The shared clingo driver of every reference oracle (DESIGN.md sections 1-3).

Language-neutral: each ``asp/<lang>.py`` turns a query into ASP text and a stream into facts, then
uses this module to ground and solve them under resource limits and to read the models back.

Pieces:

* :class:`Limits` -- wall-clock time and ground-size limits of one oracle call.
* :class:`Stats` -- grounding/solving statistics, accumulated over all clingo calls of one oracle call.
* :class:`OracleResult` / :class:`Undecided` -- the outcome. A call that cannot finish within its
  limits is *Undecided*, never a partial result.
* :func:`asp_string` -- the only way query or stream text enters a program: as an escaped clingo
  string constant (no injection through quotes, backslashes, newlines, ``%``, ``.``, ``:-`` ...).
* :class:`Solver` -- a multi-shot clingo session (``clingo.Control``) that enforces the deadline
  while solving (in-process: async solve + ``wait(timeout)`` + ``cancel``), checks the ground size
  right after grounding, keeps only optimal models of optimization runs, and accumulates
  :class:`Stats`.
* :func:`isolated` -- runs a whole oracle call in a forked worker process with a hard timeout, because
  clingo's grounding cannot be interrupted in-process. A worker that overruns its deadline is killed
  and the call is Undecided. Overhead: one ``fork`` plus pickling the result, about 2 ms (median) on
  an idle Linux machine, more under heavy CPU load where scheduling latency dominates (see
  ``tests/test_oracle_driver.py::test_isolation_overhead``). ``Limits(isolate=False)`` runs
  in-process instead: solving still honours the time limit, grounding is only checked afterwards.
* :func:`run` -- one-shot helper: program + facts + clingo arguments -> set of decoded models.
"""
from __future__ import annotations

import gc
import os
import pickle
import resource
import select
import signal
import time
import traceback
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import clingo

from ceplab.semantics.errors import OracleError


# ---------------------------------------------------------------- limits, stats, outcomes
@dataclass(frozen=True)
class Limits:
    """Resource limits of one oracle call.

    Attributes:
        time_s: wall-clock seconds for the whole call (all groundings and solve calls), > 0.
        max_ground_size: upper bound on ground rules + atoms of the ground program (clingo's
            ``problem.lp`` statistics, read right after grounding, summed over all groundings of
            the call).
        memory_mb: address-space allowance (MiB, on top of the worker's size at fork time) of the
            isolated worker; None = unlimited. Exceeding it makes the call Undecided.
        isolate: run the call in a forked worker with a hard timeout (default). False runs it
            in-process: cheaper, but a long grounding is only detected after it returns.
    """

    time_s: float = 60.0
    max_ground_size: int = 3_000_000
    memory_mb: int | None = 4096
    isolate: bool = True


@dataclass
class Stats:
    """Statistics of one oracle call, accumulated across its clingo calls.

    Attributes:
        ground_rules: ground rules (clingo ``problem.lp.rules``), summed over groundings.
        atoms: ground atoms (clingo ``problem.lp.atoms``), summed over groundings.
        ground_seconds: wall seconds spent parsing and grounding.
        solve_seconds: wall seconds spent in solve calls.
        calls: number of solve calls.
        models: number of models clingo reported (before any optimality filtering).
        total_seconds: wall seconds of the whole oracle call, including process isolation.
    """

    ground_rules: int = 0
    atoms: int = 0
    ground_seconds: float = 0.0
    solve_seconds: float = 0.0
    calls: int = 0
    models: int = 0
    total_seconds: float = 0.0

    @property
    def ground_size(self) -> int:
        return self.ground_rules + self.atoms

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict of all fields."""
        return asdict(self)


@dataclass(frozen=True)
class OracleResult:
    """A decided oracle call: ``results`` is the complete result set (language-specific items)."""

    results: frozenset
    stats: Stats


@dataclass(frozen=True)
class Undecided:
    """An oracle call that could not finish within its :class:`Limits` (``reason`` says which)."""

    reason: str
    stats: Stats


class LimitExceeded(Exception):
    """Raised inside an oracle call when a limit is hit; :func:`isolated` turns it into Undecided."""

    def __init__(self, reason: str, stats: Stats | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stats = stats if stats is not None else Stats()


# ---------------------------------------------------------------- escaping
def _value_escape(s: str) -> str:
    # clingo strings cannot carry NUL (C strings) or lone surrogates (not UTF-8). Escape them as
    # \uXXXX at the *value* level, doubling every backslash first, so the map stays injective.
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif o == 0 or 0xD800 <= o <= 0xDFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return "".join(out)


def asp_string(s: str) -> str:
    """Escape any Python string as a clingo string constant (including the quotes).

    The result is a single lexical token: clingo's string syntax only knows the escapes ``\\\\``,
    ``\\"`` and ``\\n``, so backslashes, double quotes and newlines are escaped, and everything else
    (``%``, ``.``, ``:-``, ``#``, carriage returns, any Unicode) is inert inside a string. NUL and
    lone surrogates, which clingo cannot carry, are first encoded as ``\\uXXXX`` (after doubling
    every backslash), so distinct Python strings always give distinct clingo strings;
    :func:`asp_unstring` inverts the value-level step.

    Args:
        s: any ``str``.

    Returns:
        ASP source text such as ``"a\\"b"``.

    Raises:
        TypeError: ``s`` is not a ``str``.
    """
    if not isinstance(s, str):
        raise TypeError(f"asp_string needs a str, got {type(s).__name__}")
    v = _value_escape(s)
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def asp_unstring(value: str) -> str:
    """Inverse of the value-level escaping of :func:`asp_string`: ``clingo.String`` value -> str."""
    out = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            if value[i + 1] == "\\":
                out.append("\\")
                i += 2
                continue
            if value[i + 1] == "u":
                out.append(chr(int(value[i + 2:i + 6], 16)))
                i += 6
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def py_symbol(sym: clingo.Symbol) -> Any:
    """Convert a clingo symbol to plain Python: numbers -> int, strings -> str (unescaped),
    tuples -> tuple, functions/constants -> ``(name, *args)``; infimum/supremum -> their text."""
    t = sym.type
    if t == clingo.SymbolType.Number:
        return sym.number
    if t == clingo.SymbolType.String:
        return asp_unstring(sym.string)
    if t == clingo.SymbolType.Function:
        args = tuple(py_symbol(a) for a in sym.arguments)
        return args if sym.name == "" else (sym.name,) + args
    return str(sym)


# ---------------------------------------------------------------- in-process solver
@dataclass
class Model:
    """One model as reported by clingo: its shown symbols, cost vector, optimality flag."""

    symbols: tuple
    cost: tuple = ()
    optimality_proven: bool = False


Assumption = tuple["clingo.Symbol | str", bool]


class Solver:
    """An in-process multi-shot clingo session with a deadline and a ground-size limit.

    Args:
        args: clingo command-line arguments, e.g. ``["0", "--project"]``,
            ``["--opt-mode=opt"]``, ``["0", "--heuristic=Domain", "--enum-mode=domRec"]``.
        limits: the call's :class:`Limits`.
        deadline: absolute ``time.monotonic()`` deadline; default now + ``limits.time_s``.
        stats: a :class:`Stats` to accumulate into (shared across several Solvers of one call).

    Raises (from its methods):
        LimitExceeded: deadline passed, or the ground program exceeds ``limits.max_ground_size``.
        OracleError: clingo rejected the program (syntax or grounding error: a bug in an encoder).
    """

    def __init__(self, args: Sequence[str] = (), limits: Limits = Limits(), *,
                 deadline: float | None = None, stats: Stats | None = None) -> None:
        self.limits = limits
        self.deadline = deadline if deadline is not None else time.monotonic() + limits.time_s
        self.stats = stats if stats is not None else Stats()
        self.messages: list[str] = []
        try:
            self.ctl = clingo.Control(list(args), logger=self._log, message_limit=100)
        except RuntimeError as e:
            raise OracleError(f"oracle: bad clingo arguments {list(args)}: {e}") from None

    def _log(self, code: clingo.MessageCode, msg: str) -> None:
        self.messages.append(msg)

    def remaining(self) -> float:
        """Seconds left before the deadline (may be negative)."""
        return self.deadline - time.monotonic()

    def _check_time(self, where: str) -> None:
        if self.remaining() <= 0:
            raise LimitExceeded(f"time limit of {self.limits.time_s:g} s exceeded ({where})",
                                self.stats)

    def add(self, program: str, part: str = "base", params: Sequence[str] = ()) -> None:
        """Add program text to a program part (parsed now; counted as grounding time)."""
        t0 = time.perf_counter()
        try:
            self.ctl.add(part, list(params), program)
        except RuntimeError as e:
            raise OracleError(f"oracle: clingo rejected the program: {e}; {' '.join(self.messages)}") from None
        finally:
            self.stats.ground_seconds += time.perf_counter() - t0

    def ground(self, parts: Sequence[tuple[str, Sequence[Any]]] = (("base", ()),)) -> None:
        """Ground program parts; then check the deadline and the ground size.

        The ground size (rules + atoms, clingo's ``problem.lp`` statistics) is checked right after
        grounding, before any search; grounding itself cannot be interrupted in-process, so
        :func:`isolated` provides the hard timeout.

        Raises:
            LimitExceeded: deadline passed, ground size above ``limits.max_ground_size``, or
                memory exhausted.
            OracleError: a grounding error.
        """
        self._check_time("before grounding")
        t0 = time.perf_counter()
        try:
            self.ctl.ground([(p, list(a)) for p, a in parts])
        except RuntimeError as e:
            if "bad_alloc" in str(e):
                raise LimitExceeded("memory exhausted while grounding", self.stats) from None
            raise OracleError(f"oracle: grounding failed: {e}; {' '.join(self.messages)}") from None
        finally:
            self.stats.ground_seconds += time.perf_counter() - t0
        self._check_time("grounding")
        n_atoms = len(self.ctl.symbolic_atoms)
        if n_atoms > self.limits.max_ground_size:
            self.stats.atoms += n_atoms
            raise LimitExceeded(f"ground size limit {self.limits.max_ground_size} exceeded "
                                f"({n_atoms} atoms)", self.stats)
        # clingo fills problem.lp statistics when it prepares the program for solving; a probe
        # call under a false assumption prepares it (work the next solve would do anyway) and
        # returns at once, so the size is known before any search starts.
        t0 = time.perf_counter()
        self.ctl.solve(assumptions=[-1])
        self.stats.ground_seconds += time.perf_counter() - t0
        lp = self.ctl.statistics["problem"]["lp"]
        self.stats.ground_rules += int(lp["rules"])
        self.stats.atoms += int(lp["atoms"])
        if self.stats.ground_size > self.limits.max_ground_size:
            raise LimitExceeded(f"ground size limit {self.limits.max_ground_size} exceeded "
                                f"({self.stats.ground_size} rules + atoms)", self.stats)
        self._check_time("preparing the ground program")

    def literal(self, sym: "clingo.Symbol | str") -> int | None:
        """Solver literal of a ground atom, or None if the atom does not occur in the program."""
        if isinstance(sym, str):
            sym = clingo.parse_term(sym)
        sa = self.ctl.symbolic_atoms[sym]
        return None if sa is None else sa.literal

    def models(self, assumptions: Iterable[Assumption | int] = ()) -> Iterator[Model]:
        """Solve once and yield every model clingo reports (shown symbols), within the deadline.

        In-process, the search runs asynchronously and is cancelled at the deadline
        (``wait(timeout)`` + ``cancel``). Inside an :func:`isolated` worker it runs synchronously
        (starting a solver thread in a freshly forked process costs milliseconds); the model
        callback stops an enumeration that runs past the deadline, and the parent's hard timeout
        covers a search that finds no model.

        Args:
            assumptions: ``(atom, truth)`` pairs (atom as Symbol or text) or solver literals.
                An assumed-true atom that is not in the program makes the call unsatisfiable; an
                assumed-false one is ignored.

        Raises:
            LimitExceeded: the deadline passed (the search is cancelled) or memory ran out.
        """
        lits: list[int] = []
        for a in assumptions:
            if isinstance(a, int):
                lits.append(a)
                continue
            sym, truth = a
            lit = self.literal(sym)
            if lit is None:
                if truth:
                    return  # an absent atom is false: the assumption cannot hold
                continue
            lits.append(lit if truth else -lit)
        self._check_time("before solving")
        self.stats.calls += 1
        found: list[Model] = []
        late = False

        def on_model(m: clingo.Model) -> bool:
            nonlocal late
            found.append(Model(tuple(m.symbols(shown=True)), tuple(m.cost), m.optimality_proven))
            if time.monotonic() > self.deadline:
                late = True
                return False
            return True

        t0 = time.perf_counter()
        try:
            if _IN_WORKER:
                self.ctl.solve(assumptions=lits, on_model=on_model)
            else:
                with self.ctl.solve(assumptions=lits, on_model=on_model, async_=True) as h:
                    if not h.wait(max(self.remaining(), 0.0)):
                        h.cancel()
                        late = True
                    h.get()
        except RuntimeError as e:
            if "bad_alloc" in str(e):
                raise LimitExceeded("memory exhausted while solving", self.stats) from None
            raise
        finally:
            self.stats.solve_seconds += time.perf_counter() - t0
            self.stats.models += len(found)
        if late:
            raise LimitExceeded(f"time limit of {self.limits.time_s:g} s exceeded (solving)",
                                self.stats)
        yield from found

    def solve(self, assumptions: Iterable[Assumption | int] = ()) -> list[Model]:
        """All models of one solve call; for optimization problems only the optimal ones.

        With ``--opt-mode=optN`` the models flagged ``optimality_proven`` are kept; with
        ``--opt-mode=opt`` (clingo's default) the last model of the exhausted search is the optimum.
        """
        ms = list(self.models(assumptions))
        if ms and ms[-1].cost:
            proven = [m for m in ms if m.optimality_proven]
            return proven if proven else [ms[-1]]
        return ms


# ---------------------------------------------------------------- isolation
def _grace(time_s: float) -> float:
    # time for a worker to notice its own deadline and report Undecided with its statistics
    return min(1.0, 0.1 + 0.05 * time_s)


def _vm_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


_IN_WORKER = False  # True inside an isolated() worker process


def _child(fn: Callable[..., Any], args: tuple, kw: dict, limits: Limits, wfd: int) -> None:
    global _IN_WORKER
    _IN_WORKER = True
    gc.freeze()  # keep the collector away from the parent's objects (no copy-on-write storms)
    try:
        if limits.memory_mb is not None:
            cap = _vm_bytes() + limits.memory_mb * 2**20
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)  # a soft limit above the hard one is a ValueError
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        try:
            out: tuple = ("ok", fn(*args, **kw))
        except LimitExceeded as e:
            out = ("undecided", e.reason, e.stats)
        except MemoryError:
            out = ("undecided", "memory limit exceeded", None)
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            if "bad_alloc" in str(e):
                out = ("undecided", "memory limit exceeded", None)
            else:
                out = ("error", type(e).__name__, str(e), traceback.format_exc())
        try:
            data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001
            data = pickle.dumps(("error", type(e).__name__, f"result not picklable: {e}", ""))
        view = memoryview(data)
        while view:
            k = os.write(wfd, view)
            view = view[k:]
        os.close(wfd)  # the parent sees EOF now, not after this process's memory is torn down
    finally:
        os._exit(0)


_ZOMBIES: list[int] = []


def _reap(pid: int | None = None) -> None:
    """Collect finished workers without blocking (a worker's exit may lag behind its EOF)."""
    if pid is not None:
        _ZOMBIES.append(pid)
    for p in list(_ZOMBIES):
        try:
            done, _ = os.waitpid(p, os.WNOHANG)
        except ChildProcessError:
            done = p
        if done:
            _ZOMBIES.remove(p)


def isolated(fn: Callable[..., Any], *args: Any, limits: Limits = Limits(), **kw: Any) -> Any:
    """Run ``fn(*args, **kw)`` as one oracle call under ``limits``; return its value or Undecided.

    With ``limits.isolate`` (default) the call runs in a forked worker: the parent waits at most
    ``limits.time_s`` (+0.1-1 s grace for the worker to report its own time-out), then kills the
    worker with SIGKILL; it never hangs. The worker's address space is capped by
    ``limits.memory_mb``. ``fn`` need not be picklable (fork), its return value must be.
    Inside ``fn``, raise :class:`LimitExceeded` (e.g. via :class:`Solver`) to give up.

    Returns:
        ``fn``'s return value, or :class:`Undecided`. If the value has a ``stats`` attribute of
        type :class:`Stats`, its ``total_seconds`` is set to the wall time of the call.

    Raises:
        OracleError: ``fn`` raised anything else (the worker's traceback is in the message).
    """
    t0 = time.perf_counter()

    def finish(value: Any) -> Any:
        st = getattr(value, "stats", None)
        if isinstance(st, Stats):
            st.total_seconds = time.perf_counter() - t0
        return value

    if not limits.isolate or not hasattr(os, "fork"):
        try:
            return finish(fn(*args, **kw))
        except LimitExceeded as e:
            return finish(Undecided(e.reason, e.stats))

    deadline = time.monotonic() + limits.time_s + _grace(limits.time_s)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # worker
        os.close(rfd)
        _child(fn, args, kw, limits, wfd)
    os.close(wfd)
    chunks: list[bytes] = []
    complete = False
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([rfd], [], [], left)
            if not ready:
                continue
            chunk = os.read(rfd, 1 << 20)
            if not chunk:
                complete = True
                break
            chunks.append(chunk)
    finally:  # also on KeyboardInterrupt: never leave a worker behind
        os.close(rfd)
        if complete:
            _reap(pid)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    if not complete:
        return finish(Undecided(f"time limit of {limits.time_s:g} s exceeded (worker killed)",
                                Stats()))
    if not chunks:
        return finish(Undecided("oracle worker died without a result (memory limit?)", Stats()))
    out = pickle.loads(b"".join(chunks))
    if out[0] == "ok":
        return finish(out[1])
    if out[0] == "undecided":
        return finish(Undecided(out[1], out[2] if out[2] is not None else Stats()))
    raise OracleError(f"oracle worker failed: {out[1]}: {out[2]}\n{out[3]}")


# ---------------------------------------------------------------- one-shot helper
def _default_decode(model: Model) -> frozenset[str]:
    return frozenset(str(s) for s in model.symbols)


def run(program: str, facts: str = "", args: Sequence[str] = ("0",), *, limits: Limits = Limits(),
        assumptions: Iterable[Assumption] = (),
        decode: Callable[[Model], Any] = _default_decode) -> OracleResult | Undecided:
    """Ground ``program`` + ``facts`` and solve once; return the set of decoded (optimal) models.

    Args:
        program: ASP text (rules, ``#show``/``#project``, optimization statements).
        facts: ASP text of facts (build every string in it with :func:`asp_string`).
        args: clingo arguments, e.g. ``["0", "--project"]`` (projection on the ``#project`` or
            shown atoms), ``["--opt-mode=optN", "0"]`` (only optimal models are kept).
        limits: time and size limits; exceeding them gives :class:`Undecided`.
        assumptions: ``(atom, truth)`` pairs for the solve call.
        decode: maps a :class:`Model` to a hashable, picklable value (default: frozenset of the
            shown symbols' text).

    Returns:
        ``OracleResult(frozenset of decoded models, stats)`` or :class:`Undecided`.
    """
    assumptions = tuple(assumptions)

    def job() -> OracleResult:
        s = Solver(args, limits)
        s.add(program)
        if facts:
            s.add(facts)
        s.ground()
        res = frozenset(decode(m) for m in s.solve(assumptions))
        return OracleResult(res, s.stats)

    return isolated(job, limits=limits)
