"""Peer adapter: run ETALIS rule files through the real ETALIS (Prolog) and read back what it fired.

ETALIS (github.com/sspider/etalis, the export of code.google.com/p/etalis; the Prolog system is in its
``etalis/src``) is not a dependency of ceplab and none of its code lives in this project.  Point the
environment variable ``ETALIS_HOME`` at an ETALIS source tree -- either the directory holding
``src/etalis.P`` or the repository root holding ``etalis/src/etalis.P`` -- and have SWI-Prolog (>= 7,
tested with 9.0.4) on the PATH as ``swipl``.  Otherwise :func:`available` is False and
:func:`unavailable_reason` says why; callers (tests, ``ceplab compare --peer etalis``, the benchmark) skip the
peer with that sentence.

How a run works (:func:`run_etalis`): the rules are written to a temporary ``rules.event``, the stream to
``events.pl`` (one ``ev(Atom, Start, End).`` fact per event) and a driver to ``driver.pl``; then
``swipl --traditional`` runs the driver non-interactively.  The driver

* installs a one-line ``at_halt`` hook that removes every ``alarm/3`` timer (ETALIS's garbage collectors and
  ``exceptionAlarm`` use alarms; under SWI-Prolog 9 a fired but not removed alarm makes ``halt`` hang);
* loads ``src/etalis.P``, sets ``event_consumption_policy`` (before compiling: the compiler chooses the
  unrestricted SEQ template at compile time), compiles the rules with ``compile_event_file/1``;
* feeds the events in stream order with ``event(Atom, [datime(2000,1,1,0,0,S,0), datime(2000,1,1,0,0,E,0)])``,
  timing only this loop (wall clock ``get_time/1`` and ``statistics(cputime)``), and
* writes every ``fired_event/2`` fact (ETALIS asserts one per firing of every event, input or derived,
  duplicates included) that is not an intermediate ``temp_e_N`` event.

``--traditional`` is needed because ETALIS predates SWI-Prolog 7's string and list changes.

Time encoding.  An integer tick ``T`` is rendered as ``datime(2000,1,1,0,0,T,0)``: the tick goes into the
seconds field **unnormalised** (``T`` may exceed 59) and the counter field is 0.  This is exact for everything
the compiled rules use: ``less_datime/2`` compares the fields lexicographically, so with equal
year..minute it compares ``T`` numerically; ``equal_datime/2`` ignores the counter; ``event_rule_window``
computes ``datime_minus_datime`` as ``(S1 - S2) + 60*(Min1-Min2) + ...``, linear in the seconds field.  Counter 0
everywhere makes two events in the same tick *simultaneous* for ETALIS (``less_datime`` falls back to the
counter only when the seconds are equal, and ``0 < 0`` fails), as in our semantics.  The ticks are read
back from the seconds field.  (Normalising into minutes/hours would be equally exact, but is not needed.)

Rule text.  Our ``.event`` syntax is ETALIS's, with two additions ETALIS cannot read (its ``tr_operators/0``
has neither): the window ``(P).q`` and the negation ``not(P1).[P2,P3]``.  :func:`etalis_source` therefore
re-renders a parsed :class:`~ceplab.semantics.etalis.ast.Program`:

* ``not(p1).[p2,p3]`` becomes ETALIS's ``(p2 seq p3) cnot p1``;
* a window ``(P).q`` around a whole rule body (possibly under a top-level ``where``) becomes the rule
  property ``event_rule_window`` (a generated label ``peer_rN`` when the rule has none).  ETALIS checks it
  as ``end - start =< q`` (``labeled_event_rules.P``), our ``Options.window="at_most"``.  A window deeper
  inside a pattern and absolute time points ``q`` raise :class:`UnsupportedError`;
* every binary sub-pattern is parenthesised (no reliance on operator priorities); labels, properties,
  static rules, ``event_rule_property/3`` facts and directives are passed through.

Outputs.  :class:`PeerResult.results` is the **set** of ``(atom_text, start, end)`` for the derived
predicates (heads of event rules), in the form of ``str(EventAtom)`` -- the same form as
:func:`ceplab.asp.etalis.oracle`'s results (which also include input occurrences of derived predicates; so does
ETALIS, which asserts every input event as fired).  ``firings`` counts those firings with multiplicity.
Double-quoted strings in event arguments are code lists under ``--traditional`` and come back as lists.

Consumption policies (``etalis/src/storage.P``, ``executor.P``, ``compiler.P``; ETALIS's default is
``recent``).  Goals are the stored partial matches ``etr_db(T2,T1,Occurred,Awaited,Target)``; the *key* of a
goal is ``(Occurred, Awaited, Target)`` without the timestamps.

=================  ======================================================================================
ETALIS flag        what the implementation does
=================  ======================================================================================
``unrestricted``   SEQ: compiled without ``etr_delf`` and the executor runs the check for **every** stored
                   goal (``findall`` + ``trigger_all``); nothing is consumed.  **All other binary operators
                   (and, par, equals, meets, during, starts, finishes, cnot) keep their ``etr_delf``**: every
                   matching goal is used once and deleted (docs/semantics/etalis.md#etalis-A10).  Goals are never expired by windows.
``recent``         ``etr_insf``: ``retractall`` of the goals with the same key, then ``asserta`` (one goal
                   per key, newest first); ``etr_dbf`` + ``etr_delf`` take the first (newest) goal, delete
                   it, then test the time condition; one firing per arriving terminator and rule.
``recent_2``       like ``recent`` without the ``retractall``: plain LIFO, consuming.
``chronological``  ``retractall`` same-key goals, then ``assertz``: one goal per key, consuming.
``chronological_2`` ``assertz`` without ``retractall``: plain FIFO, consuming.
=================  ======================================================================================

**ETALIS's ``recent_2`` and ``chronological_2`` are broken in every copy of ``storage.P`` in the repository**
(Rev 884): ``etr_delf/2`` has clauses for ``recent``, ``chronological`` and ``unrestricted`` only, so every
consuming operator (SEQ included) fails silently and nothing complex is ever fired (and, since goals are never
deleted, the run slows down quadratically).  When one of these flags is reached through *our* policy name the
driver therefore installs the missing clauses -- five lines of our own Prolog (``_PATCH_DELF``): delete the goal
``etr_dbf`` found, restore it (``asserta``/``assertz``) on backtracking, as ETALIS does for the other two
policies.  ``PeerResult.patched`` says when this happened; ``etalis_flag=...`` runs ETALIS unmodified unless
``patch_delf=True``.  On the running example ``e <- a seq b seq c`` over a@1 a@2 a@3 b@4 b@5 c@6 (docs/semantics/etalis.md#etalis-3.12):
``unrestricted`` E(1,6) E(2,6) E(3,6) (6 firings); ``recent`` and ``chronological`` E(3,6) only (IE(3,4) only:
one goal per key leaves a@3 alone); ``recent_2``/``chronological_2`` nothing; patched ``recent_2`` IE(3,4)
IE(2,5) E(2,6) and patched ``chronological_2`` IE(1,4) IE(2,5) E(1,6) -- docs/semantics/etalis.md's LIFO and FIFO rows.

Mapping from our policy names (:class:`ceplab.semantics.etalis.options.Options`) -- :data:`POLICY_FLAGS`:

* ``unrestricted`` -> ``unrestricted`` (but ETALIS consumes in every operator other than SEQ, see above);
* ``chronological`` (FIFO, consuming) -> ``chronological_2`` (patched, see above);
* ``recent_lifo`` (LIFO, consuming) -> ``recent_2`` (patched);
* ``recent`` (the paper's narrative, Snoop's recent context: newest initiator kept, not consumed) has **no**
  ETALIS counterpart: ETALIS's ``recent`` also consumes the goal it uses (docs/semantics/etalis.md#etalis-3.12 [I]).  Asking for it
  raises :class:`UnsupportedError`; ``run_etalis(..., etalis_flag="recent")`` runs ETALIS's own ``recent``.

Errors: :class:`PeerError` (swipl missing, ETALIS failing to load or compile, a timeout, unreadable
output) -- always reported, never treated as agreement; :class:`UnsupportedError` (a construct ETALIS cannot
express); :class:`RuntimeError` from :func:`home` when ``ETALIS_HOME`` is unset.
"""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional, Sequence

from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.streams import StreamEvent
from ceplab.semantics.errors import PeerError, UnsupportedError

ENV = "ETALIS_HOME"
#: Our policy names -> ETALIS's ``event_consumption_policy`` flag (``recent`` has none; see module doc).
POLICY_FLAGS = {"unrestricted": "unrestricted", "chronological": "chronological_2", "recent_lifo": "recent_2"}
#: Every value ETALIS's ``event_consumption_policy`` flag takes (``flags.P``).
ETALIS_FLAGS = ("unrestricted", "recent", "recent_2", "chronological", "chronological_2")
#: Oldest SWI-Prolog that has ``--traditional`` (7.0) -- ETALIS itself needs ``alarm/3`` (5.8).
MIN_SWIPL = (7, 0, 0)

_AT_HALT = ":- at_halt(catch(forall(current_alarm(_, _, Id, _), remove_alarm(Id)), _, true)).\n"


@dataclass(frozen=True)
class PeerResult:
    """What ETALIS fired on one stream.

    Attributes:
        results: the derived firings as a set of ``(atom_text, start, end)`` (integer ticks), atom text as
            ``str(ceplab.semantics.etalis.ast.EventAtom)``.
        firings: number of firings of derived predicates, with multiplicity (ETALIS fires a complex event
            once per derivation; docs/semantics/etalis.md#etalis-A17).
        seconds: wall time of the feed loop inside Prolog (swipl start-up, loading ETALIS and compiling the
            rules excluded), in seconds.
        cpu_seconds: Prolog CPU time of the same loop.
        events: number of events fed.
        flag: the ETALIS ``event_consumption_policy`` used.
        patched: whether the adapter's missing ``etr_delf`` clauses for ``recent_2``/``chronological_2`` were
            installed (see the module docstring); False means ETALIS ran unmodified.
        counts: ``((atom_text, start, end), firings)`` for every result, sorted: how often ETALIS fired each
            (their sum is ``firings``); see :attr:`multiplicity`.
    """

    results: frozenset[tuple[str, int, int]]
    firings: int
    seconds: float
    cpu_seconds: float
    events: int
    flag: str
    patched: bool = False
    counts: tuple[tuple[tuple[str, int, int], int], ...] = ()

    @property
    def multiplicity(self) -> dict[tuple[str, int, int], int]:
        """Result -> the number of times ETALIS fired it (ETALIS asserts one ``fired_event/2`` per derivation)."""
        return dict(self.counts)

    @property
    def events_per_second(self) -> float:
        """Events fed per second of wall time in the feed loop."""
        return self.events / self.seconds if self.seconds > 0 else float("inf")


# ------------------------------------------------------------------------------------------------ availability
def home() -> Path | None:
    """The ETALIS source tree named by ``ETALIS_HOME`` (the directory holding ``src/etalis.P``), or None when
    the variable is unset or names no ETALIS tree."""
    h = os.environ.get(ENV)
    if not h:
        return None
    p = Path(h).expanduser()
    for cand in (p, p / "etalis"):
        if (cand / "src" / "etalis.P").is_file():
            return cand.resolve()
    return None


@lru_cache(maxsize=4)
def _swipl_version(exe: str) -> tuple[int, int, int] | str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"running '{exe} --version' failed: {e}"
    m = re.search(r"version (\d+)\.(\d+)\.(\d+)", out.stdout + out.stderr)
    if not m:
        return f"'{exe} --version' printed no version: {(out.stdout + out.stderr).strip()[:200]!r}"
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def swipl() -> str | None:
    """Path of ``swipl`` on the PATH, or None."""
    return shutil.which("swipl")


def unavailable_reason() -> str | None:
    """Why the peer cannot run (a sentence for the user), or None when it can."""
    h = os.environ.get(ENV)
    if not h:
        return (f"peer etalis skipped: {ENV} is not set (point it at an ETALIS source tree, e.g. the 'etalis' "
                "directory of a checkout of github.com/sspider/etalis)")
    if home() is None:
        return f"peer etalis skipped: {ENV}={h} holds neither src/etalis.P nor etalis/src/etalis.P"
    exe = swipl()
    if exe is None:
        return "peer etalis skipped: swipl (SWI-Prolog) is not on the PATH"
    v = _swipl_version(exe)
    if isinstance(v, str):
        return f"peer etalis skipped: {v}"
    if v < MIN_SWIPL:
        return (f"peer etalis skipped: SWI-Prolog {'.'.join(map(str, v))} is too old "
                f"(need >= {'.'.join(map(str, MIN_SWIPL))} for --traditional)")
    return None


def available() -> bool:
    """True when ``ETALIS_HOME`` names an ETALIS tree and a usable ``swipl`` is on the PATH."""
    return unavailable_reason() is None


# ------------------------------------------------------------------------------------------------ rule text
def _cond(c: A.Cond) -> str:
    return str(c)


def _pat(p: A.Pattern) -> str:
    """ETALIS text of a pattern, every compound sub-pattern parenthesised."""
    if isinstance(p, A.EventAtom):
        return str(p)
    if isinstance(p, A.Binary):
        return f"({_pat(p.left)} {p.op} {_pat(p.right)})"
    if isinstance(p, A.Not):
        return f"(({_pat(p.start)} seq {_pat(p.end)}) cnot {_pat(p.negated)})"
    if isinstance(p, A.Where):
        return f"({_pat(p.pattern)} where ({_cond(p.cond)}))"
    if isinstance(p, A.Aggregate):       # ETALIS compiles 'I1 seq aggregate(F, I2, R)' (compiler.P)
        if p.count_window is not None:
            raise UnsupportedError(f"ETALIS's aggregate/3 has no count window ({p}); the paper writes it in Prolog "
                                   "(rule (23))")
        f = p.func if p.arg is None else f"{p.func}({p.arg})"
        return f"({_pat(p.start)} seq aggregate({f}, {p.item}, {p.result}))"
    if isinstance(p, A.Window):
        raise UnsupportedError(f"ETALIS has no window operator inside a pattern ({p}); only a window around a whole "
                          "rule body can be expressed (rule property event_rule_window)")
    if isinstance(p, A.TimePoint):
        raise UnsupportedError(f"ETALIS has no absolute time-point patterns ({p})")
    raise UnsupportedError(f"unknown pattern {p!r}")


def _split_window(body: A.Pattern) -> tuple[A.Pattern, Optional[int]]:
    if isinstance(body, A.Window):
        inner, w = _split_window(body.pattern)
        return inner, body.length if w is None else min(w, body.length)
    if isinstance(body, A.Where) and isinstance(body.pattern, A.Window):
        inner, w = _split_window(body.pattern)
        return A.Where(inner, body.cond), w
    return body, None


def etalis_source(program: A.Program) -> str:
    """The program in the syntax ETALIS's ``compile_event_file/1`` reads (see the module docstring).

    Raises:
        UnsupportedError: a window nested inside a pattern, or an absolute time point.
    """
    lines: list[str] = []
    used = {r.label for r in program.event_rules if r.label}
    n = 0
    for s in program.statements:
        if not isinstance(s, A.EventRule):
            lines.append(str(s))
            continue
        body, w = _split_window(s.body)
        props = list(s.properties)
        label = s.label
        if w is not None:
            props.append(A.Property("event_rule_window", A.Num(w)))
            if label is None:
                n += 1
                while f"peer_r{n}" in used:
                    n += 1
                label = f"peer_r{n}"
                used.add(label)
        pre = ""
        if label is not None:
            plist = f"([{', '.join(str(p) for p in props)}])" if props else ""
            pre = f"{A.quote_atom(label)}{plist} 'rule:' "
        lines.append(f"{pre}{s.head} <- {_pat(body)}.")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ running
def _q(path: Path) -> str:
    return "'" + str(path).replace("\\", "\\\\").replace("'", "\\'") + "'"


_PATCH_DELF = r"""
peer_delf_2(L, goal(event(A), event(B, [T1, T2]), event(C))) :-
    event_consumption_policy(P), memberchk(P, [recent_2, chronological_2]), !,
    ( L == unlabeled -> G = etr_db(T2, T1, B, A, C) ; G = etr_db(T2, T1, B, A, C, L) ),
    ( retract(G) ; P == recent_2, asserta(G), fail ; P == chronological_2, assertz(G), fail ).
:- asserta((etr_delf(L, G) :- peer_delf_2(L, G), !)).
"""

#: No purge: ETALIS keeps its goals (its own collectors run on the system clock, not on stream ticks).
_NO_PURGE = "peer_purge(_).\n"

#: The window purge (``{window}`` ticks): after each event ending at tick ``Now``, retract the stored goals
#: ``etr_db/5,6`` (``etr_db(End, Start, Occurred, Awaited, Target[, Label])``) and the aggregate goals
#: ``etr_db(aggregate_goal(event(Start_event, [Start, End]), F, Value))`` that started before ``Now - window``.
#: Such a goal can never complete (or update) a result within an ``event_rule_window`` of ``window`` (later events
#: end at ``>= Now``), so the purge changes no result; it is what ceplab's engine does with a window.
_PURGE = r"""
:- dynamic(etr_db/1).
:- dynamic(etr_db/5).
:- dynamic(etr_db/6).
peer_old(datime(_,_,_,_,_,S,_), Lim) :- S < Lim.
peer_purge(Now) :-
    Lim is Now - {window},
    forall(( clause(etr_db(A, B, C, D, E), true), peer_old(B, Lim) ), retract(etr_db(A, B, C, D, E))),
    forall(( clause(etr_db(A, B, C, D, E, L), true), peer_old(B, Lim) ), retract(etr_db(A, B, C, D, E, L))),
    forall(( clause(etr_db(G), true), G = aggregate_goal(event(_, [B, _]), _, _), peer_old(B, Lim) ),
           retract(etr_db(G))).
"""

_DRIVER = r"""
:- set_prolog_flag(verbose_load, silent).
{at_halt}
:- style_check(-singleton).
:- style_check(-discontiguous).
:- dynamic(etr_delf/2).
:- ensure_loaded({etalis}).
{patch}
:- set_etalis_flag(event_consumption_policy, {flag}).
:- set_etalis_flag(logging, off).
:- set_etalis_flag(logging_to_file, off).
:- compile_event_file({rules}).

{purge}
peer_feed([], _, K, K).
peer_feed([ev(E, S, T)|R], Dl, K0, K) :-
    ignore(event(E, [datime(2000,1,1,0,0,S,0), datime(2000,1,1,0,0,T,0)])),
    peer_purge(T),
    K1 is K0 + 1,
    ( K1 mod 1000 =:= 0, get_time(Now), Now > Dl -> K = K1 ; peer_feed(R, Dl, K1, K) ).

peer_read(H, L) :- read_term(H, X, []), ( X == end_of_file -> L = [] ; L = [X|R], peer_read(H, R) ).

peer_tick(datime(_,_,_,_,_,S,_), S) :- !.
peer_tick(X, X).

peer_temp(E) :- functor(E, N, _), atom(N), sub_atom(N, 0, _, _, temp_e_).

peer_main :-
    open({events}, read, H), peer_read(H, Evs), close(H),
    length(Evs, N),
    garbage_collect,
    statistics(cputime, C0), get_time(W0),
    Dl is W0 + {budget},
    peer_feed(Evs, Dl, 0, Fed),
    get_time(W1), statistics(cputime, C1),
    W is W1 - W0, C is C1 - C0,
    open({out}, write, O),
    format(O, "events(~w).~nfed(~w).~nwall(~15f).~ncpu(~15f).~n", [N, Fed, W, C]),
    ( {dump} ->
        forall(( fired_event(E, [D1, D2]), \+ peer_temp(E) ),
               ( peer_tick(D1, S1), peer_tick(D2, S2),
                 write_term(O, f(E, S1, S2), [quoted(true)]), write(O, '.'), nl(O) ))
    ; aggregate_all(count, ( fired_event(E, _), \+ peer_temp(E) ), K), format(O, "count(~w).~n", [K]) ),
    write(O, 'done.'), nl(O),
    close(O).

:- initialization((catch(peer_main, Err, (print_message(error, Err), halt(3))), halt(0)), main).
"""


def _render_events(events: Iterable[StreamEvent]) -> str:
    return "".join(f"ev({e.atom}, {e.start}, {e.end}).\n" for e in events)


def _run_swipl(workdir: Path, rules_src: str, events_src: str, flag: str, dump: bool,
               timeout_s: float, patch: bool = False, budget_s: float | None = None,
               purge_window: int | None = None) -> str:
    reason = unavailable_reason()
    if reason is not None:
        raise PeerError(reason)
    h = home()
    assert h is not None
    rules = workdir / "rules.event"
    evs = workdir / "events.pl"
    out = workdir / "out.pl"
    drv = workdir / "driver.pl"
    rules.write_text(rules_src, encoding="utf-8")
    evs.write_text(events_src, encoding="utf-8")
    drv.write_text(_DRIVER.format(at_halt=_AT_HALT, etalis=_q(h / "src" / "etalis.P"), flag=flag,
                                  rules=_q(rules), events=_q(evs), out=_q(out),
                                  dump="true" if dump else "fail",
                                  patch=_PATCH_DELF if patch else "",
                                  purge=_NO_PURGE if purge_window is None
                                  else _PURGE.replace("{window}", str(int(purge_window))),
                                  budget="1.0e15" if budget_s is None else repr(float(budget_s))), encoding="utf-8")
    cmd = [swipl() or "swipl", "--traditional", "-q", "--no-tty", str(drv)]
    try:
        proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise PeerError(f"ETALIS did not finish within {timeout_s:g} s", err) from None
    if proc.returncode != 0 or not out.is_file():
        raise PeerError(f"swipl exited with status {proc.returncode}", proc.stderr + proc.stdout)
    text = out.read_text(encoding="utf-8")
    if not text.rstrip().endswith("done."):
        raise PeerError("ETALIS output is incomplete", proc.stderr)
    # ETALIS reports rules it could not parse on stdout and goes on; that is a failure for us.
    if "could not parse" in proc.stdout:
        raise PeerError("ETALIS could not parse the rules", proc.stdout)
    return text


_NUM_LINE = re.compile(r"^(events|fed|wall|cpu|count)\((-?[0-9.eE+-]+)\)\.$")


@lru_cache(maxsize=65536)
def _atom_text(prolog_text: str) -> str:
    """``str(EventAtom)`` of an atom as SWI-Prolog's ``writeq`` printed it."""
    from ceplab.semantics.etalis.parser import parse

    try:
        prog = parse(f"peer_h__ <- {prolog_text}.", check=False)
        body = prog.event_rules[0].body
    except Exception as e:  # noqa: BLE001 - anything unreadable is a peer failure
        raise PeerError(f"cannot read ETALIS's event term {prolog_text!r}: {e}") from None
    if not isinstance(body, A.EventAtom):
        raise PeerError(f"ETALIS's event term {prolog_text!r} is not an event atom")
    return str(body)


def _split_f(line: str) -> tuple[str, int, int]:
    # f(ATOM,S1,S2).  -- the two ticks are the last two comma-separated integers
    m = re.match(r"^f\((.*),(-?\d+),(-?\d+)\)\.$", line)
    if not m:
        raise PeerError(f"unreadable ETALIS output line {line!r}")
    return m.group(1), int(m.group(2)), int(m.group(3))


def _flag_for(policy: str, etalis_flag: str | None, patch: bool | None) -> tuple[str, bool]:
    if etalis_flag is not None:
        if etalis_flag not in ETALIS_FLAGS:
            raise UnsupportedError(f"unknown ETALIS event_consumption_policy {etalis_flag!r}; one of {ETALIS_FLAGS}")
        flag = etalis_flag
        auto = False
    elif policy in POLICY_FLAGS:
        flag = POLICY_FLAGS[policy]
        auto = True
    elif policy == "recent":
        raise UnsupportedError("our 'recent' policy (Snoop's recent context: the newest initiator is kept and not "
                          "consumed) has no ETALIS counterpart; ETALIS's own 'recent' consumes the goal it uses "
                          "(run it with etalis_flag='recent')")
    else:
        raise UnsupportedError(f"unknown policy {policy!r}; one of {sorted(POLICY_FLAGS)} or etalis_flag=...")
    use = (auto if patch is None else patch) and flag in ("recent_2", "chronological_2")
    return flag, use


def run_etalis(rules_text: str | A.Program, events: Sequence[StreamEvent], policy: str = "unrestricted",
               timeout_s: float = 60, *, etalis_flag: str | None = None,
               patch_delf: bool | None = None, purge_window: int | None = None) -> PeerResult:
    """Run the real ETALIS on ``rules_text`` and ``events`` and collect what it fired.

    Args:
        rules_text: an ETALIS rule file in our ``.event`` syntax (parsed with
            :func:`ceplab.semantics.etalis.parser.parse` and re-rendered by :func:`etalis_source`), or an already
            parsed :class:`~ceplab.semantics.etalis.ast.Program`.
        events: the stream, in order (ends non-decreasing), integer ticks; each is fed as
            ``event(atom, [datime(2000,1,1,0,0,start,0), datime(2000,1,1,0,0,end,0)])``.
        policy: one of our policy names with an ETALIS counterpart: ``"unrestricted"``,
            ``"chronological"`` (-> ``chronological_2``), ``"recent_lifo"`` (-> ``recent_2``).
        timeout_s: wall-clock limit for the whole swipl run (start-up and compilation included), seconds.
        etalis_flag: run with this ETALIS ``event_consumption_policy`` instead (one of :data:`ETALIS_FLAGS`);
            ``policy`` is then ignored.
        patch_delf: install the adapter's ``etr_delf`` clauses for ``recent_2``/``chronological_2`` (ETALIS
            has none, so without them every consuming operator silently never fires under those flags).
            None (default): only when the flag was reached through ``policy``; ``etalis_flag`` runs ETALIS
            unmodified unless True is given.  Ignored for the other flags.
        purge_window: retract after each event the goals that started more than this many ticks ago
            (:data:`_PURGE`, as :func:`time_program`), or None (default: ETALIS keeps every goal).

    Returns:
        :class:`PeerResult` with the set of derived ``(atom_text, start, end)`` (ticks), the raw number of
        derived firings and the feed loop's wall/CPU time.

    Raises:
        UnsupportedError: ``policy="recent"`` (no ETALIS counterpart), an unknown policy/flag, or a rule construct
            ETALIS cannot express (nested window, time point).
        PeerError: the peer is unavailable, swipl/ETALIS fails, times out, or prints unreadable output.
        ceplab.semantics.errors.ParseError: ``rules_text`` is not a valid rule file.
    """
    from ceplab.semantics.etalis.parser import parse

    flag, patched = _flag_for(policy, etalis_flag, patch_delf)
    program = rules_text if isinstance(rules_text, A.Program) else parse(rules_text, check=False)
    derived = {f"{n}/{k}" for n, k in program.derived_predicates()}
    src = etalis_source(program)
    events = list(events)
    with tempfile.TemporaryDirectory(prefix="ceplab-etalis-") as d:
        text = _run_swipl(Path(d), src, _render_events(events), flag, True, timeout_s, patched,
                          purge_window=purge_window)
    nums: dict[str, float] = {}
    results: dict[tuple[str, int, int], int] = {}
    firings = 0
    for line in text.splitlines():
        line = line.strip()
        if not line or line == "done.":
            continue
        m = _NUM_LINE.match(line)
        if m:
            nums[m.group(1)] = float(m.group(2))
            continue
        atom_src, s, e = _split_f(line)
        atom = _atom_text(atom_src)
        name_arity = _key_of(atom_src)
        if name_arity not in derived:
            continue
        firings += 1
        results[(atom, s, e)] = results.get((atom, s, e), 0) + 1
    return PeerResult(frozenset(results), firings, nums.get("wall", 0.0), nums.get("cpu", 0.0),
                      int(nums.get("events", len(events))), flag, patched, tuple(sorted(results.items())))


def _key_of(prolog_text: str) -> str:
    from ceplab.semantics.etalis.parser import parse

    a = parse(f"peer_h__ <- {prolog_text}.", check=False).event_rules[0].body
    assert isinstance(a, A.EventAtom)
    return f"{a.name}/{len(a.args)}"


# ------------------------------------------------------------------------------------------------ benchmark
def seq_workload(n_events: int, seed: int = 1) -> list[StreamEvent]:
    """``n_events`` point events ``a``/``b`` chosen uniformly at random (``random.Random(seed)``), event ``i``
    at tick ``i``."""
    rng = random.Random(seed)
    out = []
    for i in range(n_events):
        out.append(StreamEvent(A.EventAtom("a" if rng.random() < 0.5 else "b"), i, i, i))
    return out


@dataclass(frozen=True)
class SeqTiming:
    """What :func:`time_seq` measured: the feed loop inside Prolog (swipl start-up, loading ETALIS and
    compiling the rule excluded).

    Attributes:
        events: events fed.
        wall_seconds: wall time of the loop (``get_time/1``), seconds.
        cpu_seconds: CPU time of the loop (``statistics(cputime)``: user CPU of the Prolog thread), seconds.
        flag: the ETALIS ``event_consumption_policy`` used.
        patched: whether the adapter's ``etr_delf`` clauses were installed (see :func:`run_etalis`).
        purge_window: the window of the goal purge (:data:`_PURGE`), or None when ETALIS kept every goal.
    """

    events: int
    wall_seconds: float
    cpu_seconds: float
    flag: str
    patched: bool
    purge_window: int | None


def time_seq(n_events: int, window: int | None = 10, policy: str = "unrestricted", *, seed: int = 1,
             budget_s: float = 120, timeout_s: float | None = None, etalis_flag: str | None = None,
             patch_delf: bool | None = None, purge: bool = False) -> SeqTiming:
    """Time ETALIS on ``d <- a seq b`` (with ``event_rule_window`` = ``window`` when not None) over
    :func:`seq_workload` (``n_events`` random a/b, seed ``seed``), wall and CPU time of the feed loop.

    Args:
        n_events, window, policy, seed, budget_s, timeout_s, etalis_flag, patch_delf: as :func:`bench_seq`.
        purge: after each event, retract the stored goals that can no longer complete within ``window``
            (:data:`_PURGE`; what ceplab's engine does with a window).  Needs a ``window``.

    Returns:
        :class:`SeqTiming`.

    Raises:
        ValueError: ``purge`` without a ``window``.
        PeerError, Unsupported: as :func:`bench_seq`.
    """
    if purge and window is None:
        raise ValueError("the goal purge needs a window")
    flag, patched = _flag_for(policy, etalis_flag, patch_delf)
    rule = "d <- a seq b.\n" if window is None else \
        f"peer_r1([property(event_rule_window, {int(window)})]) 'rule:' d <- a seq b.\n"
    evs = seq_workload(n_events, seed)
    with tempfile.TemporaryDirectory(prefix="ceplab-etalis-") as d:
        text = _run_swipl(Path(d), rule, _render_events(evs), flag, False,
                          budget_s + 120 if timeout_s is None else timeout_s, patched, budget_s,
                          int(window) if purge and window is not None else None)
    nums = {m.group(1): float(m.group(2)) for m in map(_NUM_LINE.match, text.splitlines()) if m}
    wall = nums.get("wall", 0.0)
    fed = int(nums.get("fed", n_events))
    if fed < n_events:
        raise PeerError(f"ETALIS ({flag}{', patched' if patched else ''}) fed only {fed:,} of {n_events:,} events "
                        f"within the {budget_s:g} s budget ({fed / wall if wall > 0 else 0:,.0f} events/s on that "
                        "prefix; its cost grows with the stored goals, which nothing expires)")
    return SeqTiming(n_events, wall, nums.get("cpu", 0.0), flag, patched,
                     int(window) if purge and window is not None else None)


def time_program(rules_text: str | A.Program, events: Sequence[StreamEvent], policy: str = "unrestricted", *,
                 purge_window: int | None = None, budget_s: float = 120, timeout_s: float | None = None,
                 etalis_flag: str | None = None, patch_delf: bool | None = None) -> SeqTiming:
    """Time ETALIS on any rule file and stream (the feed loop only, as :func:`time_seq`): what the benchmark
    compares ceplab's engine with on its other workloads (a rule hierarchy, aggregates).

    Args:
        rules_text: an ETALIS rule file in our syntax, or a parsed program (rendered by :func:`etalis_source`).
        events: the stream, in order.
        policy, etalis_flag, patch_delf: as :func:`run_etalis`.
        purge_window: retract after each event the goals that started more than this many ticks ago
            (:data:`_PURGE`; use the rules' window, which makes the purge change no result), or None.
        budget_s: stop feeding after this many seconds (then :class:`PeerError`).
        timeout_s: wall-clock limit of the whole swipl run (default ``budget_s + 120``).

    Returns:
        :class:`SeqTiming`.

    Raises:
        PeerError: the peer is unavailable or fails, or did not feed the whole stream within ``budget_s``.
        UnsupportedError: as :func:`run_etalis`.
    """
    from ceplab.semantics.etalis.parser import parse

    flag, patched = _flag_for(policy, etalis_flag, patch_delf)
    program = rules_text if isinstance(rules_text, A.Program) else parse(rules_text, check=False)
    events = list(events)
    with tempfile.TemporaryDirectory(prefix="ceplab-etalis-") as d:
        text = _run_swipl(Path(d), etalis_source(program), _render_events(events), flag, False,
                          budget_s + 120 if timeout_s is None else timeout_s, patched, budget_s, purge_window)
    nums = {m.group(1): float(m.group(2)) for m in map(_NUM_LINE.match, text.splitlines()) if m}
    wall = nums.get("wall", 0.0)
    fed = int(nums.get("fed", len(events)))
    if fed < len(events):
        raise PeerError(f"ETALIS ({flag}{', patched' if patched else ''}) fed only {fed:,} of {len(events):,} events "
                        f"within the {budget_s:g} s budget ({fed / wall if wall > 0 else 0:,.0f} events/s on that "
                        "prefix)")
    return SeqTiming(len(events), wall, nums.get("cpu", 0.0), flag, patched, purge_window)


def bench_seq(n_events: int, window: int | None = 10, policy: str = "unrestricted", *, seed: int = 1,
              budget_s: float = 120, timeout_s: float | None = None, etalis_flag: str | None = None,
              patch_delf: bool | None = None, purge: bool = False) -> float:
    """ETALIS throughput on ``d <- a seq b`` (with ``event_rule_window`` = ``window`` when not None) over
    :func:`seq_workload` (``n_events`` random a/b, seed ``seed``).

    Args:
        n_events: stream length.
        window: the rule window in ticks, or None for no window.
        policy: our policy name (mapped by :data:`POLICY_FLAGS`); or give ``etalis_flag``.
        budget_s: wall-clock budget of the feed loop, seconds.  Without ``purge``, ETALIS's ``unrestricted``
            keeps every goal (its window garbage collectors run on the *system* clock through ``alarm/3``, so
            they cannot follow stream ticks), so its cost grows quadratically: about 290 events/s at n = 1,000
            and 35 at n = 10,000 on the development machine, i.e. hours for 100,000.  The loop checks the
            budget every 1,000 events and the call then fails fast instead of running for hours.
        timeout_s: limit for the whole swipl run (default ``budget_s + 120``), seconds.
        etalis_flag, patch_delf: as :func:`run_etalis`.
        purge: as :func:`time_seq`.

    Returns:
        events per second of wall time of the feed loop inside Prolog (start-up and compilation excluded).

    Raises:
        PeerError: as :func:`run_etalis`, and when the budget ran out before the whole stream was fed (the
            message gives the prefix's rate, which is not reported as the result).
        UnsupportedError: as :func:`run_etalis` (e.g. ``policy="recent"``).
    """
    t = time_seq(n_events, window, policy, seed=seed, budget_s=budget_s, timeout_s=timeout_s,
                 etalis_flag=etalis_flag, patch_delf=patch_delf, purge=purge)
    return n_events / t.wall_seconds if t.wall_seconds > 0 else float("inf")
