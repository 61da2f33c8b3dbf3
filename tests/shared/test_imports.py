"""The import structure (DESIGN.md section 2), built from the sources with ``ast``.

* ``engine`` and ``asp`` never import each other (function-local imports included): a shared bug
  must not be able to make oracle and engine agree;
* no import cycles among the modules of ``semantics``, ``asp``, ``engine`` and ``workbench``;
* the shared workbench modules name no language: no language name as an identifier or as a string
  literal outside docstrings (the languages are plugins under ``workbench/langs/``).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

from ceplab.workbench import language

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("semantics", "asp", "engine", "workbench")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "ceplab." + ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every project module ``name`` imports (any nesting level), resolved to a known module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()

    def resolve(mod: str) -> str | None:
        while mod and mod not in known:
            mod = mod.rpartition(".")[0]
        return mod or None

    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name if is_pkg else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    pkg = pkg.rpartition(".")[0]
                base = f"{pkg}.{base}" if base else pkg
            # ``from pkg import sub`` imports the submodule; ``from mod import name`` the module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for t in targets:
            if t.startswith("ceplab."):
                r = resolve(t)
                if r is not None and r != name:
                    out.add(r)
    return out


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    src = _sources()
    g = nx.DiGraph()
    g.add_nodes_from(src)
    for name, path in src.items():
        for target in _imports(name, path, set(src)):
            g.add_edge(name, target)
    return g


def _top(mod: str) -> str:
    return mod.split(".")[1]


def test_the_graph_is_real(graph):
    # the walk sees function-local imports: the CLI imports compare inside its commands
    assert graph.has_edge("ceplab.workbench.cli", "ceplab.workbench.compare")
    assert graph.number_of_edges() > 100


def test_engine_and_asp_do_not_import_each_other(graph):
    bad = [(a, b) for a, b in graph.edges if {_top(a), _top(b)} == {"engine", "asp"}]
    assert not bad, bad


def test_semantics_imports_no_evaluator_and_no_workbench(graph):
    bad = [(a, b) for a, b in graph.edges if _top(a) == "semantics" and _top(b) != "semantics"]
    assert not bad, bad


def test_no_import_cycles(graph):
    # a package's __init__ importing its own submodule is not a cycle unless the submodule imports it back
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, cycles


#: The shared workbench modules: everything in workbench/ outside the language plugins.
SHARED = sorted(p for p in (ROOT / "workbench").rglob("*.py") if "langs" not in p.relative_to(ROOT).parts)


def _names_and_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every identifier and every non-docstring string constant of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                docstrings.add(id(body[0].value))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
        elif isinstance(node, ast.arg):
            out.append((node.lineno, node.arg))
        elif isinstance(node, ast.alias):
            out.append((getattr(node, "lineno", 0), node.name + " " + (node.asname or "")))
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
    return out


def test_shared_modules_name_no_language():
    names = language.names()
    assert {"cel", "etalis", "epsparql"} <= set(names)
    word = re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![a-z0-9])", re.I)
    hits = [f"{p.relative_to(ROOT)}:{line}: {text!r}" for p in SHARED
            for line, text in _names_and_strings(p) if word.search(text)]
    assert SHARED and not hits, "\n".join(hits)
