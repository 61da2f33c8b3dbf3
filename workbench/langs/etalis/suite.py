"""ETALIS's own example suite as a regression check (issue 14 item 5): ``ceplab papers-check etalis --suite DIR``.

The ETALIS source tree (github.com/sspider/etalis, ``etalis/examples``; not part of ceplab, none of it is copied
here) ships about 85 self-checking examples: a directory ``<name>/`` with a rule file (``test_01.event``) and a
script (``test.sh.bat``, sometimes several) whose lines ``swipl -g "GOAL"`` load ETALIS, may set flags, compile
the rule file, feed events and check what fired, e.g. (``and_01``)::

    swipl -g "open('../results.txt',append,FH), ['../../src/etalis.P'], set_etalis_flag(store_fired_events,on),
      compile_event_file('test_01.event'), event(a(1)), event(b(1)), event(c(1)),
      findall(stored_event(event(d(1),T)), stored_event(event(d(1),T)), List),
      ( List = [stored_event(event(d(1),[datime(_,_,_,_,_,_,_),datime(_,_,_,_,_,_,_)])), ...] -> write(..passed..)
      ; write(..failed..) ), halt."

Reading (:func:`read_goal`, no ETALIS or Prolog needed).  A goal line is read as a Prolog term by the small
reader of this module (:func:`read_term`: standard operator table, quoted atoms, strings, lists) and walked as a
conjunction:

* ``set_etalis_flag(event_consumption_policy, F)`` gives the example's policy (:attr:`Goal.policy`); the
  output/logging flags of :data:`HARMLESS_FLAGS` are ignored; every other flag is a feature (:data:`FLAG_FEATURES`:
  garbage collection, ``out_of_order``, justification, the Java interface, other Prolog back-ends, ...);
* ``compile_event_file(F)`` / ``compile_events(F)`` names the rule file; ``execute_event_stream_file(F)`` feeds the
  ``event(..)`` terms of a stream file in place;
* ``event(A)`` feeds ``A`` at the next clock tick (1, 2, 3, ...: ETALIS stamps it with the system clock and a
  counter, so consecutive events are strictly ordered); ``event(A, [T1, T2])`` with integers feeds it on
  ``[T1, T2]``; a mix of the two is a feature (ETALIS compares an integer with a ``datime`` by no clause);
  ``sleep(N)`` only lets the clock run (the order is what the tick model keeps);
* ``findall(_, stored_event(event(P, T)), L)`` (or over ``fired_event(P, T)``) makes ``P`` a *checked* pattern;
  a later ``L = [stored_event(event(A, I)), ...]`` inside ``( Cond -> ... ; ... )`` is its expected list (atoms
  ``A`` with their multiplicity, intervals ``I`` where written with integers), and ``stored_event(event(P, T))``
  as a condition expects at least one ``P``;
* the consulted ``src/etalis.P``, ``open/3``, ``write``, ``nl``, ``halt`` ... are ignored; any other goal, a
  consulted file (EP-SPARQL, user Prolog), another Prolog system (``yappl``, ``sicstus``, ``xsb``), or no rule
  file compiled is a feature.

The rule file is read with ceplab's own parser (:func:`rule_features`): a construct outside the paper's language
is named by the parser's error (``unknown operator 'check'``, ``fnot``, ``star_times``, ...), or found in the
parsed rules: the functors ``aggregate(..)`` and ``prolog(..)`` in rule bodies (user Prolog; ceplab reads them
as event names today), ETALIS's alarm heads (``exceptionAlarm``), the garbage collector's rule properties
``window``/``window_step``, and a window over clock time stamps (ETALIS measures it in wall-clock seconds, which the
tick model cannot reproduce).  ``cnot`` is ceplab's ``not``; ``print_*`` directives have no effect.

Running (:func:`run_example`).  Each runnable example is run three times on the same rules and stream:

* ceplab's oracle and engine through the plugin (:data:`ceplab.workbench.langs.etalis.LANGUAGE`, passed in by
  the plugin or found in the registry,
  :func:`ceplab.workbench.compare.run_oracle` / :func:`~ceplab.workbench.compare.run_engine`) under the
  implementation profile ``PROFILES["etalis-implementation"]``
  (:mod:`ceplab.semantics.etalis.options`) with the example's own policy flag overriding the profile's policy,
  mapped by :data:`ceplab.semantics.etalis.policies.ETALIS_POLICY_FLAGS` (ETALIS's ``recent`` is ceplab's
  ``recent_lifo`` and its ``chronological`` is ``chronological``, both with ``goal_replacement="same_values"``;
  ``recent_2``/``chronological_2`` without it; see :mod:`.peer` for what the flags do);
* the real ETALIS through the peer adapter (:func:`ceplab.workbench.langs.etalis.peer.run_etalis`) with the
  example's flag as it is written (ETALIS's default ``recent`` when none), unmodified.

and the results are compared as **sets** of ``(atom, start, end)`` restricted to the checked patterns (every
derived predicate when the goal checks none).  ETALIS fires a complex event once per derivation; its multiplicity
and the expected list's are reported beside the sets, as information only.

Verdicts (:class:`Verdict`): ``agree`` (oracle = engine = ETALIS, and = the expectation where one is given:
every fired result matches an expected item and every item is matched), ``differs`` (the differing sets are
listed; when the three agree and only the example's own check fails, the row says that ETALIS fails it too),
``outside`` (the feature names; the first one is the *primary* feature counted in the summary), ``error`` (the
message: an unreadable example or rule file, ETALIS failing, an undecided oracle).  An example directory with
several goal lines gives one row per line (``meets_01#2``; ``prolog_01/test_swi`` when it has several scripts).
Where ETALIS and ceplab differ under a consumption policy the row notes what ETALIS's flag does
(:func:`_policy_notes`): ``recent``/``chronological`` keep one goal per key; ``recent_2``/``chronological_2`` fire
nothing consuming (ETALIS has no ``etr_delf`` clauses for them), and the note gives what the adapter's clauses
(``patch_delf``) make ETALIS fire.

What ETALIS's suite shows (Rev 884, SWI-Prolog 9; ``tests/etalis/test_etalis_suite.py`` keeps the agreeing runs
agreeing): most runs are outside the paper's language (EP-SPARQL, user Prolog, justification, other Prolog
systems, ...); the runnable ones agree under the profile (its readings of ``par``/``starts``/``finishes``, of the
goals ``recent``/``chronological`` replace and of the ``min``/``max`` aggregates are switches) except under ETALIS's
broken ``recent_2``/``chronological_2``, and where the example's own check fails on ETALIS too (``meets_0x`` check an ``f`` their rules do
not define, ``where_01`` omits a result, ``where_02``/``correctness_1`` expect what the unrestricted policy would
give).  Aggregates and static goals (``prolog(..)``) are in ceplab's language (docs/semantics/etalis.md#etalis-4.4);
a static goal calling a Prolog predicate the rule base does not define is outside (ceplab's parser names it).

Sources: ETALIS's ``etalis/src/etalis.P`` (``event/1,2``, ``execute_event_stream_file/1``), ``logging.P``
(``stored_event/1`` is asserted beside every ``fired_event/2``), ``date_time.P`` (``less_datime/2``), ``flags.P``.
"""
from __future__ import annotations

import dataclasses
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

from ceplab.semantics.errors import CeplabError, ParseError, PeerError, UnsupportedError

# ================================================================================================ Prolog terms


@dataclass(frozen=True)
class PVar:
    """A Prolog variable; ``_`` is anonymous."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class PAtom:
    """A Prolog atom (``[]`` is the empty list)."""
    name: str

    def __str__(self) -> str:
        return self.name if self.name == "[]" else _quote(self.name)


@dataclass(frozen=True)
class PNum:
    """An integer or a float."""
    value: Union[int, float]

    def __str__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class PStr:
    """A double-quoted string."""
    value: str

    def __str__(self) -> str:
        return '"' + self.value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class PStruct:
    """A compound term ``name(args..)`` (operators included: ``','(A, B)``, ``'->'(C, T)``)."""
    name: str
    args: tuple["PTerm", ...]

    def __str__(self) -> str:
        return f"{_quote(self.name)}({','.join(map(str, self.args))})"


@dataclass(frozen=True)
class PList:
    """A list ``[items.. | tail]`` (``tail`` None for a proper list)."""
    items: tuple["PTerm", ...]
    tail: Optional["PTerm"] = None

    def __str__(self) -> str:
        t = "" if self.tail is None else f"|{self.tail}"
        return "[" + ",".join(map(str, self.items)) + t + "]"


PTerm = Union[PVar, PAtom, PNum, PStr, PStruct, PList]


def _quote(name: str) -> str:
    from ceplab.semantics.etalis.ast import quote_atom

    return quote_atom(name)


class TermSyntaxError(ValueError):
    """Text that :func:`read_term` cannot read (message with the character offset)."""


_TOKEN = re.compile(r"""
   (?P<ws>\s+|%[^\n]*|/\*.*?\*/)
 | (?P<num>\d+\.\d+(?:[eE][+-]?\d+)?|\d+)
 | (?P<var>[A-Z_][A-Za-z0-9_]*)
 | (?P<name>[a-z][A-Za-z0-9_]*)
 | (?P<q>'(?:[^'\\]|\\.|'')*')
 | (?P<str>"(?:[^"\\]|\\.|"")*")
 | (?P<punct>[()\[\]{},|])
 | (?P<solo>[!;])
 | (?P<sym>[-+*/\\^<>=~:.?@#&$]+)
""", re.X | re.S)

#: Infix operators: name -> (priority, type) (ISO/SWI-Prolog's table, the part goal lines use).
_INFIX = {":-": (1200, "xfx"), "-->": (1200, "xfx"), ";": (1100, "xfy"), "|": (1100, "xfy"),
          "->": (1050, "xfy"), "*->": (1050, "xfy"), ",": (1000, "xfy"),
          **{op: (700, "xfx") for op in ("=", "\\=", "==", "\\==", "@<", "@>", "@=<", "@>=", "=..", "is", "=:=",
                                         "=\\=", "<", ">", "=<", ">=")},
          ":": (200, "xfy"), "+": (500, "yfx"), "-": (500, "yfx"), "/\\": (500, "yfx"), "\\/": (500, "yfx"),
          "xor": (500, "yfx"), "*": (400, "yfx"), "/": (400, "yfx"), "//": (400, "yfx"), "mod": (400, "yfx"),
          "rem": (400, "yfx"), "div": (400, "yfx"), "<<": (400, "yfx"), ">>": (400, "yfx"), "**": (200, "xfx"),
          "^": (200, "xfy")}
#: Prefix operators: name -> (priority, type).
_PREFIX = {":-": (1200, "fx"), "?-": (1200, "fx"), "\\+": (900, "fy"), "-": (200, "fy"), "+": (200, "fy"),
           "\\": (200, "fy")}
_ESC = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "v": "\v",
        "0": "\0", "r": "\r"}


@dataclass(frozen=True)
class _Tok:
    kind: str      # num var name q str punct solo sym end
    text: str
    at: int
    layout: bool   # white space (or a comment) right before it


def _unescape(body: str, q: str) -> str:
    body = body.replace(q + q, q)
    return re.sub(r"\\(.)", lambda m: _ESC.get(m.group(1), m.group(1)), body)


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    i, n, layout = 0, len(text), True
    while i < n:
        m = _TOKEN.match(text, i)
        if m is None:
            raise TermSyntaxError(f"unexpected character {text[i]!r} at offset {i}")
        kind = m.lastgroup or ""
        s = m.group(0)
        if kind == "ws":
            layout = True
        else:
            if kind == "sym" and s == "." and (m.end() >= n or text[m.end()].isspace() or text[m.end()] == "%"):
                kind = "end"
            out.append(_Tok(kind, s, i, layout))
            layout = False
        i = m.end()
    return out


class _Reader:
    """Operator-precedence reader over :func:`_tokens` (one term or a sequence of clauses)."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> Optional[_Tok]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> _Tok:
        t = self.peek()
        if t is None:
            raise TermSyntaxError("unexpected end of the text")
        self.i += 1
        return t

    def expect(self, text: str) -> None:
        t = self.take()
        if t.text != text or t.kind not in ("punct", "sym", "solo"):
            raise TermSyntaxError(f"expected {text!r} at offset {t.at}, got {t.text!r}")

    def _atom_text(self, t: _Tok) -> Optional[str]:
        if t.kind in ("name", "sym", "solo"):
            return t.text
        if t.kind == "q":
            return _unescape(t.text[1:-1], "'")
        if t.kind == "punct" and t.text in (",", "|"):
            return t.text
        return None

    def _starts_term(self, t: Optional[_Tok]) -> bool:
        if t is None or t.kind == "end":
            return False
        if t.kind in ("num", "var", "str", "name", "q"):
            return True
        if t.kind == "punct":
            return t.text in ("(", "[", "{")
        return t.text in _PREFIX or t.text == "!"

    def term(self, maxp: int = 1200) -> tuple[PTerm, int]:
        left, lp = self.primary(maxp)
        while True:
            t = self.peek()
            if t is None or t.kind == "end" or t.kind == "q":
                break
            name = self._atom_text(t)
            if name is None or name not in _INFIX:
                break
            p, typ = _INFIX[name]
            la = p if typ == "yfx" else p - 1
            ra = p if typ == "xfy" else p - 1
            if p > maxp or lp > la:
                break
            self.take()
            right, _ = self.term(ra)
            left, lp = PStruct(name, (left, right)), p
        return left, lp

    def _args(self) -> tuple[PTerm, ...]:
        self.expect("(")
        args = [self.term(999)[0]]
        while self.peek() is not None and self.peek().text == "," and self.peek().kind == "punct":
            self.take()
            args.append(self.term(999)[0])
        self.expect(")")
        return tuple(args)

    def primary(self, maxp: int) -> tuple[PTerm, int]:
        t = self.take()
        if t.kind == "num":
            return PNum(float(t.text) if "." in t.text or "e" in t.text.lower() else int(t.text)), 0
        if t.kind == "var":
            return PVar(t.text), 0
        if t.kind == "str":
            return PStr(_unescape(t.text[1:-1], '"')), 0
        if t.kind == "punct" and t.text == "(":
            inner, _ = self.term(1200)
            self.expect(")")
            return inner, 0
        if t.kind == "punct" and t.text == "[":
            nxt = self.peek()
            if nxt is not None and nxt.kind == "punct" and nxt.text == "]":
                self.take()
                return PAtom("[]"), 0
            items = [self.term(999)[0]]
            tail = None
            while True:
                nxt = self.take()
                if nxt.kind == "punct" and nxt.text == ",":
                    items.append(self.term(999)[0])
                elif nxt.kind == "punct" and nxt.text == "|":
                    tail = self.term(999)[0]
                    self.expect("]")
                    break
                elif nxt.kind == "punct" and nxt.text == "]":
                    break
                else:
                    raise TermSyntaxError(f"expected ',', '|' or ']' at offset {nxt.at}, got {nxt.text!r}")
            return PList(tuple(items), tail), 0
        if t.kind == "punct" and t.text == "{":
            inner, _ = self.term(1200)
            self.expect("}")
            return PStruct("{}", (inner,)), 0
        name = self._atom_text(t)
        if name is None or t.kind == "end" or (t.kind == "punct" and t.text in (",", "|")):
            raise TermSyntaxError(f"unexpected {t.text!r} at offset {t.at}")
        nxt = self.peek()
        if nxt is not None and nxt.kind == "punct" and nxt.text == "(" and not nxt.layout:
            return PStruct(name, self._args()), 0
        if t.kind == "sym" and name in ("-", "+") and nxt is not None and nxt.kind == "num" and not nxt.layout:
            self.take()
            v = float(nxt.text) if "." in nxt.text else int(nxt.text)
            return PNum(-v if name == "-" else v), 0
        if t.kind != "q" and name in _PREFIX and self._starts_term(nxt) and not (
                nxt is not None and self._atom_text(nxt) in _INFIX and not self._starts_prefix_operand(nxt)):
            p, typ = _PREFIX[name]
            p = min(p, maxp)
            arg, _ = self.term(p if typ == "fy" else p - 1)
            return PStruct(name, (arg,)), p
        return PAtom(name), 0

    def _starts_prefix_operand(self, t: _Tok) -> bool:
        """A token that is an infix operator but still starts the operand of a prefix operator (``- (X)``,
        ``\\+ -1``): an atom applied to arguments or a prefix operator itself."""
        nxt = self.peek(1)
        return (nxt is not None and nxt.kind == "punct" and nxt.text == "(" and not nxt.layout) or \
            t.text in _PREFIX


def read_term(text: str) -> PTerm:
    """One Prolog term (an optional final ``.`` is allowed).

    Raises:
        TermSyntaxError: the text is not one term.
    """
    r = _Reader(text)
    t, _ = r.term(1200)
    rest = r.peek()
    if rest is not None and rest.kind == "end":
        r.take()
        rest = r.peek()
    if rest is not None:
        raise TermSyntaxError(f"unexpected {rest.text!r} at offset {rest.at} after the term")
    return t


def read_clauses(text: str) -> list[PTerm]:
    """The clauses of a Prolog text (terms each ending with ``.``), e.g. an ETALIS ``.stream`` file.

    Raises:
        TermSyntaxError: a clause cannot be read.
    """
    r = _Reader(text)
    out = []
    while r.peek() is not None:
        t, _ = r.term(1200)
        end = r.take()
        if end.kind != "end":
            raise TermSyntaxError(f"expected '.' at offset {end.at}, got {end.text!r}")
        out.append(t)
    return out


def conjuncts(t: PTerm) -> Iterator[PTerm]:
    """The goals of a conjunction ``(A, B, ..)``, nested conjunctions flattened."""
    if isinstance(t, PStruct) and t.name == "," and len(t.args) == 2:
        yield from conjuncts(t.args[0])
        yield from conjuncts(t.args[1])
    else:
        yield t


def _key(t: PTerm) -> str:
    if isinstance(t, PStruct):
        return f"{t.name}/{len(t.args)}"
    if isinstance(t, PAtom):
        return f"{t.name}/0"
    return str(t)


def _ground(t: PTerm) -> bool:
    if isinstance(t, PVar):
        return False
    if isinstance(t, PStruct):
        return all(map(_ground, t.args))
    if isinstance(t, PList):
        return all(map(_ground, t.items)) and (t.tail is None or _ground(t.tail))
    return True


def _anon(t: PTerm) -> PTerm:
    """``t`` with every variable that is not named (``_``, ``_G12``) written ``_``."""
    if isinstance(t, PVar):
        return PVar("_") if t.name.startswith("_") else t
    if isinstance(t, PStruct):
        return PStruct(t.name, tuple(map(_anon, t.args)))
    if isinstance(t, PList):
        return PList(tuple(map(_anon, t.items)), None if t.tail is None else _anon(t.tail))
    return t


# ================================================================================================ goal lines

#: ``set_etalis_flag`` names that change only output, logging and storage (ignored).
HARMLESS_FLAGS = frozenset({"output_temporary_files", "logging_to_file", "logging", "store_fired_events",
                            "db_trace"})
#: Other flags -> the feature they are counted as (a flag not listed is the feature ``flag NAME``).
FLAG_FEATURES = {"garbage_control": "garbage collection", "garbage_window": "garbage collection",
                 "garbage_window_step": "garbage collection", "out_of_order": "out_of_order",
                 "etalis_justification": "justification", "store_fired_events_java": "Java interface",
                 "prolog_backend": "other Prolog system", "rule_sharing": "rule_sharing",
                 "rule_sharing_debuging": "rule_sharing", "binarization_flag": "binarization_flag",
                 "subPatterns": "sub-patterns (nested rules)"}
#: Goals that are ignored (output, files, the end).
IGNORED_GOALS = frozenset({"open/3", "close/1", "halt/0", "nl/0", "nl/1", "write/1", "write/2", "writeln/1",
                           "print/1", "flush_output/0", "use_module/1", "=/2", "true/0", "reset_log_file/1"})
#: Goals of other shapes -> the feature they are counted as (others: ``goal NAME/ARITY``).
GOAL_FEATURES = {"fire_events_java/2": "Java interface", "justify_event/3": "justification",
                 "write_justification/1": "justification", "write_justification_udraw/3": "justification",
                 "load_static_rules/1": "user Prolog (load_static_rules)",
                 "load_database/1": "user Prolog (load_database)", "retractall_stored_events/0": "state reset",
                 "reset_etalis_state/0": "state reset", "query_planner/2": "query planner",
                 "ep_sparql_parse/2": "EP-SPARQL", "ep_sparql_parse/3": "EP-SPARQL"}
#: Prolog systems a script may start; ETALIS runs here on SWI-Prolog only.
PROLOG_SYSTEMS = ("swipl", "yappl", "yap", "sicstus", "xsb")
_GOAL_LINE = re.compile(r"""^\s*(?P<exe>swipl|yappl|yap|sicstus|xsb)\b[^"]*?\s(?:-g|--goal|-e)\s+"(?P<goal>.*)"\s*$""")


@dataclass(frozen=True)
class Feed:
    """One event fed by the goal: the ground atom's text (``a(1)``) and its interval, or None for the clock.

    ``counter`` is set for ``datime`` time stamps: ``start``/``end`` are then seconds since the epoch (made relative
    to the first event by :func:`_assign_ticks`) and ``counter`` the pair of ``datime`` counters (ETALIS orders
    events within one second by them)."""
    atom: str
    start: Optional[int] = None
    end: Optional[int] = None
    counter: Optional[tuple[int, int]] = None


@dataclass(frozen=True)
class StreamFileFeed:
    """``execute_event_stream_file(File)``: the file's events are fed here (read by :func:`read_example`)."""
    file: str


@dataclass(frozen=True)
class Expected:
    """One item of an expected list: the atom as written (variables kept, unnamed ones as ``_``) and the
    interval where the goal gives it in integers (else None)."""
    atom: str
    start: Optional[int] = None
    end: Optional[int] = None

    def __str__(self) -> str:
        return self.atom + ("" if self.start is None else f"[{self.start},{self.end}]")


@dataclass(frozen=True)
class Check:
    """What the goal checks about one pattern.

    Attributes:
        pattern: the event term of ``findall(_, stored_event(event(P, T)), L)`` (or of ``stored_event(event(P, T))``
            as a condition), as written (``d(X)``, ``d(1)``).
        expected: the list ``L`` is compared with (items in order, repeated as written), or None when the goal
            does not compare it (it only prints it).
        exists: the condition is ``stored_event(event(P, T))``: at least one matching event.
    """
    pattern: str
    expected: Optional[tuple[Expected, ...]] = None
    exists: bool = False


@dataclass(frozen=True)
class Goal:
    """What one goal line does (:func:`read_goal`).

    Attributes:
        prolog: the Prolog system the line starts (``swipl``).
        rules_file: the file given to ``compile_event_file``/``compile_events``, or None.
        policy: the ``event_consumption_policy`` flag the goal sets, or None (ETALIS's default ``recent``).
        flags: every ``set_etalis_flag(NAME, VALUE)``, in order, as text pairs.
        feeds: the events fed in order (:class:`Feed`, :class:`StreamFileFeed`).
        checks: the checked patterns and their expectations.
        features: what puts the line outside the paper's language or outside the shapes read here: other Prolog
            systems, consulted files, flags, ETALIS services, time stamps (empty: none).
        shape: goals and checks of other shapes (``goal NAME/ARITY``, ``check ...``), listed after the rule file's
            features (:attr:`Example.features`).
        notes: decisions taken while reading (printed in the JSON output).
    """
    prolog: str = "swipl"
    rules_file: Optional[str] = None
    policy: Optional[str] = None
    flags: tuple[tuple[str, str], ...] = ()
    feeds: tuple[Union[Feed, StreamFileFeed], ...] = ()
    checks: tuple[Check, ...] = ()
    features: tuple[str, ...] = ()
    shape: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def goal_lines(script: str) -> list[tuple[str, str]]:
    """The ``(prolog, goal text)`` of every line of a ``test.sh.bat`` that starts a Prolog system with a goal
    (``swipl -g "GOAL"``); comment lines (``%``, ``#``, ``rem``, ``::``) are skipped."""
    out = []
    for line in script.splitlines():
        s = line.strip()
        if not s or s.startswith(("%", "#", "::")) or s.lower().startswith("rem "):
            continue
        m = _GOAL_LINE.match(s)
        if m:
            out.append((m.group("exe"), m.group("goal")))
    return out


def _event_item(t: PTerm) -> tuple[PTerm, PTerm] | None:
    """``stored_event(event(A, I))`` / ``event(A, I)`` -> ``(A, I)``."""
    if isinstance(t, PStruct) and t.name == "stored_event" and len(t.args) == 1:
        t = t.args[0]
    if isinstance(t, PStruct) and t.name == "event" and len(t.args) == 2:
        return t.args[0], t.args[1]
    return None


def _int_interval(i: PTerm) -> tuple[Optional[int], Optional[int]]:
    if isinstance(i, PList) and i.tail is None and len(i.items) == 2 and \
            all(isinstance(x, PNum) and isinstance(x.value, int) for x in i.items):
        return i.items[0].value, i.items[1].value   # type: ignore[union-attr]
    return None, None


def _checked_goal(g: PTerm) -> Optional[PTerm]:
    """The event pattern of ``stored_event(event(P, T))`` or ``fired_event(P, T)``."""
    if isinstance(g, PStruct) and g.name == "fired_event" and len(g.args) == 2:
        return g.args[0]
    it = _event_item(g) if isinstance(g, PStruct) and g.name == "stored_event" else None
    return it[0] if it else None


def read_goal(text: str, prolog: str = "swipl") -> Goal:
    """Read one goal line (the text between the quotes of ``swipl -g "..."``; see the module docstring).

    Args:
        text: the goal, e.g. ``"['../../src/etalis.P'], compile_event_file('t.event'), event(a), halt."``.
        prolog: the Prolog system the script starts; anything but ``swipl`` is a feature.

    Returns:
        :class:`Goal`.

    Raises:
        TermSyntaxError: the goal is not a Prolog term.
    """
    term = read_term(text)
    features: list[str] = []
    notes: list[str] = []
    flags: list[tuple[str, str]] = []
    feeds: list[Union[Feed, StreamFileFeed]] = []
    checks: list[Check] = []
    pending: dict[str, int] = {}          # findall list variable -> index in checks
    rules_file: Optional[str] = None
    policy: Optional[str] = None
    unknown: list[str] = []

    def feature(f: str) -> None:
        if f not in features and not (f.startswith("other Prolog system")
                                      and any(x.startswith("other Prolog system") for x in features)):
            features.append(f)

    if prolog != "swipl":
        feature(f"other Prolog system ({prolog})")

    def findall(g: PStruct) -> None:
        _tmpl, goal, lst = g.args
        pat = _checked_goal(goal)
        if pat is None:
            unknown.append(f"goal {_key(goal)}" if isinstance(goal, (PStruct, PAtom)) else f"goal {goal}")
            return
        if isinstance(lst, PVar):
            pending[lst.name] = len(checks)
            checks.append(Check(str(_anon(pat))))
        else:
            unknown.append("findall with a literal result list")

    def condition(c: PTerm) -> None:
        for x in conjuncts(c):
            if isinstance(x, PStruct) and x.name in ("=", "==") and len(x.args) == 2:
                a, b = x.args
                if isinstance(b, PVar) and not isinstance(a, PVar):
                    a, b = b, a
                if isinstance(a, PVar) and a.name in pending and isinstance(b, (PList, PAtom)):
                    items = b.items if isinstance(b, PList) else ()
                    if isinstance(b, PAtom) and b.name != "[]" or isinstance(b, PList) and b.tail is not None:
                        unknown.append(f"check {a} {x.name} {b}")
                        continue
                    exp = []
                    for it in items:
                        ev = _event_item(it)
                        if ev is None:
                            unknown.append(f"expected item {it}")
                            continue
                        s, e = _int_interval(ev[1])
                        exp.append(Expected(str(_anon(ev[0])), s, e))
                    k = pending[a.name]
                    checks[k] = dataclasses.replace(checks[k], expected=tuple(exp))
                    continue
                unknown.append(f"check {a} {x.name} {b}")
                continue
            pat = _checked_goal(x)
            if pat is not None and isinstance(x, PStruct) and x.name == "stored_event":
                checks.append(Check(str(_anon(pat)), exists=True))
                continue
            if isinstance(x, PStruct) and x.name == "findall" and len(x.args) == 3:
                findall(x)
                continue
            unknown.append(f"check {_key(x)}")

    for g in conjuncts(term):
        k = _key(g)
        if isinstance(g, PList):                      # consult
            for f in g.items:
                name = f.name if isinstance(f, PAtom) else str(f)
                if name.replace("\\", "/").endswith("src/etalis.P"):
                    continue
                if "ep_sparql" in name:
                    feature("EP-SPARQL")
                else:
                    feature(f"user Prolog (consults {Path(name).name})")
            continue
        if k in IGNORED_GOALS:
            continue
        if k == "set_etalis_flag/2":
            n, v = (str(a) if not isinstance(a, PAtom) else a.name for a in g.args)   # type: ignore[union-attr]
            flags.append((n, v))
            if n == "prolog_backend":
                feature(f"other Prolog system ({v})")
            elif n == "event_consumption_policy":
                if rules_file is not None and v != "recent":
                    feature("event_consumption_policy set after compile_event_file")
                elif rules_file is not None:
                    notes.append("event_consumption_policy recent set after compile_event_file (ETALIS's default)")
                policy = v
            elif n not in HARMLESS_FLAGS:
                feature(FLAG_FEATURES.get(n, f"flag {n}"))
            continue
        if k in ("compile_event_file/1", "compile_events/1"):
            a = g.args[0]                                                           # type: ignore[union-attr]
            if rules_file is not None:
                feature("several rule files")
            rules_file = a.name if isinstance(a, PAtom) else str(a)
            continue
        if k == "execute_event_stream_file/1":
            a = g.args[0]                                                           # type: ignore[union-attr]
            feeds.append(StreamFileFeed(a.name if isinstance(a, PAtom) else str(a)))
            continue
        if k in ("event/1", "event/2", "sleep/1"):
            f = _feed(g, notes)                                                     # type: ignore[arg-type]
            if isinstance(f, str):
                feature(f)
            elif f is not None:
                feeds.append(f)
            continue
        if k == "findall/3":
            findall(g)                                                              # type: ignore[arg-type]
            continue
        if isinstance(g, PStruct) and g.name in (";", "->") and len(g.args) == 2:
            ite = g.args[0] if g.name == ";" else g
            if isinstance(ite, PStruct) and ite.name == "->" and len(ite.args) == 2:
                condition(ite.args[0])
                continue
        if k in GOAL_FEATURES:
            feature(GOAL_FEATURES[k])
            continue
        unknown.append(f"goal {k}")
    if rules_file is None and not features:
        feature("no rule file compiled" + (f" (calls {unknown[0].split()[-1]})" if unknown else ""))
        unknown = []
    if any(isinstance(f, Feed) and f.start is None for f in feeds) and \
            any(isinstance(f, Feed) and f.start is not None for f in feeds):
        feature("explicit and clock time stamps mixed")
    return Goal(prolog, rules_file, policy, tuple(flags), tuple(feeds), tuple(checks), tuple(features),
                tuple(dict.fromkeys(unknown)), tuple(notes))


def _feed(g: PStruct, notes: list[str]) -> Union[Feed, str, None]:
    """A :class:`Feed` from ``event(A)``, ``event(A, [T1,T2])`` or ``event(event(A, I))``; ``sleep(N)`` gives
    None (a note); a string names the feature of another shape."""
    if g.name == "sleep":
        notes.append(f"sleep({g.args[0]}): the clock runs on; only the order of clock time stamps is kept")
        return None
    if len(g.args) == 1 and _event_item(g.args[0]) is not None and \
            isinstance(g.args[0], PStruct) and g.args[0].name == "event":
        g = g.args[0]
    atom = g.args[0]
    if not _ground(atom) or not isinstance(atom, (PAtom, PStruct)):
        return f"non-ground event {atom}"
    if len(g.args) == 1:
        return Feed(str(atom))
    s, e = _int_interval(g.args[1])
    if s is not None and e is not None:
        return Feed(str(atom), s, e)
    t = g.args[1]
    if isinstance(t, PNum):
        return "event/2 with a counter"
    d = [_datime(x) for x in t.items] if isinstance(t, PList) and t.tail is None and len(t.items) == 2 else None
    if d is None or None in d:
        return f"time stamps {t}"
    (s, cs), (e, ce) = d                                                            # type: ignore[misc]
    return Feed(str(atom), s, e, (cs, ce))


def _datime(t: PTerm) -> Optional[tuple[int, int]]:
    """``datime(Y,M,D,H,Min,S,Counter)`` (or without the counter) -> (seconds since the epoch, counter)."""
    import calendar

    if not (isinstance(t, PStruct) and t.name == "datime" and len(t.args) in (6, 7)
            and all(isinstance(a, PNum) and isinstance(a.value, int) for a in t.args)):
        return None
    y, mo, d, h, mi, sec = (a.value for a in t.args[:6])                            # type: ignore[union-attr]
    try:
        base = calendar.timegm((y, mo, d, 0, 0, 0, 0, 0, 0))
    except (ValueError, OverflowError):
        return None
    return base + 3600 * h + 60 * mi + sec, (t.args[6].value if len(t.args) == 7 else 0)  # type: ignore[union-attr]


# ================================================================================================ examples


@dataclass(frozen=True)
class Example:
    """One run of one example: a goal line of a script in ``DIR/<name>/``.

    Attributes:
        name: ``<dir>``, ``<dir>#k`` (k-th goal line of the script) or ``<dir>/<script stem>[#k]`` (several
            scripts).
        directory: the example's directory.
        goal: the goal line read, or None when unreadable (see ``error``).
        goal_text: the goal as written.
        rules_text: the rule file's text, or None.
        events: the stream (``(atom, start, end)`` with ticks assigned, stream files read), or None.
        features: the goal's features (:attr:`Goal.features`, stream files included), then the rule file's
            (:func:`rule_features`), then the goal's other shapes (:attr:`Goal.shape`); the first is the primary one.
        error: why the example cannot be read (an unreadable script, goal, rule or stream file), or None.
        notes: the goal's notes and the reader's own.
    """
    name: str
    directory: Path
    goal: Optional[Goal] = None
    goal_text: str = ""
    rules_text: Optional[str] = None
    events: Optional[tuple[tuple[str, int, int], ...]] = None
    features: tuple[str, ...] = ()
    error: Optional[str] = None
    notes: tuple[str, ...] = ()


def _read_text(p: Path) -> str:
    data = p.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _stem(script: Path) -> str:
    n = script.name
    for suf in (".sh.bat", ".bat", ".sh"):
        if n.endswith(suf):
            return n[: -len(suf)]
    return n


def _stream_file_feeds(path: Path) -> list[Union[Feed, str]]:
    """The ``event(..)`` terms of an ETALIS stream file (``execute_event_stream_file``); a string names a
    feature.  Raises OSError, TermSyntaxError."""
    out: list[Union[Feed, str]] = []
    notes: list[str] = []
    for t in read_clauses(_read_text(path)):
        if isinstance(t, PAtom) and t.name in ("halt", "end_of_file"):
            continue
        if isinstance(t, PStruct) and t.name in ("event", "sleep") and len(t.args) in (1, 2):
            f = _feed(t, notes)
            if f is not None:
                out.append(f)
            continue
        out.append(f"stream file term {_key(t)}")
    return out


def _assign_ticks(feeds: Sequence[Feed]) -> list[tuple[str, int, int]]:
    """Clock events get ticks 1, 2, 3, ... (after the last end); explicit intervals are kept; ``datime`` seconds
    become ticks counted from 1 at the earliest one (ETALIS's windows count seconds, and so do ticks)."""
    base = min((f.start for f in feeds if f.counter is not None and f.start is not None), default=1) - 1
    feeds = [dataclasses.replace(f, start=f.start - base, end=(f.end or f.start) - base)
             if f.counter is not None and f.start is not None else f for f in feeds]
    out = []
    last = 0
    for f in feeds:
        if f.start is None:
            last += 1
            out.append((f.atom, last, last))
        else:
            out.append((f.atom, int(f.start), int(f.end if f.end is not None else f.start)))
            last = max(last, out[-1][2])
    return out


def read_example(name: str, directory: Path, prolog: str, goal_text: str) -> Example:
    """Read one goal line of an example and what it refers to (rule file, stream files), never raising: an
    unreadable part is the example's ``error``."""
    ex = Example(name, directory, goal_text=goal_text)
    try:
        goal = read_goal(goal_text, prolog)
    except TermSyntaxError as e:
        return dataclasses.replace(ex, error=f"unreadable goal line: {e}")
    ex = dataclasses.replace(ex, goal=goal, notes=goal.notes)
    feats = list(goal.features)
    notes = list(goal.notes)
    feeds: list[Feed] = []
    for f in goal.feeds:
        if isinstance(f, Feed):
            feeds.append(f)
            continue
        try:
            got = _stream_file_feeds(directory / f.file)
        except (OSError, TermSyntaxError) as e:
            return dataclasses.replace(ex, error=f"unreadable stream file {f.file}: {e}")
        notes.append(f"{len(got)} events from {f.file}")
        for x in got:
            if isinstance(x, str):
                if x not in feats:
                    feats.append(x)
            else:
                feeds.append(x)
    if any(f.start is None for f in feeds) and any(f.start is not None for f in feeds) and \
            "explicit and clock time stamps mixed" not in feats:
        feats.append("explicit and clock time stamps mixed")
    if any(f.counter is not None for f in feeds) and any(f.counter is None for f in feeds if f.start is not None):
        feats.append("datime and integer time stamps mixed")
    seconds: dict[int, set[int]] = {}
    for f in feeds:
        if f.counter is not None:
            seconds.setdefault(f.start, set()).add(f.counter[0])   # type: ignore[arg-type]
            seconds.setdefault(f.end, set()).add(f.counter[1])     # type: ignore[arg-type]
    if any(len(c) > 1 for c in seconds.values()):
        feats.append("datime counters order events within one second")
    clock = any(f.start is None for f in feeds)
    rules_text = None
    if goal.rules_file is not None:
        path = directory / goal.rules_file
        try:
            rules_text = _read_text(path)
        except OSError as e:
            if not feats:
                return dataclasses.replace(ex, features=tuple(feats), notes=tuple(notes),
                                           error=f"cannot read rule file {goal.rules_file}: {e}")
        else:
            feats += [f for f in rule_features(rules_text, str(path), clock) if f not in feats]
    feats += [f for f in goal.shape if f not in feats]
    return dataclasses.replace(ex, rules_text=rules_text, events=tuple(_assign_ticks(feeds)),
                               features=tuple(feats), notes=tuple(notes))


def read_examples(directory: str | Path) -> list[Example]:
    """Every run of every example under ``directory`` (ETALIS's ``etalis/examples``): its sub-directories in
    name order, their ``*.bat``/``*.sh`` scripts in name order, each script's goal lines (:func:`goal_lines`).
    A directory without any goal line gives one row with the feature ``no goal line``; an unreadable script an
    error row.

    Raises:
        OSError: ``directory`` is not a readable directory.
    """
    root = Path(directory)
    if not root.is_dir():
        raise NotADirectoryError(f"not a directory: {root}")
    out: list[Example] = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        scripts = sorted(p for p in d.iterdir() if p.is_file() and p.name.endswith((".bat", ".sh")))
        runs: list[tuple[Path, list[tuple[str, str]]]] = []
        for s in scripts:
            try:
                runs.append((s, goal_lines(_read_text(s))))
            except OSError as e:
                out.append(Example(f"{d.name}/{_stem(s)}", d, error=f"cannot read {s.name}: {e}"))
        runs = [(s, g) for s, g in runs if g]
        if not runs:
            if not any(e.directory == d for e in out):
                where = ", ".join(s.name for s in scripts) or "any script"
                out.append(Example(d.name, d, features=("no goal line",), notes=(f"no swipl -g line in {where}",)))
            continue
        for s, goals in runs:
            base = d.name if len(runs) == 1 else f"{d.name}/{_stem(s)}"
            for k, (exe, text) in enumerate(goals, 1):
                name = base if len(goals) == 1 else f"{base}#{k}"
                try:
                    out.append(read_example(name, d, exe, text))
                except Exception as e:  # noqa: BLE001 - an unreadable example is a row, never a traceback
                    out.append(Example(name, d, goal_text=text, error=f"{type(e).__name__}: {e}"))
    return out


# ================================================================================================ rule features

#: Heads that are ETALIS built-ins.
HEAD_FEATURES = {"exceptionAlarm": "alarm (exceptionAlarm)",
                 "exceptionAlarmAbsoluteDatime": "alarm (exceptionAlarm)"}
#: Raw-text constructs that name a parse error better than its message (tried when the parser fails).
_TEXT_FEATURES = ((re.compile(r"\b(ins|del)_event_rule\s*\("), "dynamic updates (ins_event_rule)"),
                  (re.compile(r"\(\s*[a-z]\w*\s*<-"), "sub-patterns (nested rules)"),
                  (re.compile(r"!\s*\."), "user Prolog (cut)"),
                  (re.compile(r"\bassert[az]?\s*\("), "user Prolog (assert)"))


def parse_feature(message: str, text: str = "") -> str:
    """The feature a ceplab :class:`ParseError` message names: the operator of ``unknown operator 'X'``, else a
    construct found in ``text`` (:data:`_TEXT_FEATURES`), else ``syntax: MESSAGE``."""
    m = re.search(r"unknown operator ['\"]+([^'\"]+)['\"]+", message)
    if m and m.group(1) not in ("rule:",):
        return m.group(1)
    for rx, name in _TEXT_FEATURES:
        if rx.search(text):
            return name
    return "syntax: " + message.split(" (")[0]


def rule_features(text: str, file: str = "<rules>", clock: bool = True) -> list[str]:
    """The features of a rule file outside the paper's language (see the module docstring), first found first.

    Args:
        text: the rule file.
        file: its name, for messages.
        clock: the events carry clock time stamps (then any window is a feature: ETALIS measures it in
            wall-clock seconds).
    """
    from ceplab.semantics.etalis import ast as A
    from ceplab.semantics.etalis.parser import parse

    try:
        prog = parse(text, file, check=False)
    except ParseError as e:
        return [parse_feature(e.message, text)]
    feats: list[str] = []

    def add(f: str) -> None:
        if f not in feats:
            feats.append(f)

    for r in prog.event_rules:
        if r.head.name in HEAD_FEATURES:
            add(HEAD_FEATURES[r.head.name])
        props = {p.name for p in prog.rule_properties(r)}
        if props & {"window", "window_step"}:
            add("garbage collection (rule property window)")
        windowed = "event_rule_window" in props or any(isinstance(n, A.Window) for n in A.pattern_nodes(r.body))
        if clock and windowed:
            add("wall-clock window")
    if not feats:
        from ceplab.semantics.etalis.analysis import check_program
        try:
            check_program(prog, file)
        except ParseError as e:
            add("rejected by ceplab's rule checks: " + e.message.split(" (")[0])
    return feats


# ================================================================================================ running

#: ETALIS ``event_consumption_policy`` flag -> ceplab ``Options.policy`` (the implementation profile's reading).
#: ETALIS's ``recent`` and ``chronological`` consume the goal they use and keep the newest goal per value tuple
#: (``retractall`` before storing): ceplab's LIFO ``recent_lifo`` and FIFO ``chronological`` with
#: ``goal_replacement="same_values"`` (:data:`ceplab.semantics.etalis.policies.ETALIS_POLICY_FLAGS`, A27), as
#: ``PROFILES["etalis-implementation"]`` reads the default; ``recent_2``/``chronological_2`` are those without
#: the replacement (:mod:`.peer`).
POLICY_READING = {"recent": "recent_lifo", "recent_2": "recent_lifo", "chronological": "chronological",
                  "chronological_2": "chronological", "unrestricted": "unrestricted"}
#: ETALIS's default ``event_consumption_policy`` (``flags.P``).
DEFAULT_FLAG = "recent"
PROFILE = "etalis-implementation"

Row = tuple[str, int, int]


@dataclass
class Verdict:
    """The verdict of one :class:`Example` (see the module docstring).

    Attributes:
        example: the example.
        verdict: ``agree``, ``differs``, ``outside`` or ``error``.
        features: for ``outside``, the features (the first is the primary one).
        message: for ``error``, what went wrong.
        flag: the ETALIS flag ETALIS ran with; policy: ceplab's policy; options: ceplab's switches.
        checked: the patterns compared (every derived predicate when empty).
        etalis / oracle / engine: the restricted result sets (None when not run).
        etalis_firings: ETALIS's firings of each restricted result (multiplicity).
        differences: one line per difference (``differs``).
        seconds: wall time of the three runs.
    """
    example: Example
    verdict: str = "error"
    features: tuple[str, ...] = ()
    message: str = ""
    flag: str = ""
    policy: str = ""
    options: dict = field(default_factory=dict)
    checked: tuple[str, ...] = ()
    etalis: Optional[frozenset[Row]] = None
    oracle: Optional[frozenset[Row]] = None
    engine: Optional[frozenset[Row]] = None
    etalis_firings: dict = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def expected(self) -> Optional[list[Check]]:
        """The goal's checks that state an expectation (None when there is none)."""
        g = self.example.goal
        cs = [c for c in (g.checks if g else ()) if c.expected is not None or c.exists]
        return cs or None

    def to_json(self) -> dict[str, Any]:
        ex = self.example

        def rows(x: Optional[frozenset[Row]]) -> Optional[list]:
            return None if x is None else [list(r) for r in sorted(x, key=_row_key)]

        return {"example": ex.name, "directory": str(ex.directory), "verdict": self.verdict,
                "features": list(self.features), "message": self.message, "flag": self.flag,
                "policy": self.policy, "options": self.options,
                "events": [list(e) for e in ex.events or ()],
                "checked": list(self.checked),
                "expected": None if self.expected is None else [
                    {"pattern": c.pattern, "exists": c.exists,
                     "items": None if c.expected is None else [
                         {"atom": x.atom, "start": x.start, "end": x.end} for x in c.expected]}
                    for c in self.expected],
                "etalis": rows(self.etalis),
                "etalis_firings": [[list(r), n] for r, n in sorted(self.etalis_firings.items(),
                                                                  key=lambda x: _row_key(x[0]))],
                "oracle": rows(self.oracle), "engine": rows(self.engine),
                "differences": self.differences, "notes": list(ex.notes) + self.notes,
                "goal": ex.goal_text, "seconds": round(self.seconds, 3)}


def _row_key(r: Row) -> tuple:
    return (r[2], r[1], r[0])


def _pattern_term(text: str) -> Any:
    """A ceplab term (:mod:`ceplab.semantics.etalis.ast`) of an atom text, variables kept."""
    from ceplab.semantics.etalis.parser import parse_term

    return parse_term(text)


_TERMS: dict[str, Any] = {}


def _atom_term(text: str) -> Any:
    t = _TERMS.get(text)
    if t is None:
        t = _TERMS[text] = _pattern_term(text)
    return t


def match(pattern: Any, term: Any, bind: Optional[dict] = None) -> bool:
    """One-way unification of a ceplab pattern term (variables; ``_`` anonymous) with a ground term."""
    from ceplab.semantics.etalis import ast as A

    b = {} if bind is None else bind
    if isinstance(pattern, A.Var):
        if pattern.name == "_":
            return True
        if pattern.name in b:
            return b[pattern.name] == term
        b[pattern.name] = term
        return True
    if isinstance(pattern, A.Compound):
        return isinstance(term, A.Compound) and pattern.functor == term.functor and \
            len(pattern.args) == len(term.args) and all(match(p, t, b) for p, t in zip(pattern.args, term.args))
    if isinstance(pattern, A.List):
        return isinstance(term, A.List) and len(pattern.items) == len(term.items) and \
            all(match(p, t, b) for p, t in zip(pattern.items, term.items))
    return pattern == term


def _matches(pattern_text: str, row: Row) -> bool:
    return match(_pattern_term(pattern_text), _atom_term(row[0]))


def _item_matches(x: Expected, row: Row) -> bool:
    return _matches(x.atom, row) and (x.start is None or (x.start, x.end) == (row[1], row[2]))


def expectation_problems(checks: Sequence[Check], results: Iterable[Row]) -> list[str]:
    """What a result set does not meet of the goal's expectations (empty: all met).

    A check with a list is met when every result matching its pattern matches an expected item and every item
    matches a result (sets: an item listed twice needs one result); an ``exists`` check when some result matches.
    """
    res = list(results)
    out = []
    for c in checks:
        mine = [r for r in res if _matches(c.pattern, r)]
        if c.exists:
            if not mine:
                out.append(f"no {c.pattern} (expected at least one)")
            continue
        if c.expected is None:
            continue
        extra = [r for r in mine if not any(_item_matches(x, r) for x in c.expected)]
        missing = [x for x in dict.fromkeys(c.expected) if not any(_item_matches(x, r) for r in mine)]
        if extra:
            out.append(f"{c.pattern}: not expected " + _fmt_rows(extra))
        if missing:
            out.append(f"{c.pattern}: missing " + ", ".join(map(str, missing)))
    return out


def _widened(checks: Sequence[Check]) -> tuple[list[Check], list[str]]:
    """Checks whose expected items match their pattern; an item that does not (``findall`` over ``f(X)``
    compared with ``[.. f ..]``: the example's own test can never pass) widens the check to the item's
    predicate, with a note."""
    out, notes = [], []
    for c in checks:
        if c.expected is None:
            out.append(c)
            continue
        pt = _pattern_term(c.pattern)
        bad = [x for x in c.expected if not match(pt, _pattern_term(x.atom))
               and not _unifiable_shape(pt, _pattern_term(x.atom))]
        if not bad:
            out.append(c)
            continue
        for x in dict.fromkeys(bad):
            notes.append(f"expected {x.atom} does not match the checked {c.pattern}: the example's own test cannot "
                         f"pass on any engine; compared on {_general(x.atom)} instead")
        out.append(dataclasses.replace(c, pattern=_general(bad[0].atom)))
    return out, notes


def _unifiable_shape(p: Any, q: Any) -> bool:
    """Same predicate name and arity (expected items may carry variables the pattern binds)."""
    from ceplab.semantics.etalis import ast as A

    def key(t: Any) -> tuple:
        if isinstance(t, A.Compound):
            return (t.functor, len(t.args))
        if isinstance(t, A.Sym):
            return (t.name, 0)
        return (str(t), -1)
    return key(p) == key(q)


def _general(atom: str) -> str:
    """The most general pattern of an atom's predicate (``d(1,x)`` -> ``d(_,_)``)."""
    from ceplab.semantics.etalis import ast as A

    t = _pattern_term(atom)
    if isinstance(t, A.Compound):
        return f"{A.quote_atom(t.functor)}({','.join('_' for _ in t.args)})"
    return atom


def _fmt_rows(rows: Iterable[Row], counts: Optional[dict] = None, limit: int = 8) -> str:
    rs = sorted(set(rows), key=_row_key)
    if not rs:
        return "∅"
    parts = []
    for r in rs[:limit]:
        n = (counts or {}).get(r, 1)
        parts.append(f"{r[0]}[{r[1]},{r[2]}]" + (f"×{n}" if n != 1 else ""))
    more = f" +{len(rs) - limit} more" if len(rs) > limit else ""
    return " ".join(parts) + more


def unavailable_reason() -> Optional[str]:
    """Why the suite cannot run (the ETALIS peer's :func:`~.peer.unavailable_reason`), or None."""
    from ceplab.workbench.langs.etalis import peer

    return peer.unavailable_reason()


def _options(flag: str) -> tuple[Any, str]:
    """ceplab's Options for an ETALIS flag: the implementation profile with the flag's policy reading."""
    from ceplab.semantics.etalis.options import PROFILES, Options

    from ceplab.semantics.etalis.policies import ETALIS_POLICY_FLAGS

    policy, replacement = ETALIS_POLICY_FLAGS[flag]
    kw = dict(PROFILES[PROFILE])
    kw["policy"], kw["goal_replacement"] = policy, replacement
    return Options(**kw), policy


def run_example(ex: Example, limits: Any = None, engine_limits: Any = None, timeout_s: float = 120,
                lang: Any = None) -> Verdict:
    """Run one example through ceplab's oracle and engine and the real ETALIS and give its verdict (see the
    module docstring).  Never raises for a bad example: errors are the verdict ``error``.

    Args:
        ex: from :func:`read_examples`.
        lang: the ETALIS :class:`~ceplab.workbench.language.Language` (default: ``etalis`` from the registry;
            the plugin passes its ``LANGUAGE``).
        limits: the oracle's ``ceplab.asp.oracle.Limits`` (default its defaults).
        engine_limits: the engine's ``EngineLimits`` (default ``EngineLimits()``).
        timeout_s: the limit of the ETALIS run (swipl start-up and compilation included), seconds.
    """
    from ceplab.workbench.compare import run_engine, run_oracle
    from ceplab.workbench.langs.etalis import peer as P
    from ceplab.workbench.limits import EngineLimits, EngineLimitExceeded

    t0 = time.perf_counter()
    v = Verdict(ex)
    if ex.error is not None:
        v.message = ex.error
        return v
    if ex.features:
        v.verdict, v.features = "outside", ex.features
        return v
    goal = ex.goal
    assert goal is not None and ex.rules_text is not None and ex.events is not None
    flag = goal.policy or DEFAULT_FLAG
    v.flag = flag
    if flag not in POLICY_READING:
        v.verdict, v.features = "outside", (f"event_consumption_policy {flag}",)
        return v
    try:
        from ceplab.semantics.etalis.streams import read_stream_file

        options, v.policy = _options(flag)
        v.options = dataclasses.asdict(options)
        stream = read_stream_file("".join(f"event({a},[{s},{e}]).\n" for a, s, e in ex.events),
                                  f"{ex.name} (events)")
        L = lang if lang is not None else _etalis()
        query = L.parse(ex.rules_text, str(ex.directory / (goal.rules_file or "")))
        checks, notes = _widened(goal.checks)
        v.notes.extend(notes)
        v.checked = tuple(dict.fromkeys(c.pattern for c in checks))
        peer = P.run_etalis(query, stream, timeout_s=timeout_s, etalis_flag=flag)
        oracle, undecided, _secs, _stats = run_oracle(L, query, stream, options, limits)
        if oracle is None:
            v.message = f"oracle undecided: {undecided}"
            return v
        emissions, _esecs, _path = run_engine(L, query, stream, options,
                                              engine_limits if engine_limits is not None else EngineLimits())
        engine = frozenset(r for r, _pos in emissions)
    except UnsupportedError as e:
        v.verdict, v.features = "outside", (f"ceplab refuses: {e.message}",)
        return v
    except EngineLimitExceeded as e:
        v.message = f"engine limit: {e}"
        return v
    except (PeerError, CeplabError) as e:
        v.message = f"{type(e).__name__}: {e}"
        return v
    except (TypeError, ValueError) as e:       # a profile switch this Options does not have, a bad combination
        v.message = f"options: {e}"
        return v
    except Exception as e:  # noqa: BLE001 - an evaluator's own failure is this example's verdict, not a traceback
        v.message = f"{type(e).__name__}: {e}"
        return v
    finally:
        v.seconds = time.perf_counter() - t0

    def keep(r: Row) -> bool:
        return any(_matches(p, r) for p in v.checked) if v.checked else True

    v.etalis = frozenset(r for r in peer.results if keep(r))
    v.oracle = frozenset(r for r in oracle if keep(r))
    v.engine = frozenset(r for r in engine if keep(r))
    v.etalis_firings = {r: n for r, n in peer.multiplicity.items() if r in v.etalis}
    d = v.differences
    if v.oracle != v.etalis:
        d.append(f"oracle ≠ ETALIS: ETALIS only {_fmt_rows(v.etalis - v.oracle)}; "
                 f"oracle only {_fmt_rows(v.oracle - v.etalis)}")
        v.notes.extend(_policy_notes(flag, v.policy, query, stream, keep, v.oracle, timeout_s, L, limits))
    if v.engine != v.oracle:
        d.append(f"engine ≠ oracle: engine only {_fmt_rows(v.engine - v.oracle)}; "
                 f"oracle only {_fmt_rows(v.oracle - v.engine)}")
    if not d:      # all three agree: one statement about the example's own check
        d.extend(f"expected (ETALIS fails its own check too): {p}" for p in expectation_problems(checks, v.etalis))
    else:
        for who, got in (("ETALIS", v.etalis), ("oracle", v.oracle), ("engine", v.engine)):
            d.extend(f"{who} vs expected: {p}" for p in expectation_problems(checks, got))
    v.verdict = "differs" if d else "agree"
    v.seconds = time.perf_counter() - t0
    return v


def _policy_notes(flag: str, policy: str, query: Any, stream: Any, keep: Any, oracle: frozenset,
                  timeout_s: float, lang: Any, limits: Any) -> list[str]:
    """What ETALIS's flag does where ceplab reads it otherwise (:mod:`.peer`), for a row where they differ:

    * ``recent``/``chronological``: when ETALIS and the oracle agree on the same example under ``unrestricted``
      (so the policy reading is the whole difference), that ETALIS keeps one goal per key;
    * ``recent_2``/``chronological_2``: what ETALIS fires with the adapter's missing ``etr_delf`` clauses.
    """
    from ceplab.workbench.compare import run_oracle
    from ceplab.workbench.langs.etalis import peer as P

    if flag in ("recent", "chronological"):
        try:
            theirs = frozenset(r for r in P.run_etalis(query, stream, timeout_s=timeout_s,
                                                       etalis_flag="unrestricted").results if keep(r))
            got, _u, _s, _st = run_oracle(lang, query, stream, _options("unrestricted")[0], limits)
        except CeplabError:
            return []
        if got is None or frozenset(r for r in got if keep(r)) != theirs:
            return []
        return [f"ETALIS's {flag} keeps one goal per key (retractall before storing) and consumes it; ceplab reads "
                f"it as {policy}, which keeps every goal; under unrestricted ETALIS and ceplab agree"]
    if flag in ("recent_2", "chronological_2"):
        try:
            patched = frozenset(r for r in P.run_etalis(query, stream, timeout_s=timeout_s, etalis_flag=flag,
                                                        patch_delf=True).results if keep(r))
        except CeplabError as e:
            return [f"ETALIS's {flag} has no etr_delf clauses (nothing consuming fires); patched: {e}"]
        same = "= ceplab" if patched == oracle else "≠ ceplab"
        return [f"ETALIS's {flag} has no etr_delf clauses, so nothing consuming fires; with the adapter's clauses "
                f"(patch_delf) it fires {_fmt_rows(patched)} {same}"]
    return []


@dataclass
class SuiteReport:
    """The verdicts of a whole example directory (:func:`run_suite`); ``ok`` when no runnable example
    differs or fails (``outside`` rows do not count)."""
    directory: str
    verdicts: list[Verdict]

    @property
    def ok(self) -> bool:
        return all(v.verdict in ("agree", "outside") for v in self.verdicts)

    def counts(self) -> dict[str, int]:
        """Rows per verdict."""
        c = Counter(v.verdict for v in self.verdicts)
        return {k: c.get(k, 0) for k in ("agree", "differs", "outside", "error")}

    def features(self) -> dict[str, int]:
        """``outside`` rows per primary feature, most frequent first; variants of one feature are counted
        together (``user Prolog (cut)`` and ``user Prolog (consults x.P)`` as ``user Prolog``)."""
        c = Counter(v.features[0].split(" (")[0] for v in self.verdicts if v.verdict == "outside" and v.features)
        return dict(c.most_common())

    def to_json(self) -> dict[str, Any]:
        return {"directory": self.directory, "profile": PROFILE, "counts": self.counts(),
                "features": self.features(), "ok": self.ok, "examples": [v.to_json() for v in self.verdicts]}

    def table(self) -> Any:
        """A rich table: example, policy, expected, ETALIS, ceplab (oracle/engine), verdict."""
        from rich.table import Table

        t = Table(title=f"ETALIS example suite ({self.directory}) -- profile {PROFILE}")
        for col in ("example", "policy", "expected", "ETALIS", "ceplab (oracle/engine)"):
            t.add_column(col, overflow="fold")
        t.add_column("verdict", overflow="fold")
        for v in self.verdicts:
            style = {"agree": "green", "differs": "bold red", "error": "bold red", "outside": "dim"}[v.verdict]
            if v.verdict == "outside":
                more = len(v.features) - 1
                text = "outside: " + v.features[0] + (f" (+{more} more)" if more > 0 else "")
            elif v.verdict == "error":
                text = "error: " + v.message
            elif v.verdict == "differs":
                text = "differs: " + "; ".join(v.differences + [f"note: {n}" for n in v.notes])
            else:
                text = "agree"
            if v.oracle is None:
                ours = "-"
            elif v.oracle == v.engine:
                ours = _fmt_rows(v.oracle)
            else:
                ours = f"oracle {_fmt_rows(v.oracle)} / engine {_fmt_rows(v.engine or ())}"
            pol = f"{v.flag}→{v.policy}" if v.flag else "-"
            t.add_row(v.example.name, pol, _fmt_expected(v.expected) if v.verdict != "outside" else "-",
                      "-" if v.etalis is None else _fmt_rows(v.etalis, v.etalis_firings), ours,
                      f"[{style}]{_esc(text)}[/]")
        c = self.counts()
        feats = ", ".join(f"{k} {n}" for k, n in self.features().items())
        dirs = len({v.example.directory for v in self.verdicts})
        t.caption = (f"{c['agree']} agree, {c['differs']} differ, {c['outside']} outside, {c['error']} error "
                     f"({len(self.verdicts)} runs of {dirs} examples). ETALIS: the set it fired (×n: fired n times); "
                     "expected: the "
                     f"goal's list (×n: listed n times), compared as sets. Outside (primary feature; --json lists "
                     f"all): {feats or '-'}")
        return t


def _esc(s: str) -> str:
    from rich.markup import escape

    return escape(s)


def _fmt_expected(checks: Optional[list[Check]]) -> str:
    if checks is None:
        return "-"
    parts = []
    for c in checks:
        if c.exists:
            parts.append(f"some {c.pattern}")
            continue
        items = Counter(c.expected or ())
        parts.append(" ".join(str(x) + (f"×{n}" if n > 1 else "") for x, n in items.items()) or "∅")
    return "; ".join(parts)


def _etalis() -> Any:
    """The ``etalis`` language from the registry (this module does not import its own package)."""
    from ceplab.workbench import language

    return language.get("etalis")


def run_suite(directory: str | Path, limits: Any = None, progress: bool = True,
              engine_limits: Any = None, lang: Any = None) -> SuiteReport:
    """Read and run every example under ``directory`` (ETALIS's ``etalis/examples``), with a progress bar on
    stderr (``lang``: as :func:`run_example`).

    Raises:
        PeerError: the real ETALIS cannot run (``ETALIS_HOME`` or ``swipl`` missing; the message says which).
        OSError: ``directory`` is not a readable directory.
    """
    from ceplab.workbench.spark import _progress

    reason = unavailable_reason()
    if reason is not None:
        raise PeerError(reason)
    examples = read_examples(directory)
    out = []
    with _progress(progress and bool(examples)) as bar:
        task = bar.add_task("etalis suite", total=len(examples), rate="")
        for ex in examples:
            out.append(run_example(ex, limits, engine_limits, lang=lang))
            bar.update(task, advance=1)
    return SuiteReport(str(directory), out)
