"""Events and streams shared by every language (DESIGN.md sections 3 and 4).

Time is in integer ticks. Atomic events are points ``[time, time]``; interval-stamped input gives
``end`` as well. Events are ordered by time, ties by file order: ``position`` is the event's 0-based
line index in its stream file (the CEL paper's stream position).

Flat streams are JSON Lines or CSV (:func:`read_stream`), or Parquet (:func:`write_events_parquet`,
:func:`read_events_parquet`; ``.parquet`` in :func:`read_stream` / :func:`write_stream`).

RDF streams (graph events and interval stream elements, TriG and Parquet) live in
:mod:`ceplab.semantics.rdfstream`; their names are importable from here too (``from
ceplab.semantics.events import GraphEvent``), loaded on first use so that flat-stream users do not pay
for importing rdflib.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ceplab.semantics.errors import StreamError

Scalar = int | float | str | bool


class Event:
    """One atomic event.

    Attributes:
        type: the event type (relation name), a non-empty string.
        time: start time in integer ticks.
        attrs: attribute name -> scalar value (int, float, str or bool).
        position: 0-based index in the stream (line index in the file).
        end: end time in ticks for interval-stamped input; equals ``time`` for point events.
    """

    __slots__ = ("type", "time", "attrs", "position", "end")

    def __init__(self, type: str, time: int, attrs: Mapping[str, Scalar] | None = None,
                 position: int = 0, end: int | None = None) -> None:
        self.type = type
        self.time = time
        self.attrs = dict(attrs) if attrs else {}
        self.position = position
        self.end = time if end is None else end

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "time": self.time}
        if self.end != self.time:
            d["end"] = self.end
        if self.attrs:
            d["attrs"] = dict(self.attrs)
        return d

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Event) and self.type == other.type and self.time == other.time
                and self.attrs == other.attrs and self.position == other.position
                and self.end == other.end)

    def __hash__(self) -> int:
        return hash((self.type, self.time, self.position))

    def __repr__(self) -> str:
        a = "" if not self.attrs else f", {self.attrs!r}"
        return f"Event({self.type!r}, t={self.time}{a}, pos={self.position})"


@dataclass
class Stream:
    """A finite stream prefix: events in order (``events[i].position == i``).

    Args:
        events: the events, ordered by time, ties by position.
        name: where it came from (a file name), used in error messages.
    """

    events: list[Event] = field(default_factory=list)
    name: str = "<stream>"

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __getitem__(self, i):
        return self.events[i]

    def prefix(self, n: int) -> "Stream":
        """The first ``n`` events (positions 0..n-1)."""
        return Stream(self.events[:n], self.name)

    @classmethod
    def of(cls, items: Iterable[tuple[str, Mapping[str, Scalar]] | str | Event],
           name: str = "<stream>") -> "Stream":
        """Build a stream from ``"A"``, ``("A", {"v": 1})`` or Event items; time = position."""
        evs = []
        for i, it in enumerate(items):
            if isinstance(it, Event):
                evs.append(Event(it.type, it.time, it.attrs, i, it.end))
            elif isinstance(it, str):
                evs.append(Event(it, i, {}, i))
            else:
                evs.append(Event(it[0], i, it[1], i))
        return cls(evs, name)


def _check_scalar(v: Any) -> bool:
    return isinstance(v, (int, float, str, bool)) and not (isinstance(v, float) and not math.isfinite(v))


def _event_from_obj(obj: Any, file: str, line: int, position: int, last_time: int | None) -> Event:
    if not isinstance(obj, dict):
        raise StreamError("an event must be a JSON object", file, line, 1)
    if "type" not in obj:
        raise StreamError("event has no 'type'", file, line, 1)
    typ = obj["type"]
    if not isinstance(typ, str) or not typ:
        raise StreamError("'type' must be a non-empty string", file, line, 1)
    if "time" not in obj:
        raise StreamError("event has no 'time'", file, line, 1)
    t = obj["time"]
    if isinstance(t, bool) or not isinstance(t, int):
        raise StreamError(f"'time' must be an integer number of ticks, got {t!r}", file, line, 1)
    end = obj.get("end", t)
    if isinstance(end, bool) or not isinstance(end, int):
        raise StreamError(f"'end' must be an integer number of ticks, got {end!r}", file, line, 1)
    if end < t:
        raise StreamError(f"'end' ({end}) is before 'time' ({t})", file, line, 1)
    if last_time is not None and t < last_time:
        raise StreamError(f"time goes backwards: {t} after {last_time}", file, line, 1)
    attrs = obj.get("attrs", {})
    if not isinstance(attrs, dict):
        raise StreamError("'attrs' must be a JSON object", file, line, 1)
    for k, v in attrs.items():
        if not _check_scalar(v):
            raise StreamError(f"attribute {k!r} must be a number, string or boolean", file, line, 1)
    extra = set(obj) - {"type", "time", "end", "attrs"}
    if extra:
        raise StreamError(f"unknown event field(s): {', '.join(sorted(extra))}", file, line, 1)
    return Event(typ, t, attrs, position, end)


def parse_jsonl(text: str, file: str = "<string>") -> Stream:
    """Parse JSON Lines text into a Stream.

    One event per non-blank line: ``{"type": "BUY", "time": 3, "attrs": {"price": 10}}`` with an
    optional ``"end"``. The event's position is its index among the non-blank lines (blank lines
    are allowed only at the end of the file, so positions equal 0-based line indices).

    Raises:
        StreamError: malformed JSON, missing ``type``/``time``, non-integer time, time going
            backwards, ``attrs`` not an object; the error names file, line and column.
    """
    events: list[Event] = []
    last: int | None = None
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
        ev = _event_from_obj(obj, file, ln, len(events), last)
        last = ev.time
        events.append(ev)
    return Stream(events, file)


def _csv_value(s: str) -> Scalar:
    try:
        return int(s)
    except ValueError:
        pass
    try:
        f = float(s)
        if math.isfinite(f):
            return f
    except ValueError:
        pass
    if s in ("true", "false"):
        return s == "true"
    return s


def parse_csv(text: str, file: str = "<string>") -> Stream:
    """Parse CSV text into a Stream.

    The header must contain ``type`` and ``time`` (and may contain ``end``); every other column is
    an attribute. Empty cells mean "attribute absent". Values are read as int, then float, then
    ``true``/``false``, else string. Position = 0-based data row index.

    Raises:
        StreamError: missing columns, non-integer time, time going backwards, ragged rows.
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return Stream([], file)
    header = [h.strip() for h in rows[0]]
    for need in ("type", "time"):
        if need not in header:
            raise StreamError(f"CSV header has no '{need}' column", file, 1, 1)
    events: list[Event] = []
    last: int | None = None
    for ln, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise StreamError(f"row has {len(row)} cells, header has {len(header)}", file, ln, 1)
        obj: dict[str, Any] = {"attrs": {}}
        for col, (h, cell) in enumerate(zip(header, row), start=1):
            if h in ("time", "end"):
                try:
                    obj[h] = int(cell.strip())
                except ValueError:
                    raise StreamError(f"'{h}' must be an integer number of ticks, got {cell!r}",
                                      file, ln, col) from None
            elif h == "type":
                obj["type"] = cell.strip()
            elif cell != "":
                obj["attrs"][h] = _csv_value(cell)
        events.append(_event_from_obj(obj, file, ln, len(events), last))
        last = events[-1].time
    return Stream(events, file)


def read_stream_text(path: str | Path) -> str:
    """The text of a stream file (UTF-8), for every language's stream readers.

    Raises:
        StreamError: the file cannot be read or is not UTF-8 (naming the file).
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise StreamError(f"cannot read stream: {e}", str(path)) from None


def read_stream(path: str | Path) -> Stream:
    """Read a stream file; ``.csv`` is CSV, ``.parquet`` Parquet, anything else JSON Lines.

    Raises:
        StreamError: as :func:`parse_jsonl` / :func:`parse_csv` / :func:`read_events_parquet`, or when
            the file cannot be read.
    """
    p = Path(path)
    if p.suffix.lower() == ".parquet":
        return read_events_parquet(p)
    text = read_stream_text(p)
    if p.suffix.lower() == ".csv":
        return parse_csv(text, str(path))
    return parse_jsonl(text, str(path))


def dumps_jsonl(events: Iterable[Event]) -> str:
    """Serialise events as JSON Lines (inverse of :func:`parse_jsonl`)."""
    return "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in events)


def dumps_csv(events: Sequence[Event]) -> str:
    """Serialise events as CSV with columns type, time, [end,] then sorted attribute names."""
    keys = sorted({k for e in events for k in e.attrs})
    has_end = any(e.end != e.time for e in events)
    header = ["type", "time"] + (["end"] if has_end else []) + keys
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for e in events:
        row = [e.type, e.time] + ([e.end] if has_end else [])
        for k in keys:
            v = e.attrs.get(k, "")
            row.append(("true" if v else "false") if isinstance(v, bool) else v)
        w.writerow(row)
    return out.getvalue()


def write_stream(stream: Iterable[Event], path: str | Path) -> None:
    """Write a stream as CSV (``.csv``), Parquet (``.parquet``) or JSON Lines (anything else)."""
    p = Path(path)
    evs = list(stream)
    if p.suffix.lower() == ".parquet":
        write_events_parquet(evs, p)
        return
    p.write_text(dumps_csv(evs) if p.suffix.lower() == ".csv" else dumps_jsonl(evs), encoding="utf-8")


# -------------------------------------------------------------------------------------------- Parquet
def events_schema():
    """The Parquet schema of flat events (pyarrow), one row per event: ``position`` (int64), ``time``
    and ``end`` (int64 ticks), ``type`` (string), ``attrs`` (string: the attributes as a JSON object
    with sorted keys, as the Spark campaigns write them). The file metadata holds ``ceplab.schema`` =
    ``events`` and ``ceplab.schema_version`` (:data:`ceplab.semantics.rdfstream.SCHEMA_VERSION`)."""
    import pyarrow as pa

    return pa.schema([pa.field("position", pa.int64(), False), pa.field("time", pa.int64(), False),
                      pa.field("end", pa.int64(), False), pa.field("type", pa.string(), False),
                      pa.field("attrs", pa.string(), False)])


def write_events_parquet(events: Iterable[Event], path: str | Path, name: str | None = None) -> None:
    """Write flat events as Parquet (:func:`events_schema`), in the given order; ``name`` (default: the
    stream's own name when ``events`` is a :class:`Stream`) goes to the ``ceplab.name`` metadata."""
    from ceplab.semantics.rdfstream import write_parquet_table

    evs = list(events)
    cols = {"position": [e.position for e in evs], "time": [e.time for e in evs], "end": [e.end for e in evs],
            "type": [e.type for e in evs], "attrs": [json.dumps(e.attrs, sort_keys=True) for e in evs]}
    if name is None and isinstance(events, Stream):
        name = events.name
    extra = {} if name is None else {"name": name}
    write_parquet_table(cols, events_schema(), "events", path, **extra)


def read_events_parquet(path: str | Path) -> Stream:
    """Read flat events written by :func:`write_events_parquet` into a Stream named ``path``.

    The rows must be in stream order; each row is checked as a JSON Lines event is (line = row + 1).

    Raises:
        StreamError: not an events Parquet file, another schema version, a missing column, ``attrs``
            that is not a JSON object of scalars, ``end < time``, or time going backwards.
    """
    from ceplab.semantics.rdfstream import read_parquet_table

    cols, _ = read_parquet_table(path, "events", events_schema())
    events: list[Event] = []
    last: int | None = None
    for r in range(len(cols["position"])):
        try:
            attrs = json.loads(cols["attrs"][r])
        except (TypeError, json.JSONDecodeError) as e:
            raise StreamError(f"row {r}: 'attrs' is not JSON ({e})", str(path), r + 1) from None
        obj = {"type": cols["type"][r], "time": cols["time"][r], "end": cols["end"][r], "attrs": attrs}
        ev = _event_from_obj(obj, str(path), r + 1, cols["position"][r], last)
        last = ev.time
        events.append(ev)
    return Stream(events, str(path))


_RDF_NAMES = frozenset({
    "CEPLAB", "SCHEMA_VERSION", "GraphEvent", "StreamElement", "by_stream", "nt_term", "parse_nt_term",
    "parse_trig_graph_events", "parse_trig_elements", "dumps_trig_graph_events", "dumps_trig_elements",
    "graph_events_schema", "elements_schema", "write_graph_events_parquet", "read_graph_events_parquet",
    "write_elements_parquet", "read_elements_parquet", "read_graph_events", "write_graph_events",
    "read_elements", "write_elements"})


def __getattr__(name: str) -> Any:
    """The RDF stream names of :mod:`ceplab.semantics.rdfstream`, imported on first use."""
    if name in _RDF_NAMES:
        from ceplab.semantics import rdfstream

        return getattr(rdfstream, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
