"""What a differential campaign actually drew: ``ceplab fuzz --coverage`` (issue: checks that catch bugs).

A campaign only checks what its generators draw.  :func:`case_features` names, for one case, every switch value,
every query construct and a few stream features; :func:`tally` counts them over a campaign, and every value of a
switch with a closed set of values (a ``Literal`` or ``bool`` field of the language's ``Options``) is listed even
when it was never drawn, so a never-drawn switch value shows as 0.

The features are computed from the language's own typed values, with no per-language code:

* ``switch:NAME=VALUE``: each field of the case's ``Options``;
* ``op:CLASS``: each class of node in the parsed query (the AST is a tree of dataclasses, DESIGN.md section 3), and
  ``op:CLASS.FIELD=VALUE`` for the node fields that name an operator or a choice (:data:`CHOICE_FIELDS`, string
  values only: ``op:Cmp.op=<``);
* ``stream:events=BUCKET`` (:data:`LENGTH_BUCKETS`), ``stream:ties`` (two events at one time),
  ``stream:types=K`` (distinct event types, streams or graphs' stream IRIs), ``stream:attr-missing`` (an event
  lacks an attribute another event of its type has), ``stream:attr-mixed-kinds`` (one attribute carries values of
  different JSON kinds), from the language's ``event_row``.
"""
from __future__ import annotations

import dataclasses
import typing
from collections import Counter
from typing import Any, Iterable

#: Node fields whose string value names an operator or a choice (``op:Class.field=value``).
CHOICE_FIELDS = frozenset({"op", "kind", "strategy", "selection", "connector", "axis", "policy", "fn", "func",
                           "mode", "unit", "name_op", "operator", "agg", "aggregate", "inverse"})

#: Stream-length buckets (upper bounds, inclusive) of ``stream:events``.
LENGTH_BUCKETS = (0, 6, 20, 60, 200)

_MAX_NODES = 20_000


def _bucket(n: int) -> str:
    lo = 0
    for b in LENGTH_BUCKETS:
        if n <= b:
            return str(b) if lo == b else f"{lo}-{b}"
        lo = b + 1
    return f">{LENGTH_BUCKETS[-1]}"


def query_features(query: Any) -> set[str]:
    """``op:`` features of a parsed query: the classes of its dataclass nodes and their choice fields."""
    out: set[str] = set()
    stack = [query]
    seen = 0
    while stack and seen < _MAX_NODES:
        x = stack.pop()
        seen += 1
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            cls = type(x).__name__
            out.add(f"op:{cls}")
            for f in dataclasses.fields(x):
                v = getattr(x, f.name, None)
                if isinstance(v, str):
                    if f.name in CHOICE_FIELDS and len(v) <= 24:
                        out.add(f"op:{cls}.{f.name}={v}")
                elif isinstance(v, bool) and f.name in CHOICE_FIELDS:
                    out.add(f"op:{cls}.{f.name}={v}")
                elif v is not None and not isinstance(v, (int, float)):
                    stack.append(v)
        elif isinstance(x, (list, tuple, frozenset, set)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return out


def _kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "null" if v is None else type(v).__name__


def stream_features(lang: Any, stream: Iterable[Any]) -> set[str]:
    """``stream:`` features of a stream, read through ``lang.event_row`` (``(time, type, attrs)``)."""
    rows = [lang.event_row(e) for e in stream]
    out = {f"stream:events={_bucket(len(rows))}"}
    times = [r[0] for r in rows]
    if len(set(times)) < len(times):
        out.add("stream:ties")
    out.add(f"stream:types={len({r[1] for r in rows})}")
    by_type: dict[str, list[dict]] = {}
    kinds: dict[str, set[str]] = {}
    for _t, typ, attrs in rows:
        attrs = attrs if isinstance(attrs, dict) else {}
        by_type.setdefault(typ, []).append(attrs)
        for k, v in attrs.items():
            kinds.setdefault(k, set()).add(_kind(v))
    for group in by_type.values():
        names = set().union(*(a.keys() for a in group)) if group else set()
        if any(names - a.keys() for a in group):
            out.add("stream:attr-missing")
            break
    if any(len(k - {"null"}) > 1 for k in kinds.values()):
        out.add("stream:attr-mixed-kinds")
    return out


def option_features(options: Any) -> set[str]:
    """``switch:`` features of an ``Options`` value."""
    if options is None or not dataclasses.is_dataclass(options):
        return set()
    return {f"switch:{f.name}={getattr(options, f.name)}" for f in dataclasses.fields(options)}


def case_features(lang: Any, query: Any, stream: Any, options: Any) -> list[str]:
    """Every feature of one case (module docstring), sorted.  ``query`` may be None (a query that did not parse)."""
    feats = option_features(options) | stream_features(lang, stream)
    if query is not None:
        feats |= query_features(query)
    return sorted(feats)


def switch_values(options_cls: type) -> list[str]:
    """``switch:NAME=VALUE`` for every value of every closed switch (``Literal`` or ``bool``) of ``options_cls``."""
    out = []
    hints = typing.get_type_hints(options_cls)
    for f in dataclasses.fields(options_cls):
        tp = hints.get(f.name)
        args = typing.get_args(tp) if typing.get_origin(tp) is typing.Literal else None
        if tp is bool:
            args = (False, True)
        for a in args or ():
            out.append(f"switch:{f.name}={a}")
    return out


def tally(options_cls: type, feature_lists: Iterable[Iterable[str]]) -> dict[str, int]:
    """Cases per feature over a campaign; every closed switch value is present (0 when never drawn)."""
    c: Counter = Counter()
    for fl in feature_lists:
        c.update(set(fl))
    out = {k: 0 for k in switch_values(options_cls)}
    out.update(c)
    return dict(sorted(out.items()))


def render(lang: str, counts: dict[str, int], cases: int, console: Any) -> None:
    """Print one table per feature group (switch, op, stream): cases and share; never-drawn switch values first."""
    from rich.table import Table

    for group in ("switch", "op", "stream"):
        items = [(k, v) for k, v in counts.items() if k.startswith(group + ":")]
        if not items:
            continue
        t = Table(title=f"{lang}: {group} coverage over {cases} cases")
        t.add_column(group)
        t.add_column("cases", justify="right")
        t.add_column("share", justify="right")
        for k, v in sorted(items, key=lambda kv: (kv[1] != 0, kv[0])):
            t.add_row(k.split(":", 1)[1], str(v), f"{100 * v / cases:.1f}%" if cases else "-",
                      style="bold red" if v == 0 else None)
        console.print(t)
    never = [k for k, v in counts.items() if v == 0]
    if never:
        console.print(f"{lang}: never drawn: {', '.join(never)}", markup=False)
