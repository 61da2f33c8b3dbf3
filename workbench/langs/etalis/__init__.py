"""The ETALIS language plugin."""
