"""CEL: the complex event logic of Grez, Riveros, Ugarte, Bucchi, "Foundations of Complex Event
Processing" (arXiv:1709.05369; docs/semantics/cel.md#cel-paper)."""
