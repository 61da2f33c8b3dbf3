"""Per-case limits of an engine run: wall time and memory (DESIGN.md sections 1 and 5).

An engine that derives forever (a planted bug, a mutant, a real one) must not stall a comparison,
a fuzz campaign, ``ceplab verify`` or the shrinker. :func:`call_limited` runs one engine call under
an :class:`EngineLimits` and raises :class:`EngineLimitExceeded` when the call overruns; the
workbench turns that into the ``engine_limit`` verdict (:mod:`ceplab.workbench.compare`), a
finding of its own.

Two ways to run, one limit:

* **in-process** (the default, the cheap path of the campaigns): a one-shot ``ITIMER_REAL`` timer
  (``signal.setitimer``) whose ``SIGALRM`` handler raises :class:`EngineLimitExceeded` in the
  engine's Python code at the deadline (and every 0.1 s after it, in case the engine swallows
  the first one), and a soft ``RLIMIT_AS`` of the process's current address space plus
  ``memory_mb`` for the duration of the call, so that an allocation beyond it raises
  ``MemoryError``, reported as the memory limit. Both are restored when the call returns. Cost:
  a handful of system calls per case (tens of microseconds, see :func:`overhead`). It needs the
  main thread (Python runs signal handlers only there) and a free ``ITIMER_REAL``; otherwise the
  call is isolated instead. Engine code stuck inside one long C call (no Python bytecode runs) is
  stopped only when that call returns or fails to allocate.
* **isolated** (``EngineLimits(isolate=True)``; the shrinker's and the reproducers' re-runs): the
  call runs in a forked worker through :func:`ceplab.asp.oracle.isolated`, the oracles' one
  implementation of a worker with a hard deadline (SIGKILL after a short grace) and an
  address-space cap, returning the value by pickle; inside the worker the in-process guard runs
  too, so an overrun is still reported with the partial output. Cost: one ``fork`` plus pickling
  (about 1-2 ms per call on an idle machine); the caller's process can never grow or hang.

``time_s`` / ``memory_mb`` of ``None`` (or 0 on the command line) mean no limit of that kind.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import resource
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

#: The defaults of ``--engine-time`` (seconds) and ``--engine-memory`` (MiB).
DEFAULT_TIME_S = 10.0
DEFAULT_MEMORY_MB = 2048

#: Interval of the repeated alarm after the deadline (an engine that catches the first one).
_REPEAT_S = 0.1


@dataclass(frozen=True)
class EngineLimits:
    """Limits of one engine run (one case: every push and the close).

    Attributes:
        time_s: wall-clock seconds, > 0, or None for no time limit.
        memory_mb: MiB of address space the call may add to the process (to the worker's size at
            fork time when isolated), or None for no memory limit.
        isolate: run the call in a forked worker (hard kill at the deadline) instead of in-process.
    """

    time_s: float | None = DEFAULT_TIME_S
    memory_mb: int | None = DEFAULT_MEMORY_MB
    isolate: bool = False

    def __post_init__(self) -> None:
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"engine time limit must be > 0 s (or None), got {self.time_s!r}")
        if self.memory_mb is not None and not self.memory_mb > 0:
            raise ValueError(f"engine memory limit must be > 0 MiB (or None), got {self.memory_mb!r}")

    @property
    def unlimited(self) -> bool:
        return self.time_s is None and self.memory_mb is None

    def describe(self) -> str:
        """``10 s, 2048 MiB`` (``no limit`` when unlimited)."""
        parts = [f"{self.time_s:g} s" if self.time_s is not None else "no time limit",
                 f"{self.memory_mb} MiB" if self.memory_mb is not None else "no memory limit"]
        return "no limit" if self.unlimited else ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"time_s": self.time_s, "memory_mb": self.memory_mb}


def engine_limits(time_s: float | None = DEFAULT_TIME_S, memory_mb: float | None = DEFAULT_MEMORY_MB,
                  isolate: bool = False) -> EngineLimits:
    """:class:`EngineLimits` from command-line values, where 0 (or None) means no limit."""
    return EngineLimits(time_s=float(time_s) if time_s else None,
                        memory_mb=int(memory_mb) if memory_mb else None, isolate=isolate)


class EngineLimitExceeded(BaseException):
    """An engine call overran its :class:`EngineLimits`.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that an engine's ``except Exception``
    does not swallow it.

    Attributes:
        reason: which limit, e.g. ``time limit of 10 s exceeded``.
        kind: ``"time"`` or ``"memory"``.
        partial: whatever the caller attached (e.g. the emissions so far); None if unknown.
    """

    def __init__(self, reason: str, kind: str = "time", partial: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.partial = partial

    def __str__(self) -> str:
        return self.reason


try:
    _PAGE = os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
    _PAGE = 4096


def vm_bytes() -> int:
    """The process's current address-space size (bytes), 0 if unknown."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _trim() -> None:
    """Give freed heap memory back to the system after a memory overrun (glibc only)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except Exception:  # pragma: no cover - not glibc
        pass


def time_reason(limits: EngineLimits) -> str:
    return f"time limit of {limits.time_s:g} s exceeded"


def memory_reason(limits: EngineLimits) -> str:
    return f"memory limit of {limits.memory_mb} MiB exceeded"


def in_process_possible() -> bool:
    """True if the in-process guard can run here (main thread, ``ITIMER_REAL`` not in use)."""
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getitimer(signal.ITIMER_REAL)[0] == 0.0


@contextlib.contextmanager
def guard(limits: EngineLimits) -> Iterator[None]:
    """Run the ``with`` body under ``limits`` in this process (main thread only).

    Raises:
        EngineLimitExceeded: the body overran the time limit (raised inside it) or ran out of its
            memory allowance (its ``MemoryError`` is converted).
        RuntimeError: not in the main thread, or ``ITIMER_REAL`` is already in use (use
            :func:`call_limited`, which isolates the call then).
    """
    if limits.unlimited:
        yield
        return
    if not in_process_possible():
        raise RuntimeError("the in-process engine limit needs the main thread and a free ITIMER_REAL")
    armed = [False]
    timed = limits.time_s is not None
    old_handler: Any = None
    old_as = None
    if timed:
        def on_alarm(signum: int, frame: Any) -> None:
            if armed[0]:
                raise EngineLimitExceeded(time_reason(limits), "time")

        old_handler = signal.signal(signal.SIGALRM, on_alarm)
        armed[0] = True
        signal.setitimer(signal.ITIMER_REAL, limits.time_s, _REPEAT_S)
    try:
        if limits.memory_mb is not None:
            vm = vm_bytes()
            if vm:
                old_as = resource.getrlimit(resource.RLIMIT_AS)
                soft, hard = old_as
                cap = vm + limits.memory_mb * 2**20
                if soft != resource.RLIM_INFINITY:
                    cap = min(cap, soft)
                if hard != resource.RLIM_INFINITY:
                    cap = min(cap, hard)
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        try:
            yield
        except MemoryError:
            if limits.memory_mb is None:
                raise
            memory_hit = True
        else:
            memory_hit = False
    finally:
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
                armed[0] = False          # an alarm still pending is a no-op from here on
        finally:
            if timed:                     # signal.signal runs pending handlers first
                signal.signal(signal.SIGALRM, signal.SIG_DFL if old_handler is None else old_handler)
            if old_as is not None:
                resource.setrlimit(resource.RLIMIT_AS, old_as)
    if memory_hit:
        _trim()
        raise EngineLimitExceeded(memory_reason(limits), "memory")


def _in_worker(fn: Callable[..., Any], args: tuple, kw: dict, limits: EngineLimits) -> tuple:
    """The isolated worker's job: ``fn`` under the in-process guard; never raises."""
    try:
        if in_process_possible():
            with guard(limits):
                return ("ok", fn(*args, **kw))
        return ("ok", fn(*args, **kw))
    except EngineLimitExceeded as e:
        return ("limit", e.reason, e.kind, e.partial)
    except MemoryError:
        return ("limit", memory_reason(limits), "memory", None)
    except BaseException as e:  # noqa: BLE001 - re-raised in the caller
        tb = traceback.extract_tb(e.__traceback__)
        tail = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno} in {tb[-1].name}" if tb else ""
        text = f"{type(e).__name__}: {e}"
        state = (type(e), e.args, dict(getattr(e, "__dict__", {})))
        try:
            pickle.loads(pickle.dumps(state))
        except Exception:  # noqa: BLE001 - a local class, an unpicklable attribute, ...
            return ("raised", RuntimeError, (text,), {}, tail, text)
        return ("raised", *state, tail, text)


def _rebuild(cls: type, args: tuple, state: dict, tail: str) -> BaseException:
    e = cls.__new__(cls)
    e.args = args
    try:
        e.__dict__.update(state)
    except AttributeError:  # pragma: no cover - exceptions without a __dict__
        pass
    e.worker_tb_tail = tail
    return e


def call_limited(fn: Callable[..., Any], *args: Any, limits: EngineLimits | None, **kw: Any) -> Any:
    """``fn(*args, **kw)`` under ``limits`` (None or unlimited: a plain call).

    In-process when ``limits.isolate`` is False and the guard can run here, else in a forked worker
    (``fn`` need not be picklable; its return value must be). Exceptions of ``fn`` propagate (from
    a worker: rebuilt with their class, ``args`` and attributes, plus ``worker_tb_tail`` naming
    the line that raised).

    Raises:
        EngineLimitExceeded: the call overran a limit. In-process, ``partial`` is what ``fn``
            attached to the exception; from a killed worker it is None.
    """
    if limits is None or limits.unlimited:
        return fn(*args, **kw)
    if not limits.isolate and in_process_possible():
        with guard(limits):
            return fn(*args, **kw)
    return _call_isolated(fn, args, kw, limits)


def _call_isolated(fn: Callable[..., Any], args: tuple, kw: dict, limits: EngineLimits) -> Any:
    from ceplab.asp.oracle import Limits, Undecided, isolated
    from ceplab.semantics.errors import OracleError

    # the worker's own guard reports a time-out at time_s; the parent kills it after a grace
    wall = limits.time_s if limits.time_s is not None else 10.0 ** 9
    try:
        out = isolated(_in_worker, fn, args, kw, limits,
                       limits=Limits(time_s=wall, memory_mb=limits.memory_mb, isolate=True))
    except OracleError as e:  # the value could not be pickled back, or the worker broke
        raise RuntimeError(f"isolated engine call failed: {e}") from None
    if isinstance(out, Undecided):
        if "time limit" in out.reason:
            raise EngineLimitExceeded(time_reason(limits) + " (worker killed)", "time")
        raise EngineLimitExceeded((memory_reason(limits) if limits.memory_mb is not None
                                   else "engine worker died") + f" ({out.reason})", "memory")
    tag = out[0]
    if tag == "ok":
        return out[1]
    if tag == "limit":
        raise EngineLimitExceeded(out[1], out[2], out[3])
    _, cls, eargs, state, tail, text = out
    try:
        exc = _rebuild(cls, eargs, state, tail)
    except Exception:  # noqa: BLE001
        exc = RuntimeError(text)
    raise exc


def overhead(n: int = 2000, isolate: bool = False) -> float:
    """Median extra microseconds per call of :func:`call_limited` with default limits on a no-op,
    in-process (``isolate=False``) or in a forked worker (``isolate=True``)."""
    lim = EngineLimits(isolate=isolate)
    noop = lambda: None  # noqa: E731
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        noop()
        t1 = time.perf_counter()
        call_limited(noop, limits=lim)
        t2 = time.perf_counter()
        samples.append((t2 - t1) - (t1 - t0))
    samples.sort()
    return samples[len(samples) // 2] * 1e6
