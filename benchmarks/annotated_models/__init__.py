"""Annotated models for ``benchmarks/annotated_models.py``: written as their authors would, with
jaxtyping annotations at the module boundaries (never imported by the checker's own code)."""
