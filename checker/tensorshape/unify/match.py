"""Match shape specs against shapes, jointly over the operands of one call.

This is jaxtyping's semantics done statically: names bind on first use and
must agree everywhere else in the call; ``#`` dims also accept 1 (and bind to
the broadcast of what they see); ``*name`` binds a run of dims; ``_`` and
``...`` match anything.  Unlike jaxtyping, a symbolic dim such as ``2*d`` or
``n*p`` can *bind* its one unbound name, by solving the equation.

Matching is done in three passes so the order of operands does not matter:
bind names from known dims, solve expressions, then check every dim.
Mismatches are :class:`Problem` s with a :class:`~tensorshape.unify.compare.Verdict`:
an error, an unproven symbolic equality, or a runtime obligation.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..lang.render import render_dim, render_items, render_shape
from ..model.constraints import Rel
from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.shape import Item, Shape
from ..model.spec import DimKind, ShapeSpec, SpecDim
from ..model.text import plural
from .broadcast import broadcast_dims, broadcast_shapes
from .compare import Verdict, classify, eq3
from .facts import NO_FACTS, Facts
from .solve import solve_for
from .specexpr import evaluate, render_expr, to_sympy_with
from .symbols import sp

__all__ = ["Operand", "Problem", "ProblemKind", "Bindings", "match", "instantiate"]


class ProblemKind(enum.Enum):
    MISMATCH = "mismatch"
    BROADCAST = "broadcast"
    RANK = "rank"
    UNSOLVABLE = "unsolvable"


@dataclass(frozen=True, slots=True)
class Operand:
    """One tensor to match: its spec, its shape and how messages name it."""

    spec: ShapeSpec
    shape: Shape
    label: str


@dataclass(frozen=True, slots=True)
class Problem:
    kind: ProblemKind
    verdict: Verdict
    message: str
    #: Index of the operand the problem is about.
    operand: int
    #: The spec element involved, for a span inside the annotation string.
    spec_dim: SpecDim | None = None
    #: The axis of the operand's shape (negative when counted from a variadic run's end).
    axis: int | None = None
    #: The relation between two dims that failed to be proved (``(Rel.EQ, actual, expected)``).
    relation: tuple[Rel, Dim, Dim] | None = None
    #: The dims involved, when there is no single relation (a broadcast over several operands).
    dims: tuple[Dim, ...] = ()


class Bindings:
    """Dim names bound during one call (jaxtyping's memo, for one call)."""

    __slots__ = ("dims", "vars", "origin", "facts", "refs", "violated")

    def __init__(self, facts: Facts = NO_FACTS, refs: Callable[[str], Dim | None] | None = None):
        #: Did the values matched against the specs break them (an error, not an obligation)?
        self.violated = False
        self.dims: dict[str, Dim] = {}
        self.vars: dict[str, tuple[Item, ...]] = {}
        #: Where each name was bound, for messages: ``"input dim 1"``.
        self.origin: dict[str, str] = {}
        self.facts = facts
        #: Resolves ``{refs}`` in specs (``{self.dim}``, ``{n}``).
        self.refs = refs

    def get(self, name: str) -> Dim | None:
        return self.dims.get(name)

    def bind(self, name: str, value: Dim, origin: str = "") -> None:
        self.dims[name] = value
        if origin:
            self.origin[name] = origin

    def describe(self, name: str) -> str:
        o = self.origin.get(name)
        v = render_dim(self.dims[name]) if name in self.dims else "?"
        head = name if v == name else f"{name}={v}"
        return head + (f" (from {o})" if o else "")


@dataclass(slots=True)
class _Pair:
    op: int
    sd: SpecDim
    actual: Dim
    axis: int | None


@dataclass(slots=True)
class _VarPair:
    op: int
    sd: SpecDim
    items: tuple[Item, ...]


@dataclass(slots=True)
class _Aligned:
    pairs: list[_Pair] = field(default_factory=list)
    vars: list[_VarPair] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _where(label: str, axis: int | None) -> str:
    return label if axis is None else f"{label} dim {axis}"


def _align(i: int, op: Operand, out: _Aligned) -> None:
    S = op.spec.dims
    v = op.spec.variadic_index
    shape = op.shape
    P, Q, star = shape.prefix, shape.suffix, shape.star
    unknown: Dim = Unknown(star.source if star else UnknownSource.UNANNOTATED)

    def rank_problem(verdict: Verdict, expected: str) -> None:
        out.problems.append(
            Problem(
                ProblemKind.RANK,
                verdict,
                f"{op.label} has shape {render_shape(shape)}, expected {plural(expected, 'dim')} ({op.spec.text!r})",
                i,
            )
        )

    if v is None:
        n = len(S)
        if star is None:
            if len(P) != n:
                rank_problem(Verdict.ERROR, str(n))
                return
            out.pairs.extend(_Pair(i, S[k], P[k], k) for k in range(n))
            return
        if len(P) + len(Q) > n:
            rank_problem(Verdict.ERROR, str(n))
            return
        out.pairs.extend(_Pair(i, S[k], P[k], k) for k in range(len(P)))
        out.pairs.extend(_Pair(i, S[n - len(Q) + k], Q[k], k - len(Q)) for k in range(len(Q)))
        out.pairs.extend(_Pair(i, S[k], unknown, None) for k in range(len(P), n - len(Q)))
        rank_problem(Verdict.OBLIGATION, str(n))
        return
    Sp, Ss, var = S[:v], S[v + 1 :], S[v]
    if star is None:
        if len(P) < len(Sp) + len(Ss):
            rank_problem(Verdict.ERROR, f"at least {len(Sp) + len(Ss)}")
            return
        out.pairs.extend(_Pair(i, Sp[k], P[k], k) for k in range(len(Sp)))
        base = len(P) - len(Ss)
        out.pairs.extend(_Pair(i, Ss[k], P[base + k], base + k) for k in range(len(Ss)))
        out.vars.append(_VarPair(i, var, tuple(P[len(Sp) : base])))
        return
    kp, ks = min(len(Sp), len(P)), min(len(Ss), len(Q))
    out.pairs.extend(_Pair(i, Sp[k], P[k], k) for k in range(kp))
    out.pairs.extend(_Pair(i, Sp[k], unknown, None) for k in range(kp, len(Sp)))
    out.pairs.extend(_Pair(i, Ss[len(Ss) - ks + k], Q[len(Q) - ks + k], k - ks) for k in range(ks))
    out.pairs.extend(_Pair(i, Ss[k], unknown, None) for k in range(len(Ss) - ks))
    if kp < len(Sp) or ks < len(Ss):
        # Spec dims that the known dims do not reach take theirs from the run, at an end of it: the
        # variadic holds what is left, some other run, and of the known dims only those it surely
        # holds (``[d0 d1 *s]`` against ``*b in``: ``in`` is ``d1`` when ``s`` is empty).
        rest = Star(None, star.source)
        # (a bound below zero is no dim at all: ``[1 2 *s]`` against ``*b c h w`` leaves ``b`` none of
        # the known dims, as ``s`` may be one dim long)
        lead = P[kp : max(kp, len(P) + len(Q) - len(Ss))] if ks < len(Ss) else P[kp:]
        trail = Q[max(0, len(Sp) - len(P)) : len(Q) - ks] if kp < len(Sp) else Q[: len(Q) - ks]
        items = tuple(lead) + (rest,) + tuple(trail) if not (kp < len(Sp) and ks < len(Ss)) else (rest,)
        out.vars.append(_VarPair(i, var, items))
        rank_problem(Verdict.OBLIGATION, f"at least {len(Sp) + len(Ss)}")
        return
    out.vars.append(_VarPair(i, var, tuple(P[kp:]) + (star,) + tuple(Q[: len(Q) - ks])))


def match(operands: Sequence[Operand], b: Bindings) -> list[Problem]:
    """Match every operand against its spec, binding names in ``b``."""
    al = _Aligned()
    for i, op in enumerate(operands):
        _align(i, op, al)
    facts = b.facts
    labels = [op.label for op in operands]

    # Pass 1: bind names from known dims.
    for p in al.pairs:
        if p.sd.kind is DimKind.NAMED and not isinstance(p.actual, Unknown):
            name = p.sd.name
            assert name is not None
            cur = b.dims.get(name)
            if cur is None or isinstance(cur, Unknown):
                b.bind(name, p.actual, _where(labels[p.op], p.axis))
            elif p.sd.broadcastable and cur == 1 and p.actual != 1:
                b.bind(name, p.actual, _where(labels[p.op], p.axis))
    by_name: dict[str, list[_VarPair]] = {}
    for vp in al.vars:
        if vp.sd.kind is DimKind.VARIADIC and vp.sd.name is not None:
            by_name.setdefault(vp.sd.name, []).append(vp)
    for name, occ in by_name.items():
        if any(vp.sd.broadcastable for vp in occ):
            _bind_broadcast_var(name, occ, labels, b, al.problems)
        elif name not in b.vars:
            best = next((vp for vp in occ if not any(isinstance(x, Star) for x in vp.items)), occ[0])
            b.vars[name] = best.items
            b.origin["*" + name] = labels[best.op]

    # Pass 2: solve expressions with one unbound name, until nothing changes.
    progress = True
    while progress:
        progress = False
        for p in al.pairs:
            if p.sd.kind is not DimKind.EXPR or isinstance(p.actual, Unknown):
                continue
            assert p.sd.expr is not None
            unbound = [n for n in p.sd.names() if b.get(n) is None]
            if len(unbound) != 1:
                continue
            x = sp().Dummy(unbound[0], integer=True, positive=True)
            lhs = to_sympy_with(p.sd.expr, b.get, unbound[0], x, b.refs)
            if lhs is None:
                continue
            sol = solve_for(lhs, x, p.actual, facts, shown=f"{render_expr(p.sd.expr)} = {render_dim(p.actual)}")
            if sol.error is not None:
                al.problems.append(
                    Problem(
                        ProblemKind.UNSOLVABLE,
                        Verdict.ERROR,
                        f"{_where(labels[p.op], p.axis)} cannot match {render_expr(p.sd.expr)!r}: {sol.error}",
                        p.op,
                        p.sd,
                        p.axis,
                    )
                )
                b.bind(unbound[0], Unknown(UnknownSource.ERROR))
            elif sol.value is not None:
                b.bind(unbound[0], sol.value, f"{_where(labels[p.op], p.axis)} = {render_expr(p.sd.expr)}")
                progress = True

    # Pass 3: check.
    problems = al.problems
    for p in al.pairs:
        _check_pair(p, labels, b, problems)
    for vp in al.vars:
        _check_var(vp, labels, b, problems)
    return problems


def _bind_broadcast_var(
    name: str, occ: list[_VarPair], labels: list[str], b: Bindings, problems: list[Problem]
) -> None:
    """``*#name``: the run binds to the broadcast of every occurrence."""
    runs = ([Shape(b.vars[name])] if name in b.vars else []) + [Shape(vp.items) for vp in occ]
    joined, issues = broadcast_shapes(runs, b.facts)
    b.vars[name] = joined.items
    b.origin.setdefault("*" + name, labels[occ[0].op])
    for iss in issues:
        shown = " with ".join(f"{labels[vp.op]} {render_items(vp.items)}" for vp in occ)
        present = [d for d in iss.dims if d is not None]
        at = " vs ".join(render_dim(d) for d in present)
        problems.append(
            Problem(
                ProblemKind.BROADCAST,
                iss.verdict,
                f"cannot broadcast {shown}: {at} at dim {iss.position}"
                if present
                else f"{shown} broadcast only for some lengths of the run",
                occ[-1].op,
                occ[-1].sd,
                iss.position,
                (Rel.BROADCAST, present[0], present[1]) if len(present) == 2 else None,
                dims=tuple(d for d in iss.dims if d is not None),
            )
        )


def _is_error(d: Dim) -> bool:
    return isinstance(d, Unknown) and d.source is UnknownSource.ERROR


def _check_pair(p: _Pair, labels: list[str], b: Bindings, problems: list[Problem]) -> None:
    sd, actual = p.sd, p.actual
    where = _where(labels[p.op], p.axis)
    facts = b.facts
    if sd.kind is DimKind.ANON:
        return
    if sd.kind is DimKind.FIXED:
        expected: Dim = sd.size
        what = str(sd.size)
    elif sd.kind is DimKind.NAMED:
        assert sd.name is not None
        bound = b.get(sd.name)
        if bound is None:
            return
        expected = bound
        what = b.describe(sd.name)
        if b.origin.get(sd.name) == where:
            return
    elif sd.kind is DimKind.EXPR:
        assert sd.expr is not None
        val = evaluate(sd.expr, b.get, b.refs)
        if val is None:
            val = Unknown(UnknownSource.UNANNOTATED)
        expected = val
        what = f"{render_expr(sd.expr)} = {render_dim(val)}"
    else:
        return
    if _is_error(actual) or _is_error(expected):
        return
    if sd.broadcastable and (actual == 1 or expected == 1):
        return
    t = eq3(actual, expected, facts)
    verdict = classify(t, actual, expected)
    if verdict is Verdict.OK:
        return
    if sd.broadcastable:
        _, verdict = broadcast_dims([actual, expected], facts)
        if verdict is Verdict.OK:
            return
    problems.append(
        Problem(
            ProblemKind.MISMATCH,
            verdict,
            f"{where} is {render_dim(actual)}, expected {what}",
            p.op,
            sd,
            p.axis,
            (Rel.BROADCAST if sd.broadcastable else Rel.EQ, actual, expected),
        )
    )


def _check_var(vp: _VarPair, labels: list[str], b: Bindings, problems: list[Problem]) -> None:
    name = vp.sd.name
    if vp.sd.kind is not DimKind.VARIADIC or name is None:
        return
    bound = b.vars.get(name)
    if bound is None or bound is vp.items or vp.sd.broadcastable:
        return
    worst = _compare_items(Shape(vp.items), Shape(bound), b.facts)
    if worst is Verdict.OK:
        return
    problems.append(
        Problem(
            ProblemKind.MISMATCH,
            worst,
            f"{labels[vp.op]} has {render_items(vp.items)} for *{name}, expected {render_items(bound)}"
            + (f" (from {b.origin['*' + name]})" if "*" + name in b.origin else ""),
            vp.op,
            vp.sd,
            relation=_undecided_pair(Shape(vp.items), Shape(bound), b.facts) if worst is Verdict.OBLIGATION else None,
        )
    )


def _undecided_pair(a: Shape, e: Shape, facts: Facts) -> tuple[Rel, Dim, Dim] | None:
    """The one pair of dims of two equal-rank runs that is not known equal (``last_batch`` vs
    ``batch_size``), as the requirement the runs' equality comes down to; ``None`` if not one."""
    if a.rank is None or e.rank is None or a.rank != e.rank:
        return None
    pairs = [(x, y) for x, y in zip(a.dims, e.dims) if classify(eq3(x, y, facts), x, y) is not Verdict.OK]
    return (Rel.EQ, pairs[0][0], pairs[0][1]) if len(pairs) == 1 else None


def _severity(v: Verdict) -> int:
    return {Verdict.OK: 0, Verdict.OBLIGATION: 1, Verdict.UNPROVEN: 2, Verdict.ERROR: 3}[v]


def _compare_items(a: Shape, e: Shape, facts: Facts) -> Verdict:
    """Are two runs of dims equal?"""
    if a.items == e.items:
        return Verdict.OK
    if a.rank is not None and e.rank is not None:
        if a.rank != e.rank:
            return Verdict.ERROR
        worst = Verdict.OK
        for x, y in zip(a.dims, e.dims):
            v = classify(eq3(x, y, facts), x, y)
            if _severity(v) > _severity(worst):
                worst = v
        return worst
    for s in (a, e):
        other = e if s is a else a
        if other.rank is not None and s.min_rank > other.rank:
            return Verdict.ERROR
    return Verdict.OBLIGATION


def instantiate(
    spec: ShapeSpec,
    b: Bindings,
    fresh: Callable[[str], Dim] | None = None,
) -> Shape:
    """The shape a spec denotes under the bindings.

    Unbound names get a fresh (opaque) symbol from ``fresh`` when given (so
    two uses of the result agree), else an unknown dim.
    """
    items: list[Item] = []
    for sd in spec.dims:
        k = sd.kind
        if k is DimKind.FIXED:
            items.append(sd.size)
        elif k is DimKind.NAMED:
            assert sd.name is not None
            v = b.get(sd.name)
            if v is None:
                v = fresh(sd.name) if fresh else Unknown(UnknownSource.UNANNOTATED)
                b.bind(sd.name, v)
            items.append(v)
        elif k is DimKind.EXPR:
            assert sd.expr is not None
            val = evaluate(sd.expr, b.get, b.refs)
            items.append(Unknown(UnknownSource.UNANNOTATED) if val is None else b.facts.simplify(val))
        elif k is DimKind.ANON:
            items.append(Unknown(UnknownSource.ANNOTATED))
        elif k is DimKind.VARIADIC:
            assert sd.name is not None
            run = b.vars.get(sd.name)
            if run is None:
                run = (Star(sd.name),)
                b.vars[sd.name] = run
            items.extend(run)
        else:
            items.append(Star(None, UnknownSource.ANNOTATED))
    # Splicing a bound run can bring a second star; keep the shape well-formed.
    if sum(isinstance(x, Star) for x in items) > 1:
        first = next(i for i, x in enumerate(items) if isinstance(x, Star))
        last = max(i for i, x in enumerate(items) if isinstance(x, Star))
        items = items[:first] + [Star(None, UnknownSource.UNANNOTATED)] + items[last + 1 :]
    return Shape(tuple(items))
