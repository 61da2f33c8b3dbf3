"""Real weather data as ETALIS event streams, and the bundled ETALIS weather rule sets.

Three datasets bundled (offline) with ``vega_datasets`` (``vega_datasets.local_data``):

* ``seattle-weather``: one row per day, 2012-01-01 .. 2015-12-31 (1461 days). :func:`seattle_weather_events`
  makes, per day, four **point** events at tick ``d`` = days since 2012-01-01, in this order:

  ====================  ===========================================================================
  ``rain(P)``           precipitation, ``P`` = tenths of a millimetre (``precipitation`` mm x 10)
  ``temp(TMax, TMin)``  daily maximum / minimum temperature, tenths of a degree Celsius (deg C x 10;
                        may be negative)
  ``wind(W)``           mean wind speed, tenths of a metre per second (m/s x 10)
  ``sky(Kind)``         weather kind, a symbol: ``sun``, ``fog``, ``drizzle``, ``rain`` or ``snow``
  ====================  ===========================================================================

  The raw values have one decimal, so ``round(x * 10)`` is exact: the scaled integers carry the data
  unchanged (the clingo oracle is integer-only, docs/semantics/etalis.md#etalis-9.1 / #etalis-A16).
* ``sf-temps`` and ``seattle-temps``: hourly temperatures of 2010 (8759 rows each; the hour 2010-03-14 02:00
  does not exist, daylight saving time). :func:`hourly_temp_events` makes one point event ``temp(Loc, T)`` per
  row with ``Loc`` = ``sf`` / ``sea`` and ``T`` = tenths of a degree Fahrenheit (deg F x 10, exact for the same
  reason), at tick ``h`` = hours since 2010-01-01 00:00 computed from the timestamps (so the DST hour leaves a
  gap: ticks run 0 .. 8759 with one tick missing). When both cities are selected the two readings of an hour
  share the tick (``sf`` first).

Slices keep the absolute ticks (a slice from 2012-03-01 starts at tick 60); positions are renumbered 0.. .

The rule sets live in ``workbench/langs/etalis/data/*.event``. Each file starts with ``%`` comment lines; a line
``% stream: NAME FIRST..LAST`` (``NAME`` = ``seattle-weather``, ``sf-temps``, ``seattle-temps`` or
``hourly-temps`` = both hourly datasets merged; ``FIRST``/``LAST`` inclusive ISO dates) names the slice it is
checked on by ``ceplab verify`` (:func:`real_cases`). Slices are short (weeks to months) so that the clingo oracle
answers in a few seconds (the oracle grounds the joins under a window in time linear in the slice,
docs/semantics/etalis.md#etalis-9.7, but the policy specification takes one ground call per step).
"""
from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from pathlib import Path

from ceplab.semantics.etalis import ast as A
from ceplab.semantics.etalis.streams import StreamEvent

DATA_DIR = Path(__file__).with_name("data")
RULE_DIR = DATA_DIR
#: First day (tick 0) of seattle-weather and first hour (tick 0) of the hourly datasets.
WEATHER_EPOCH = dt.date(2012, 1, 1)
HOURLY_EPOCH = dt.datetime(2010, 1, 1, 0, 0)
#: hourly dataset name -> location symbol used in ``temp(Loc, T)``.
HOURLY_CITIES = {"sf-temps": "sf", "seattle-temps": "sea"}
WEATHER_KINDS = ("sun", "fog", "drizzle", "rain", "snow")


def _x10(v: float) -> int:
    return int(round(float(v) * 10))


def _date(v) -> dt.date:
    return v.date() if hasattr(v, "date") else dt.date.fromisoformat(str(v)[:10])


@lru_cache(maxsize=1)
def _weather_rows() -> tuple[tuple[int, int, int, int, int, str], ...]:
    """(day tick, P10, TMax10, TMin10, W10, kind), in date order."""
    from vega_datasets import local_data

    df = local_data.seattle_weather()
    out = []
    for date, p, tx, tn, w, kind in zip(df["date"], df["precipitation"], df["temp_max"], df["temp_min"],
                                        df["wind"], df["weather"]):
        day = (_date(date) - WEATHER_EPOCH).days
        out.append((day, _x10(p), _x10(tx), _x10(tn), _x10(w), str(kind)))
    out.sort(key=lambda r: r[0])
    return tuple(out)


@lru_cache(maxsize=2)
def _hourly_rows(name: str) -> tuple[tuple[int, int], ...]:
    """(hour tick, T10) of ``sf-temps`` / ``seattle-temps``, in time order."""
    from vega_datasets import local_data

    df = getattr(local_data, name.replace("-", "_"))()
    out = []
    for ts, temp in zip(df["date"], df["temp"]):
        d = ts.to_pydatetime() if hasattr(ts, "to_pydatetime") else dt.datetime.fromisoformat(str(ts))
        h = (d - HOURLY_EPOCH)
        out.append((h.days * 24 + h.seconds // 3600, _x10(temp)))
    out.sort(key=lambda r: r[0])
    return tuple(out)


def _ev(name: str, args: tuple, t: int, pos: int) -> StreamEvent:
    terms = tuple(A.Num(a) if isinstance(a, int) else A.Sym(a) for a in args)
    return StreamEvent(A.EventAtom(name, terms), t, t, pos)


def _day(x: dt.date | str) -> dt.date:
    return dt.date.fromisoformat(x) if isinstance(x, str) else x


def _tick_range(first: dt.date | str | None, last: dt.date | str | None, epoch: dt.date,
                per_day: int) -> tuple[int, int]:
    """``[lo, hi)`` ticks of the days ``first .. last`` (inclusive), ``per_day`` ticks a day from ``epoch``."""
    lo = 0 if first is None else (_day(first) - epoch).days * per_day
    hi = 1 << 62 if last is None else ((_day(last) - epoch).days + 1) * per_day
    return lo, hi


def seattle_weather_events(first: dt.date | str | None = None,
                           last: dt.date | str | None = None) -> list[StreamEvent]:
    """``seattle-weather`` as ETALIS point events (see the module docstring for the events and scaling).

    Args:
        first, last: keep the days ``first <= date <= last`` (ISO strings or dates); None = open end.

    Returns:
        Per day ``rain(P)``, ``temp(TMax,TMin)``, ``wind(W)``, ``sky(Kind)`` at tick = days since 2012-01-01.
    """
    lo, hi = _tick_range(first, last, WEATHER_EPOCH, 1)
    out: list[StreamEvent] = []
    for day, p, tx, tn, w, kind in _weather_rows():
        if not lo <= day < hi:
            continue
        for name, args in (("rain", (p,)), ("temp", (tx, tn)), ("wind", (w,)), ("sky", (kind,))):
            out.append(_ev(name, args, day, len(out)))
    return out


def hourly_temp_events(datasets: tuple[str, ...] = ("sf-temps", "seattle-temps"),
                       first: dt.date | str | None = None,
                       last: dt.date | str | None = None) -> list[StreamEvent]:
    """``sf-temps`` / ``seattle-temps`` as ETALIS point events ``temp(Loc, T)`` (module docstring).

    Args:
        datasets: which hourly datasets to merge (``sf-temps`` events first within an hour).
        first, last: keep the hours of the days ``first <= date <= last``; None = open end.

    Returns:
        ``temp(sf|sea, T)`` with ``T`` in tenths of a degree F at tick = hours since 2010-01-01 00:00.
    """
    unknown = [d for d in datasets if d not in HOURLY_CITIES]
    if unknown:
        raise ValueError(f"unknown hourly dataset(s) {unknown} (known: {', '.join(HOURLY_CITIES)})")
    lo, hi = _tick_range(first, last, HOURLY_EPOCH.date(), 24)
    rows = []
    for k, name in enumerate(d for d in HOURLY_CITIES if d in datasets):
        rows += [(h, k, HOURLY_CITIES[name], t) for h, t in _hourly_rows(name) if lo <= h < hi]
    rows.sort(key=lambda r: (r[0], r[1]))
    return [_ev("temp", (loc, t), h, i) for i, (h, _, loc, t) in enumerate(rows)]


# ------------------------------------------------------------------------------------------------ rule sets
_STREAM_RE = re.compile(r"^\s*%\s*stream:\s*(\S+)\s+(\d{4}-\d\d-\d\d)\.\.(\d{4}-\d\d-\d\d)\s*$", re.M)


def events_for_spec(name: str, first: str, last: str) -> list[StreamEvent]:
    """The stream slice named by a ``% stream: NAME FIRST..LAST`` line.

    Raises:
        ValueError: unknown stream name.
    """
    if name == "seattle-weather":
        return seattle_weather_events(first, last)
    if name in HOURLY_CITIES:
        return hourly_temp_events((name,), first, last)
    if name == "hourly-temps":
        return hourly_temp_events(tuple(HOURLY_CITIES), first, last)
    raise ValueError(f"unknown ETALIS stream {name!r} (seattle-weather, sf-temps, seattle-temps, hourly-temps)")


def stream_spec(text: str) -> tuple[str, str, str]:
    """``(name, first, last)`` of a rule file's ``% stream:`` line.

    Raises:
        ValueError: the file has no (well-formed) ``% stream:`` line.
    """
    m = _STREAM_RE.search(text)
    if not m:
        raise ValueError("an ETALIS data rule file needs a line '% stream: NAME YYYY-MM-DD..YYYY-MM-DD'")
    return m.group(1), m.group(2), m.group(3)


def rule_files() -> list[Path]:
    """The bundled ETALIS rule files, sorted by name."""
    return sorted(RULE_DIR.glob("*.event"))


def case_name(path: Path, text: str) -> str:
    """``STEM@STREAM:FIRST..LAST``, e.g. ``wind_increase@seattle-weather:2012-01-01..2012-02-29``."""
    name, first, last = stream_spec(text)
    return f"{path.stem}@{name}:{first}..{last}"


def real_cases() -> list[tuple[str, str, list[StreamEvent]]]:
    """The bundled real-data ETALIS cases ``(name, rules_text, events)``, one per rule file.

    Same record shape as :func:`ceplab.workbench.langs.cel.data.real_cases` (``(name, query_text, stream)``), with the stream
    in the ETALIS representation (a list of :class:`StreamEvent`, what ``ceplab.semantics.etalis.streams.read_events``
    returns). The name carries the slice (:func:`case_name`).
    """
    out = []
    for p in rule_files():
        text = p.read_text(encoding="utf-8")
        out.append((case_name(p, text), text, events_for_spec(*stream_spec(text))))
    return out


def export(directory: str | Path) -> list[Path]:
    """Write the full streams as JSON Lines (``seattle-weather.jsonl``, ``hourly-temps.jsonl``)."""
    from ceplab.semantics.etalis.streams import dumps_jsonl

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, evs in (("seattle-weather.jsonl", seattle_weather_events()),
                      ("hourly-temps.jsonl", hourly_temp_events())):
        (d / name).write_text(dumps_jsonl(evs), encoding="utf-8")
        out.append(d / name)
    return out


if __name__ == "__main__":  # python -m ceplab.workbench.langs.etalis.data DIR
    import sys

    for p in export(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(p)
