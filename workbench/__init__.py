"""Ties languages, oracles and engines together: registry, comparison, generation, Spark, CLI."""
