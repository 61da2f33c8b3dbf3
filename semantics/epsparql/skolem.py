"""Skolemization of the blank nodes of CONSTRUCT templates (docs/semantics/epsparql.md#epsparql-A13c).

Part of what an EP-SPARQL query set *means* to ceplab, shared by the oracle (``asp/epsparql.py``) and the
engine (``engine/epsparql/evaluate.py``).  Source: Anicic, Fodor, Rudolph, Stojanovic, "EP-SPARQL: a unified
language for event processing and stream reasoning", WWW 2011, section 4 (CONSTRUCT queries derive new
events), with SPARQL 1.0 section 10.2: a template blank node stands for a fresh node *per solution*.  ceplab
fixes that fresh node as a Skolem IRI that depends only on the blank node's label, the solution mapping and
the solution's interval, so that equal solutions derive equal triples (set semantics) and both evaluators name
them alike.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable

from rdflib import URIRef

__all__ = ["SKOLEM_PREFIX", "skolem"]

#: Prefix of every Skolem IRI.
SKOLEM_PREFIX = "urn:ceplab:epsparql:sk:"


def skolem(label: str, mapping_items: Iterable[tuple[str, str]], ta: int, tw: int) -> URIRef:
    """The Skolem IRI of template blank node ``_:label`` for one CONSTRUCT solution (docs/semantics/epsparql.md#epsparql-A13c).

    Args:
        label: the blank node's label in the template (``str``, without ``_:``).
        mapping_items: the solution mapping of the CONSTRUCT's WHERE (the variables of its root pattern that
            are bound) as ``(variable name without '?', canonical N-Triples term)`` pairs of ``str``, in any
            order.
        ta: the start of the solution's interval (integer ticks).
        tw: the end of the solution's interval (integer ticks).

    Returns:
        ``URIRef(SKOLEM_PREFIX + h)`` with ``h`` the first 32 hex digits of the SHA-256 of the JSON text
        ``[label, sorted items as [name, term] lists, ta, tw]`` (``json.dumps`` with ``ensure_ascii=True,
        separators=(",", ":")``).

    Raises:
        ValueError / TypeError: ``ta`` or ``tw`` is not convertible to ``int``.
    """
    items = sorted((str(k), str(v)) for k, v in mapping_items)
    data = json.dumps([str(label), [list(i) for i in items], int(ta), int(tw)], ensure_ascii=True,
                      separators=(",", ":"))
    return URIRef(SKOLEM_PREFIX + hashlib.sha256(data.encode("utf-8")).hexdigest()[:32])
