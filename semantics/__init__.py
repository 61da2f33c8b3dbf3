"""The CEP languages themselves (syntax, options, results), independent of any evaluator."""
