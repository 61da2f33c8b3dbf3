"""What the seeded SPAseq fuzz generator draws (``ceplab fuzz spaseq``, workbench/langs/spaseq/generators.py): every
value of every closed switch, and the switch/construct combinations under which a non-default switch value changes
answers (docs/semantics/spaseq.md#spaseq-opt-kleene_iter, #spaseq-opt-contiguity, #spaseq-opt-negation), so that a
generator change that stops drawing one of them fails here rather than silently weakening the campaign."""
from __future__ import annotations

from collections import Counter

import pytest

from ceplab.semantics.spaseq.options import Options
from ceplab.workbench.coverage import case_features, switch_values, tally
from ceplab.workbench.langs.spaseq import LANGUAGE as L
from ceplab.workbench.spark import case_rng

N = 300


@pytest.fixture(scope="module")
def drawn():
    """The first ``N`` cases of the default campaign (seed 0, length 6), parsed."""
    out = []
    for i in range(N):
        text, stream, options = L.random_case(case_rng(0, "spaseq", i), 6)
        out.append((L.parse(text), stream, options))
    return out


def test_every_closed_switch_value_is_drawn(drawn):
    counts = tally(Options, (case_features(L, q, s, o) for q, s, o in drawn))
    never = [k for k in switch_values(Options) if counts[k] == 0]
    assert not never, never
    rare = {k: counts[k] for k in switch_values(Options) if counts[k] < 3}
    assert not rare, rare


def test_switch_and_construct_combinations_are_drawn(drawn):
    c: Counter = Counter()
    for q, s, o in drawn:
        seq = q.query.seq
        streams = {str(e.stream) for e in s}
        c["long"] += len(s) >= 40
        if o.kleene_iter == "stn" and any(e.modifier == "+" and e.connector in (",", ":") for e in seq):
            c["stn-kleene-after-strict"] += 1
        if o.contiguity != "declared" and len(streams) > 1 and any(e.connector == "," for e in seq):
            c["contiguity-mixed-streams"] += 1
        if o.negation == "through_next" and any(e.modifier == "!" for e in seq):
            c["through-next-negation"] += 1
        c["negated-last"] += seq[-1].modifier == "!"
        c["anchored"] += o.window == "anchored"
    for key, least in (("stn-kleene-after-strict", 15), ("contiguity-mixed-streams", 15),
                       ("through-next-negation", 10), ("negated-last", 10), ("anchored", 10)):
        assert c[key] >= least, (key, c[key])
    assert 0.04 * N <= c["long"] <= 0.2 * N, c["long"]
