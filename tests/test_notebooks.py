"""The researcher notebooks run from top to bottom without errors (executed with nbclient).

The kernel is ``python3``, the kernel spec that ipykernel (a dev dependency) installs, so the test
works wherever ``pip install -e .[dev]`` ran. The kernel starts in the repository root, and the
notebook adds that root to ``sys.path`` when the project is not installed.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
CEL = ROOT / "notebooks" / "cel.ipynb"


def _execute(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    return nb


def _text(nb: nbformat.NotebookNode) -> str:
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o.get("text", ""))
            elif o.get("output_type") == "error":
                out.append("ERROR " + o.get("ename", "") + ": " + o.get("evalue", ""))
    return "".join(out)


@pytest.fixture(scope="module")
def cel_nb() -> nbformat.NotebookNode:
    return _execute(CEL)


def test_cel_notebook_runs_without_errors(cel_nb):
    errors = [o for c in cel_nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
    images = [o for c in cel_nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the timeline and the automata are drawn"


def test_cel_notebook_phi1_matches_paper(cel_nb):
    text = _text(cel_nb)
    # [[phi1]](S) = {1,2}, {1,8}, {5,8}   (paper section 3; note cel.md 6.3)
    assert re.search(r"^phi1 ALL engine: \{1,2\} \{1,8\} \{5,8\}$", text, re.M), text
    assert re.search(r"^phi1 ALL oracle: \{1,2\} \{1,8\} \{5,8\}$", text, re.M), text
    assert re.search(r"^phi1 STRICT engine: \{1,2\}$", text, re.M), text
    assert re.search(r"^phi1 LAST engine: \{1,2\} \{5,8\}$", text, re.M), text
