"""ceplab: a Datalog/ASP workbench that verifies the semantics of complex event processing languages.

The distribution installs exactly one top-level package, ``ceplab``. Its subpackages live in the
repository's top-level folders (the layout of DESIGN.md section 2):

``ceplab.semantics``  (``semantics/``)  the languages: events and streams, ASTs, parsers, switches;
``ceplab.asp``        (``asp/``)        the clingo reference oracles;
``ceplab.engine``     (``engine/``)     the incremental evaluators;
``ceplab.workbench``  (``workbench/``)  registry, compare, shrink, Spark, benchmarks, the CLI, and one
                                      plugin package per language in ``workbench/langs/``.

``engine`` and ``asp`` never import each other; both depend only on ``semantics``.
"""

__version__ = "0.1.0"
