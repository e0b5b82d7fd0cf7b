"""``tensorshape annotate``: propose jaxtyping annotations from traced calls or from the analysis."""

from .generalise import INIT, RESULT, Caller, FunctionAnnotations, ModuleNames, dtype_class, generalise

__all__ = ["Caller", "FunctionAnnotations", "ModuleNames", "dtype_class", "generalise", "INIT", "RESULT"]
