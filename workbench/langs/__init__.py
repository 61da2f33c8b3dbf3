"""Language plugins of the workbench (one package per language)."""
