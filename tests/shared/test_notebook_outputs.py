"""The notebooks are committed executed, and their stored outputs are what the code produces today.

Each notebook is re-executed once per test run (the ``run_notebook`` fixture of tests/conftest.py, shared with
tests/shared/test_notebooks.py and the per-language notebook tests) and every code cell's normalised outputs
(stream text, text/plain, text/html, text/markdown; image/png by presence only) are compared with the stored ones;
cells tagged ``timing`` are left out (ceplab.workbench.notebooks). After a change that alters an output, store the
new outputs with ``ceplab notebooks --execute`` and commit the notebooks.
"""
from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest

from ceplab.workbench import notebooks as N

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def _stored(path: Path):
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_notebook_is_executed_and_normalised(path):
    nb = _stored(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), \
        f"{path.name} is not stored executed top to bottom: run `{N.REGENERATE} {path.stem}`"
    assert sum(len(c.outputs) for c in code) > 0, path.name
    assert not [c for c in nb.cells if "execution" in c.metadata], "execution timestamps are stored"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"], "a stored output is an error"
    assert N.normalise(copy.deepcopy(nb)) == nb, f"{path.name} is not normalised: run `{N.REGENERATE} {path.stem}`"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_match_a_fresh_execution(run_notebook, path):
    diffs = N.differences(_stored(path), run_notebook(path.name), path.name)
    assert not diffs, ("\n\n".join(diffs) + f"\n\nThe stored outputs of notebooks/{path.name} differ from what the "
                       f"code produces now. If the change is intended, store the new outputs:\n    "
                       f"{N.REGENERATE} {path.stem}\nand commit the notebook.")


def test_only_the_measured_times_are_excepted():
    # the one cell that shows wall-clock times (cqels: the oracle/engine seconds and their plot) is tagged timing;
    # the rest of every notebook is compared
    timing = {(p.name, c.source.splitlines()[0]) for p in NOTEBOOKS for c in _stored(p).cells if N.is_timing(c)}
    assert {name for name, _ in timing} == {"cqels.ipynb"}, timing
    (cell,) = [c for c in _stored(NOTEBOOKS[[p.name for p in NOTEBOOKS].index("cqels.ipynb")]).cells
               if N.is_timing(c)]
    assert '"engine s"' in cell.source and "plt." in cell.source


# ----------------------------------------------------------------------------- the comparison itself (no kernel)

def _cel():
    return _stored(NOTEBOOKS[[p.name for p in NOTEBOOKS].index("cel.ipynb")])


def _first(nb, pred):
    return next((c, o) for c in nb.cells if c.cell_type == "code" for o in c.outputs if pred(o))


def test_an_edited_stored_output_is_a_readable_difference():
    stored, fresh = _cel(), _cel()
    assert N.differences(stored, fresh, "cel.ipynb") == []
    cell, out = _first(stored, lambda o: o.output_type == "stream" and "phi1 ALL engine" in o.text)
    out.text = out.text.replace("phi1 ALL engine: {1,2} {1,8} {5,8}", "phi1 ALL engine: {1,2} {5,8}")
    (diff,) = N.differences(stored, fresh, "cel.ipynb")
    assert "cel.ipynb code cell" in diff
    assert "-phi1 ALL engine: {1,2} {5,8}\n+phi1 ALL engine: {1,2} {1,8} {5,8}" in diff, diff


def test_images_count_by_presence_and_timing_cells_are_not_compared():
    stored, fresh = _cel(), _cel()
    cell, out = _first(stored, lambda o: "image/png" in o.get("data", {}))
    out.data["image/png"] = "iVBORw0KGgo="            # other PNG bytes: no difference
    assert N.differences(stored, fresh, "cel.ipynb") == []
    del out.data["image/png"]                           # no image any more: a difference
    (diff,) = N.differences(stored, fresh, "cel.ipynb")
    assert "+[image/png]" in diff, diff
    cell.metadata["tags"] = [N.TIMING_TAG]              # tagged timing: not compared
    assert N.differences(stored, fresh, "cel.ipynb") == []


def test_stream_chunks_and_stored_tables_compare_as_text():
    stored, fresh = _cel(), _cel()
    cell, out = _first(fresh, lambda o: o.output_type == "stream")
    i = len(out.text) // 2
    cell.outputs.insert(cell.outputs.index(out) + 1, nbformat.v4.new_output("stream", name=out.name,
                                                                           text=out.text[i:]))
    out.text = out.text[:i]                             # the same text in two chunks: no difference
    assert N.differences(stored, fresh, "cel.ipynb") == []
    cell.source += "\n"                                 # the code changed: the notebook must be re-executed
    assert N.differences(stored, fresh, "cel.ipynb") == [
        "cel.ipynb: the code cells differ between the stored and the executed notebook"]


def test_normalise_renumbers_and_masks():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("x"),
                nbformat.v4.new_code_cell("a", execution_count=7,
                                          metadata={"execution": {"iopub.status.busy": "2024-01-01T00:00:00Z"}},
                                          outputs=[nbformat.v4.new_output(
                                              "execute_result", {"text/plain": "<Foo at 0x7f3a2b1c0d90>"},
                                              execution_count=7)]),
                nbformat.v4.new_code_cell("b", execution_count=9,
                                          outputs=[nbformat.v4.new_output("stream", text=f"{N.ROOT}/x\n")])]
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    N.normalise(nb)
    assert [c.get("execution_count") for c in nb.cells] == [None, 1, 2]
    assert "execution" not in nb.cells[1].metadata
    assert nb.cells[1].outputs[0].execution_count == 1
    assert nb.cells[1].outputs[0].data["text/plain"] == "<Foo at 0x...>"
    assert nb.cells[2].outputs[0].text == "<ROOT>/x\n"
    assert nb.metadata["language_info"] == {"name": "python"}


def test_the_command_wants_one_mode_and_known_notebooks(capsys):
    from ceplab.workbench.cli import main

    for argv, message in ((["notebooks"], "give exactly one of --execute and --check"),
                          (["notebooks", "--check", "no-such-notebook"], "no notebook 'no-such-notebook'")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2 and message in capsys.readouterr().err, argv
