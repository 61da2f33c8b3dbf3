"""Real weather data as CQELS-CEP RDF streams, a static graph of stations and regions, and the bundled
delay/alarm queries (``ceplab verify`` runs them: :func:`real_cases`).

Datasets bundled (offline) with ``vega_datasets`` (``vega_datasets.local_data``), the same rows as
:mod:`ceplab.workbench.langs.etalis.data` uses:

* ``sf-temps`` and ``seattle-temps``: hourly air temperatures of 2010 in degrees Fahrenheit (8759 rows each; the
  hour 2010-03-14 02:00 does not exist, daylight saving time).  Streams ``w:sfTemps`` and ``w:seattleTemps``.
* ``seattle-weather``: one row per day, 2012-01-01 .. 2015-12-31: precipitation (mm), maximum and minimum
  temperature (degrees Celsius), mean wind speed (m/s) and the weather kind (sun, fog, drizzle, rain, snow).
  Stream ``w:seattleWeather``.

Every observation is one stream element (an atomic event ``[t, t]``), a SOSA-style observation graph
(``w:`` = :data:`W`, ``sosa:`` = :data:`SOSA`)::

    w:sf-2010-09-01T13 sosa:madeBySensor w:sfThermometer ;
                       sosa:observedProperty w:airTemperature ;
                       sosa:hasSimpleResult 70.7 .                 # xsd:decimal, the value as in the dataset

A day of ``seattle-weather`` is five elements at the same tick, in the order precipitation, maximum temperature,
minimum temperature, wind speed, weather kind (sensors ``w:seaRainGauge``, ``w:seaMaxThermometer``,
``w:seaMinThermometer``, ``w:seaAnemometer``, ``w:seaSkyObserver``; properties ``w:precipitation``,
``w:maxAirTemperature``, ``w:minAirTemperature``, ``w:windSpeed``, ``w:weatherKind``); the weather kind's result is
an IRI (``w:sun``, ``w:fog``, ``w:drizzle``, ``w:rain``, ``w:snow``), the others exact decimals.

**Ticks**: hours (hourly datasets) or days (``seattle-weather``), counted from 00:00 of the first day of the slice
(tick 0; from 2010-01-01 / 2012-01-01 for the whole dataset), so that the horizon ``[0, H]`` of a slice is as short
as the slice.  Hourly ticks are computed from the timestamps, so the DST hour leaves a gap.  When both hourly
datasets are selected, the two readings of an hour share the tick (``sf`` first).  Positions are ``0..n-1`` in time
order.

The static graph ``data/stations.ttl`` (:func:`static_data`; a query attaches it with a ``# static: stations``
line): the sensors (``sosa:isHostedBy`` a station, ``sosa:observes`` a property), stations (``w:locatedIn`` a city,
``w:heatThreshold`` / ``w:coldThreshold`` in degrees Fahrenheit), cities, counties, regions, states and countries
(``w:partOf``, transitively up to ``w:USA``), their classes (``rdf:type``), and a small taxonomy of weather kinds
(``w:rain a w:Rainy``, ``w:Rainy rdfs:subClassOf w:WetWeather``, ...), so that nested path expressions such as
``w:locatedIn/w:partOf*/[a w:State]`` and ``rdf:type/rdfs:subClassOf*`` are meaningful.

The queries live in ``workbench/langs/cqels/data/*.q``.  Each file starts with ``#`` comment lines; a line
``# stream: NAME FIRST..LAST`` (``NAME`` = ``sf-temps``, ``seattle-temps``, ``hourly-temps`` = both hourly
datasets, or ``seattle-weather``; ``FIRST``/``LAST`` inclusive ISO dates) names the slice it is checked on.  Slices
are short (days for the hourly data, weeks for the daily data) so that the clingo oracle answers each in a few
seconds: it grounds every time point of the horizon.
"""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

from rdflib import XSD, Graph, Literal, Namespace

DATA_DIR = Path(__file__).with_name("data")
QUERY_DIR = DATA_DIR
STATIC_FILE = DATA_DIR / "stations.ttl"
W = Namespace("https://ceplab.org/weather#")
SOSA = Namespace("http://www.w3.org/ns/sosa/")
#: First day of the hourly datasets and of seattle-weather.
HOURLY_EPOCH = dt.date(2010, 1, 1)
WEATHER_EPOCH = dt.date(2012, 1, 1)
#: hourly dataset -> (stream, sensor, observation IRI prefix).
HOURLY = {"sf-temps": (W.sfTemps, W.sfThermometer, "sf"), "seattle-temps": (W.seattleTemps, W.seaThermometer, "sea")}
WEATHER_STREAM = W.seattleWeather
#: (seattle-weather column, sensor, observed property), in element order within a day.
WEATHER_COLUMNS = (("precipitation", W.seaRainGauge, W.precipitation),
                   ("temp_max", W.seaMaxThermometer, W.maxAirTemperature),
                   ("temp_min", W.seaMinThermometer, W.minAirTemperature),
                   ("wind", W.seaAnemometer, W.windSpeed),
                   ("weather", W.seaSkyObserver, W.weatherKind))
WEATHER_KINDS = ("sun", "fog", "drizzle", "rain", "snow")
STREAM_NAMES = ("sf-temps", "seattle-temps", "hourly-temps", "seattle-weather")


def _decimal(v: float) -> Literal:
    return Literal(str(Decimal(repr(float(v)))), datatype=XSD.decimal)


def _day(x: dt.date | str | None, default: dt.date) -> dt.date:
    if x is None:
        return default
    return dt.date.fromisoformat(x) if isinstance(x, str) else x


@lru_cache(maxsize=2)
def _hourly_rows(name: str) -> tuple[tuple[dt.datetime, float], ...]:
    """(timestamp, degrees F) of ``sf-temps`` / ``seattle-temps``, in time order."""
    from vega_datasets import local_data

    df = getattr(local_data, name.replace("-", "_"))()
    out = []
    for ts, temp in zip(df["date"], df["temp"]):
        d = ts.to_pydatetime() if hasattr(ts, "to_pydatetime") else dt.datetime.fromisoformat(str(ts))
        out.append((d, float(temp)))
    out.sort(key=lambda r: r[0])
    return tuple(out)


@lru_cache(maxsize=1)
def _weather_rows() -> tuple[tuple[dt.date, tuple], ...]:
    """(date, (precipitation, temp_max, temp_min, wind, weather kind)) of ``seattle-weather``, in date order."""
    from vega_datasets import local_data

    df = local_data.seattle_weather()
    out = []
    for row in zip(df["date"], *(df[c] for c, _, _ in WEATHER_COLUMNS)):
        date = row[0].date() if hasattr(row[0], "date") else dt.date.fromisoformat(str(row[0])[:10])
        out.append((date, tuple(row[1:])))
    out.sort(key=lambda r: r[0])
    return tuple(out)


def _element(triples: list, t: int, stream: Any, pos: int, name: Any) -> Any:
    from ceplab.semantics.rdfstream import StreamElement

    g = Graph()
    for tr in triples:
        g.add(tr)
    return StreamElement(g, t, t, stream, pos, name)


def _observation(obs: Any, sensor: Any, prop: Any, value: Any) -> list:
    return [(obs, SOSA.madeBySensor, sensor), (obs, SOSA.observedProperty, prop), (obs, SOSA.hasSimpleResult, value)]


def hourly_elements(datasets: tuple[str, ...] = ("sf-temps",), first: dt.date | str | None = None,
                    last: dt.date | str | None = None) -> list:
    """Hourly temperatures as stream elements (module docstring).

    Args:
        datasets: ``sf-temps`` and/or ``seattle-temps`` (``sf`` first within an hour).
        first, last: keep the hours of the days ``first <= date <= last`` (ISO strings or dates); None = open end.

    Returns:
        one element per reading at tick = hours since ``first`` 00:00 (2010-01-01 when None), sorted by
        ``(start, position)``.

    Raises:
        ValueError: an unknown dataset name.
    """
    from ceplab.semantics.cqels.streams import check_elements

    unknown = [d for d in datasets if d not in HOURLY]
    if unknown:
        raise ValueError(f"unknown hourly dataset(s) {unknown} (known: {', '.join(HOURLY)})")
    lo = _day(first, HOURLY_EPOCH)
    hi = _day(last, dt.date.max)
    origin = dt.datetime.combine(lo, dt.time())
    rows = []
    for k, name in enumerate(d for d in HOURLY if d in datasets):
        stream, sensor, tag = HOURLY[name]
        for ts, temp in _hourly_rows(name):
            if lo <= ts.date() <= hi:
                delta = ts - origin
                rows.append((delta.days * 24 + delta.seconds // 3600, k, ts, stream, sensor, tag, temp))
    rows.sort(key=lambda r: (r[0], r[1]))
    out = []
    for pos, (h, _, ts, stream, sensor, tag, temp) in enumerate(rows):
        obs = W[f"{tag}-{ts:%Y-%m-%dT%H}"]
        out.append(_element(_observation(obs, sensor, W.airTemperature, _decimal(temp)), h, stream, pos, obs))
    return check_elements(out, "<hourly temperatures>")


def weather_elements(first: dt.date | str | None = None, last: dt.date | str | None = None) -> list:
    """``seattle-weather`` as stream elements: five per day (module docstring).

    Args:
        first, last: keep the days ``first <= date <= last``; None = open end.

    Returns:
        elements at tick = days since ``first`` (2012-01-01 when None), sorted by ``(start, position)``.
    """
    from ceplab.semantics.cqels.streams import check_elements

    lo = _day(first, WEATHER_EPOCH)
    hi = _day(last, dt.date.max)
    out = []
    for date, values in _weather_rows():
        if not lo <= date <= hi:
            continue
        d = (date - lo).days
        for (col, sensor, prop), v in zip(WEATHER_COLUMNS, values):
            obs = W[f"sea-{date:%Y-%m-%d}-{col.replace('_', '')}"]
            value = W[str(v)] if col == "weather" else _decimal(v)
            out.append(_element(_observation(obs, sensor, prop, value), d, WEATHER_STREAM, len(out), obs))
    return check_elements(out, "<seattle-weather>")


def elements_for_spec(name: str, first: Optional[str] = None, last: Optional[str] = None) -> list:
    """The stream slice named by a ``# stream: NAME FIRST..LAST`` line (None: an open end).

    Raises:
        ValueError: an unknown stream name.
    """
    if name == "seattle-weather":
        return weather_elements(first, last)
    if name in HOURLY:
        return hourly_elements((name,), first, last)
    if name == "hourly-temps":
        return hourly_elements(tuple(HOURLY), first, last)
    raise ValueError(f"unknown CQELS-CEP stream {name!r} (known: {', '.join(STREAM_NAMES)})")


# ------------------------------------------------------------------------------------------------ static data
@lru_cache(maxsize=1)
def static_data() -> Any:
    """The stations-and-regions graph (``data/stations.ttl``) as constant static data
    (:class:`ceplab.semantics.cqels.streams.StaticData`)."""
    from ceplab.semantics.cqels.streams import read_static

    return read_static(STATIC_FILE)


# ------------------------------------------------------------------------------------------------ query files
_STREAM_RE = re.compile(r"^\s*#\s*stream:\s*(\S+)\s+(\d{4}-\d\d-\d\d)\.\.(\d{4}-\d\d-\d\d)\s*$", re.M)


def stream_spec(text: str) -> tuple[str, str, str]:
    """``(name, first, last)`` of a query file's ``# stream:`` line.

    Raises:
        ValueError: the file has no (well-formed) ``# stream:`` line.
    """
    m = _STREAM_RE.search(text)
    if not m:
        raise ValueError("a CQELS-CEP data query file needs a line '# stream: NAME YYYY-MM-DD..YYYY-MM-DD'")
    return m.group(1), m.group(2), m.group(3)


def query_files() -> list[Path]:
    """The bundled CQELS-CEP query files, sorted by name."""
    return sorted(QUERY_DIR.glob("*.q"))


def case_name(path: Path, text: str) -> str:
    """``STEM@STREAM:FIRST..LAST``, e.g. ``sf_heat_alarm@sf-temps:2010-09-01..2010-09-03``."""
    name, first, last = stream_spec(text)
    return f"{path.stem}@{name}:{first}..{last}"


def real_cases() -> list[tuple[str, str, list]]:
    """The bundled real-data CQELS-CEP cases ``(name, query_text, stream)``, one per query file.

    Same record shape as :func:`ceplab.workbench.langs.epsparql.data.real_cases`.  The static data is named in the
    query text (``# static: stations``), so the language's ``parse`` attaches it.
    """
    out = []
    for p in query_files():
        text = p.read_text(encoding="utf-8")
        out.append((case_name(p, text), text, elements_for_spec(*stream_spec(text))))
    return out


def export(directory: str | Path) -> list[Path]:
    """Write the whole streams as TriG (``sf-temps.trig``, ``seattle-temps.trig``, ``seattle-weather.trig``) and the
    static graph (``stations.ttl``)."""
    from ceplab.semantics.rdfstream import dumps_trig_elements

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, els in (("sf-temps.trig", hourly_elements(("sf-temps",))),
                      ("seattle-temps.trig", hourly_elements(("seattle-temps",))),
                      ("seattle-weather.trig", weather_elements())):
        (d / name).write_text(dumps_trig_elements(els), encoding="utf-8")
        out.append(d / name)
    (d / "stations.ttl").write_text(STATIC_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    out.append(d / "stations.ttl")
    return out


if __name__ == "__main__":  # python -m ceplab.workbench.langs.cqels.data DIR
    import sys

    for p in export(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(p)
