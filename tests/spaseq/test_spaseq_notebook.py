"""notebooks/spaseq.ipynb runs from top to bottom and shows the tour: Query 1, the three selection connectors side by
side (T10 and the V-shape on real DAX prices), the window sweep plot of results and run counts, two switches, the
bundled real-data cases; engine and oracle agree everywhere (executed with nbclient)."""
from __future__ import annotations

import re


def test_spaseq_notebook_runs_without_errors(spaseq_nb):
    errors = [o for c in spaseq_nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors


def test_spaseq_notebook_shows_the_tour(spaseq_nb, notebook_text):
    text = notebook_text(spaseq_nb)
    assert "engine = oracle: False" not in text, text
    # Query 1 (T11): one witness, two rows (one per Kleene iteration)
    assert re.search(r"^Query 1 engine: \(:pw@1 :wt@2 :wt@4 :st@5\)\{[^}]*s=6[^}]*\} "
                     r"\(:pw@1 :wt@2 :wt@4 :st@5\)\{[^}]*s=7[^}]*\}$", text, re.M), text
    assert re.search(r"^automaton: 4 states", text, re.M), text
    # the three connectors on one stream (T10)
    for who in ("engine", "oracle"):
        assert re.search(rf"^T10 , {who}: \(none\)$", text, re.M), text
        assert re.search(rf"^T10 ; {who}: \(:pw@1 :pw@4\)\{{x=:a1,y=:b4\}} \(:pw@2 :pw@4\)\{{x=:a2,y=:b4\}}$",
                         text, re.M), text
        assert len(re.search(rf"^T10 : {who}: (.*)$", text, re.M).group(1).split("} (")) == 4
        assert re.search(rf"^T9 anchored {who}: .*\{{p1=31,s=9\}}", text, re.M), text
        assert re.search(rf"^R4 through_next {who}: \(none\)$", text, re.M), text
    counts = {c: int(n) for c, n in re.findall(r"^V-shape (\S) on DAX days 20\.\.219: (\d+) matches; engine = "
                                               r"oracle: True$", text, re.M)}
    assert set(counts) == set(",;:") and counts[","] < counts[";"] < counts[":"], counts
    assert "strategy inclusion , <= ; <= : holds: True" in text
    assert re.search(r"^window sweep: 21 points; engine = oracle: True$", text, re.M), text
    images = [o for c in spaseq_nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) >= 1, "results and run counts are plotted against the window size"
    real = re.findall(r"^(\w+)@\S+: (\d+) matches; engine = oracle: True$", text, re.M)
    assert {n for n, _ in real} >= {"vshape_sc", "vshape_stn", "dip_kleene", "contagion_kb"}
    assert all(int(k) > 0 for _, k in real)
