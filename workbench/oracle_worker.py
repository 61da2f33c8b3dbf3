"""A persistent oracle worker: the isolation of :func:`ceplab.asp.oracle.isolated` without a fork per call.

An isolated oracle call forks a worker, runs clingo there, and kills the worker when it overruns its time
limit; the worker's address space is capped.  A differential campaign makes one small oracle call per case,
and the fork (page tables of a large Python process, then copy-on-write faults in the child) costs more than
grounding and solving six events.  :class:`OracleWorker` keeps one forked process alive and sends it the
calls: ``lang.oracle(query, stream, options, limits)`` with ``limits.isolate`` off (the worker is the
isolation), pickled over a pipe.  The guarantees stay those of ``isolated``:

* **time**: the parent waits at most ``limits.time_s`` plus a grace period for the answer, then kills the
  worker (SIGKILL) and answers :class:`~ceplab.asp.oracle.Undecided`; the next call forks a fresh worker;
* **memory**: before each call the worker caps its address space at its current size plus
  ``limits.memory_mb``; running out is Undecided, and the worker then exits (its heap may be damaged);
  a worker whose address space grew by more than :data:`RECYCLE_MB` MiB exits after answering, and says so in
  its answer, so the parent reaps it and the next call forks a fresh one;
* **errors**: an exception of the oracle (``UnsupportedError``, ``ModelError``, ...) is raised again in the
  parent; one that does not survive pickling makes the parent repeat the call the old way, so the caller
  always sees the oracle's own exception.

Calls whose function or arguments cannot be pickled (e.g. a language registered at run time by a test) run
through ``lang.oracle`` directly, as before.  :func:`call` is what
:func:`ceplab.workbench.compare.run_oracle` uses; ``CEPLAB_ORACLE_WORKER=0`` turns it off.  This module names
no language.
"""
from __future__ import annotations

import atexit
import dataclasses
import gc
import logging
import os
import pickle
import resource
import select
import signal
import struct
import time
from typing import Any, Callable

from ceplab.workbench.limits import vm_bytes

#: a worker whose address space grew by more than this many MiB since it started exits after its answer
RECYCLE_MB = 512
_HEADER = struct.Struct("!Q")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        k = os.write(fd, view)
        view = view[k:]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes | None:
    """``n`` bytes from ``fd``; None on EOF or when ``deadline`` (monotonic) passes first."""
    chunks, have = [], 0
    while have < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
        chunk = os.read(fd, min(n - have, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)


def _read_message(fd: int, deadline: float | None) -> bytes | None:
    head = _read_exact(fd, _HEADER.size, deadline)
    if head is None:
        return None
    return _read_exact(fd, _HEADER.unpack(head)[0], deadline)


def _serve(rfd: int, wfd: int) -> None:  # pragma: no cover - runs in the forked worker
    """The worker's loop: read a call, run it, write the answer; exit on EOF."""
    gc.freeze()
    base = vm_bytes()
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    while True:
        msg = _read_message(rfd, None)
        if msg is None:
            os._exit(0)
        # unpickling re-creates the caller's objects; what their constructors log (e.g. an ill-typed literal) was
        # already logged, or deliberately silenced, where the caller built them
        logging.disable(logging.WARNING)
        try:
            fn, args, memory_mb = pickle.loads(msg)
        finally:
            logging.disable(logging.NOTSET)
        recycle = False
        if memory_mb is not None:
            cap = vm_bytes() + memory_mb * 2**20
            if hard != resource.RLIM_INFINITY:
                cap = min(cap, hard)
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        try:
            out: tuple = ("ok", fn(*args))
        except MemoryError:
            out, recycle = ("memory",), True
        except BaseException as e:  # noqa: BLE001 - reported to the parent
            if "bad_alloc" in str(e):
                out, recycle = ("memory",), True
            else:
                try:
                    pickle.loads(pickle.dumps(e))
                    out = ("raise", e)
                except Exception:  # noqa: BLE001 - the parent repeats the call to get the exception
                    out = ("repeat",)
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        # the answer says whether the worker exits after it, so the parent reaps it and forks a new one for
        # its next call instead of writing that call into a dead pipe
        leaving = recycle or vm_bytes() - base > RECYCLE_MB * 2**20
        try:
            data = pickle.dumps((out, leaving), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            data = pickle.dumps((("repeat",), leaving))
        _write_all(wfd, data)
        if leaving:
            os._exit(0)


class OracleWorker:
    """One persistent forked worker (module docstring).  Not thread-safe: one call at a time."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.to_fd: int | None = None
        self.from_fd: int | None = None
        self.calls = 0
        self.forks = 0

    def _spawn(self) -> None:
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the worker
            try:
                os.close(w1)
                os.close(r2)
                signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
                _serve(r1, w2)
            finally:
                os._exit(0)
        os.close(r1)
        os.close(w2)
        self.pid, self.to_fd, self.from_fd = pid, w1, r2
        self.forks += 1

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) the current worker has used so far; 0.0 without one.  (A worker that was
        stopped is counted in this process's ``os.times().children_*`` once reaped.)"""
        if self.pid is None:
            return 0.0
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return 0.0

    def stop(self) -> None:
        """Kill the worker (if any) and close the pipes."""
        if self.pid is None:
            return
        for fd in (self.to_fd, self.from_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.pid = self.to_fd = self.from_fd = None

    def call(self, fn: Callable[..., Any], args: tuple, limits: Any) -> Any:
        """``fn(*args)`` in the worker under ``limits`` (``time_s``, ``memory_mb``).

        Returns:
            ``fn``'s value, or :class:`ceplab.asp.oracle.Undecided` (time or memory limit).

        Raises:
            Whatever ``fn`` raised; ``pickle.PicklingError`` / ``TypeError`` / ``AttributeError`` when the call
            cannot be sent (the caller then runs it directly).
            _Repeat: the answer cannot be brought back; the caller runs the call directly.
        """
        from ceplab.asp.oracle import Stats, Undecided

        payload = pickle.dumps((fn, args, limits.memory_mb), protocol=pickle.HIGHEST_PROTOCOL)
        if self.pid is None:
            self._spawn()
        self.calls += 1
        t0 = time.perf_counter()
        deadline = time.monotonic() + limits.time_s + min(1.0, 0.1 + 0.05 * limits.time_s)
        try:
            _write_all(self.to_fd, payload)
            msg = _read_message(self.from_fd, deadline)
        except BrokenPipeError:
            msg = None
        except BaseException:   # Ctrl-C while waiting: never leave a worker behind
            self.stop()
            raise
        if msg is None:
            timed_out = time.monotonic() >= deadline
            self.stop()
            reason = (f"time limit of {limits.time_s:g} s exceeded (worker killed)" if timed_out
                      else "oracle worker died without a result (memory limit?)")
            return Undecided(reason, Stats(total_seconds=time.perf_counter() - t0))
        out, leaving = pickle.loads(msg)
        if leaving:                     # the worker exits after this answer (recycled): reap it now
            self.stop()
        if out[0] == "ok":
            return out[1]
        if out[0] == "raise":
            raise out[1]
        if out[0] == "memory":
            return Undecided("memory limit exceeded", Stats(total_seconds=time.perf_counter() - t0))
        raise _Repeat()


class _Repeat(Exception):
    """The worker's answer could not be sent back: run the call directly."""


_WORKER: OracleWorker | None = None
_OWNER: int | None = None


def worker() -> OracleWorker:
    """This process's worker (a forked child process gets its own)."""
    global _WORKER, _OWNER
    if _WORKER is None or _OWNER != os.getpid():
        _WORKER, _OWNER = OracleWorker(), os.getpid()
    return _WORKER


def _stop_at_exit() -> None:
    if _WORKER is not None and _OWNER == os.getpid():
        _WORKER.stop()


atexit.register(_stop_at_exit)


def enabled() -> bool:
    """False when ``CEPLAB_ORACLE_WORKER`` is ``0``/``false``/``no``/``off``, or without ``os.fork``."""
    v = os.environ.get("CEPLAB_ORACLE_WORKER", "1").strip().lower()
    return hasattr(os, "fork") and v not in ("0", "false", "no", "off")


def call(lang: Any, query: Any, stream: Any, options: Any, limits: Any) -> Any:
    """``lang.oracle(query, stream, options, limits)`` in the persistent worker when ``limits.isolate`` is set
    and the call can be pickled; otherwise (or after :class:`_Repeat`) directly.  Then ``lang.oracle_done``
    (if any) gets the answer in this process."""
    answer = _call(lang, query, stream, options, limits)
    done = getattr(lang, "oracle_done", None)
    if done is not None:
        done(query, stream, options, answer)
    return answer


def _call(lang: Any, query: Any, stream: Any, options: Any, limits: Any) -> Any:
    if not (getattr(limits, "isolate", False) and enabled()):
        return lang.oracle(query, stream, options, limits)
    inner = dataclasses.replace(limits, isolate=False)
    try:
        return worker().call(lang.oracle, (query, stream, options, inner), limits)
    except (pickle.PicklingError, TypeError, AttributeError, _Repeat) as e:
        if isinstance(e, (TypeError, AttributeError)) and not _is_pickling_error(e):
            raise
        return lang.oracle(query, stream, options, limits)


def _is_pickling_error(e: BaseException) -> bool:
    text = str(e)
    return "pickle" in text or "Can't get local object" in text or "Can't get attribute" in text


__all__ = ["OracleWorker", "RECYCLE_MB", "call", "enabled", "worker"]
