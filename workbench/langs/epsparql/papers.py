"""How EP-SPARQL worked examples are written in ``papers-check/epsparql/*.json`` (:class:`ceplab.workbench.language.PaperFormat`).

Streams: a stream file next to the case file, or the compact notation of :func:`parse_compact_stream`; expected
results in the canonical form or the compact one of :func:`paper_expected`; ``result_head`` values ``select``,
``select:N`` or ``construct`` (:func:`project_results`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ceplab.semantics.errors import StreamError
from ceplab.workbench.langs.epsparql.streams import read_stream

#: The namespace bare names in the compact notation stand for (``ACME`` = ``:ACME``).
EX = "http://example.org/"


_COMPACT_TIME = re.compile(r"^@?\[?(\d+)(?:[,\-](\d+))?\]?$")


def _compact_term(tok: str) -> str:
    """``ACME``/``:ACME`` -> ``<http://example.org/ACME>``; integers and N-Triples terms as they are."""
    if tok.startswith(("<", '"', "_:")) or re.fullmatch(r"[+-]?\d+(\.\d+)?", tok) or tok in ("true", "false"):
        return tok
    return f"<{EX}{tok.lstrip(':')}>"


def parse_compact_stream(value: Any, file: str = "<string>") -> list:
    """Papers-check streams: occurrences ``"S P O T"`` / ``"S P O T1 T2"`` / ``"S P O @[T1,T2]"`` (bare names
    are ``http://example.org/`` IRIs, numbers literals, N-Triples terms allowed), as a list of strings or
    one string separated by ``;``; stably sorted by end (docs/semantics/epsparql.md lists them by subject), then read by the
    line-format reader (checks, dedupe, positions)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    items = [x.strip() for x in value.split(";")] if isinstance(value, str) else list(value)
    occ = []
    for i, it in enumerate(x for x in items if x):
        toks = str(it).split()
        times = []
        while toks and _COMPACT_TIME.match(toks[-1]) and len(toks) > 3:
            times.insert(0, toks.pop())
        if len(toks) != 3 or not times:
            raise StreamError(f"expected 'S P O T1 [T2]', got {it!r}", file, i + 1, 1)
        nums = [int(n) for t in times for n in _COMPACT_TIME.match(t).groups() if n is not None]
        if len(nums) > 2:
            raise StreamError(f"at most two times in {it!r}", file, i + 1, 1)
        s, e = nums[0], nums[-1]
        occ.append((e, i, f"{' '.join(_compact_term(t) for t in toks)} {s} {e} ."))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("\n".join(x[2] for x in occ) + "\n", file)


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: a stream file next to the case file (``.trig``/``.nt``/...), or the compact
    notation of :func:`parse_compact_stream`."""
    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, str) and re.search(r"\.(trig|nt|txt|stream|jsonl)$", value):
        return read_stream(Path(file).parent / value)
    if isinstance(value, (str, list)):
        return parse_compact_stream(value, file)
    raise StreamError(f"cannot read an EP-SPARQL stream from {value!r}", file)


def _compact_value(v: Any) -> str:
    if isinstance(v, bool):
        return f'"{str(v).lower()}"^^<http://www.w3.org/2001/XMLSchema#boolean>'
    if isinstance(v, int):
        return f'"{v}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    s = str(v)
    if re.fullmatch(r"[+-]?\d+", s):
        return f'"{int(s)}"^^<http://www.w3.org/2001/XMLSchema#integer>'
    if s.startswith(("<", '"', "_:")):
        return s
    return f"<{EX}{s.lstrip(':')}>"


def paper_expected(items: Any, file: str = "<string>") -> Any:
    """Expected results of a papers-check case in canonical JSON form. Accepts the canonical form and a
    compact one: ``{"map": {"company": "ACME", "p": 100}, "at": [1, 20], "query"?: 0, "count"?: 2}`` and
    ``{"triple": "ACME downratedby Moodys", "at": [1, 4]}`` (bare names ``http://example.org/`` IRIs,
    integers ``xsd:integer`` literals)."""
    if items is None:
        return None
    out = []
    for x in items:
        if isinstance(x, dict) and "at" in x:
            s, e = x["at"]
            if "triple" in x:
                t = x["triple"].split() if isinstance(x["triple"], str) else x["triple"]
                out.append({"triple": [_compact_value(v) for v in t], "start": s, "end": e})
            else:
                j = {"query": int(x.get("query", 0)),
                     "mapping": {k: _compact_value(v) for k, v in (x.get("map") or {}).items()},
                     "start": s, "end": e}
                if "count" in x:
                    j["count"] = x["count"]
                out.append(j)
        else:
            out.append(x)
    return out


def project_results(results: list, head: str) -> list:
    """Canonical results restricted by ``head``: ``"select"`` (the SELECT rows), ``"construct"`` (the
    derived triples) or ``"select:N"`` (the rows of SELECT query ``N``)."""
    from ceplab.workbench.compare import sort_json

    if head == "construct":
        return sort_json(r for r in results if "triple" in r)
    if head.startswith("select"):
        n = head.partition(":")[2]
        return sort_json(r for r in results if "mapping" in r and (not n or r.get("query") == int(n)))
    raise ValueError(f"result_head for epsparql must be select, select:N or construct, got {head!r}")
