"""CQELS-CEP: windowed SEQ with negation over interval RDF streams, and nested regular path expressions over
static data (Dao-Tran and Le-Phuoc 2015; docs/semantics/cqels.md)."""
