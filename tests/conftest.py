"""Hypothesis profiles: ``dev`` (default), ``ci`` (used by .ci/run), ``deep`` (opt-in fuzzing).

Choose with ``HYPOTHESIS_PROFILE``. The differential properties use ``max_examples`` from the
profile (``ci``: 200 per test).
"""
import os

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.filter_too_much])
settings.register_profile("dev", max_examples=60, **_common)
settings.register_profile("ci", max_examples=200, derandomize=True, print_blob=True, **_common)
settings.register_profile("deep", max_examples=5000, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
