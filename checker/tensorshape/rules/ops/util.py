"""Helpers shared by the Python rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.diagnostics import Diagnostic, Severity
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import TensorV
from ...unify.compare import Truth, Verdict, classify, eq3, ne1
from ...unify.facts import Facts
from ..call import Call
from ..context import Arg
from ..registry import get_rule

__all__ = [
    "wrap_dim",
    "wrap_dims",
    "shapes_equal",
    "replace",
    "spec_text",
    "UNKNOWN_DIM",
    "run_rank_at_least",
    "run_rank_among",
    "run_exact_rank",
    "run_fixed",
    "run_rank_of",
    "run_fails_for_every_rank",
    "run_rank_shared",
    "run_most",
    "run_shared",
    "run_expands",
    "same_run",
]

UNKNOWN_DIM = Unknown(UnknownSource.UNANNOTATED)


def wrap_dim(
    call: Call, dim: Dim | None, shape: Shape, at: str, *, extra: int = 0, most: int | None = None
) -> int | None:
    """Turn a dim argument into an index into ``shape.items``.

    ``extra`` widens the valid range (``unsqueeze`` accepts ``rank`` itself); ``most`` bounds the
    length of a run in ``shape`` (:func:`run_most`): a dim out of range for the longest is for all.
    Reports ``dim-out-of-range``; returns ``None`` when the index is invalid
    or cannot be determined (symbolic dim, or it falls inside an unknown run).
    """
    if dim is None or type(dim) is not int:
        return None
    rank = shape.rank
    if rank is None and most is not None and not _dim_fits(dim, shape.min_rank + most + extra):
        r = max(shape.min_rank + most + extra, 1)
        call.error(
            codes.DIM_RANGE,
            f"dim {dim} is out of range for {render_dim_list(shape)}: its run holds at most "
            f"{plural(most, 'dim')} here (valid {-r}..{r - 1})",
            at,
            "count dims from 0, or from -1 at the end",
        )
        return None
    if rank is not None:
        r = rank + extra
        lo, hi = (-max(r, 1), max(r, 1) - 1)
        if not _dim_fits(dim, r):
            call.error(
                codes.DIM_RANGE,
                f"dim {dim} is out of range for {render_dim_list(shape)} (rank {rank}; valid {lo}..{hi})",
                at,
                "count dims from 0, or from -1 at the end",
            )
            return None
        return dim % max(r, 1) if r else 0
    i = shape.star_index
    assert i is not None
    # A dim beyond the dims around the run needs the run long enough: checked at run time (dims
    # 0 and -1 are valid for every rank, a 0-d tensor's too).
    need = dim + 1 if dim >= 0 else -dim
    if need > 1:
        run_rank_at_least(call, shape, need - extra, f"dim {dim}", at)
    if dim >= 0:
        return dim if dim < i + extra else None
    back = len(shape.items) - i - 1 + extra
    return len(shape.items) + extra + dim if -dim <= back else None


def _dim_fits(dim: int, rank: int) -> bool:
    """Whether ``dim`` is in range for ``rank`` dims (a 0-d tensor takes 0 and -1)."""
    return -max(rank, 1) <= dim < max(rank, 1)


def run_most(shape: Shape, rank: int, other: Shape) -> int | None:
    """The most dims ``other``'s run holds where ``shape`` holds the same run and at most ``rank``
    dims (``index_select``'s index ``[*b]`` is at most 1-d, so the input ``[*b]`` is too); ``None``
    where ``shape`` bounds nothing."""
    return rank - shape.min_rank if same_run(shape, other) and rank >= shape.min_rank else None


def _param_of(call: Call, shape: Shape) -> str | None:
    """The tensor argument whose shape is ``shape`` (for a runtime check on it)."""
    for name, a in call.bound.items():
        if isinstance(a.value, TensorV) and a.value.shape == shape:
            return name
    return None


def _run_oblige(call: Call, shape: Shape, need: str, spec: str | None, why: str) -> None:
    name = _param_of(call, shape)
    checks = [(name, spec)] if name is not None and spec is not None else []
    call.oblige(f"{why} needs {need}: {render_shape(shape)} has a run of dims of unknown length", checks)


def run_rank_at_least(call: Call, shape: Shape, k: int, why: str, at: str | None = None) -> None:
    """A requirement of ``k`` or more dims on a shape holding a named run (``[*b d]``): the run
    may be long enough, so never an error; a runtime obligation when the dims around the run are
    fewer than ``k`` (a shape of which nothing is known is left alone)."""
    if shape.rank is not None or shape.is_unknown or k <= shape.min_rank:
        return
    i = shape.star_index
    assert i is not None
    items = (*shape.items[:i], *(Unknown(UnknownSource.UNANNOTATED),) * (k - shape.min_rank),
             *shape.items[i:])
    _run_oblige(call, shape, f"at least {k} dims", spec_text(items), why)


def run_rank_among(call: Call, shape: Shape, ranks: Sequence[int], why: str, at: str | None = None) -> bool:
    """A requirement that a shape holding a run have one of ``ranks`` dims: an error (``False``) when
    the dims around the run are already more than every rank allows, whatever the run's length;
    otherwise a runtime obligation (checked with a shape string when one rank remains possible)."""
    if shape.rank is not None or shape.is_unknown:
        return True
    possible = sorted(r for r in set(ranks) if r >= shape.min_rank)
    wanted = " or ".join(f"{r}-D" for r in sorted(set(ranks)))
    if not possible:
        call.error(
            codes.RANK_MISMATCH,
            f"{why} takes a {wanted} input, got {render_shape(shape)}: at least {shape.min_rank} dims, "
            "whatever the length of its run",
            at,
        )
        return False
    fixed = run_fixed(shape, possible)
    spec = spec_text(fixed.items) if fixed is not None else None
    _run_oblige(call, shape, f"a {' or '.join(f'{r}-D' for r in possible)} input", spec, why)
    return True


def wrap_dims(call: Call, dims: Sequence[Dim], shape: Shape, at: str) -> list[int] | None:
    out: list[int] = []
    for d in dims:
        w = wrap_dim(call, d, shape, at)
        if w is None:
            return None
        out.append(w)
    if len(set(out)) != len(out):
        call.error(codes.INVALID_ARG, f"dim {dims} repeats a dim", at)
        return None
    return out


def render_dim_list(shape: Shape) -> str:
    return "[" + " ".join(render_dim(d) for d in shape.items) + "]"


def shapes_equal(a: Shape, b: Shape, facts: Facts) -> Verdict:
    """Are two shapes equal?  (Same rank, every dim equal.)"""
    if a.items == b.items:
        return Verdict.OK
    if a.rank is None or b.rank is None:
        # Equal shapes agree dim by dim from either end, whatever the length of a run.
        def tail(s: Shape) -> tuple[Dim, ...]:
            return s.items if s.rank is not None else s.suffix

        ends = (*zip(a.prefix, b.prefix), *zip(reversed(tail(a)), reversed(tail(b))))
        fewer = (a.rank is not None and a.rank < b.min_rank) or (b.rank is not None and b.rank < a.min_rank)
        return Verdict.ERROR if fewer or any(eq3(x, y, facts) is Truth.FALSE for x, y in ends) else Verdict.OBLIGATION
    if a.rank != b.rank:
        return Verdict.ERROR
    worst = Verdict.OK
    order = {Verdict.OK: 0, Verdict.OBLIGATION: 1, Verdict.UNPROVEN: 2, Verdict.ERROR: 3}
    for x, y in zip(a.dims, b.dims):
        v = classify(eq3(x, y, facts), x, y)
        if order[v] > order[worst]:
            worst = v
    return worst


def replace(shape: Shape, index: int, new: Sequence[Item]) -> Shape:
    """``shape`` with ``items[index]`` replaced by ``new`` (zero or more items)."""
    items = list(shape.items)
    items[index : index + 1] = list(new)
    if sum(isinstance(x, Star) for x in items) > 1:
        return Shape.unknown()
    return Shape(tuple(items))


def spec_text(items: Sequence[Item]) -> str:
    """A shape string for a runtime check: ints and names as they are, unknown dims as ``_``."""
    out = []
    for d in items:
        if isinstance(d, Star):
            out.append("...")
        elif isinstance(d, Unknown):
            out.append("_")
        elif isinstance(d, int) or (getattr(d, "is_Symbol", False) and str(getattr(d, "name", "")).isidentifier()):
            out.append(render_dim(d))
        else:
            out.append("_")
    return " ".join(out)


def truth(ok: bool) -> Truth:
    return Truth.TRUE if ok else Truth.FALSE


def run_exact_rank(call: Call, shape: Shape, rank: int, why: str, at: str | None = None) -> Shape | None:
    """A shape holding a run (``[*b d]``) where exactly ``rank`` dims are accepted: torch raises for
    every other length of the run, so the rest of the rule may take the run as that many dims of
    unknown size (``[_ d]`` for rank 2).  ``None`` (an error) when the dims around the run are
    already more than ``rank``; the rank itself is checked at run time."""
    return run_rank_of(call, shape, (rank,), why, at)


def run_fixed(shape: Shape, ranks: Sequence[int], call: Call | None = None) -> Shape | None:
    """A shape holding a run where only one of ``ranks`` is possible (the dims around the run already
    number more than the others): the run taken as the dims left.  Where 3 or 4 dims are accepted,
    ``[2 4 4 4 *b]`` is ``[2 4 4 4]`` and ``[*b 4 4]`` is ``None`` (both remain); where exactly 3
    are, ``[*b 4]`` is ``[d0 d1 4]`` (fresh symbols; without ``call``, unknown dims: ``[_ _ 4]``).
    ``None`` for a shape whose rank is known.  With ``call``, the front end is told
    (``RuleContext.runs_fixed``)."""
    i = shape.star_index
    possible = [r for r in set(ranks) if r >= shape.min_rank]
    if i is None or shape.is_unknown or len(possible) != 1:
        return None
    n = possible[0] - shape.min_rank
    if call is None:
        fill: tuple[Dim, ...] = (Unknown(UnknownSource.UNANNOTATED),) * n
    else:
        # Opaque symbols named by position (``d2``): the result keeps them, and a requirement on one
        # is checked at run time, never an error.
        fill = tuple(call.fresh(f"d{i + j}") for j in range(n))
    fixed = Shape((*shape.items[:i], *fill, *shape.items[i + 1 :]))
    if call is not None and not call.ctx.muted:
        call.ctx.runs_fixed.append((shape, fixed))
    return fixed


def run_fails_for_every_rank(call: Call, name: str, ranks: Sequence[int]) -> bool:
    """The tensor ``name`` holding a run where several of ``ranks`` remain: the call's rule tried
    once per rank, the run taken as that many dims of unknown size, each trial reporting into a
    context of its own (the call sees none of it).  An error (``True``) when every rank reports
    one, each maybe for its own reason (``Conv2d(4, 2, 2)`` of ``[1 4 *b 1]``: as 3-D its channel
    is 1, as 4-D its width is smaller than the kernel); otherwise nothing (the runtime check stays)."""
    t = call.tensor(name)
    fn = get_rule(call.op.rule) if call.op.rule else None
    if t is None or t.shape.rank is not None or t.shape.is_unknown or fn is None:
        return False
    s, a = t.shape, call.arg(name)
    possible = sorted(r for r in set(ranks) if r >= s.min_rank)
    if len(possible) < 2:
        return False  # none: run_rank_among reports it; one: run_fixed takes the run as its dims
    firsts: list[Diagnostic] = []
    for r in possible:
        fixed = run_fixed(s, (r,))
        assert fixed is not None
        trial = dataclasses.replace(
            call.ctx, diagnostics=[], obligations=[], constraints=[], learned=[], runs_fixed=[], muted=False
        )
        bound = {**call.bound, name: Arg(TensorV(fixed, t.dtype), a.span, a.text)}
        fn(Call(call.op, bound, trial, call.span, call.module))
        # A symbolic mismatch is the checker's own requirement (annotated dims), not torch raising.
        errors = [d for d in trial.diagnostics if d.severity is Severity.ERROR and d.code is not codes.SYMBOLIC_MISMATCH]
        if not errors:
            return False
        firsts.append(errors[0])
    if len({d.message for d in firsts}) == 1:  # the same error whatever the rank (an argument's)
        call.ctx.report(firsts[0].code, firsts[0].message, firsts[0].span, firsts[0].hint)
        return True
    prefix = f"{call.name}: "
    why = "; ".join(f"as {r}-D, {d.message.removeprefix(prefix)}" for r, d in zip(possible, firsts))
    code = firsts[0].code if len({d.code for d in firsts}) == 1 else codes.SHAPE_MISMATCH
    call.error(code, f"{render_shape(s)} fails whatever the length of its run: {why}", name)
    return True


def run_rank_of(call: Call, shape: Shape, ranks: Sequence[int], why: str, at: str | None = None) -> Shape | None:
    """A shape holding a run whose rank another operand fixes (``gather``'s input has its index's
    rank): :func:`run_rank_among` (an error, ``None``, when the dims around the run are already
    more than every rank allows; a runtime check otherwise), and the run taken as the dims left
    where one rank remains (:func:`run_fixed`), so the rest of the rule checks them."""
    if shape.rank is not None or shape.is_unknown:
        return shape
    if not run_rank_among(call, shape, ranks, why, at):
        return None
    fixed = run_fixed(shape, ranks, call)
    return shape if fixed is None else fixed  # (not ``or``: a 0-d shape is falsy)


def same_run(a: Shape, b: Shape) -> bool:
    """Whether ``a`` and ``b`` hold the same named run (``[*b 5]`` and ``[3 *b]``): their ranks differ
    by the same count whatever its length."""
    sa, sb = a.star, b.star
    return sa is not None and sb is not None and sa.name is not None and sa.name == sb.name


def run_shared(call: Call | None, shape: Shape, fixed: Shape, other: Shape) -> Shape:
    """``other`` given the dims :func:`run_fixed` took ``shape``'s run as (``fixed``) where it holds
    the same named run: ``[*b 5]`` fixed as ``[5]`` makes ``[3 *b]`` ``[3]``; ``other`` itself where
    it holds another run or none.  With ``call``, the front end is told (as :func:`run_fixed` does)."""
    i, j = shape.star_index, other.star_index
    if fixed.rank is None or not same_run(shape, other):
        return other
    assert i is not None and j is not None
    fill = fixed.items[i : i + len(fixed.items) - shape.min_rank]
    new = Shape((*other.items[:j], *fill, *other.items[j + 1 :]))
    if call is not None and not call.ctx.muted:
        call.ctx.runs_fixed.append((other, new))
    return new


def run_rank_shared(
    call: Call, shape: Shape, ranks: Sequence[int], why: str, at: str | None, others: Sequence[Shape]
) -> list[Shape] | None:
    """:func:`run_rank_of` on ``shape``, its run's length spliced into the ``others`` holding the same
    run (``index_select``'s 1-D index ``[*b 5]`` leaves its input ``[3 *b]`` as ``[3]``): ``shape``
    and ``others`` so taken, or ``None`` (an error) when no rank of ``ranks`` fits ``shape``."""
    fixed = run_rank_of(call, shape, ranks, why, at)
    if fixed is None:
        return None
    return [fixed, *(run_shared(call, shape, fixed, o) for o in others)]


def run_expands(shape: Shape, to: Shape, facts: Facts) -> bool:
    """Whether a shape holding a run may expand to sizes ``to`` of known rank (``x.expand(*to)``,
    ``addmm``'s input to the product) for some length of its run: ``[3 *b 1]`` never expands to
    ``[1 2]`` (the run must be empty, and 3 is not 1).  ``True`` where either rank is known."""
    if shape.rank is not None or to.rank is None:
        return True
    return any(_expands_with(shape, to, n, facts) for n in range(to.rank - shape.min_rank + 1))


def _expands_with(shape: Shape, to: Shape, n: int, facts: Facts) -> bool:
    lead = len(to.items) - shape.min_rank - n  # the new leading dims
    if any(d == -1 for d in to.items[:lead]):
        return False
    at = (*to.items[lead : lead + len(shape.prefix)], *to.items[len(to.items) - len(shape.suffix) :])
    return not any(
        target != -1 and ne1(cur, facts) is Truth.TRUE and eq3(cur, target, facts) is Truth.FALSE
        for cur, target in zip((*shape.prefix, *shape.suffix), at)
    )
