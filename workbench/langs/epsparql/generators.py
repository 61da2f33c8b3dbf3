"""Random EP-SPARQL cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

:func:`gen_epsparql_pattern`, :func:`gen_epsparql_query` (query texts with explicit braces, every operator,
FILTERs on values / BOUND / the time functions, occasionally a CONSTRUCT feeding the SELECT),
:func:`gen_epsparql_stream` (occurrence lists, times 0..8, mostly points); hypothesis wrappers
:func:`epsparql_queries`, :func:`epsparql_streams`, :func:`epsparql_options`, :func:`epsparql_cases`; Spark entry
:func:`random_epsparql_case` (a fraction of Spark cases also draw background knowledge,
:func:`gen_epsparql_background`: static triples and an RDFS schema over the same vocabulary); bundle
:class:`EpsparqlStrategies`.
"""
from __future__ import annotations

import random
from typing import Any, Sequence

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
    p = ":" + p
    o = ch.choice(list(_EPSPARQL_VARS) + [str(ch.choice(EPSPARQL_VALUES))])
    vs = {v for v in (s, o) if v.startswith("?")}
    return f"{s} {p} {o}", vs


def _epsparql_filter(ch: Chooser, vs: Sequence[str]) -> str:
    """A FILTER expression over the variables ``vs`` and the group's interval (boundary constants)."""
    k = ch.integer(0, 4)
    kinds = ["dur", "dur_le", "start", "end", "bound", "notbound"] + (["val", "val2", "or"] if vs else [])
    kind = ch.choice(kinds)
    if kind == "dur":
        return f"getDURATION() < {k}"
    if kind == "dur_le":
        return f"getDURATION() <= {k}"
    if kind == "start":
        return f"getSTARTTIME() >= {ch.integer(0, 8)}"
    if kind == "end":
        return f"getENDTIME() < {ch.integer(0, 8)}"
    pool = list(vs) or list(_EPSPARQL_VARS)
    v = ch.choice(pool)
    if kind == "bound":
        return f"BOUND({v})"
    if kind == "notbound":
        return f"!BOUND({v})"
    if kind == "val":
        return f"{v} {ch.choice(['<', '=', '!=', '>='])} {ch.choice(EPSPARQL_VALUES)}"
    if kind == "val2":
        return f"{v} {ch.choice(['<', '=', '!='])} {ch.choice(pool)}"
    return f"{v} = {ch.choice(EPSPARQL_VALUES)} || getDURATION() > {k}"


def gen_epsparql_pattern(ch: Chooser, depth: int, preds: Sequence[str] = EPSPARQL_PREDICATES,
                         p_filter: float = 0.25) -> tuple[str, set[str]]:
    """A random group graph pattern (text with explicit braces) and the variables it mentions.

    Leaves are triples blocks of 1 (mostly) or 2 patterns ``?s|:a :p ?x|?y|?z|0..2``; inner nodes one of
    :data:`EPSPARQL_OPS` (Join as juxtaposition); an optional operand sometimes carries a FILTER (its ``F``),
    any group sometimes a group-level FILTER (values, ``BOUND``, ``getDURATION()``/``getSTARTTIME()``/
    ``getENDTIME()`` against small boundary constants). ``depth`` bounds the operator nesting.
    """
    if depth <= 0 or ch.boolean(0.3):
        n = 2 if ch.boolean(0.3) else 1
        tps, vs = [], set()
        for _ in range(n):
            t, v = _epsparql_triple(ch, preds)
            tps.append(t)
            vs |= v
        body = " . ".join(tps)
    else:
        op = ch.choice(EPSPARQL_OPS)
        left, lv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter)
        right, rv = gen_epsparql_pattern(ch, depth - 1, preds, p_filter)
        vs = lv | rv
        if op in ("OPTIONAL", "EQUALSOPTIONAL") and ch.boolean(0.3):
            right = "{ " + right + f" FILTER ({_epsparql_filter(ch, sorted(vs))}) }}"
        if op == "OPTIONALSEQ" and ch.boolean(0.3):
            left = "{ " + left + f" FILTER ({_epsparql_filter(ch, sorted(vs))}) }}"
        body = f"{left} {right}" if op == "JOIN" else f"{left} {op} {right}"
    if ch.boolean(p_filter):
        body += f" FILTER ({_epsparql_filter(ch, sorted(vs))})"
    return "{ " + body + " }", vs


def gen_epsparql_query(ch: Chooser, *, max_depth: int = 3, p_construct: float = 0.15,
                       p_filter: float = 0.25, types: bool = False) -> str:
    """A random EP-SPARQL query file (text): a SELECT over 3 subjects, 3 predicates and small integer
    objects, with operators nested to depth ``1..max_depth``; with probability ``p_construct`` first a
    CONSTRUCT rule deriving ``?s :d ?v`` (from a pattern over the stream predicates) whose triples the
    SELECT may read (the closure is finite: no rule reads ``:d``). Projection: ``*`` or a non-empty subset
    of the pattern's variables. With ``types`` (cases with background knowledge, :func:`gen_epsparql_background`)
    triple patterns may also be ``?s a ?x|:C0..:C2`` (``rdf:type``), so that domain/range/subclass entailments
    reach the answers. The text may still be refused (e.g. a SELECT without variables); callers redraw."""
    parts = [_EPSPARQL_PREFIX]
    base: tuple[str, ...] = tuple(EPSPARQL_PREDICATES) + ((EPSPARQL_TYPE,) if types else ())
    preds: Sequence[str] = base
    if ch.boolean(p_construct):
        where, vs = gen_epsparql_pattern(ch, ch.integer(0, max_depth - 1), base, p_filter)
        subj = "?s" if "?s" in vs else ":" + ch.choice(EPSPARQL_SUBJECTS)
        obj = ch.choice(sorted(vs)) if vs else str(ch.choice(EPSPARQL_VALUES))
        parts.append(f"CONSTRUCT {{ {subj} :{EPSPARQL_DERIVED} {obj} }} WHERE {where}\n")
        preds = base + (EPSPARQL_DERIVED,)
    where, vs = gen_epsparql_pattern(ch, ch.integer(1, max_depth), preds, p_filter)
    if not vs or ch.boolean(0.4):
        head = "*"
    else:
        pool = sorted(vs)
        head = " ".join(v for v in pool if ch.boolean(0.6)) or pool[0]
    parts.append(f"SELECT {head} WHERE {where}\n")
    return "".join(parts)


def gen_epsparql_stream(ch: Chooser, length: int, max_time: int = 8,
                        durations: Sequence[int] = (0, 0, 0, 0, 1, 2), types: bool = False) -> list[Any]:
    """A random triple stream: ``length`` occurrences ``:s :p v`` (``v`` mostly an integer 0..2, sometimes a
    subject IRI), start in ``0..max_time``, end = start + a duration from ``durations`` (mostly points),
    ordered by end (stable); duplicates (same triple, same interval) are one occurrence (docs/semantics/epsparql.md#epsparql-A19), so the
    stream may be shorter than ``length``. With ``types`` about one occurrence in five is ``:s rdf:type :Ck``
    instead (classes :data:`EPSPARQL_CLASSES`)."""
    from ceplab.semantics.epsparql.streams import read_line_stream

    occ = []
    for i in range(length):
        s = ch.choice(EPSPARQL_SUBJECTS)
        if types and ch.boolean(0.2):
            p = _RDF_TYPE
            o = f"<http://example.org/{ch.choice(EPSPARQL_CLASSES)}>"
        else:
            p = f"<http://example.org/{ch.choice(EPSPARQL_PREDICATES)}>"
            o = (str(ch.choice(EPSPARQL_VALUES)) if not ch.boolean(0.1)
                 else f"<http://example.org/{ch.choice(EPSPARQL_SUBJECTS)}>")
        t = ch.integer(0, max_time)
        e = t + ch.choice(list(durations))
        occ.append((e, i, f"<http://example.org/{s}> {p} {o} {t} {e} ."))
    occ.sort(key=lambda x: (x[0], x[1]))
    return read_line_stream("".join(x[2] + "\n" for x in occ), "<generated>")


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


def random_epsparql_case(rng: random.Random, length: int, background: bool = False,
                         **kw: Any) -> tuple[str, list]:
    """Spark fuzzing entry: ``(query_text, stream)`` drawn by the same generators as
    :func:`epsparql_queries` / :func:`epsparql_streams`, from a seeded ``random.Random``.

    With ``background``, the case also has background knowledge (:func:`gen_epsparql_background`, drawn first),
    written into the query text as ``# background graph: <s> <p> <o> .`` / ``# background ontology: ...``
    comment lines (:func:`ceplab.workbench.langs.epsparql.background.background_comment`; the language's ``parse`` attaches
    them), and query and stream may use ``rdf:type`` with the ontology's classes."""
    ch = RandomChooser(rng)
    if not background:
        text = gen_epsparql_query(ch, **kw)
        return text, gen_epsparql_stream(ch, length)
    from ceplab.workbench.langs.epsparql.background import background_comment

    graph, onto = gen_epsparql_background(ch)
    text = gen_epsparql_query(ch, types=True, **kw)
    return background_comment(graph, onto) + text, gen_epsparql_stream(ch, length, types=True)


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
