"""SPAseq: SPARQL graph patterns over named RDF graph streams (docs/semantics/spaseq.md)."""
