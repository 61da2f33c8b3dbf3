"""ETALIS event streams: JSON Lines event atoms and the implementation's ``.stream`` files.

JSON Lines, one event per non-blank line::

    {"type": "a", "args": [1, "x"], "time": 3}            point event a(1,x) on [3,3]
    {"type": "p", "args": [], "time": 3, "end": 5}         interval-stamped input p on [3,5] (docs/semantics/etalis.md#etalis-1.3 [I])

``args`` values are integers, finite floats, strings (symbolic constants, Prolog atoms) or booleans (the
atoms ``true``/``false``); ``args`` may be omitted for a 0-ary event.

``.stream`` files (ETALIS implementation)::

    event(a(1),[3,3]).
    event(p,[3,5]).                % interval-stamped
    % comments, blank lines and a final halt. are allowed

Both readers return a list of :class:`StreamEvent` (a ground :class:`~ceplab.semantics.etalis.ast.EventAtom` with its
``[start, end]`` interval and its 0-based ``position`` in file order).  Input must already be ordered: the
arrival time of an ETALIS event is its **end** (detection at end time, docs/semantics/etalis.md#etalis-2.4 footnote 11 and #etalis-9.5), so
ends must not decrease; ties keep file order.  Errors are :class:`~ceplab.semantics.errors.StreamError` with file,
line and column: malformed JSON or syntax, missing/non-integer times, ``end < start``, time going backwards,
non-ground arguments, events without timestamps.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from ceplab.semantics.errors import ParseError, StreamError
from ceplab.semantics.etalis import ast as A


@dataclass(frozen=True, order=False)
class StreamEvent:
    """A ground event atom occurring on ``[start, end]`` (integer ticks); ``position`` is its index in the file."""
    atom: A.EventAtom
    start: int
    end: int
    position: int = field(default=0, compare=True)

    @property
    def time(self) -> int:
        """Arrival (detection) time: the end of the interval."""
        return self.end

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.atom.name, "args": [_json_value(a) for a in self.atom.args],
                             "time": self.start}
        if self.end != self.start:
            d["end"] = self.end
        return d

    def __str__(self) -> str:
        return f"event({self.atom},[{self.start},{self.end}])."


def _json_value(t: A.Term) -> Any:
    if isinstance(t, A.Num):
        return t.value
    if isinstance(t, A.Sym):
        return t.name
    if isinstance(t, A.Str):
        return t.value
    raise ValueError(f"{t} has no JSON Lines form")


def _col(raw: str, key: str) -> int:
    i = raw.find(f'"{key}"')
    return i + 1 if i >= 0 else 1


def _value_term(v: Any) -> Optional[A.Term]:
    if isinstance(v, bool):
        return A.Sym("true" if v else "false")
    if isinstance(v, int):
        return A.Num(v)
    if isinstance(v, float):
        return A.Num(v) if math.isfinite(v) else None
    if isinstance(v, str):
        return A.Sym(v)
    return None


def read_jsonl_events(text: str, file: str = "<string>") -> list[StreamEvent]:
    """Parse JSON Lines ETALIS events (see the module docstring).

    Raises:
        StreamError: malformed JSON, unknown fields, missing/non-integer ``time``/``end``, ``end < time``,
            time (end) going backwards, ``args`` not a list of numbers/strings/booleans.
    """
    events: list[StreamEvent] = []
    last: Optional[int] = None
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    for ln, raw in enumerate(lines, start=1):
        if not raw.strip():
            raise StreamError("blank line inside the stream (positions are line indices)", file, ln, 1)
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise StreamError(f"malformed JSON: {e.msg}", file, ln, e.colno) from None
        if not isinstance(obj, dict):
            raise StreamError("an event must be a JSON object", file, ln, 1)
        extra = set(obj) - {"type", "args", "time", "end"}
        if extra:
            k = sorted(extra)[0]
            raise StreamError(f"unknown event field(s): {', '.join(sorted(extra))}", file, ln, _col(raw, k))
        typ = obj.get("type")
        if not isinstance(typ, str) or not typ:
            raise StreamError("'type' must be a non-empty string" if "type" in obj else "event has no 'type'",
                              file, ln, _col(raw, "type"))
        if "time" not in obj:
            raise StreamError("event has no 'time'", file, ln, 1)
        t = obj["time"]
        if isinstance(t, bool) or not isinstance(t, int):
            raise StreamError(f"'time' must be an integer number of ticks, got {t!r}", file, ln, _col(raw, "time"))
        end = obj.get("end", t)
        if isinstance(end, bool) or not isinstance(end, int):
            raise StreamError(f"'end' must be an integer number of ticks, got {end!r}", file, ln, _col(raw, "end"))
        if t < 0:
            raise StreamError(f"'time' must be non-negative, got {t}", file, ln, _col(raw, "time"))
        if end < t:
            raise StreamError(f"'end' ({end}) is before 'time' ({t})", file, ln, _col(raw, "end"))
        args = obj.get("args", [])
        if not isinstance(args, list):
            raise StreamError("'args' must be a JSON array", file, ln, _col(raw, "args"))
        terms = []
        for i, v in enumerate(args):
            tv = _value_term(v)
            if tv is None:
                raise StreamError(f"argument {i + 1} must be a number, string or boolean (ground), got {v!r}",
                                  file, ln, _col(raw, "args"))
            terms.append(tv)
        if last is not None and end < last:
            raise StreamError(f"time goes backwards: event ends at {end} after an event ending at {last}",
                              file, ln, _col(raw, "end" if "end" in obj else "time"))
        last = end
        events.append(StreamEvent(A.EventAtom(typ, tuple(terms)), t, end, len(events)))
    return events


_STMT_END = re.compile(r"\.(?=\s|%|$)")


def read_stream_file(text: str, file: str = "<string>") -> list[StreamEvent]:
    """Parse an ETALIS ``.stream`` file: ``event(Atom,[T1,T2]).`` statements (``halt.`` is ignored).

    Raises:
        StreamError: syntax errors, statements other than ``event/2`` (``event/1`` without timestamp and
            ``sleep/1`` use the system clock and are rejected), non-integer or negative times, ``T2 < T1``,
            time (end) going backwards, non-ground or arithmetic arguments.
    """
    from ceplab.semantics.etalis.parser import _parse_chunk, split_statements

    events: list[StreamEvent] = []
    last: Optional[int] = None
    for line0, col0, chunk in split_statements(text):
        st = _fast_event(chunk, line0, col0)
        if st is None:
            try:
                stmts = _parse_chunk(text, line0, col0, chunk, file).statements
            except ParseError as e:
                raise StreamError(e.message, e.file, e.line, e.column) from None
            if len(stmts) != 1:
                raise StreamError("expected one statement", file, line0, col0)
            st = stmts[0]
        pos = getattr(st, "pos", None) or (None, None)
        if isinstance(st, A.StaticRule) and st.body is None:
            head = st.head
        else:
            raise StreamError("a stream holds only event(Atom,[T1,T2]). statements", file, *pos)
        if head.name == "halt" and not head.args:
            continue
        if head.name == "sleep":
            raise StreamError("sleep/1 uses the system clock; give explicit times: event(Atom,[T1,T2]).",
                              file, *pos)
        if head.name != "event" or len(head.args) not in (1, 2):
            raise StreamError(f"expected event(Atom,[T1,T2]), got {head.name}/{len(head.args)}", file, *pos)
        if len(head.args) == 1:
            raise StreamError("event without timestamps (system time is not supported): write "
                              "event(Atom,[T1,T2]).", file, *pos)
        atom_t, times = head.args
        atom = _ground_atom(atom_t, file, pos)
        if not (isinstance(times, A.List) and len(times.items) == 2):
            raise StreamError(f"the timestamps must be a list [T1,T2], got {times}", file, *pos)
        t1, t2 = times.items
        for t in (t1, t2):
            if not (isinstance(t, A.Num) and isinstance(t.value, int)) or t.value < 0:
                raise StreamError(f"timestamps must be non-negative integer ticks, got {t}", file, *pos)
        s, e = t1.value, t2.value
        if e < s:
            raise StreamError(f"end ({e}) is before start ({s})", file, *pos)
        if last is not None and e < last:
            raise StreamError(f"time goes backwards: event ends at {e} after an event ending at {last}",
                              file, *pos)
        last = e
        events.append(StreamEvent(atom, s, e, len(events)))
    return events


_FAST_ARG = r"(?:-?[0-9]+|[a-z][A-Za-z0-9_]*)"
_FAST = re.compile(r"event\(\s*([a-z][A-Za-z0-9_]*)(?:\(\s*(" + _FAST_ARG + r"(?:\s*,\s*" + _FAST_ARG
                   + r")*)\s*\))?\s*,\s*\[\s*([0-9]+)\s*,\s*([0-9]+)\s*\]\s*\)\s*\.\Z")


def _fast_event(chunk: str, line: int, col: int) -> Optional[A.StaticRule]:
    """Fast path for the common ``event(name(int|atom,..),[T1,T2]).``; None when the statement is not simple."""
    m = _FAST.match(chunk)
    if m is None:
        return None
    name, args, t1, t2 = m.groups()
    terms: list[A.Term] = []
    if args is not None:
        for a in re.split(r"\s*,\s*", args):
            if a in A.KEYWORDS:
                return None
            terms.append(A.Num(int(a)) if a[0] in "-0123456789" else A.Sym(a))
    if name in A.KEYWORDS:
        return None
    atom_t: A.Term = A.Compound(name, tuple(terms), pos=(line, col + 6)) if terms else A.Sym(name)
    times = A.List((A.Num(int(t1)), A.Num(int(t2))))
    return A.StaticRule(A.StaticAtom("event", (atom_t, times), pos=(line, col)), None, pos=(line, col))


def _ground_atom(t: A.Term, file: str, pos) -> A.EventAtom:
    if isinstance(t, A.Sym):
        return A.EventAtom(t.name, ())
    if not isinstance(t, A.Compound) or t.is_arithmetic:
        raise StreamError(f"an event must be an atom such as a(1), got {t}", file, *pos)
    for a in t.args:
        v = next(A.term_vars(a), None)
        if v is not None:
            vp = v.pos or pos
            raise StreamError(f"event arguments must be ground: variable {v.name} in {t}", file, *vp)
        if _has_arith(a):
            raise StreamError(f"event arguments must be values, not arithmetic: {a}", file, *pos)
    return A.EventAtom(t.functor, t.args, pos=t.pos)


def _has_arith(t: A.Term) -> bool:
    if isinstance(t, A.Compound):
        return t.is_arithmetic or any(_has_arith(a) for a in t.args)
    if isinstance(t, A.List):
        return any(_has_arith(a) for a in t.items)
    return False


def read_events(path: str | Path) -> list[StreamEvent]:
    """Read ``.stream`` (ETALIS syntax) or anything else as JSON Lines.

    Raises:
        StreamError: as the readers, or when the file cannot be read.
    """
    from ceplab.semantics.events import read_stream_text
    p = Path(path)
    text = read_stream_text(p)
    if p.suffix.lower() == ".stream":
        return read_stream_file(text, str(path))
    return read_jsonl_events(text, str(path))


def dumps_stream(events: Iterable[StreamEvent]) -> str:
    """Serialise as an ETALIS ``.stream`` file (inverse of :func:`read_stream_file`)."""
    return "".join(f"{e}\n" for e in events)


def dumps_jsonl(events: Iterable[StreamEvent]) -> str:
    """Serialise as JSON Lines (inverse of :func:`read_jsonl_events` for number/atom arguments)."""
    return "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in events)
