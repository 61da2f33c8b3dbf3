"""The CEL language plugin."""
