"""docs/semantics/spaseq.md: every anchor the code cites exists, internal links resolve, every gap A1-A25 and every
semantic switch of Options has its anchor, and every option is documented."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ceplab.semantics.spaseq.options import Options

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "semantics" / "spaseq.md"
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
CITED = re.compile(r"docs/semantics/spaseq\.md#(spaseq-[A-Za-z0-9_.\-]*[A-Za-z0-9_])")


def anchors() -> set[str]:
    return set(ANCHOR.findall(DOC.read_text(encoding="utf-8")))


def cited() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for folder in ("semantics/spaseq", "asp", "engine/spaseq", "tests/spaseq", "workbench"):
        base = ROOT / folder
        if not base.exists():
            continue
        for p in base.rglob("*"):
            if p.is_file() and p.suffix in (".py", ".lp", ".lark", ".md") and ("spaseq" in str(p)):
                for a in CITED.findall(p.read_text(encoding="utf-8")):
                    out.setdefault(a, set()).add(str(p.relative_to(ROOT)))
    return out


def test_every_cited_anchor_exists():
    have = anchors()
    missing = {a: sorted(files) for a, files in cited().items() if a not in have}
    assert not missing, missing


def test_internal_links_resolve():
    text = DOC.read_text(encoding="utf-8")
    assert set(re.findall(r"\]\(#([^)]+)\)", text)) <= anchors()


def test_gaps_and_switches_have_anchors():
    have = anchors()
    assert {f"spaseq-A{i}" for i in range(1, 26)} <= have
    assert {"spaseq-1", "spaseq-2", "spaseq-2.2", "spaseq-3.8", "spaseq-4", "spaseq-8", "spaseq-9",
            "spaseq-9.5"} <= have
    assert {f"spaseq-3.{i}" for i in range(1, 9)} <= have
    text = DOC.read_text(encoding="utf-8")
    for f in dataclasses.fields(Options):
        if f.name.startswith("engine_"):
            assert f"`{f.name}`" in text, f.name
        else:
            assert f"spaseq-opt-{f.name}" in have, f.name


def test_the_document_stands_alone():
    text = DOC.read_text(encoding="utf-8")
    outside = "/" + "shared" + "/"          # the workspace folder the repository must not depend on
    assert outside not in text
