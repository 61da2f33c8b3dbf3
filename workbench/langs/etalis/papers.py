"""How ETALIS worked examples are written in ``papers-check/etalis/*.json`` (:class:`ceplab.workbench.language.PaperFormat`).

Streams: inline event objects (JSON Lines form), a ``.jsonl``/``.stream`` file next to the case file, or the
compact notation ``"a@1 b(1,x)@2 p@3-5"``. The shared-rules x patterns layout (``figure1.json``) builds each
query as the rules plus ``HEAD <- PATTERN.``; results are compared restricted to the head, 0-ary atoms as
``[start, end]`` intervals (how the paper's figures state them).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from ceplab.semantics.errors import ParseError
from ceplab.semantics.etalis.streams import read_events


def parse_compact_stream(text: str, file: str = "<string>") -> list:
    """``"a@1 b(1,x)@2 p@3-5"`` -> stream events (point ``@t`` or interval ``@start-end``), stably
    ordered by end time, positions renumbered (papers-check notation)."""
    from ceplab.semantics.errors import StreamError
    from ceplab.semantics.etalis import ast as A
    from ceplab.semantics.etalis.parser import parse_term
    from ceplab.semantics.etalis.streams import StreamEvent

    out = []
    for i, tok in enumerate(text.split()):
        atom, at, t = tok.rpartition("@")
        s, _, e = t.partition("-")
        if not at or not s.isdigit() or (e and not e.isdigit()):
            raise StreamError(f"expected ATOM@T or ATOM@START-END, got {tok!r}", file)
        try:
            term = parse_term(atom, file)
        except ParseError as err:
            raise StreamError(f"bad event {atom!r}: {err.message}", file) from None
        if isinstance(term, A.Sym):
            ea = A.EventAtom(term.name, ())
        elif isinstance(term, A.Compound):
            ea = A.EventAtom(term.functor, term.args)
        else:
            raise StreamError(f"bad event {atom!r}", file)
        out.append(StreamEvent(ea, int(s), int(e or s), i))
    out.sort(key=lambda x: x.end)
    return [dataclasses.replace(x, position=i) for i, x in enumerate(out)]


def paper_stream(value: Any, file: str) -> list:
    """A papers-check stream: inline event objects (JSON Lines form), a ``.jsonl``/``.stream``
    file next to the case file, or the compact ``"a@1 b(2)@3-5"`` notation."""
    from ceplab.semantics.errors import StreamError
    from ceplab.semantics.etalis.streams import read_jsonl_events

    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, str):
        if value.endswith((".jsonl", ".stream")):
            return read_events(Path(file).parent / value)
        return parse_compact_stream(value, file)
    if isinstance(value, list):
        return read_jsonl_events("".join(json.dumps(x) + "\n" for x in value), file)
    raise StreamError(f"cannot read an ETALIS stream from {value!r}", file)


def pattern_query(rules: Any, head: str, pattern: str) -> str:
    """The query of a Figure-1-style case: the shared ``rules`` plus ``head <- pattern.``."""
    pre = "\n".join(rules) if isinstance(rules, list) else str(rules or "")
    return (pre + "\n" if pre else "") + f"{head} <- {pattern}.\n"


def project_results(results: list, head: str) -> list:
    """Canonical results restricted to ``head``: a predicate name (``r``: every ``r`` and ``r(..)``)
    or one atom (``r(1)``). 0-ary atoms become ``[start, end]`` intervals (how the paper's figures
    state them), others stay ``[atom, start, end]``."""
    from ceplab.workbench.compare import sort_json

    out = []
    for a, s, e in results:
        if a == head or ("(" not in head and a.split("(", 1)[0] == head):
            out.append([s, e] if "(" not in a else [a, s, e])
    return sort_json(out)
