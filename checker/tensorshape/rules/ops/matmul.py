"""The matmul family: ``@``, matmul, mm, bmm, mv, dot, addmm, baddbmm, linear..."""

from __future__ import annotations

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Star, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import TensorV, Value, unknown_tensor
from ...unify import arith
from ...unify.broadcast import broadcast_shapes
from ...unify.compare import Verdict, eq3
from ..call import Call
from ..registry import rule
from .util import run_exact_rank, run_expands, shapes_equal, spec_text

_MATMUL_HINT = "the last dim of the left operand must equal the second-to-last of the right; transpose one operand (`.T`, `.mT`) or swap them"


def _inner(call: Call, k1: Dim, k2: Dim, a: Shape, b: Shape, left: str, right: str) -> bool:
    """Check the contracted dims; report with both shapes."""
    v = call.check(
        eq3(k1, k2, call.facts),
        (k1, k2),
        f"cannot multiply {render_shape(a)} by {render_shape(b)}: inner dims differ ({render_dim(k1)} vs {render_dim(k2)})",
        rel=Rel.EQ,
        at=right,
        hint=_MATMUL_HINT,
        checks=[(left, spec_text(a.items)), (right, spec_text(b.items))],
    )
    return v is not Verdict.ERROR and v is not Verdict.UNPROVEN


def matmul_shapes(call: Call, a: Shape, b: Shape, left: str = "input", right: str = "other") -> Shape | None:
    """``torch.matmul``'s shape semantics, including the 1-D cases."""
    ra, rb = a.rank, b.rank
    if ra == 0 or rb == 0:
        call.error(codes.RANK_MISMATCH, "both arguments need at least 1 dim", left if ra == 0 else right)
        return None
    if (ra is None and len(a.suffix) < 2) or (rb is None and len(b.suffix) < 2):
        return Shape.unknown()  # the dims multiplied are in a run of unknown length (``[d0 d1 *s]``)
    if ra == 1 and rb == 1:
        return Shape(()) if _inner(call, a.items[0], b.items[0], a, b, left, right) else None
    if ra == 1:
        k2 = b.items[-2]
        if not _inner(call, a.items[0], k2, a, b, left, right):
            return None
        return Shape(b.items[:-2] + b.items[-1:])
    if rb == 1:
        if not _inner(call, a.items[-1], b.items[0], a, b, left, right):
            return None
        return Shape(a.items[:-1])
    if not _inner(call, a.items[-1], b.items[-2], a, b, left, right):
        return None
    batch, issues = broadcast_shapes([Shape(a.items[:-2]), Shape(b.items[:-2])], call.facts)
    for iss in issues:
        if iss.verdict is Verdict.ERROR:
            call.error(
                codes.BROADCAST,
                f"batch dims of {render_shape(a)} and {render_shape(b)} do not broadcast (dim {iss.position - 2})",
                right,
            )
            return None
    return Shape(batch.items + (a.items[-2], b.items[-1]))


def _tensor_result(call: Call, shape: Shape | None, *names: str) -> Value:
    if shape is None:
        return unknown_tensor(UnknownSource.ERROR)
    dtype = next((t.dtype for n in names if (t := call.tensor(n)) is not None), None)
    return TensorV(shape, dtype)


@rule("matmul")
def matmul(call: Call) -> Value:
    a, b = call.shape("input"), call.shape("other")
    if a is None or b is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    return _tensor_result(call, matmul_shapes(call, a, b), "input", "other")


def _require_rank(call: Call, name: str, shape: Shape, rank: int) -> Shape | None:
    """``shape`` with exactly ``rank`` dims (a run taken as the dims left: torch raises for any other
    length), or ``None`` after an error."""
    if shape.rank is None:
        return run_exact_rank(call, shape, rank, call.label(name), name)
    if shape.rank != rank:
        call.error(
            codes.RANK_MISMATCH,
            f"{call.label(name)} must have {plural(rank, 'dim')}, got {render_shape(shape)}",
            name,
            "use `matmul` (or `@`) for other ranks",
        )
        return None
    return shape


@rule("matmul_fixed")
def matmul_fixed(call: Call) -> Value:
    """mm (2x2), bmm (3x3), mv (2x1), dot/vdot/inner-1d (1x1): matmul with exact ranks."""
    ra, rb = call.params["ranks"]
    a, b = call.shape("input"), call.shape(call.params.get("other", "mat2"))
    other = call.params.get("other", "mat2")
    if a is None or b is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    a, b = _require_rank(call, "input", a, ra), _require_rank(call, other, b, rb)
    if a is None or b is None:
        return unknown_tensor(UnknownSource.ERROR)
    if ra == 3 and a.rank == 3 and b.rank == 3:
        # bmm does not broadcast the batch dim.
        verdict = call.check(
            eq3(a.items[0], b.items[0], call.facts),
            (a.items[0], b.items[0]),
            f"batch dims differ: {render_shape(a)} and {render_shape(b)}",
            rel=Rel.EQ,
            at=other,
            checks=[("input", spec_text(a.items)), (other, spec_text(b.items))],
        )
        if verdict is Verdict.ERROR or verdict is Verdict.UNPROVEN:
            return unknown_tensor(UnknownSource.ERROR)
    return _tensor_result(call, matmul_shapes(call, a, b, "input", other), "input", other)


@rule("addmm")
def addmm(call: Call) -> Value:
    """``input + mat1 @ mat2`` (addmm, baddbmm, addbmm, addmv, addr): the product, then broadcast with ``input``."""
    m1, m2 = call.params["operands"]
    a, b = call.shape(m1), call.shape(m2)
    if a is None or b is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    ranks = call.params.get("ranks")
    if ranks:
        a, b = _require_rank(call, m1, a, ranks[0]), _require_rank(call, m2, b, ranks[1])
        if a is None or b is None:
            return unknown_tensor(UnknownSource.ERROR)
    if call.params.get("outer"):
        prod: Shape | None = Shape((a.items[0], b.items[0])) if a.rank == 1 and b.rank == 1 else Shape.unknown()
    else:
        prod = matmul_shapes(call, a, b, m1, m2)
    if prod is None:
        return unknown_tensor(UnknownSource.ERROR)
    if call.params.get("reduce_batch") and prod.rank == 3:
        prod = Shape(prod.items[1:])
    inp = call.shape("input")
    if inp is not None:
        out, issues = broadcast_shapes([inp, prod], call.facts)
        for iss in issues:
            if iss.verdict is Verdict.ERROR:
                call.error(
                    codes.BROADCAST,
                    f"`input` {render_shape(inp)} does not broadcast to the product {render_shape(prod)}",
                    "input",
                )
                return unknown_tensor(UnknownSource.ERROR)
        if out.rank is not None and prod.rank is not None and out.rank != prod.rank:
            call.error(
                codes.BROADCAST,
                f"`input` {render_shape(inp)} has more dims than the product {render_shape(prod)}",
                "input",
            )
            return unknown_tensor(UnknownSource.ERROR)
        if shapes_equal(out, prod, call.facts) is Verdict.ERROR or not run_expands(inp, prod, call.facts):
            # ``input`` is expanded to the product's shape, not the other way round (for every
            # length of a run in it, here).
            call.error(
                codes.BROADCAST,
                f"`input` {render_shape(inp)} cannot be expanded to the product {render_shape(prod)}",
                "input",
                "`input`'s dims must equal the product's or be 1",
            )
            return unknown_tensor(UnknownSource.ERROR)
        return TensorV(prod)
    return TensorV(prod)


@rule("linear")
def linear(call: Call) -> Value:
    """``F.linear(input, weight, bias)``: ``[* in] x [out in] -> [* out]``."""
    x, w = call.shape("input"), call.shape("weight")
    if x is None or w is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if w.rank not in (None, 1, 2) or w.min_rank > 2:
        call.error(codes.RANK_MISMATCH, f"`weight` must have 1 or 2 dims, got {render_shape(w)}", "weight")
        return unknown_tensor(UnknownSource.ERROR)
    if w.rank is None and w.min_rank < 2 and not w.is_unknown:
        # A weight with a run of unknown length (``[n *b]``) may be 1-d (the output drops the
        # feature dim) or 2-d (it has one more): which rank the output has is not known.  A weight
        # known nothing about is taken as 2-d, the layer's weight, and that is a run-time obligation.
        return TensorV(Shape.unknown(), (call.tensor("input") or unknown_tensor()).dtype)
    if w.rank == 1:
        shape = call.match({"input": "*b k", "weight": "k"}, "*b")
    else:
        shape = call.match({"input": "*b k", "weight": "n k"}, "*b n")
    if shape is not None and not call.is_none("bias"):
        # A 2-d (or not yet known) weight: one bias per output feature; a 1-d weight: a scalar output.
        call.match({"bias": "" if w.rank == 1 else "n"}, None, {"n": w.items[0]} if w.rank == 2 else None)
    out = shape if shape is not None else Shape.unknown(UnknownSource.ERROR)
    return TensorV(out, (call.tensor("input") or unknown_tensor()).dtype)


@rule("bilinear")
def bilinear(call: Call) -> Value:
    shape = call.match({"input1": "*b n", "input2": "*b m", "weight": "o n m"}, "*b o")
    if not call.is_none("bias"):
        call.match({"weight": "o n m", "bias": "o"})
    return TensorV(shape or Shape.unknown())


@rule("inner")
def inner(call: Call) -> Value:
    """``torch.inner``: contracts the last dims; the result is ``a[:-1] + b[:-1]`` (scalars multiply)."""
    a, b = call.shape("input"), call.shape("other")
    if a is None or b is None or a.rank is None or b.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if a.rank == 0:
        return TensorV(b)
    if b.rank == 0:
        return TensorV(a)
    k1, k2 = a.dims[-1], b.dims[-1]
    if not _inner(call, k1, k2, a, b, "input", "other"):
        return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape(a.dims[:-1] + b.dims[:-1]))


@rule("kron")
def kron(call: Call) -> Value:
    """``torch.kron(a, b)``: any ranks; the operand with fewer dims is padded with leading 1s and the
    result multiplies aligned dims (``[2 3 4]`` and ``[5 6]`` give ``[2 15 24]``).  Where a run of
    unknown length meets dims of the other operand, what lies beyond it is a run of its own."""
    a, b = call.shape("input"), call.shape("other")
    if a is None or b is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    xs, ys = list(a.items), list(b.items)
    tail: list[Item] = []
    while xs and ys and not isinstance(xs[-1], Star) and not isinstance(ys[-1], Star):
        tail.append(arith.mul(xs.pop(), ys.pop()))
    head: list[Item]
    if not ys:
        head = xs  # the other operand's dims run out: these are the padded ones' (times 1)
    elif not xs:
        head = ys
    else:
        head = [Star(None)]  # a run meets dims (or another run): how they align is not known
    return _tensor_result(call, Shape((*head, *reversed(tail))), "input", "other")
