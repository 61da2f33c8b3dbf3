"""The checked-in matrix (papers-check/matrix/MATRIX.md and matrix.json) is what ``ceplab matrix`` computes now:
regenerated with the parameters stored in matrix.json and compared byte for byte.  Marked ``matrix_report`` (a few
minutes: every construct, every language, 500 cases each); ``.ci/run`` runs it after the default suite."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ceplab.workbench import language
from ceplab.workbench.matrix import report as R
from ceplab.workbench.matrix.run import run_matrix

ROOT = Path(__file__).resolve().parents[2]
STORED = ROOT / "papers-check" / "matrix"


@pytest.mark.matrix_report
def test_checked_in_matrix_is_what_ceplab_matrix_computes(tmp_path):
    stored = json.loads((STORED / "matrix.json").read_text())
    langs = [language.get(n) for n in stored["languages"]]
    assert [L.name for L in langs] == [L.name for L in language.languages() if L.translation is not None]
    res = run_matrix(langs, stored["constructs"], stored["cases_per_construct"], stored["seed"])
    R.write(res, tmp_path)
    for name in ("MATRIX.md", "matrix.json"):
        assert (tmp_path / name).read_text() == (STORED / name).read_text(), (
            f"papers-check/matrix/{name} is stale: regenerate it with `ceplab matrix --cases "
            f"{stored['cases_per_construct']} --seed {stored['seed']} --master 'local[2]' --out papers-check/matrix`")
