"""The Vollo data-dimension rules as pure functions over ranks, extents and data-dim positions.

Each function takes the input layout facts and returns the output's data-dim
axis, or a :class:`Violation` naming the rule (in the seed's notation) and the
fix the rules allow.  No values, no diagnostics: :mod:`tensorshape.vollo.hook`
applies them to calls.  See ``docs/vollo.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model import codes
from ..model.diagnostics import Code
from ..model.dims import Dim
from ..model.text import plural
from ..unify import arith
from ..unify.compare import Truth, eq3
from ..unify.facts import NO_FACTS, Facts

__all__ = ["Violation", "MatmulSide", "matmul", "reshape", "notation"]


@dataclass(frozen=True, slots=True)
class Violation:
    code: Code
    message: str
    hint: str


def notation(rank: int, data_dim: int | None, names: str = "abcdefgh") -> str:
    """``[a b! c]`` for rank 3 with the data dim at axis 1 (the seed's notation)."""
    return "[" + " ".join(names[i] + ("!" if i == data_dim else "") for i in range(rank)) + "]"


@dataclass(frozen=True, slots=True)
class MatmulSide:
    """One operand of a matmul: its rank, whether it is a compile-time constant, its data dim."""

    rank: int
    constant: bool
    data_dim: int | None = None
    #: Number of elements, when known (constants with at most 512 may avoid dynamic weights).
    numel: Dim | None = None


_SPARSE_LIMIT = 512


def _mat_notation(side: MatmulSide, left: bool) -> str:
    if side.rank == 1:
        return "[j!]" if side.data_dim == 0 and not side.constant else "[j]"
    labels = ("i", "j") if left else ("j", "k")
    rel = None if side.data_dim is None or side.constant else side.data_dim - side.rank
    parts = ["*", labels[0] + ("!" if rel == -2 else ""), labels[1] + ("!" if rel == -1 else "")]
    return "[" + " ".join(parts) + "]"


def matmul(
    left: MatmulSide, right: MatmulSide, allow_dynamic_weights: bool, *, linear_module: bool = False
) -> int | None | Violation:
    """The output data dim of ``left @ right`` (``None``: constant result or unknown)."""
    if left.constant and right.constant:
        return None
    out_rank = max(left.rank, right.rank) - (1 if left.rank == 1 else 0) - (1 if right.rank == 1 else 0)
    if out_rank < 0:
        return None
    shown = f"{_mat_notation(left, True)} @ {_mat_notation(right, False)}"

    def rel(side: MatmulSide) -> int | None:
        return None if side.data_dim is None else side.data_dim - side.rank

    def need_dynamic(why: str, out_rel: int) -> int | Violation:
        if allow_dynamic_weights:
            return out_rank + out_rel
        return Violation(
            codes.VOLLO_DYNAMIC_WEIGHTS,
            f"{shown}: {why}; it compiles only with allow_dynamic_weights",
            "transpose the activation so its data dim is the contracted one, "
            "or enable dynamic weights (--allow-dynamic-weights)",
        )

    # -- one side a compile-time constant ---------------------------------------------
    if left.constant or right.constant:
        act, act_left = (right, False) if left.constant else (left, True)
        const = left if left.constant else right
        r = rel(act)
        if r is None:
            return None
        if act.rank == 1:
            # [j!] against a constant: the data dim is contracted; the result keeps the constant's other axis.
            return out_rank - 1 if out_rank else None
        contracted = -1 if act_left else -2
        other = -2 if act_left else -1
        if r == contracted:
            # [* i j] @ [* j! k] -> [* i! k]: the output data dim is the "replaced" index.
            if const.rank == 1:
                return None
            return out_rank + (-1 if act_left else -2)
        if r == other:
            small = isinstance(const.numel, int) and const.numel <= _SPARSE_LIMIT
            if small and not linear_module:
                return out_rank + r
            return need_dynamic("the activation's data dim is not the contracted one", r)
        return Violation(
            codes.VOLLO_MATMUL,
            f"{shown}: the data dim is a batch dim of the matmul",
            "move the data dim to one of the last two axes (transpose or permute)",
        )

    # -- activation x activation ----------------------------------------------------------------
    rl, rr = rel(left), rel(right)
    if rl is None or rr is None:
        return None
    if left.rank == 1 and right.rank == 1:
        return need_dynamic("activation x activation", 0) if out_rank else None
    if right.rank == 1:
        # [* i! j] @ [j!] -> [* i!];  [* i j!] @ [j!] -> [* i!]
        if rl in (-2, -1):
            return need_dynamic("activation x activation", -1)
    elif left.rank == 1:
        # [j!] @ [* j! k] -> [* k!];  [j!] @ [* j k!] -> [* k!]
        if rr in (-2, -1):
            return need_dynamic("activation x activation", -1)
    else:
        if (rl, rr) == (-2, -2):  # [* i! j] @ [* j! k] -> [* i! k]
            return need_dynamic("activation x activation", -2)
        if (rl, rr) == (-1, -1):  # [* i j!] @ [* j k!] -> [* i k!]
            return need_dynamic("activation x activation", -1)
        if (rl, rr) == (-1, -2):  # [* i j!] @ [* j! k] -> [* i k!]
            return need_dynamic("activation x activation with contracted data dims", -1)
        if (rl, rr) == (-2, -1):
            return Violation(
                codes.VOLLO_MATMUL,
                f"{shown}: unsupported activation x activation matmul",
                "transpose one operand so that the contracted dim is the data dim of at least one side "
                "(e.g. `a @ b` -> `(b.mT @ a.mT).mT`), or swap the operands",
            )
    return Violation(
        codes.VOLLO_MATMUL,
        f"{shown}: the data dim is a batch dim of the matmul",
        "move the data dim to one of the last two axes (transpose or permute)",
    )


def _strides(shape: Sequence[Dim]) -> list[Dim]:
    out: list[Dim] = []
    acc: Dim = 1
    for d in reversed(shape):
        out.append(acc)
        acc = arith.mul(acc, d)
    return list(reversed(out))


def reshape(src: Sequence[Dim], data_dim: int, dst: Sequence[Dim], facts: Facts = NO_FACTS) -> int | None | Violation:
    """The output data dim of a reshape by the stride rule (``None``: undecidable).

    The data dim's stride (the product of the extents to its right) must be
    the stride of some output axis; among several (consecutive, all but the
    first of extent 1), the leftmost is chosen.
    """
    stride = _strides(src)[data_dim]
    candidates: list[int] = []
    undecided = False
    for j, s in enumerate(_strides(dst)):
        t = eq3(s, stride, facts)
        if t is Truth.TRUE:
            candidates.append(j)
        elif t is Truth.UNKNOWN:
            undecided = True
    if candidates:
        return candidates[0]
    if undecided:
        return None
    src_n = notation(len(src), data_dim)
    return Violation(
        codes.VOLLO_RESHAPE,
        f"reshape {src_n} -> [{' '.join(map(str, dst))}] does not preserve the data dim's stride "
        f"({plural(stride, 'element')} to its right)",
        "reshape only axes on one side of the data dim, or move the data dim last first (transpose/permute)",
    )
