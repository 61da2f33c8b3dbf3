"""Execute the researcher notebooks (``notebooks/*.ipynb``) and store them with their outputs, deterministically.

::

    ceplab notebooks --execute [NAME...]     re-execute and write the notebooks in place
    ceplab notebooks --check [NAME...]       re-execute and compare with the stored outputs (exit 1 on a difference)
    python -m ceplab.workbench.notebooks [--check] [NAME...]     the same without the CLI

NAME is ``cel``, ``cel.ipynb`` or ``notebooks/cel.ipynb``; no NAME means every notebook. The notebooks are
committed executed, so their outputs and plots are visible where the repository is browsed;
tests/shared/test_notebook_outputs.py re-executes them and fails when a stored output no longer matches what
the code produces. After a change that alters a notebook's output, run ``ceplab notebooks --execute`` and
commit the notebooks.

Execution (:func:`execute`): nbclient, kernel ``python3``, the repository root as the working directory, a
hidden first cell that fixes matplotlib's figure DPI, ``svg.hashsalt`` and drops the PNG ``Software``
metadata (the cell is removed again afterwards), stream outputs coalesced. :func:`normalise` then makes the
stored file deterministic: execution counts are renumbered 1..n over the code cells, the per-cell
``execution`` timestamps are removed, memory addresses (``0x7f3a...``) become ``0x...``, the repository path
becomes ``<ROOT>``, and the notebook metadata keeps only the language name.

Comparison (:func:`differences`): every code cell's outputs are reduced to text (:func:`comparable`):
stream text per stream name, error name and value, and the ``text/plain``, ``text/html`` and
``text/markdown`` data of display and result outputs. PNG images are compared by presence only
(``image/png`` present or not): their bytes depend on the matplotlib and FreeType versions.

Timing cells: a code cell whose metadata ``tags`` contain ``timing`` (:data:`TIMING_TAG`) is executed and
stored like any other but left out of the comparison. Tag a cell ``timing`` when, and only when, its outputs
show measured wall-clock times or throughputs (seconds, events per second) or a plot of them; everything
else a notebook shows must be deterministic (seed random generators, sort what comes out of sets).
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
TIMING_TAG = "timing"
REGENERATE = "ceplab notebooks --execute"
TIMEOUT_S = 600

# run before the notebook's own cells, then removed: deterministic figures in every stored PNG
_SETUP = """\
import matplotlib
import matplotlib.pyplot  # activates the inline backend first, so that the settings below stay
matplotlib.rcParams.update({"figure.dpi": 100, "savefig.dpi": 100, "svg.hashsalt": "ceplab"})
try:
    from matplotlib_inline.backend_inline import set_matplotlib_formats
    set_matplotlib_formats("png", bbox_inches="tight", metadata={"Software": None})
except ImportError:
    pass
del matplotlib
"""

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_TEXT_MIMES = ("text/plain", "text/html", "text/markdown")


def notebook_paths(names: Iterable[str] = ()) -> list[Path]:
    """The notebooks NAMES (``cel``, ``cel.ipynb`` or a path) name, or every ``notebooks/*.ipynb`` if none.

    Raises ``FileNotFoundError`` for a name that is not a notebook.
    """
    names = list(names)
    if not names:
        return sorted(NOTEBOOK_DIR.glob("*.ipynb"))
    out = []
    for n in names:
        p = Path(n)
        if not p.suffix:
            p = p.with_suffix(".ipynb")
        if not p.exists():
            p = NOTEBOOK_DIR / p.name
        if not p.exists():
            raise FileNotFoundError(f"no notebook {n!r} (notebooks/: "
                                    f"{', '.join(q.stem for q in sorted(NOTEBOOK_DIR.glob('*.ipynb')))})")
        out.append(p.resolve())
    return out


def execute(path: Path | str, timeout: int = TIMEOUT_S) -> Any:
    """The notebook at PATH (a name in notebooks/ works too) executed top to bottom and :func:`normalise`\\ d.

    Kernel ``python3``, working directory the repository root; a failing cell does not stop the run (its
    error output is kept, as the tests look for error outputs). Returns the ``nbformat`` notebook; the file is
    not written (see :func:`write`).
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    if not path.exists():
        path = NOTEBOOK_DIR / path.name
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(_SETUP))
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True, coalesce_streams=True,
                       resources={"metadata": {"path": str(ROOT)}}).execute()
    finally:
        setup = nb.cells.pop(0)
    if setup.get("outputs"):
        raise RuntimeError(f"the notebook set-up cell failed: {setup.outputs}")
    return normalise(nb)


def _mask(text: str) -> str:
    return _ADDRESS.sub("0x...", text).replace(str(ROOT), "<ROOT>")


def normalise(nb: Any) -> Any:
    """NB with what differs between runs removed, in place (and returned): execution counts 1..n over the
    executed code cells, no ``execution`` timestamps, masked memory addresses and repository path in text
    outputs, and notebook metadata reduced to the kernelspec and the language name."""
    count = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("collapsed", None)
        if cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
        for o in cell.get("outputs", []):
            if "execution_count" in o:
                o.execution_count = cell.execution_count
            if o.get("output_type") == "stream":
                o.text = _mask(o.text)
            elif o.get("output_type") == "error":
                o.evalue = _mask(o.evalue)
                o.traceback = [_mask(line) for line in o.traceback]
            for mime, value in o.get("data", {}).items():
                if mime.startswith("text/"):
                    o.data[mime] = _mask(value if isinstance(value, str) else "".join(value))
    lang = nb.metadata.get("language_info", {}).get("name", "python")
    nb.metadata["language_info"] = {"name": lang}
    return nb


def write(nb: Any, path: Path | str) -> None:
    """Write NB to PATH in nbformat 4 (one trailing newline), the form the notebooks are committed in."""
    import nbformat

    text = nbformat.writes(nb, version=4)
    Path(path).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def is_timing(cell: Any) -> bool:
    """Whether CELL is a timing cell: its metadata ``tags`` contain :data:`TIMING_TAG`."""
    return TIMING_TAG in cell.get("metadata", {}).get("tags", [])


def comparable(cell: Any) -> list[str]:
    """CELL's outputs as the text lines that are compared: one header line per output (``[stream stdout]``,
    ``[display_data text/plain]``, ``[image/png]``...) followed by its text; stream text is joined per stream
    name (chunking and the interleaving of stdout and stderr vary); PNG images count by presence only."""
    streams: dict[str, str] = {}
    rest: list[str] = []
    for o in cell.get("outputs", []):
        kind = o.get("output_type")
        if kind == "stream":
            streams[o.get("name", "stdout")] = streams.get(o.get("name", "stdout"), "") + o.get("text", "")
        elif kind == "error":
            rest += [f"[error] {o.get('ename', '')}: {_mask(o.get('evalue', ''))}"]
        elif kind in ("display_data", "execute_result"):
            data = o.get("data", {})
            for mime in _TEXT_MIMES:
                if mime in data:
                    value = data[mime] if isinstance(data[mime], str) else "".join(data[mime])
                    rest += [f"[{kind} {mime}]", *_mask(value).splitlines()]
            if "image/png" in data:
                rest += ["[image/png]"]
    out = []
    for name in sorted(streams):
        out += [f"[stream {name}]", *_mask(streams[name]).splitlines()]
    return out + rest


def differences(stored: Any, fresh: Any, name: str = "notebook") -> list[str]:
    """Readable unified diffs, one per code cell whose :func:`comparable` outputs differ between the STORED
    and the FRESH execution of the same notebook (timing cells excepted); empty if they match. A notebook
    whose cells no longer line up (a cell added, removed or edited) is one difference."""
    s_cells = [c for c in stored.cells if c.cell_type == "code"]
    f_cells = [c for c in fresh.cells if c.cell_type == "code"]
    if [c.source for c in s_cells] != [c.source for c in f_cells]:
        return [f"{name}: the code cells differ between the stored and the executed notebook"]
    out = []
    for i, (s, f) in enumerate(zip(s_cells, f_cells), 1):
        if is_timing(s) or is_timing(f):
            continue
        a, b = comparable(s), comparable(f)
        if a != b:
            first = s.source.splitlines()[0] if s.source else ""
            diff = difflib.unified_diff(a, b, f"{name} code cell {i} (stored)", f"{name} code cell {i} (executed)",
                                        lineterm="", n=2)
            out.append(f"{name} code cell {i} ({first[:60]!r}):\n" + "\n".join(diff))
    return out


def check(paths: Sequence[Path]) -> list[str]:
    """Re-execute every notebook in PATHS and return the :func:`differences` with the stored outputs."""
    import nbformat

    out = []
    for p in paths:
        out += differences(nbformat.read(p, as_version=4), execute(p), p.name)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m ceplab.workbench.notebooks [--check] [NAME...]``: execute and write the notebooks in place, or
    with ``--check`` compare them with the stored outputs; returns the exit code (1: a difference or an
    error output)."""
    ap = argparse.ArgumentParser(prog="python -m ceplab.workbench.notebooks", description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="a notebook in notebooks/ (with or without .ipynb) or a path; default: all")
    ap.add_argument("--check", action="store_true", help="compare instead of writing (exit 1 on a difference)")
    args = ap.parse_args(argv)
    return run(args.names, check_only=args.check)


def run(names: Sequence[str], check_only: bool = False, echo=print) -> int:
    """Execute the notebooks NAMES (default: all); write them in place, or with CHECK_ONLY report the differences
    with the stored outputs. ECHO prints one line per notebook. Returns the exit code: 0, or 1 if a notebook
    differs (CHECK_ONLY) or shows an error output."""
    import time

    import nbformat

    status = 0
    for p in notebook_paths(names):
        t0 = time.perf_counter()
        nb = execute(p)
        errors = [f"{o.ename}: {o.evalue}" for c in nb.cells for o in c.get("outputs", [])
                  if o.get("output_type") == "error"]
        if check_only:
            diffs = differences(nbformat.read(p, as_version=4), nb, p.name)
            for d in diffs:
                echo(d)
            verdict = f"{len(diffs)} cell(s) differ" if diffs else "outputs match"
            status |= bool(diffs)
        else:
            write(nb, p)
            verdict = "written"
        for e in errors:
            echo(f"{p.name}: error output {e}")
        status |= bool(errors)
        echo(f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}: {verdict} ({time.perf_counter() - t0:.0f} s)")
    if status and check_only:
        echo(f"to store the current outputs: {REGENERATE}")
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
