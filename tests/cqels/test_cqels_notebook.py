"""notebooks/cqels.ipynb runs from top to bottom and shows the tour: the running example (Example 9, T1) with the
event clause and the path explaining it, a NO_TAIL withdrawal (T5) with the engine's push log, a late NO_HEAD answer
(T9), the timelines plotted, the wo_bounds switch (T8), the benchmark workload and the bundled real-data cases;
engine and oracle agree everywhere (executed with nbclient)."""
from __future__ import annotations

import re

import nbformat
import pytest


@pytest.fixture(scope="module")
def cqels_nb(run_notebook) -> nbformat.NotebookNode:
    """notebooks/cqels.ipynb, executed once per session."""
    return run_notebook("cqels.ipynb")


def test_cqels_notebook_runs_without_errors(cqels_nb):
    errors = [o for c in cqels_nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors


def test_cqels_notebook_shows_the_tour(cqels_nb, notebook_text):
    text = notebook_text(cqels_nb)
    assert "engine = oracle: False" not in text and "undecided" not in text, text
    for who in ("engine", "oracle"):
        # T1: the paper's single answer ?s -> m, as a timeline
        assert re.search(rf"^T1 {who}: \{{s=:m\}}\[10,16\] at t = 16\.\.20$", text, re.M), text
        assert re.search(rf"^event clause {who}: \{{s=:h,v=:d1\}}\[12,14\] at t = 14\.\.22; "
                         rf"\{{s=:m,v=:a1\}}\[10,16\] at t = 16\.\.20$", text, re.M), text
        # T5: withdrawn by the arrival at 18; T9: the late NO_HEAD answer
        assert re.search(rf"^T5 {who}: \{{s=:m\}}\[10,16\] at t = 16\.\.17$", text, re.M), text
        assert re.search(rf"^T9 {who}: \{{x=:x\}}\[5,5\] at t = 8\.\.9$", text, re.M), text
        assert re.search(rf"^T8 closed {who}: \(none\)$", text, re.M), text
        assert re.search(rf"^T8 strict {who}: \{{x=:x\}}\[2,6\] at t = 6\.\.12; \{{x=:y\}}\[2,6\] at t = 6\.\.12$",
                         text, re.M), text
    assert "path at t = 0: ['{s=:b}[0,0]', '{s=:m}[0,0]']" in text
    assert re.search(r"^T5 at t = 16: \+\{s=:m\}\[10,16\]\nT5 at t = 18: -\{s=:m\}\[10,16\] \(withdrawn\)$", text,
                     re.M), text
    assert re.search(r"push :a1 :arriveAt :m @18 returns the answers of t = 16\.\.17$", text, re.M), text
    assert re.search(r"push :a1 :delayAt :m @16 returns the answers of t = -$", text, re.M), text
    assert re.search(r"^T9 at t = 8: \+\{x=:x\}\[5,5\] \(late\)$", text, re.M), text
    assert "NEG, RANGE 100, n = 100..800: engine = oracle: True" in text
    images = [o for c in cqels_nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the timelines and the oracle/engine times are plotted"
    real = re.findall(r"^(\w+)@\S+: (\d+) answers; engine = oracle: True$", text, re.M)
    assert {n for n, _ in real} == {"flood_watch", "seattle_cold_snap", "sf_heat_alarm", "storm_alarm"}
    assert all(int(k) > 0 for _, k in real)
