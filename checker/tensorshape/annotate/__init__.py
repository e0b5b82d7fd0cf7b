"""``tensorshape annotate``: propose jaxtyping annotations from traced calls or from the analysis."""

from .generalise import FunctionAnnotations, ModuleNames, dtype_class, generalise

__all__ = ["FunctionAnnotations", "ModuleNames", "dtype_class", "generalise"]
