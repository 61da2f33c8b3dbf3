"""ETALIS (Anicic et al., "Real-time complex event recognition and reasoning", AAI 2012; docs/semantics/etalis.md).

Front end only: :mod:`.ast`, :mod:`.parser` (``.event`` rule files), :mod:`.analysis` (safety, termination),
:mod:`.streams` (JSON Lines and ``.stream`` event files).  Not registered in ``ceplab.workbench.language`` until an
oracle exists.
"""
from ceplab.semantics.etalis.parser import parse, parse_file

__all__ = ["parse", "parse_file"]
