"""Package discovery for the ``ceplab`` namespace (the rest of the metadata is in pyproject.toml).

The repository keeps its top-level folders (``semantics/``, ``asp/``, ``engine/``, ``workbench/``),
but they install as ``ceplab.semantics``, ``ceplab.asp``, ``ceplab.engine`` and ``ceplab.workbench``,
so ``pip install`` adds exactly one top-level package. Subpackages are found automatically.
"""
from setuptools import find_packages, setup

ROOTS = ("semantics", "asp", "engine", "workbench")

setup(
    packages=["ceplab"] + [f"ceplab.{p}" for p in find_packages(include=[f"{r}*" for r in ROOTS])
                           if p.split(".")[0] in ROOTS],
    package_dir={"ceplab": "ceplab", **{f"ceplab.{r}": r for r in ROOTS}},
)
