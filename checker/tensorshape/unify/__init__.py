"""Unification: dim arithmetic, facts, comparison, broadcasting and spec matching.

Integers stay Python ints; sympy is imported lazily and used only for
symbolic dims, on small expressions, with a bound on their size.
"""
