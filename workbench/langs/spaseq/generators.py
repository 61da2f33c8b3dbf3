"""Random SPAseq cases for hypothesis and the Spark fuzzer, on the shared :class:`~ceplab.workbench.generators.Chooser`.

A case is a query text (concrete syntax, docs/semantics/spaseq.md#spaseq-2.2), a streamset (a list of
:class:`~ceplab.semantics.rdfstream.GraphEvent` over 1-3 named streams) and, sometimes, background knowledge
written into the query text as comment lines (:func:`ceplab.workbench.langs.spaseq.background.background_comment`).

What the generators draw, so that every construct of the language and every switch is exercised:

* sequences of 1-4 elements with each connector ``,`` ``;`` ``:``, Kleene+ ``+``, negation ``!`` (never first),
  optional ``?`` (never two adjacent), conjunctions ``&`` and disjunctions ``|`` of two GPMs;
* GPMs on one stream (sometimes two: ``ON S1, S2``) with a BGP of 1-2 triple patterns, a shared subject variable
  ``?s`` (correlation across GPMs through joins) or an own one, FILTERs on constants (both sides), on variables of
  earlier GPMs (stateful filters), ``BOUND``, ``!``, ``||``, ``&&``, ``+``/``-``, ``OPTIONAL`` (with and without
  a filter inside), ``UNION`` and ``GRAPH <kb>`` over the background graph;
* events of 1-2 triples ``:a|:b|:c :p|:q v``, ``v`` mostly an integer 0..3, sometimes a decimal or double of the
  same value range, a string literal or an IRI, and events that lack the attribute a GPM asks for; timestamps
  with ties across streams (never two events of one stream at one time: Definition 2) and small windows
  (1..8 ticks) so that tumbling boundaries and expiry happen; with ``long=True`` (and in one Spark case in ten)
  40-200 events under windows of 1-4 ticks;
* one short case in five: a simple query (2-3 elements, each one triple pattern on the shared subject, no FILTER),
  so that planted matches are answers and connectors, modifiers and switches alone decide them;
* planted matches: mostly a third or more of the events instantiate the query's sequence in order under one subject
  (Kleene+ elements 1-3 times, negated and optional elements now and then, the event after a negated one often at
  its time), interleaved with random events, half of them in a row (with now and then one random event inside);
* switches drawn first (:func:`random_case`), each non-default with probability 0.2 (0.35 for
  :data:`NARROW_SWITCHES`), and steering the query towards
  what they change: ``kleene_iter=stn`` a Kleene+ element after ``,``/``:``, ``contiguity=stream|streamset`` a
  ``,`` between GPMs on one stream with two or more streams in the input (foreign ones more often under
  ``streamset``), ``negation=through_next`` a negated element.
"""
from __future__ import annotations

import random
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from ceplab.workbench.generators import Chooser, HypothesisChooser, RandomChooser

EX = "http://example.org/"
#: Stream names (``:s1`` ...), subjects, predicates and small values of generated cases.
STREAMS: tuple[str, ...] = ("s1", "s2", "s3")
SUBJECTS: tuple[str, ...] = ("a", "b", "c")
PREDICATES: tuple[str, ...] = ("p", "q")
VALUES: tuple[int, ...] = (0, 1, 2, 3)
#: The background graph of generated cases (``FROM <http://example.org/kb>``).
KB = EX + "kb"
CONNECTORS: tuple[str, ...] = (";", ",", ":")
#: A stream that generated queries never declare.
FOREIGN = "s9"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_PREFIX = f"PREFIX : <{EX}>\n"


# ----------------------------------------------------------------------------- queries
def _value_literal(ch: Chooser) -> str:
    v = ch.choice(VALUES)
    kind = ch.integer(0, 9)
    if kind <= 6:
        return str(v)
    if kind == 7:
        return f"{v}.5"
    if kind == 8:
        return f'"{v}.0"^^<{_XSD}double>'
    return f'"{v}"'


def _operand(ch: Chooser, own: str, earlier: Sequence[str]) -> str:
    pool = [own] + list(earlier)
    k = ch.integer(0, 5)
    if k <= 2:
        return ch.choice(pool)
    if k == 3:
        return _value_literal(ch)
    if k == 4:
        return f"({ch.choice(pool)} {ch.choice(['+', '-'])} {ch.choice(VALUES)})"
    return f"-{ch.choice(pool)}"


def _condition(ch: Chooser, own: str, earlier: Sequence[str], depth: int = 1) -> str:
    """A FILTER condition on the GPM's own value variable and the value variables of earlier GPMs."""
    k = ch.integer(0, 9)
    if depth > 0 and k == 7:
        return f"({_condition(ch, own, earlier, 0)} {ch.choice(['||', '&&'])} {_condition(ch, own, earlier, 0)})"
    if depth > 0 and k == 8:
        return f"!({_condition(ch, own, earlier, 0)})"
    if k == 9:
        return f"BOUND({ch.choice([own] + list(earlier))})"
    op = ch.choice(["<", ">=", "=", "!=", ">", "<="])
    left = own if ch.boolean(0.7) else _operand(ch, own, earlier)
    right = ch.choice(list(earlier)) if earlier and ch.boolean(0.5) else (
        _value_literal(ch) if ch.boolean(0.6) else _operand(ch, own, earlier))
    if ch.boolean(0.2):
        left, right = right, left
    return f"{left} {op} {right}"


def gen_gpm(ch: Chooser, i: int, earlier: Sequence[str], streams: Sequence[str], background: bool,
            plan: Optional[list] = None, on_stream: Optional[str] = None, simple: bool = False) -> str:
    """The ``DEFINE GPM G{i} ON ... { ... }`` block of GPM ``i``; its value variable is ``?v{i}``, its
    optional extra variable ``?w{i}``; ``earlier`` are the value variables of GPMs defined before it.  With a
    ``plan`` list, ``(stream, predicate)`` of the GPM's first triple pattern is appended to it (what an event must
    carry to match it, :func:`gen_stream`'s planted episodes); ``on_stream`` fixes its (first) stream; ``simple``:
    the GPM is one triple pattern ``?s :p|:q ?v{i}`` on one stream, nothing else."""
    on = [on_stream if on_stream in streams else ch.choice(streams)]
    if simple:
        pred = ch.choice(PREDICATES)
        if plan is not None:
            plan.append((on[0], pred))
        return f"DEFINE GPM G{i} ON S{on[0][1:]} {{ ?s :{pred} ?v{i} . }}"
    if len(streams) > 1 and ch.boolean(0.1):
        on.append(ch.choice([s for s in streams if s != on[0]]))
    subj = "?s" if ch.boolean(0.6) else (f"?s{i}" if ch.boolean(0.7) else ":" + ch.choice(SUBJECTS))
    own = f"?v{i}"
    pred = ch.choice(PREDICATES)
    if plan is not None:
        plan.append((on[0], pred))
    parts = [f"{subj} :{pred} {own} ."]
    if ch.boolean(0.15):
        parts.append(f"{subj} :{ch.choice(PREDICATES)} ?w{i} .")
    shape = ch.integer(0, 9)
    if shape == 7:
        filt = f" FILTER ({_condition(ch, f'?w{i}', [own])})" if ch.boolean(0.3) else ""
        parts.append(f"OPTIONAL {{ {subj} :{ch.choice(PREDICATES)} ?w{i} .{filt} }}")
    elif shape == 8:
        parts = [f"{{ {subj} :p {own} . }} UNION {{ {subj} :q {own} . }}"]
    elif shape == 9 and background and subj.startswith("?"):
        parts.append(f"GRAPH <{KB}> {{ {subj} :owner ?o{i} . }}")
    if ch.boolean(0.6):
        parts.append(f"FILTER ({_condition(ch, own, earlier)})")
    body = " ".join(parts)
    aliases = ", ".join("S" + s[1:] for s in on)
    return f"DEFINE GPM G{i} ON {aliases} {{ {body} }}"


def gen_query(ch: Chooser, *, max_elements: int = 4, background: bool = False,
              streams: Sequence[str] = STREAMS, options: Any = None, plan: Optional[list] = None,
              window: Optional[int] = None, simple: bool = False) -> str:
    """A random SPAseq query text over the given streams (module docstring). The text may be refused by the parser in
    rare corner cases (callers redraw).

    ``options`` (the case's :class:`~ceplab.semantics.spaseq.options.Options`, when drawn first) steers the draw
    towards what its non-default switch values change, each with probability 0.6: ``kleene_iter=stn`` gets a
    Kleene+ element after ``,`` or ``:`` (whose iterations may then skip events), ``contiguity=stream|streamset``
    and ``negation=through_next`` a ``,`` resp. a negated element, with the GPMs of the strict pair on one stream.
    With a ``plan`` list, one entry per sequence element is appended: ``(modifier, [(stream, predicate), ...])``
    of its GPMs (:func:`gen_gpm`).  ``window`` fixes ``WITHIN`` (else 1..8).  ``simple``: 2-3 elements of one
    GPM each, every GPM one triple pattern on the shared subject ``?s`` (:func:`gen_gpm`), so that planted matches
    are answers and the switches and connectors alone decide them; three elements have a negated middle one in
    30% of the cases, and mostly a negated GPM reads another stream than the others."""
    n_el = ch.integer(2, 3) if simple else ch.integer(1, max_elements)
    want_kleene = options is not None and options.kleene_iter == "stn" and ch.boolean(0.6)
    want_strict = options is not None and options.contiguity != "declared" and ch.boolean(0.6)
    want_neg = options is not None and options.negation == "through_next" and ch.boolean(0.6)
    if want_kleene or want_strict or want_neg:
        n_el = max(n_el, 2 if not want_neg else 3 if ch.boolean(0.5) else 2)
    elements: list[tuple[Optional[str], str, Optional[str]]] = []   # (connector, bop text, modifier)
    n_gpm = 0
    prev_ext = True   # the previous element has a '!'/'?' modifier (first element: no '!')
    for j in range(n_el):
        k = ch.integer(0, 9)
        if k <= 6 or n_gpm + 2 > 6 or simple:
            bop = f"G{n_gpm}"
            n_gpm += 1
        else:
            op = "&" if k <= 7 else "|"
            bop = f"(G{n_gpm} {op} G{n_gpm + 1})"
            n_gpm += 2
        mod: Optional[str] = None
        m = ch.integer(0, 9)
        if m in (7, 8):
            mod = "+"
        elif m == 9 and not prev_ext and j > 0:
            mod = ch.choice(["!", "?"])
        elif m == 6 and not prev_ext and j == 0:
            mod = "?"
        conn = None if j == 0 else ch.choice(CONNECTORS)
        elements.append((conn, bop, mod))
        prev_ext = mod in ("!", "?")
    same_stream: set[int] = set()        # elements whose GPMs read the first stream (a strict pair on one stream)
    if want_kleene:
        j = ch.integer(1, n_el - 1)
        elements[j] = (ch.choice([",", ":"]) if ch.boolean(0.8) else ";", elements[j][1], "+")
        if elements[j - 1][2] in ("!", "?"):
            elements[j - 1] = (elements[j - 1][0], elements[j - 1][1], None)
        same_stream |= {j - 1, j}
    if want_strict:
        j = ch.integer(1, n_el - 1)
        elements[j] = (",", elements[j][1], elements[j][2] if elements[j][2] != "!" else None)
        same_stream |= {j - 1, j}
    if want_neg:
        j = ch.integer(1, n_el - 1)
        elements[j] = (elements[j][0], elements[j][1], "!")
        for i in (j - 1, j + 1):
            if 0 <= i < n_el and elements[i][2] in ("!", "?"):
                elements[i] = (elements[i][0], elements[i][1], None)
    if simple and n_el == 3 and ch.boolean(0.3):             # A ; B! ; C: the negation's boundaries
        elements = [(elements[0][0], elements[0][1], None), (elements[1][0], elements[1][1], "!"),
                    (elements[2][0], elements[2][1], None if elements[2][2] != "+" else "+")]
    if all(m in ("!", "?") for _, _, m in elements):
        c, b, _ = elements[-1]
        elements[-1] = (c, b, None)
    if elements[0][2] == "!":
        elements[0] = (None, elements[0][1], None)
    seq = ""
    for conn, bop, mod in elements:
        seq += ("" if conn is None else f" {conn} ") + bop + (mod or "")
    used = list(streams)
    gpm_el: dict[int, int] = {}
    g = 0
    for j, (_c, bop, _m) in enumerate(elements):
        for _ in range(bop.count("G")):
            gpm_el[g] = j
            g += 1
    gplan: list = []
    fixed: dict[int, str] = {i: used[0] for i in range(n_gpm) if gpm_el[i] in same_stream}
    if simple and len(used) > 1 and ch.boolean(0.7):           # a negated GPM on another stream than the rest
        for i in range(n_gpm):
            fixed[i] = used[1] if elements[gpm_el[i]][2] == "!" else used[0]
    defs = [gen_gpm(ch, i, [f"?v{j}" for j in range(i)], used, background, gplan, fixed.get(i), simple)
            for i in range(n_gpm)]
    if plan is not None:
        for j, (_c, _b, mod) in enumerate(elements):
            plan.append((mod, [gplan[i] for i in range(n_gpm) if gpm_el[i] == j]))
    if window is None:
        window = ch.integer(1, 8)
    head = "*"
    if ch.boolean(0.2) and not simple:
        head = " ".join(f"?v{i}" for i in range(n_gpm) if ch.boolean(0.6)) or "?v0"
    lines = [_PREFIX, f"SELECT {head}\nWITHIN {window} SECONDS\n"]
    lines += [f"FROM STREAM S{s[1:]} <{EX}{s}>\n" for s in used]
    if background:
        lines.append(f"FROM <{KB}>\n")
    lines.append(f"WHERE SEQ({seq})\n{{\n")
    lines += [f"  {d}\n" for d in defs]
    lines.append("}\n")
    return "".join(lines)


def gen_background(ch: Chooser) -> list[str]:
    """Background triples (N-Triples lines) of the graph :data:`KB`: ``:x :owner :o`` for some subjects."""
    out = []
    for s in SUBJECTS:
        if ch.boolean(0.6):
            out.append(f"<{EX}{s}> <{EX}owner> <{EX}{ch.choice(['alice', 'bob'])}> .")
    return out


# ----------------------------------------------------------------------------- streams
def _object(ch: Chooser) -> str:
    k = ch.integer(0, 19)
    v = ch.choice(VALUES)
    if k <= 14:
        return f'"{v}"^^<{_XSD}integer>'
    if k == 15:
        return f'"{v}.5"^^<{_XSD}decimal>'
    if k == 16:
        return f'"{v}.0E0"^^<{_XSD}double>'
    if k == 17:
        return f'"{v}"'
    if k == 18:
        return f"<{EX}{ch.choice(SUBJECTS)}>"
    return f'"{v}"^^<{_XSD}integer>'


def _episode(ch: Chooser, plan: Sequence[tuple], names: Sequence[str]) -> list[tuple[str, list[tuple[str, str]], bool]]:
    """Events ``(stream, [(predicate, object)...], after_negated)`` that instantiate the sequence of a query in order
    under one subject (a planted match; :func:`gen_query`'s ``plan``): each Kleene+ element 1-3 times, a negated
    element with probability 0.3, an optional one with probability 0.6; an element of two GPMs by one of them, or by
    one event holding both predicates when they read one stream.  ``after_negated`` marks the event that follows a
    planted negated one (:func:`gen_stream` gives it the same time half of the time)."""
    out = []
    after_neg = False
    for mod, gpms in plan:
        if not gpms or (mod == "!" and not ch.boolean(0.3)) or (mod == "?" and not ch.boolean(0.6)):
            continue
        for _ in range(ch.integer(1, 3) if mod == "+" else 1):
            if len(gpms) == 2 and gpms[0][0] == gpms[1][0] and gpms[0][1] != gpms[1][1] and ch.boolean(0.5):
                stream, preds = gpms[0][0], [gpms[0][1], gpms[1][1]]
            else:
                stream, pred = ch.choice(list(gpms))
                preds = [pred]
            out.append((stream if stream in names else ch.choice(list(names)), [(p, _object(ch)) for p in preds],
                        after_neg))
            after_neg = mod == "!"
    return out


def _noise(ch: Chooser, names: Sequence[str]) -> tuple[str, str, list[tuple[str, str]], bool]:
    """A random event ``(stream, subject, [(predicate, object)...], False)``."""
    subj = ch.choice(SUBJECTS)
    n_tr = 2 if ch.boolean(0.25) else 1
    return ch.choice(list(names)), subj, [(PREDICATES[k] if n_tr == 2 else ch.choice(PREDICATES), _object(ch))
                                          for k in range(n_tr)], False


def gen_stream(ch: Chooser, length: int, streams: Sequence[str] = STREAMS, plan: Optional[Sequence[tuple]] = None) \
        -> list[Any]:
    """A random streamset of ``length`` graph events on the given streams (module docstring).  With a ``plan``
    (:func:`gen_query`'s), about a third of the events (or more) are planted matches of the query's sequence
    (:func:`_episode`, one subject each), interleaved with random events; half of the planted matches are *tight*:
    their events in a row, with now and then one random event (of any stream) between two of them, so that strict
    contiguity, contiguity across streams and skipped Kleene+ iterations are exercised."""
    from rdflib import URIRef

    from ceplab.semantics.rdfstream import GraphEvent, parse_nt_term
    from ceplab.semantics.spaseq.streams import check_streamset

    names = list(streams)
    queues: list[list[list[tuple[str, str, list[tuple[str, str]], bool]]]] = []   # queues of blocks of events
    budget = length
    if plan and length and ch.boolean(0.7):
        target = ch.integer(length // 3, length)
        planted = 0
        while planted < target:
            subj = ch.choice(SUBJECTS)
            ep = [(st_, subj, po, tie) for st_, po, tie in _episode(ch, plan, names)][:budget]
            if not ep:
                break
            if ch.boolean(0.5):                                   # tight: one block, maybe one event between
                block = list(ep)
                if len(block) > 1 and len(block) < budget and ch.boolean(0.7):
                    j = ch.integer(1, len(block) - 1)
                    noise = _noise(ch, names)
                    others = [n for n in names if n != block[j][0]]
                    if others and ch.boolean(0.7):                # mostly of another stream than its neighbour
                        noise = (ch.choice(others),) + noise[1:]
                    block.insert(j, noise)
                queues.append([block])
            else:
                queues.append([[e] for e in ep])
            n = sum(len(b) for b in queues[-1])
            planted += n
            budget -= n
    queues += [[[_noise(ch, names)]] for _ in range(budget)]
    contents = []
    while queues:                                                # interleave, each episode in its order
        k = ch.integer(0, len(queues) - 1)
        contents += queues[k].pop(0)
        if not queues[k]:
            queues.pop(k)
    events = []
    t = 0
    at_t: set[str] = set()
    for pos, (s, subj, po, tie) in enumerate(contents):
        step = (0 if tie and ch.boolean(0.5) else ch.choice([0, 1, 1, 1, 2])) if pos else ch.integer(0, 1)
        if step == 0 and s in at_t:
            step = 1
        if step:
            t += step
            at_t = set()
        at_t.add(s)
        triples = [tuple(parse_nt_term(x) for x in (f"<{EX}{subj}>", f"<{EX}{p}>", o)) for p, o in po]
        events.append(GraphEvent(triples, t, URIRef(EX + s), pos, URIRef(f"{EX}g{pos}")))
    return check_streamset(events, "<generated>")


# ----------------------------------------------------------------------------- options
#: Switches whose non-default values change answers only under narrow query/stream shapes: drawn non-default
#: with probability 0.35 instead of 0.2.
NARROW_SWITCHES = frozenset({"contiguity", "kleene_iter"})


def gen_options(ch: Chooser) -> Any:
    """Random switches: each semantic switch non-default with probability 0.2 (0.35 for :data:`NARROW_SWITCHES`),
    each engine option off with probability 0.2."""
    import typing

    from ceplab.semantics.spaseq.options import Options

    hints = typing.get_type_hints(Options)
    kw: dict[str, Any] = {}
    for name, tp in hints.items():
        if typing.get_origin(tp) is typing.Literal and ch.boolean(0.35 if name in NARROW_SWITCHES else 0.2):
            kw[name] = ch.choice(list(typing.get_args(tp))[1:])
        elif tp is bool and ch.boolean(0.2):
            kw[name] = False
    if ch.boolean(0.1):
        kw["origin"] = ch.integer(1, 3)
    return Options(**kw)


def gen_case(ch: Chooser, length: int, *, background: Optional[bool] = None, options: Any = None,
             long: bool = False) -> tuple[str, list]:
    """``(query text, streamset)``; with background knowledge (as comment lines in the query text) with
    probability 0.25 unless ``background`` says.  ``options`` steers the query (:func:`gen_query`); under
    ``contiguity=stream|streamset`` the streamset has two or three streams nine times in ten, so that events of
    another stream lie between strictly contiguous ones.  Mostly the stream plants matches of the query
    (:func:`gen_stream`); ``long`` streams get windows of 1-4 ticks; one short case in five has a *simple* query
    (:func:`gen_query`)."""
    from ceplab.workbench.langs.spaseq.background import background_comment

    bg = ch.boolean(0.25) if background is None else background
    lo = 2 if options is not None and options.contiguity != "declared" and ch.boolean(0.9) else 1
    streams = STREAMS[:ch.integer(lo, len(STREAMS))]
    plan: list = []
    simple = not long and ch.boolean(0.2)
    bg = bg and not simple
    text = gen_query(ch, background=bg, streams=streams, options=options, plan=plan,
                     window=ch.integer(1, 4) if long else ch.integer(2, 8) if simple else None, simple=simple)
    if bg:
        text = background_comment(KB, gen_background(ch)) + text
    # a foreign stream (declared by no FROM STREAM) now and then: contiguity=declared vs streamset
    p_foreign = 0.5 if options is not None and options.contiguity == "streamset" else 0.15
    in_stream = streams + (FOREIGN,) if ch.boolean(p_foreign) else streams
    return text, gen_stream(ch, length, in_stream, plan)


def random_case(rng: random.Random, length: int, *, long: bool = False) -> tuple[str, list, Any]:
    """Spark fuzzing entry: ``(query text, streamset, Options)`` from a seeded ``random.Random``; with ``long``
    (or for one case in ten) the stream has 40-200 events and the window 1-4 ticks.  The switches are drawn first
    and steer the query (:func:`gen_case`)."""
    ch = RandomChooser(rng)
    if long or ch.boolean(0.1):
        long = True
        length = ch.integer(40, 200)
    options = gen_options(ch)
    text, stream = gen_case(ch, length, options=options, long=long)
    return text, stream, options


# ----------------------------------------------------------------------------- hypothesis
@st.composite
def _queries(draw, kw):
    return gen_query(HypothesisChooser(draw), **kw)


@st.composite
def _streams(draw, min_len, max_len):
    ch = HypothesisChooser(draw)
    return gen_stream(ch, ch.integer(min_len, max_len))


@st.composite
def _cases(draw, min_len, max_len):
    ch = HypothesisChooser(draw)
    return gen_case(ch, ch.integer(min_len, max_len))


@st.composite
def _options(draw):
    return gen_options(HypothesisChooser(draw))


def spaseq_queries(**kw: Any) -> st.SearchStrategy[str]:
    """Hypothesis strategy of SPAseq query texts; keywords as :func:`gen_query`."""
    return _queries(kw)


def spaseq_streams(min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[list]:
    """Hypothesis strategy of streamsets (:func:`gen_stream`)."""
    return _streams(min_len, max_len)


def spaseq_cases(min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[tuple[str, list]]:
    """Hypothesis strategy of ``(query text, streamset)`` pairs (:func:`gen_case`, background included)."""
    return _cases(min_len, max_len)


def spaseq_options() -> st.SearchStrategy[Any]:
    """Hypothesis strategy of :class:`ceplab.semantics.spaseq.options.Options` (:func:`gen_options`)."""
    return _options()


class SpaseqStrategies:
    """The registry's strategy bundle for SPAseq. ``queries()`` draws query texts (parse them with the
    language's ``parse``)."""

    def queries(self, **kw: Any) -> st.SearchStrategy[str]:
        return spaseq_queries(**kw)

    def streams(self, min_len: int = 0, max_len: int = 8) -> st.SearchStrategy[list]:
        return spaseq_streams(min_len, max_len)

    def options(self) -> st.SearchStrategy[Any]:
        return spaseq_options()

    @staticmethod
    def render(query: Any) -> str:
        if isinstance(query, str):
            return query
        from ceplab.workbench.langs.spaseq.background import render_query

        return render_query(query)
