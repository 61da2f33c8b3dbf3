"""Planted bugs in the EP-SPARQL engine for ``ceplab bench mutants epsparql`` (:class:`ceplab.workbench.language.Mutant`,
:mod:`ceplab.workbench.mutants`).

A fixed, documented set: each mutant is a one- or two-line change of the native engine's
``engine/epsparql/evaluate.py`` (goal stores, operator deltas, window push-down and sweeping,
docs/semantics/epsparql.md#epsparql-9.2) or ``engine/epsparql/expr.py`` (three-valued filters and the duration bound,
docs/semantics/epsparql.md#epsparql-A11, #epsparql-4.3); the ETALIS backend (``etalis_backend.py``) is not on the
default path and is not mutated.  Each mutant names the rule of docs/semantics/epsparql.md it breaks and carries an
input that exposes it (:data:`EXPOSING`: the query, the stream and the switches; on it the original engine agrees
with the oracle and the mutated one does not).  Queries use ``PREFIX : <http://example.org/>`` (added by
:func:`query_text`); the ``exposes`` line of each mutant is written from that input: ``QUERY on :s :p o@[start,end]
... [with --set NAME=VALUE ...]``.
"""
from __future__ import annotations

from ceplab.workbench.language import Mutant

Occ = tuple[str, str, "int | str", int, int]

#: name -> (query text without the prefix, stream as ``(s, p, o, start, end)`` in arrival order (local names of
#: ``http://example.org/``, objects integers or local names), ``--set`` switches): an input on which the original
#: engine agrees with the oracle and the mutant does not (checked by tests/epsparql).
EXPOSING: dict[str, tuple[str, tuple[Occ, ...], tuple[tuple[str, str], ...]]] = {}

_EX = "http://example.org/"


def query_text(query: str) -> str:
    """An exposing query as a query file (the prefix ``:`` added)."""
    return f"PREFIX : <{_EX}>\n{query}\n"


def stream_text(occs: tuple[Occ, ...]) -> str:
    """An exposing stream in the line format (``<s> <p> <o> T1 T2 .``)."""
    def term(x):
        return str(x) if isinstance(x, int) else f"<{_EX}{x}>"
    return "".join(f"{term(s)} {term(p)} {term(o)} {a} {b} .\n" for s, p, o, a, b in occs)


def _m(name: str, kind: str, file: str, old: str, new: str, description: str, query: str,
       occs: tuple[Occ, ...], sets: tuple[tuple[str, str], ...] = ()) -> Mutant:
    EXPOSING[name] = (query, occs, sets)
    line = f"{query} on " + " ".join(f":{s} :{p} {o if isinstance(o, int) else ':' + o}@[{a},{b}]"
                                      for s, p, o, a, b in occs)
    if sets:
        line += " with " + " ".join(f"--set {k}={v}" for k, v in sets)
    return Mutant(name, kind, file, old, new, description, line)


_EV = "epsparql/evaluate.py"
_EXPR = "epsparql/expr.py"
_BR = '__import__("bisect").bisect_right'

MUTANTS: tuple[Mutant, ...] = (
    _m("join-window-lookup", "window", _EV,
       "        rows, tws = ob\n        lo = bisect_left(tws, T - self.lim)",
       f"        rows, tws = ob\n        lo = {_BR}(tws, T - self.lim)",
       "a Join under a pushed-down window looks up the partner rows from the first one ending after T - lim "
       "(bisect_right) instead of at T - lim (bisect_left): a partner that fits the window exactly is missed "
       "(docs/semantics/epsparql.md#epsparql-4.3, #epsparql-9.2 item 1: rows indexed by end time)",
       "SELECT * WHERE { ?s :p ?x . ?s :q ?y FILTER(getDURATION() < 2) }",
       (("a", "p", 1, 0, 0), ("a", "q", 1, 1, 1))),
    _m("seq-equal-timestamps", "ties", _EV,
       "hi = bisect_left(tws, ta)                 # left rows",
       f"hi = {_BR}(tws, ta)                 # left rows",
       "SEQ joins a left row ending at the right row's start: tω <= t'α instead of the strict tω < t'α "
       "(docs/semantics/epsparql.md#epsparql-3.3 SeqJoin, #epsparql-A4)",
       "SELECT * WHERE { { ?s :p ?x } SEQ { ?s :q ?y } }",
       (("a", "p", 1, 1, 1), ("a", "q", 1, 1, 1))),
    _m("not-dropped", "filter", _EXPR,
       "                return ERR if x is ERR else not x\n",
       "                return ERR if x is ERR else x   # planted: ! dropped\n",
       "the filter operator ! is read as the identity: !BOUND(?y) keeps the rows where ?y is bound "
       "(docs/semantics/epsparql.md#epsparql-3.3 Filter, #epsparql-A11: SPARQL's three-valued logic)",
       "SELECT * WHERE { ?s :p ?x FILTER(!(?x = 1)) }",
       (("a", "p", 1, 0, 0), ("a", "p", 2, 0, 0))),
    _m("filter-error-true", "filter", _EXPR,
       "        return lambda v, a, w: f(v, a, w) is True\n",
       "        return lambda v, a, w: f(v, a, w) is not False   # planted: an error passes\n",
       "a FILTER whose value is an error keeps the row; only true may keep it "
       "(docs/semantics/epsparql.md#epsparql-A11, SPARQL 1.0 section 11.2)",
       "SELECT * WHERE { ?s :p ?x FILTER(?y < 1) }",
       (("a", "p", 1, 0, 0),)),
    _m("duration-bound-off-by-one", "window", _EXPR,
       "                b = c.numerator // c.denominator               # floor(c)\n",
       "                b = c.numerator // c.denominator - 1           # planted: floor(c) - 1\n",
       "the window pushed down from getDURATION() <= c is c - 1: rows of duration exactly c are pruned below the "
       "filter (docs/semantics/epsparql.md#epsparql-4.3, #epsparql-P7)",
       "SELECT * WHERE { ?s :p ?x . ?s :q ?y FILTER(getDURATION() <= 1) }",
       (("a", "p", 1, 0, 0), ("a", "q", 1, 1, 1))),
    _m("gc-one-tick-early", "gc", _EV,
       "            cut = bisect_left(tws, limit)\n",
       f"            cut = {_BR}(tws, limit)\n",
       "the store sweep drops rows with tω <= T - lim instead of < T - lim (one tick too eager): a row that still "
       "fits the window is lost (docs/semantics/epsparql.md#epsparql-4.3, #epsparql-P7)",
       "SELECT * WHERE { ?s :p ?x . ?s :q ?y FILTER(getDURATION() < 3) }",
       (("c", "r", 0, 0, 0), ("a", "p", 1, 1, 1), ("a", "q", 1, 3, 3))),
    _m("join-hull-start", "operator", _EV,
       "            emit(build(l, r), ta if ta < ota else ota)\n",
       "            emit(build(l, r), ta)   # planted: the arriving row's start\n",
       "a Join's result starts at the start of the row that completes it instead of min(tα, t'α) "
       "(docs/semantics/epsparql.md#epsparql-3.2 r ⋈ r', #epsparql-3.1 the hull)",
       "SELECT * WHERE { ?s :p ?x . ?s :q ?y }",
       (("a", "p", 1, 0, 0), ("a", "q", 1, 1, 1))),
    _m("equals-ignores-start", "operator", _EV,
       "        k = ((self.keyL(vals) if side == 0 else self.keyR(vals)), ta)\n",
       "        k = ((self.keyL(vals) if side == 0 else self.keyR(vals)), 0)   # planted: starts not compared\n",
       "EQUALS pairs rows that end together whatever their starts; it needs tα = t'α and tω = t'ω "
       "(docs/semantics/epsparql.md#epsparql-3.3 EqJoin, #epsparql-A5)",
       "SELECT * WHERE { { ?s :p ?x } EQUALS { ?s :q ?y } }",
       (("a", "p", 1, 0, 1), ("a", "q", 1, 1, 1))),
    _m("optional-late-partner-ignored", "ties", _EV,
       "            if not self.le:\n                return\n",
       "            if True:   # planted: a partner arriving later in the tick is ignored\n                return\n",
       "OPTIONAL (optional_end=le) ignores a partner that arrives after the mandatory row within the same tick, "
       "so the mandatory row is emitted unmatched; partners with t'ω <= tω count whatever the arrival order "
       "(docs/semantics/epsparql.md#epsparql-A6, #epsparql-9.2.3)",
       "SELECT * WHERE { { ?s :p ?x } OPTIONAL { ?s :q ?y } }",
       (("a", "p", 1, 0, 0), ("a", "q", 1, 0, 0))),
    _m("optionalseq-block-inclusive", "ties", _EV,
       "            hi = bisect_left(tws, ta)\n            for j in range(hi):\n",
       f"            hi = {_BR}(tws, ta)\n            for j in range(hi):\n",
       "OPTIONALSEQ takes an optional row ending at the mandatory row's start as its partner; it must end "
       "strictly before (docs/semantics/epsparql.md#epsparql-3.3 SeqRightJoin t'ω < tα)",
       "SELECT * WHERE { { ?s :p ?x } OPTIONALSEQ { ?s :q ?y } }",
       (("a", "p", 1, 1, 1), ("a", "q", 1, 1, 1))),
    _m("optional-end-strict-ignored", "switch", _EV,
       "o.optional_end == \"le\"",
       "True",
       "the switch optional_end=strict (a partner must end strictly before the mandatory row) is read as the "
       "default le (docs/semantics/epsparql.md#epsparql-opt-optional_end, #epsparql-A6)",
       "SELECT * WHERE { { ?s :p ?x } OPTIONAL { ?s :q ?y } }",
       (("a", "q", 1, 0, 0), ("a", "p", 1, 0, 0)), (("optional_end", "strict"),)),
    _m("srj-mandatory-ignored", "switch", _EV,
       "o.srj_filter_interval == \"combined\"",
       "True",
       "the switch srj_filter_interval=mandatory (the printed reading: OPTIONALSEQ's blocking test sees the "
       "mandatory row's interval) is read as the default combined "
       "(docs/semantics/epsparql.md#epsparql-opt-srj_filter_interval, #epsparql-A7)",
       "SELECT * WHERE { { ?s :p ?x FILTER(getDURATION() < 1) } OPTIONALSEQ { ?s :q ?y } }",
       (("a", "p", 1, 0, 0), ("a", "q", 1, 1, 1)), (("srj_filter_interval", "mandatory"),)),
    _m("bgp-per-triple-ignored", "switch", _EV,
       "            if o.bgp_mode == \"per_triple\":\n",
       "            if False:   # planted: bgp_mode=per_triple ignored\n",
       "the switch bgp_mode=per_triple (patterns that instantiate to the same triple take the same occurrence) is "
       "read as the default per_pattern (docs/semantics/epsparql.md#epsparql-opt-bgp_mode, #epsparql-A3)",
       "SELECT * WHERE { ?s :p ?x . ?s :p ?y }",
       (("a", "p", 1, 0, 0), ("a", "p", 1, 1, 1)), (("bgp_mode", "per_triple"),)),
    _m("error-is-false-ignored", "switch", _EV,
       "options.filter_errors == \"error_is_false\"",
       "False",
       "the switch filter_errors=error_is_false (an erroneous comparison is false where it occurs, so !(error) "
       "is true) is read as the default three-valued logic "
       "(docs/semantics/epsparql.md#epsparql-opt-filter_errors, #epsparql-A11)",
       "SELECT * WHERE { ?s :p ?x FILTER(!(?y < 1)) }",
       (("a", "p", 1, 0, 0),), (("filter_errors", "error_is_false"),)),
    _m("output-bag-ignored", "switch", _EV,
       "        bag = self.o.output == \"bag\"\n",
       "        bag = False   # planted: output=bag ignored\n",
       "the switch output=bag (rows with their multiplicities) is read as the default set output "
       "(docs/semantics/epsparql.md#epsparql-opt-output, #epsparql-A10)",
       "SELECT ?s WHERE { ?s :p ?x }",
       (("a", "p", 1, 0, 0), ("a", "p", 2, 0, 0)), (("output", "bag"),)),
)


def mutants() -> tuple[Mutant, ...]:
    """The EP-SPARQL engine's mutants (:data:`MUTANTS`)."""
    return MUTANTS
