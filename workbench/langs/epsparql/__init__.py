"""The EP-SPARQL language plugin."""
