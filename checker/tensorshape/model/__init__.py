"""The core data model: dims, shapes, shape specs, abstract values, diagnostics.

Everything here is small, immutable and typed, and knows nothing of mypy or libcst.
"""
