"""tensorshape: a gradual shape type checker for PyTorch programs."""

__version__ = "0.1.0"
