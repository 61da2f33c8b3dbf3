"""Random EP-SPARQL cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

:func:`gen_epsparql_pattern`, :func:`gen_epsparql_query` (query texts with explicit braces, every operator,
FILTERs on values / BOUND / the time functions, occasionally a CONSTRUCT feeding the SELECT),
:func:`gen_epsparql_stream` (occurrence lists, times 0..8, mostly points); hypothesis wrappers
:func:`epsparql_queries`, :func:`epsparql_streams`, :func:`epsparql_options`, :func:`epsparql_cases`; Spark entry
:func:`random_epsparql_case` (a fraction of Spark cases also draw background knowledge,
:func:`gen_epsparql_background`: static triples and an RDFS schema over the same vocabulary); bundle
:class:`EpsparqlStrategies`.

Besides the operators, what the campaign draws (docs/semantics/epsparql.md#epsparql-2.2, #epsparql-A15): FILTERs
with ``&&``, ``||``, ``!`` of any condition, all six comparisons, arithmetic and unary minus on values, duration
bounds written every way (``getDURATION() < k``, ``k > getDURATION()``, ``getENDTIME() - getSTARTTIME() <= k``,
against ``xsd:duration`` literals) and ``xsd:dateTime`` bounds on the time functions, both written for the case's
``tick_seconds``; ``(expr AS ?e0)`` in the projection, ``DISTINCT``/``REDUCED``, sub-SELECTs, variable predicates,
``;``/``,`` lists, decimal, negative and string literals in patterns and streams; long streams (40-200
occurrences under a small ``getDURATION()`` bound); operators whose answers a drawn non-default switch changes
drawn more often (:func:`focus_operators`).

Switches and ties (issue 11 item 7(b): the default campaign must kill the engine mutants of ``mutants.py``):
:func:`steering` turns a case's switches into query shapes that their readings answer differently
(docs/semantics/epsparql.md#epsparql-8): twin triple patterns of one subject and predicate for ``bgp_mode`` (A3,
:func:`_twin_leaf`), erroneous comparisons under ``!`` for ``filter_errors`` (A11, :func:`error_filter`), FILTERs on
the interval alone on OPTIONALSEQ's optional operand for ``srj_filter_interval`` (A7, :func:`_interval_filter`);
streams with ``ties`` (:func:`gen_epsparql_stream`: equal timestamps, equal ends with different starts, one triple at
two times, planted on earlier occurrences) for ``optional_end``, ``bgp_mode``, ``srj_filter_interval`` and for 30% of
all cases, with SEQ, OPTIONAL, OPTIONALSEQ, EQUALS and EQUALSOPTIONAL (:data:`TIE_OPERATORS`, A4-A6) drawn more often
and a window now and then.
"""
from __future__ import annotations

import random
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from ceplab.workbench.generators import Chooser, HypothesisChooser, RandomChooser

#: Subjects, predicates and objects of generated EP-SPARQL cases (``PREFIX : <http://example.org/>``).
EPSPARQL_SUBJECTS: tuple[str, ...] = ("a", "b", "c")
EPSPARQL_PREDICATES: tuple[str, ...] = ("p", "q", "r")
EPSPARQL_VALUES: tuple[int, ...] = (0, 1, 2)
#: The binary graph operators (juxtaposition = Join), simpler first.
EPSPARQL_OPS: tuple[str, ...] = ("JOIN", "SEQ", "UNION", "OPTIONAL", "EQUALS", "OPTIONALSEQ",
                                 "EQUALSOPTIONAL")
_EPSPARQL_PREFIX = "PREFIX : <http://example.org/>\n"
_EPSPARQL_VARS = ("?x", "?y", "?z")
#: Predicate written by generated CONSTRUCT rules (never read by their own WHERE: the closure stays finite).
EPSPARQL_DERIVED = "d"
#: Classes of generated background ontologies (``rdf:type`` objects in streams, static graphs and queries).
EPSPARQL_CLASSES: tuple[str, ...] = ("C0", "C1", "C2")
#: The pseudo-predicate ``a`` (``rdf:type``) in a predicate pool: its object is a variable or a class.
EPSPARQL_TYPE = "a"
_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"


def _epsparql_triple(ch: Chooser, preds: Sequence[str]) -> tuple[str, set[str]]:
    s = ch.choice(["?s", "?s", ":" + ch.choice(EPSPARQL_SUBJECTS)])
    p = ch.choice(list(preds))
    if p == EPSPARQL_TYPE:
        o = ch.choice(list(_EPSPARQL_VARS) + [":" + c for c in EPSPARQL_CLASSES])
        vs = {v for v in (s, o) if v.startswith("?")}
        return f"{s} a {o}", vs
    p = ":" + p if not ch.boolean(0.05) else "?pp"
    o = ch.choice(list(_EPSPARQL_VARS) + [str(ch.choice(EPSPARQL_VALUES))])
    if not o.startswith("?") and ch.boolean(0.15):
        o = ch.choice([f"{o}.5", f"-{o}", f"{o}.0", f'"{o}"'])
    vs = {v for v in (s, p, o) if v.startswith("?")}
    return f"{s} {p} {o}", vs


def _time_literal(ch: Chooser, k: int, tick_seconds: int, kind: str) -> str:
    """``k`` ticks as an ``xsd:duration`` (``kind == "dur"``) or ``xsd:dateTime`` literal under ``tick_seconds``
    (86400: days, 3600: hours, 60: minutes, else seconds), so the literal is a whole number of ticks (A15)."""
    unit = {86400: "D", 3600: "H", 60: "M"}.get(tick_seconds, "S")
    secs = k * tick_seconds
    if kind == "dur":
        text = f"P{k}D" if unit == "D" else f"PT{k}{unit}"
        return f'"{text}"^^<http://www.w3.org/2001/XMLSchema#duration>'
    import datetime as _dt

    when = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=secs)
    return f'"{when.isoformat()}Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>'


def _value_operand(ch: Chooser, v: str) -> str:
    """``v``, or arithmetic on it (``+ - *``, unary minus)."""
    k = ch.integer(0, 9)
    if k == 7:
        return f"{v} {ch.choice(['+', '-', '*'])} {ch.choice(EPSPARQL_VALUES)}"
    if k == 8:
        return f"-{v}"
    return v


def error_filter(ch: Chooser, vs: Sequence[str]) -> str:
    """A FILTER expression whose comparison raises an error on some rows, under ``!`` or beside ``||``/``&&``:
    ``!(?w < k)`` and variants (arithmetic or unary minus on ``?w`` now and then), ``?w`` one of the group's variables (an IRI or string object makes the comparison an
    error) or a variable the group never binds (always an error).  Three-valued logic drops such a row at the top
    (``!(error)`` is an error), ``filter_errors=error_is_false`` keeps it (``!(false)``): the switch's mutant
    ``error-is-false-ignored`` (docs/semantics/epsparql.md#epsparql-A11, #epsparql-opt-filter_errors)."""
    w = ch.choice(list(vs) + ["?w", "?w"])
    cmp = f"{_value_operand(ch, w)} {ch.choice(['<', '>', '<=', '>=', '=', '!='])} {ch.choice(EPSPARQL_VALUES)}"
    k = ch.integer(0, 5)
    if k <= 2:
        return f"!({cmp})"
    if k == 3:
        return f"!({cmp} && getDURATION() >= 0)"
    if k == 4:
        return f"!({cmp}) || getDURATION() > {ch.integer(0, 2)}"
    return f"!({cmp} || BOUND({w}))"


def _interval_filter(ch: Chooser) -> str:
    """A FILTER on the row's interval alone that a point passes and a row spanning a later partner may fail
    (``getDURATION() < 1..2``, ``<= 0..1``, ``getSTARTTIME() >= 1..3``, ``getENDTIME() - getSTARTTIME() < 1..2``;
    the optional row precedes the mandatory one, so their hull starts earlier and lasts longer):
    OPTIONALSEQ's ``F`` on its mandatory operand, where ``srj_filter_interval`` decides which interval the
    no-partner test sees (docs/semantics/epsparql.md#epsparql-A7, #epsparql-opt-srj_filter_interval)."""
    k = ch.integer(0, 3)
    if k == 0:
        return f"getDURATION() < {ch.integer(1, 2)}"
    if k == 1:
        return f"getDURATION() <= {ch.integer(0, 1)}"
    if k == 2:
        return f"getSTARTTIME() >= {ch.integer(1, 3)}"
    return f"getENDTIME() - getSTARTTIME() < {ch.integer(1, 2)}"


def _epsparql_filter(ch: Chooser, vs: Sequence[str], tick_seconds: int = 86400, depth: int = 1) -> str:
    """A FILTER expression over the variables ``vs`` and the group's interval: the time functions against small
    boundary constants (also mirrored, ``k > getDURATION()``, as ``getENDTIME() - getSTARTTIME()``, and against
    ``xsd:duration`` / ``xsd:dateTime`` literals written for ``tick_seconds``), ``BOUND``, value comparisons with
    all six operators (arithmetic and unary minus on the variable now and then), and (``depth`` > 0) ``&&``,
    ``||`` and ``!`` of smaller ones."""
    k = ch.integer(0, 4)
    kinds = (["dur", "dur_le", "start", "end", "bound", "notbound", "dur_mirror", "dur_diff", "dur_lit", "time_lit"]
             + (["val", "val", "val2", "or"] if vs else []) + (["and", "not", "or2"] if depth > 0 else []))
    kind = ch.choice(kinds)
    if kind == "dur":
        return f"getDURATION() {ch.choice(['<', '<', '<', '>', '>='])} {k}"
    if kind == "dur_le":
        return f"getDURATION() <= {k}"
    if kind == "dur_mirror":
        return f"{k} {ch.choice(['>', '>=', '<', '<='])} getDURATION()"
    if kind == "dur_diff":
        return f"getENDTIME() - getSTARTTIME() {ch.choice(['<', '<=', '='])} {k}"
    if kind == "dur_lit":
        return f"getDURATION() {ch.choice(['<', '<=', '>'])} {_time_literal(ch, k, tick_seconds, 'dur')}"
    if kind == "time_lit":
        fn = ch.choice(["getSTARTTIME()", "getENDTIME()"])
        return f"{fn} {ch.choice(['<', '>=', '<=', '>'])} {_time_literal(ch, ch.integer(0, 8), tick_seconds, 'dt')}"
    if kind == "start":
        return f"getSTARTTIME() {ch.choice(['>=', '>', '='])} {ch.integer(0, 8)}"
    if kind == "end":
        return f"getENDTIME() {ch.choice(['<', '<='])} {ch.integer(0, 8)}"
    if kind == "and":
        return f"{_epsparql_filter(ch, vs, tick_seconds, 0)} && {_epsparql_filter(ch, vs, tick_seconds, 0)}"
    if kind == "not":
        return f"!({_epsparql_filter(ch, vs, tick_seconds, 0)})"
    if kind == "or2":
        return f"({_epsparql_filter(ch, vs, tick_seconds, 0)} || {_epsparql_filter(ch, vs, tick_seconds, 0)})"
    pool = list(vs) or list(_EPSPARQL_VARS)
    v = ch.choice(pool)
    if kind == "bound":
        return f"BOUND({v})"
    if kind == "notbound":
        return f"!BOUND({v})"
    if kind == "val":
        c = str(ch.choice(EPSPARQL_VALUES))
        if ch.boolean(0.15):
            c = ch.choice([f"{c}.5", f"-{c}", f"{c}.0"])
        left, right = _value_operand(ch, v), c
        if ch.boolean(0.2):
            left, right = right, left
        return f"{left} {ch.choice(['<', '=', '!=', '>=', '>', '<='])} {right}"
    if kind == "val2":
        return f"{v} {ch.choice(['<', '=', '!=', '>', '<=', '>='])} {ch.choice(pool)}"
    return f"{v} = {ch.choice(EPSPARQL_VALUES)} || getDURATION() > {k}"


def _twin_leaf(ch: Chooser, preds: Sequence[str]) -> tuple[str, set[str]]:
    """Two triple patterns with the same subject and predicate, ``?s :p ?x . ?s :p ?y`` (or the ``,`` list ``?s :p
    ?x , ?y``; now and then one object a constant): both instantiate to the same triple when ``?x = ?y``, where
    ``bgp_mode=per_triple`` takes one occurrence for both and ``per_pattern`` any two (their hull): the switch's
    mutant ``bgp-per-triple-ignored`` (docs/semantics/epsparql.md#epsparql-A3, #epsparql-opt-bgp_mode).  The
    stream's repeated triples (:func:`gen_epsparql_stream` ``ties``) give such pairs."""
    s = ch.choice(["?s", "?s", ":" + ch.choice(EPSPARQL_SUBJECTS)])
    p = ":" + ch.choice([x for x in preds if x != EPSPARQL_TYPE])
    o1, o2 = ch.choice([("?x", "?y"), ("?x", "?y"), ("?x", "?x"), ("?x", str(ch.choice(EPSPARQL_VALUES)))])
    vs = {v for v in (s, o1, o2) if v.startswith("?")}
    if ch.boolean(0.3):
        return f"{s} {p} {o1} , {o2}", vs
    return f"{s} {p} {o1} . {s} {p} {o2}", vs


def _leaf(ch: Chooser, preds: Sequence[str], p_twin: float = 0.0) -> tuple[str, set[str]]:
    """A triples block of 1 (mostly) or 2 patterns; two patterns on one subject are written now and then as a
    ``;`` (predicate-object) or ``,`` (object) list; with probability ``p_twin`` two patterns of the same subject
    and predicate (:func:`_twin_leaf`)."""
    if p_twin and ch.boolean(p_twin):
        return _twin_leaf(ch, preds)
    n = 2 if ch.boolean(0.3) else 1
    tps, vs = [], set()
    for _ in range(n):
        t, v = _epsparql_triple(ch, preds)
        tps.append(t)
        vs |= v
    if n == 2 and ch.boolean(0.4):
        s0, p0, o0 = tps[0].split(" ", 2)
        _s1, p1, o1 = tps[1].split(" ", 2)
        terms = (s0, p0, o0, o1) if p0 == p1 or ch.boolean(0.3) else (s0, p0, o0, p1, o1)
        text = f"{s0} {p0} {o0} , {o1}" if len(terms) == 4 else f"{s0} {p0} {o0} ; {p1} {o1}"
        return text, {x for x in terms if x.startswith("?")}
    return " . ".join(tps), vs


def gen_epsparql_pattern(ch: Chooser, depth: int, preds: Sequence[str] = EPSPARQL_PREDICATES,
                         p_filter: float = 0.25, tick_seconds: int = 86400,
                         focus: Sequence[str] = (), boost: Sequence[str] = (), p_twin: float = 0.0,
                         p_error: float = 0.0, p_leaf: float = 0.3) -> tuple[str, set[str]]:
    """A random group graph pattern (text with explicit braces) and the variables it mentions.

    Leaves are triples blocks of 1 (mostly) or 2 patterns ``?s|:a :p|?pp ?x|?y|?z|0..2`` (sometimes a decimal,
    negative or string object, a ``;``/``,`` list), now and then wrapped in a sub-SELECT; inner nodes one of
    :data:`EPSPARQL_OPS` (Join as juxtaposition); an optional operand sometimes carries a FILTER (its ``F``),
    any group sometimes a group-level FILTER (:func:`_epsparql_filter`; time literals for ``tick_seconds``).
    ``depth`` bounds the operator nesting.  Operators in ``focus`` are drawn four times as often, and their
    optional / mandatory operand carries a FILTER twice as often (:func:`focus_operators`); operators in ``boost``
    are drawn four times as often with the usual FILTERs (:data:`TIE_OPERATORS` on streams with ties).  ``p_twin``:
    the chance that a leaf is two patterns of one subject and predicate (:func:`_twin_leaf`); ``p_error``: the
    chance that a group FILTER is an erroneous comparison under ``!`` (:func:`error_filter`); ``p_leaf``: the
    chance that a group above depth 0 is a leaf all the same.
    """
    rec = dict(focus=focus, boost=boost, p_twin=p_twin, p_error=p_error, p_leaf=p_leaf)
    if depth <= 0 or ch.boolean(p_leaf):
        body, vs = _leaf(ch, preds, p_twin)
        if vs and ch.boolean(0.06):
            proj = [v for v in sorted(vs) if ch.boolean(0.7)] or sorted(vs)[:1]
            mod = ch.choice(["", "", "DISTINCT ", "REDUCED "])
            filt = f" FILTER ({_epsparql_filter(ch, sorted(vs), tick_seconds)})" if ch.boolean(0.3) else ""
            body = f"{{ SELECT {mod}{' '.join(proj)} WHERE {{ {body}{filt} }} }}"
            vs = set(proj)
    else:
        op = ch.choice(EPSPARQL_OPS + tuple(focus) * 3 + tuple(boost) * 3)
        left, lv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter, tick_seconds, **rec)
        right, rv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter, tick_seconds, **rec)
        vs = lv | rv
        p_op = (0.85 if op == "OPTIONALSEQ" else 0.6) if op in focus else 0.3
        if op in ("OPTIONAL", "EQUALSOPTIONAL") and ch.boolean(p_op):
            right = "{ " + right + f" FILTER ({_epsparql_filter(ch, sorted(vs), tick_seconds)}) }}"
        if op == "OPTIONALSEQ" and ch.boolean(p_op):
            # in focus (srj_filter_interval=mandatory), most of them on the row's interval only: the interval the
            # blocking test sees is what the switch changes (mutant srj-mandatory-ignored, #epsparql-A7)
            f = (_interval_filter(ch) if op in focus and ch.boolean(0.7)
                 else _epsparql_filter(ch, sorted(vs), tick_seconds))
            left = "{ " + left + f" FILTER ({f}) }}"
        body = f"{left} {right}" if op == "JOIN" else f"{left} {op} {right}"
    if p_error and ch.boolean(p_error):
        body += f" FILTER ({error_filter(ch, sorted(vs))})"
    elif ch.boolean(p_filter):
        body += f" FILTER ({_epsparql_filter(ch, sorted(vs), tick_seconds)})"
    return "{ " + body + " }", vs


def gen_epsparql_query(ch: Chooser, *, max_depth: int = 3, p_construct: float = 0.15,
                       p_filter: float = 0.25, types: bool = False, tick_seconds: int = 86400,
                       window: Optional[int] = None, focus: Sequence[str] = (), boost: Sequence[str] = (),
                       p_twin: float = 0.0, p_error: float = 0.0, window_le: bool = False,
                       p_leaf: float = 0.3) -> str:
    """A random EP-SPARQL query file (text): a SELECT over 3 subjects, 3 predicates and small integer
    objects, with operators nested to depth ``1..max_depth``; with probability ``p_construct`` first a
    CONSTRUCT rule deriving ``?s :d ?v`` (from a pattern over the stream predicates) whose triples the
    SELECT may read (the closure is finite: no rule reads ``:d``). Projection: ``*`` or a non-empty subset
    of the pattern's variables, sometimes with an ``(expr AS ?e)`` and ``DISTINCT``/``REDUCED``. With ``types``
    (cases with background knowledge, :func:`gen_epsparql_background`) triple patterns may also be ``?s a
    ?x|:C0..:C2`` (``rdf:type``), so that domain/range/subclass entailments reach the answers.  Time literals in
    FILTERs are written for ``tick_seconds``; with ``window``, the SELECT's pattern is wrapped as ``{ P FILTER
    (getDURATION() < window) }`` (``<=`` with ``window_le``); ``focus``, ``boost``: operators drawn more often, ``p_twin``, ``p_error``: twin
    triple patterns and erroneous FILTERs, ``p_leaf``: the chance of a leaf above depth 0
    (:func:`gen_epsparql_pattern`).  The text
    may still be refused (e.g. a SELECT without variables); callers redraw."""
    parts = [_EPSPARQL_PREFIX]
    base: tuple[str, ...] = tuple(EPSPARQL_PREDICATES) + ((EPSPARQL_TYPE,) if types else ())
    preds: Sequence[str] = base
    if ch.boolean(p_construct):
        where, vs = gen_epsparql_pattern(ch, ch.integer(0, max_depth - 1), base, p_filter, tick_seconds, focus,
                                         boost, p_twin, p_error, p_leaf)
        subj = "?s" if "?s" in vs else ":" + ch.choice(EPSPARQL_SUBJECTS)
        obj = ch.choice(sorted(vs)) if vs else str(ch.choice(EPSPARQL_VALUES))
        parts.append(f"CONSTRUCT {{ {subj} :{EPSPARQL_DERIVED} {obj} }} WHERE {where}\n")
        preds = base + (EPSPARQL_DERIVED,)
    where, vs = gen_epsparql_pattern(ch, ch.integer(1, max_depth), preds, p_filter, tick_seconds, focus, boost,
                                     p_twin, p_error, p_leaf)
    if window is not None:
        where = f"{{ {where} FILTER (getDURATION() {'<=' if window_le else '<'} {window}) }}"
    if not vs or ch.boolean(0.4):
        head = "*"
    else:
        pool = sorted(vs)
        head = " ".join(v for v in pool if ch.boolean(0.6)) or pool[0]
        if ch.boolean(0.15):
            v = ch.choice(pool)
            e = ch.choice([f"{v} + {ch.choice(EPSPARQL_VALUES)}", f"-{v}", "getDURATION()", "getENDTIME() - 1",
                           f"{v} * 2"])
            head += f" ({e} AS ?e0)"
    mod = ""
    if ch.boolean(0.15):
        mod = ch.choice(["DISTINCT ", "REDUCED "])
    parts.append(f"SELECT {mod}{head} WHERE {where}\n")
    return "".join(parts)


def focus_operators(options: Any) -> tuple[str, ...]:
    """The operators whose answers the non-default switch values of ``options`` change (A6-A8 of
    docs/semantics/epsparql.md): ``OPTIONALSEQ`` for ``srj_filter_interval=mandatory``, ``OPTIONAL`` and
    ``EQUALSOPTIONAL`` for ``lj_filter_interval=hull`` and ``optional_filter=group`` (their optional operands carry
    FILTERs more often, :func:`gen_epsparql_pattern`).  ``optional_end=strict`` is not here: it needs ties, not
    FILTERs (:func:`steering` boosts ``OPTIONAL`` for it)."""
    out: list[str] = []
    if options.srj_filter_interval != "combined":
        out.append("OPTIONALSEQ")
    if options.lj_filter_interval != "mandatory" or options.optional_filter != "operand":
        out += ["OPTIONAL", "EQUALSOPTIONAL"]
    return tuple(dict.fromkeys(out))


#: Operators drawn more often on streams with ties (:func:`steering`): their answers turn on equal timestamps or
#: equal ends (docs/semantics/epsparql.md#epsparql-3.3: SEQ's and OPTIONALSEQ's strict ``<``, EQUALS's equal starts
#: and ends, #epsparql-A4, #epsparql-A5, #epsparql-A6).
TIE_OPERATORS: tuple[str, ...] = ("EQUALS", "OPTIONALSEQ", "EQUALSOPTIONAL", "SEQ", "OPTIONAL")


def steering(options: Any, ties: bool) -> dict[str, Any]:
    """Keywords of :func:`gen_epsparql_query` for a case with switches ``options`` (docs/semantics/epsparql.md#epsparql-8):
    ``focus`` (:func:`focus_operators`); on a stream with ``ties`` the :data:`TIE_OPERATORS` boosted (``OPTIONAL``
    twice under ``optional_end=strict``, whose answers differ only when a partner ends with the mandatory row, A6;
    ``OPTIONALSEQ`` four times under ``srj_filter_interval=mandatory``, A7),
    operators nested at most two deep, fewer leaves at the top and fewer FILTERs (so that partners meet: a deep pattern with many FILTERs
    rarely has rows on six occurrences); twin triple patterns (:func:`_twin_leaf`) in half the leaves under
    ``bgp_mode=per_triple`` (one in 12 otherwise, so the default reading is checked on them too); erroneous FILTERs
    under ``!`` (:func:`error_filter`) in 40% of the groups under ``filter_errors=error_is_false`` (3% otherwise:
    under three-valued logic such a FILTER often drops every row)."""
    kw: dict[str, Any] = {"focus": focus_operators(options), "boost": (),
                          "p_twin": 0.5 if options.bgp_mode == "per_triple" else 0.08,
                          "p_error": 0.4 if options.filter_errors == "error_is_false" else 0.03}
    if ties:
        kw.update(boost=TIE_OPERATORS + (("OPTIONAL",) if options.optional_end == "strict" else ())
                  + (("OPTIONALSEQ",) * 3 if options.srj_filter_interval == "mandatory" else ()),
                  max_depth=2, p_filter=0.15, p_leaf=0.15)
    return kw


def needs_ties(options: Any) -> bool:
    """Whether the case's stream is drawn with ``ties`` (:func:`gen_epsparql_stream`) for its switches ``options``:
    ``optional_end=strict`` (answers change only when a partner ends with the mandatory row, A6),
    ``bgp_mode=per_triple`` (only when one triple occurs at two times, A3) and ``srj_filter_interval=mandatory``
    (only when an OPTIONALSEQ partner follows closely enough that the interval matters, A7: the crowded times)."""
    return (options.optional_end == "strict" or options.bgp_mode == "per_triple"
            or options.srj_filter_interval == "mandatory")


def gen_epsparql_stream(ch: Chooser, length: int, max_time: int = 8,
                        durations: Sequence[int] = (0, 0, 0, 0, 1, 2), types: bool = False,
                        other_values: bool = False, ties: bool = False) -> list[Any]:
    """A random triple stream: ``length`` occurrences ``:s :p v`` (``v`` mostly an integer 0..2, sometimes a
    subject IRI; with ``other_values`` (Spark cases) also a decimal, a negative integer or a string), start in
    ``0..max_time``, end = start + a duration from ``durations`` (mostly points),
    ordered by end (stable); duplicates (same triple, same interval) are one occurrence (docs/semantics/epsparql.md#epsparql-A19), so the
    stream may be shorter than ``length``. With ``types`` about one occurrence in five is ``:s rdf:type :Ck``
    instead (classes :data:`EPSPARQL_CLASSES`).

    With ``ties``, times are crowded into ``0..3``, a third of the occurrences are intervals, subjects are ``:a``
    or ``:b``, and from the second occurrence on each one is, with probability 1/2, planted on an earlier one
    (docs/semantics/epsparql.md#epsparql-A4, #epsparql-A5, #epsparql-A6, #epsparql-A3): a *partner* (same subject, same
    end, the same start or another one: equal timestamps for SEQ/OPTIONAL/OPTIONALSEQ, equal ends with different
    starts for EQUALS) or a *repeat* (the same triple at another time: one triple matched by two patterns)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    if ties:
        return _tie_stream(ch, length, types, other_values)
    occ = []
    for i in range(length):
        s = ch.choice(EPSPARQL_SUBJECTS)
        if types and ch.boolean(0.2):
            p = _RDF_TYPE
            o = f"<http://example.org/{ch.choice(EPSPARQL_CLASSES)}>"
        else:
            p = f"<http://example.org/{ch.choice(EPSPARQL_PREDICATES)}>"
            k = ch.integer(0, 19)
            v = ch.choice(EPSPARQL_VALUES)
            o = (str(v) if k <= 15 or (k <= 17 and not other_values) else
                 f"<http://example.org/{ch.choice(EPSPARQL_SUBJECTS)}>" if k <= 17 or not other_values
                 else ch.choice([f"{v}.5", f"-{v}", f'"{v}"']))
        t = ch.integer(0, max_time)
        e = t + ch.choice(list(durations))
        occ.append((e, i, f"<http://example.org/{s}> {p} {o} {t} {e} ."))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("".join(x[2] + "\n" for x in occ), "<generated>")


def _tie_stream(ch: Chooser, length: int, types: bool, other_values: bool) -> list[Any]:
    """:func:`gen_epsparql_stream` with ``ties``."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    occ: list[tuple[int, int, str, str, str, int]] = []     # (end, i, s, p, o, start)
    for i in range(length):
        plant = ch.integer(0, 3) if occ else 3
        if plant <= 1:                                       # partner: same subject, same end
            e0, _i, s, p0, _o, t0 = ch.choice(occ)
            p = f"<http://example.org/{ch.choice(EPSPARQL_PREDICATES)}>"
            o = str(ch.choice(EPSPARQL_VALUES))
            e = e0
            t = t0 if plant == 0 else ch.integer(max(0, e - 2), e)
        elif plant == 2:                                     # repeat: the same triple at another time
            _e, _i, s, p, o, _t = ch.choice(occ)
            t = ch.integer(0, 3)
            e = t + ch.choice([0, 0, 1])
        else:
            s = f"<http://example.org/{ch.choice(EPSPARQL_SUBJECTS[:2])}>"
            if types and ch.boolean(0.2):
                p, o = _RDF_TYPE, f"<http://example.org/{ch.choice(EPSPARQL_CLASSES)}>"
            else:
                p = f"<http://example.org/{ch.choice(EPSPARQL_PREDICATES)}>"
                v = ch.choice(EPSPARQL_VALUES)
                o = (f"<http://example.org/{ch.choice(EPSPARQL_SUBJECTS)}>" if ch.boolean(0.1) else
                     ch.choice([f"{v}.5", f"-{v}", f'"{v}"']) if other_values and ch.boolean(0.1) else str(v))
            t = ch.integer(0, 3)
            e = t + ch.choice([0, 0, 1, 2])
        occ.append((e, i, s, p, o, t))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("".join(f"{s} {p} {o} {t} {e} .\n" for e, _i, s, p, o, t in occ), "<generated>")


def gen_epsparql_background(ch: Chooser) -> tuple[list[str], list[str]]:
    """Random background knowledge (docs/semantics/epsparql.md#epsparql-A14) over the generated vocabulary, as N-Triples lines
    ``(static graph, ontology)``: 1..4 schema axioms (``rdfs:subPropertyOf`` between :data:`EPSPARQL_PREDICATES`,
    ``rdfs:subClassOf`` between :data:`EPSPARQL_CLASSES`, chains and cycles possible, ``rdfs:domain`` /
    ``rdfs:range`` of a predicate), the first always a ``rdfs:subPropertyOf`` so that the SELECT's answers
    change, and 0..3 static triples (``:s :p v``, ``:s :p :s'`` or ``:s rdf:type :Ck``)."""
    def iri(x: str) -> str:
        return f"<http://example.org/{x}>"

    onto: list[str] = []
    for i in range(ch.integer(1, 4)):
        kind = "spo" if i == 0 else ch.choice(["spo", "sco", "domain", "range"])
        if kind == "spo":
            a, b = ch.choice(EPSPARQL_PREDICATES), ch.choice(EPSPARQL_PREDICATES)
            line = f"{iri(a)} <{_RDFS}subPropertyOf> {iri(b)} ."
        elif kind == "sco":
            a, b = ch.choice(EPSPARQL_CLASSES), ch.choice(EPSPARQL_CLASSES)
            line = f"{iri(a)} <{_RDFS}subClassOf> {iri(b)} ."
        else:
            line = f"{iri(ch.choice(EPSPARQL_PREDICATES))} <{_RDFS}{kind}> {iri(ch.choice(EPSPARQL_CLASSES))} ."
        if line not in onto:
            onto.append(line)
    graph: list[str] = []
    for _ in range(ch.integer(0, 3)):
        s = iri(ch.choice(EPSPARQL_SUBJECTS))
        kind = ch.choice(["value", "value", "iri", "type"])
        if kind == "type":
            line = f"{s} {_RDF_TYPE} {iri(ch.choice(EPSPARQL_CLASSES))} ."
        elif kind == "iri":
            line = f"{s} {iri(ch.choice(EPSPARQL_PREDICATES))} {iri(ch.choice(EPSPARQL_SUBJECTS))} ."
        else:
            v = ch.choice(EPSPARQL_VALUES)
            line = (f"{s} {iri(ch.choice(EPSPARQL_PREDICATES))} "
                    f"\"{v}\"^^<http://www.w3.org/2001/XMLSchema#integer> .")
        if line not in graph:
            graph.append(line)
    return graph, onto


@st.composite
def _epsparql_queries(draw, kw):
    return gen_epsparql_query(HypothesisChooser(draw), **kw)


@st.composite
def _epsparql_streams(draw, min_len, max_len, kw):
    ch = HypothesisChooser(draw)
    return gen_epsparql_stream(ch, ch.integer(min_len, max_len), **kw)


def epsparql_queries(**kw: Any) -> st.SearchStrategy[str]:
    """Hypothesis strategy of EP-SPARQL query texts; keywords as :func:`gen_epsparql_query`."""
    return _epsparql_queries(kw)


def epsparql_streams(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[list]:
    """Hypothesis strategy of EP-SPARQL streams (:func:`gen_epsparql_stream`)."""
    return _epsparql_streams(min_len, max_len, kw)


def epsparql_cases(min_len: int = 0, max_len: int = 8, **kw: Any) -> st.SearchStrategy[tuple]:
    """Hypothesis strategy of ``(query_text, stream)`` pairs."""
    return st.tuples(epsparql_queries(**kw), epsparql_streams(min_len, max_len))


def epsparql_options() -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.epsparql.options.Options` (every switch)."""
    import typing

    from ceplab.semantics.epsparql.options import Options

    hints = typing.get_type_hints(Options)
    kw = {n: st.sampled_from(list(typing.get_args(tp))) for n, tp in hints.items()
          if typing.get_origin(tp) is typing.Literal}
    return st.builds(Options, **kw)


def random_epsparql_case(rng: random.Random, length: int, background: bool = False, long: bool = False,
                         ties: bool = False, **kw: Any) -> tuple[str, list]:
    """Spark fuzzing entry: ``(query_text, stream)`` drawn by the same generators as
    :func:`epsparql_queries` / :func:`epsparql_streams`, from a seeded ``random.Random``; keywords go to
    :func:`gen_epsparql_query` (e.g. ``tick_seconds``).

    With ``background``, the case also has background knowledge (:func:`gen_epsparql_background`, drawn first),
    written into the query text as ``# background graph: <s> <p> <o> .`` / ``# background ontology: ...``
    comment lines (:func:`ceplab.workbench.langs.epsparql.background.background_comment`; the language's ``parse`` attaches
    them), and query and stream may use ``rdf:type`` with the ontology's classes.  With ``long``, the stream's
    times spread over ``0..length`` and the SELECT's pattern is at most one operator deep, under a
    ``FILTER (getDURATION() < k)`` (``k`` in 1..3, the pattern's "window"), with no variable predicate and no
    sub-SELECT, so that the oracle stays quick.  With ``ties`` (not with ``long``) the stream crowds equal
    timestamps, equal ends and repeated triples (:func:`gen_epsparql_stream`), and 45% of the queries have a
    window ``FILTER (getDURATION() < k)`` or ``<= k`` (``k`` in 1..3) over the SELECT's pattern: rows that fit it
    exactly, on a stream whose times span more than it (the engine's window push-down and store sweep,
    docs/semantics/epsparql.md#epsparql-4.3, #epsparql-9.2)."""
    ch = RandomChooser(rng)
    max_time = length if long else 8
    if long:
        kw = {**kw, "max_depth": 1, "p_construct": 0.0, "window": ch.integer(1, 3)}
    elif ties and ch.boolean(0.45):     # a window over the crowded times: pushed-down bounds, exact fits, sweeping
        kw = {**kw, "window": ch.integer(1, 3), "window_le": ch.boolean(0.5)}
    graph: list[str] = []
    onto: list[str] = []
    if background:
        graph, onto = gen_epsparql_background(ch)
    text = gen_epsparql_query(ch, types=background, **kw)
    for _ in range(10 if long else 0):      # long: no variable predicate, no sub-SELECT (they match everything)
        if "?pp" not in text and text.count("SELECT") == 1:
            break
        text = gen_epsparql_query(ch, types=background, **kw)
    stream = gen_epsparql_stream(ch, length, max_time=max_time, types=background, other_values=True,
                                 ties=ties and not long)
    if not background:
        return text, stream
    from ceplab.workbench.langs.epsparql.background import background_comment

    return background_comment(graph, onto) + text, stream


class EpsparqlStrategies:
    """The registry's strategy bundle for EP-SPARQL. ``queries()`` draws query texts (parse them with the
    language's ``parse``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[str]:
        return epsparql_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[list]:
        return epsparql_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return epsparql_options()

    @staticmethod
    def render(query: Any) -> str:
        if isinstance(query, str):
            return query
        from ceplab.semantics.epsparql.parser import render

        return render(query)
