"""The errata report (``ceplab papers-check --report``, workbench/report.py): the checked-in
``papers-check/report`` (REPORT.md, REPORT.html, cases/, figures/) is what the command generates, byte for byte,
and its replay commands give the answers it states."""
from __future__ import annotations

import json
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ceplab.workbench import language, report
from ceplab.workbench.cli import app

ROOT = Path(__file__).resolve().parents[2]
CHECKED_IN = ROOT / "papers-check" / "report"
REGENERATE = "regenerate it from the repository root with `ceplab papers-check --report` and commit papers-check/report"


@pytest.fixture(scope="module")
def generated():
    """The report as the command would write it into papers-check/report (rendered, not written)."""
    files, sections = report.render(CHECKED_IN, shown="papers-check/report")
    return files, sections


def test_checked_in_report_is_current(generated):
    files, _ = generated
    on_disk = {p for p in CHECKED_IN.rglob("*") if p.is_file()}
    missing = sorted(p.relative_to(CHECKED_IN).as_posix() for p in set(files) - on_disk)
    stale = sorted(p.relative_to(CHECKED_IN).as_posix() for p in on_disk - set(files))
    assert not missing and not stale, f"papers-check/report is out of date (missing {missing[:5]}, stale {stale[:5]}): {REGENERATE}"
    changed = sorted(p.relative_to(CHECKED_IN).as_posix() for p, text in files.items()
                     if p.read_text(encoding="utf-8") != text)
    stamp = f"figures/{report.MATPLOTLIB_STAMP}"
    if (CHECKED_IN / stamp).read_text(encoding="utf-8") != report.matplotlib_stamp():
        # drawn with another matplotlib, which writes other SVG bytes for the same figure: the figures are compared
        # by name (above) and validity (test_every_finding_case_has_a_figure), everything else byte for byte
        changed = [c for c in changed if not c.startswith("figures/")]
    assert not changed, f"papers-check/report differs from the generated report in {changed[:5]}: {REGENERATE}"
    figures = CHECKED_IN / "figures"
    assert {p for p in files if figures in p.parents} == {p for p in on_disk if figures in p.parents} != set()


def test_report_is_deterministic(generated, tmp_path):
    """Writing twice (through the CLI, into another folder) gives the same bytes; the paths in the
    commands are the folder given."""
    out = tmp_path / "rep"
    r = CliRunner().invoke(app, ["papers-check", "--report", "--out", str(out)])
    assert r.exit_code == 0, r.output
    files, _ = generated
    md = (out / "REPORT.md").read_text(encoding="utf-8")
    assert md == files[CHECKED_IN / "REPORT.md"].replace("papers-check/report/", f"{out.as_posix()}/")
    assert sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file()) == \
        sorted(p.relative_to(CHECKED_IN) for p in files)
    svgs = sorted(p for p in files if p.suffix == ".svg")
    assert svgs and all((out / p.relative_to(CHECKED_IN)).read_bytes() == files[p].encode("utf-8") for p in svgs)


def test_every_finding_case_has_a_figure(generated):
    """Every replayable finding case has figures/<lang>/<finding>-<n>.svg (the name of its case files), valid
    SVG of the fixed width, referenced from REPORT.md and REPORT.html; no other figure is written."""
    files, sections = generated
    md, page = files[CHECKED_IN / "REPORT.md"], files[CHECKED_IN / "REPORT.html"]
    replays = _replays(sections)
    want = set()
    for lang, rp in replays:
        assert rp.figure is not None and rp.figure.stem == rp.stream_file.stem
        rel = rp.figure.relative_to(CHECKED_IN).as_posix()
        assert rel == f"figures/{lang}/{rp.stream_file.stem}.svg"
        want.add(rp.figure)
        root = ET.fromstring(files[rp.figure].encode("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width") == f"{report.FIG_WIDTH * 72:g}pt"
        assert f"]({rel})" in md and f'<img src="{rel}"' in page
        assert "Date" not in files[rp.figure] and "Matplotlib v" not in files[rp.figure]
    assert {p for p in files if p.suffix == ".svg"} == want and len(want) == len(replays)


def test_report_counts_and_kinds(generated):
    """Every registered language with papers-check cases has a section, every case a verdict, every
    finding a known kind; the summary's paper-errata count is the number of `paper erratum` findings."""
    files, sections = generated
    assert [s.lang for s in sections] == sorted(n for n in language.names() if language.get(n).papers_dir)
    for s in sections:
        assert all(r.label in report.VERDICTS for r in s.rows)
        assert all(f.kind in report.KINDS for f in s.findings)
        assert not [r.verdict.case.name for r in s.rows if r.label == "failed"]
    n = sum(f.kind == "paper erratum" for s in sections for f in s.findings)
    assert f"**{n} paper errata**" in files[CHECKED_IN / "REPORT.md"]
    html = files[CHECKED_IN / "REPORT.html"]
    assert html.startswith("<!DOCTYPE html>") and html.count("<table>") == html.count("</table>") > len(sections)


def test_etalis_paper_findings_are_derived_from_the_cases(generated):
    """Figure 1's drawn NOT answer is an erratum, its drawn DURING answer is what `during_result=contained`
    gives: derived from the case file's paper_answer and the computed results."""
    _, sections = generated
    rows = {r.verdict.case.name: r for s in sections if s.lang == "etalis" for r in s.rows}
    assert rows["not"].label == "erratum" and "[0,5]" in rows["not"].detail
    assert rows["during"].label == "ambiguous" and "`during_result=contained`" in rows["during"].detail
    assert rows["seq"].label == "confirmed"


def _replays(sections):
    return [(s.lang, rp) for s in sections for f in s.findings for rp in s.replays.get(f.id, [])]


def test_every_replay_command_gives_the_stated_answer(generated):
    """Each replay command of the report, run through the CLI from the repository root on the checked-in
    files: `compare` exits 0 (oracle and engine agree) and `run --oracle` gives the answer the report
    states (restricted to the head it names)."""
    files, sections = generated
    md = files[CHECKED_IN / "REPORT.md"]
    runner = CliRunner()
    replays = _replays(sections)
    assert replays
    for lang, rp in replays:
        assert f"```\n{rp.command}\n```" in md
        args = shlex.split(rp.command)
        assert args[:3] == ["ceplab", "compare", lang]
        args = [str(ROOT / a) if a.startswith("papers-check/") else a for a in args[1:]]
        r = runner.invoke(app, args)
        assert r.exit_code == 0, f"{rp.command}: exit {r.exit_code}\n{r.output}"
        r = runner.invoke(app, ["run"] + args[1:] + ["--oracle", "--json"])
        assert r.exit_code == 0, f"{rp.command} (run --oracle): {r.output}"
        got = json.loads(r.stdout)["results"]
        L = language.get(lang)
        if rp.head is not None:
            got = L.paper_format.project_results(got, rp.head)
        assert report._canon(got) == rp.answer, rp.command


def test_bad_findings_index_is_a_clear_error(tmp_path, monkeypatch):
    """A findings index naming a case that does not exist is a located error, exit 2, no traceback."""
    import dataclasses

    L = language.get("cel")
    d = tmp_path / "cel"
    d.mkdir()
    for f in L.papers_dir.glob("*.json"):
        (d / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (d / "figure1.jsonl").write_text((L.papers_dir / "figure1.jsonl").read_text(encoding="utf-8"))
    (d / "findings-index.json").write_text(json.dumps({"findings": [
        {"id": "1", "title": "t", "kind": "paper erratum", "where": "w", "summary": "s", "cases": ["micro/nope"]}]}))
    monkeypatch.setattr(language, "get", lambda name, _get=language.get: (
        dataclasses.replace(L, papers_dir=d) if name == "cel" else _get(name)))
    with pytest.raises(report.ReportError, match="micro/nope"):
        report.render(tmp_path / "out", langs=["cel"])
    (d / "findings-index.json").write_text('{"findings": [{"id": "1", "kind": "typo"}]}')
    with pytest.raises(report.ReportError, match="needs a text 'title'"):
        report.load_findings("cel")
    r = CliRunner().invoke(app, ["papers-check", "cel", "--report"])
    assert r.exit_code == 2 and "--report covers every paper" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["papers-check", "cel", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--out goes with --report" in r.output and not (tmp_path / "x").exists()
