"""notebooks/cel.ipynb runs from top to bottom and shows the paper's results (executed with nbclient)."""
from __future__ import annotations

import re


def test_cel_notebook_runs_without_errors(cel_nb):
    errors = [o for c in cel_nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    images = [o for c in cel_nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the timeline and the automata are drawn"


def test_cel_notebook_phi1_matches_paper(cel_nb, notebook_text):
    text = notebook_text(cel_nb)
    # [[phi1]](S) = {1,2}, {1,8}, {5,8}   (paper section 3; docs/semantics/cel.md#cel-6.3)
    assert re.search(r"^phi1 ALL engine: \{1,2\} \{1,8\} \{5,8\}$", text, re.M), text
    assert re.search(r"^phi1 ALL oracle: \{1,2\} \{1,8\} \{5,8\}$", text, re.M), text
    assert re.search(r"^phi1 STRICT engine: \{1,2\}$", text, re.M), text
    assert re.search(r"^phi1 LAST engine: \{1,2\} \{5,8\}$", text, re.M), text
