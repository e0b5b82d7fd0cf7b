"""``tensorshape annotate``: propose jaxtyping annotations from traced calls or from the analysis."""

from .generalise import INIT, RESULT, FunctionAnnotations, ModuleNames, dtype_class, generalise

__all__ = ["FunctionAnnotations", "ModuleNames", "dtype_class", "generalise", "INIT", "RESULT"]
