"""What code tells us about shapes beyond op results.

* ``b, t, d = x.shape`` (or ``n = x.size(-1)``) names the dims: unknown dims of
  ``x`` become opaque symbols named after the targets, so later code relates to them;
* ``assert x.shape[1] == 3``, ``assert d % h == 0``, ``if x.ndim == 3:`` refine
  shapes and add facts (equalities, divisibility) on the path where they hold;
* returns and annotated assignments are checked against their annotations
  (a mismatch is an error; an unknown value is a runtime obligation, then
  takes the annotated shape, as a gradual cast);
* ``y[i] = v`` checks that ``v`` broadcasts into ``y[i]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..lang.render import render_dim, render_shape
from ..model import codes
from ..model.constraints import Rel
from ..model.diagnostics import Severity
from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.obligations import Obligation, ObligationKind, SpecCheck
from ..model.shape import Item, Shape
from ..model.values import NONE, BoolV, IntV, SeqKind, TensorV, TupleV, UnknownV, Value
from ..rules import engine
from ..rules.context import Arg
from ..rules.signature import check_value, rigid_bindings, shape_of
from ..unify.broadcast import broadcast_shapes
from ..unify.compare import Truth, Verdict, eq3
from ..unify.symbols import is_rigid_symbol
from .annotations import Annotation
from .base import AnalyzerBase
from .signature import annotation_names
from .state import State
from .syntax import literal_int, simple_text
from .values import OpaqueV, OptionalV, truthiness

if TYPE_CHECKING:
    from .base import Frame

__all__ = ["Refinements"]


def _shape_source(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x.shape`` / ``x.size()`` (a local name)."""
    if type(node) is cst.Attribute and node.attr.value == "shape" and isinstance(node.value, cst.Name):
        return node.value.value
    if (
        type(node) is cst.Call
        and not node.args
        and type(node.func) is cst.Attribute
        and node.func.attr.value == "size"
        and isinstance(node.func.value, cst.Name)
    ):
        return node.func.value.value
    return None


def _dim_source(node: cst.BaseExpression) -> tuple[str, int] | None:
    """``(x, i)`` for ``x.shape[i]`` / ``x.size(i)`` with a literal ``i``."""
    if type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
        src = _shape_source(node.value)
        i = literal_int(node.slice[0].slice.value)
        if src is not None and i is not None:
            return src, i
    if (
        type(node) is cst.Call
        and len(node.args) == 1
        and type(node.func) is cst.Attribute
        and node.func.attr.value == "size"
        and isinstance(node.func.value, cst.Name)
    ):
        i = literal_int(node.args[0].value)
        if i is not None:
            return node.func.value.value, i
    return None


def _slice_source(node: cst.BaseExpression) -> tuple[str, int, bool] | None:
    """``(x, k, False)`` for ``x.shape[:k]`` and ``(x, k, True)`` for ``x.shape[-k:]`` (``x.size()`` too),
    with a literal ``k > 0``: the first or last ``k`` sizes."""
    if not (type(node) is cst.Subscript and len(node.slice) == 1 and type(node.slice[0].slice) is cst.Slice):
        return None
    src = _shape_source(node.value)
    part = node.slice[0].slice
    if src is None or part.step is not None:
        return None
    if part.lower is None and part.upper is not None:
        k = literal_int(part.upper)
        return (src, k, False) if k is not None and k > 0 else None
    if part.upper is None and part.lower is not None:
        k = literal_int(part.lower)
        return (src, -k, True) if k is not None and k < 0 else None
    return None


def _named_end(shape: Shape, k: int, from_end: bool, fresh: list[Dim]) -> Shape | None:
    """``shape`` with its first (or last) ``k`` dims named by ``fresh`` where they are not known;
    ``None`` when they are not all dims of the shape's known ends (a run of unknown length in the
    way: ``[... d]`` read with ``[:2]`` may be ``[b d]``)."""
    items = list(shape.items) if not from_end else list(reversed(shape.items))
    names = fresh if not from_end else list(reversed(fresh))
    out: list[Item] = []
    for i in range(k):
        if i >= len(items):
            return None
        item = items[i]
        if isinstance(item, Star):
            if shape.suffix if not from_end else shape.prefix:
                return None
            out.append(names[i])
            items.insert(i + 1, item)  # the run stays after the named dims
            continue
        out.append(names[i] if isinstance(item, Unknown) else item)
    out.extend(items[len(out) :])
    return Shape(tuple(out if not from_end else reversed(out)))


def _rank_source(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x.ndim`` / ``x.dim()`` / ``len(x.shape)``."""
    if type(node) is cst.Attribute and node.attr.value == "ndim" and isinstance(node.value, cst.Name):
        return node.value.value
    if (
        type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and node.func.attr.value in ("dim", "ndimension")
    ):
        if not node.args and isinstance(node.func.value, cst.Name):
            return node.func.value.value
    if (
        type(node) is cst.Call
        and isinstance(node.func, cst.Name)
        and node.func.value == "len"
        and len(node.args) == 1
    ):
        return _shape_source(node.args[0].value)
    return None


def _target_name(el: cst.BaseElement) -> str:
    v = el.value
    if isinstance(v, cst.Name) and v.value != "_":
        return v.value
    return "n"


def _with_dim(shape: Shape, i: int, d: Dim) -> Shape | None:
    idx = i if i >= 0 else None
    if shape.rank is not None:
        if not -shape.rank <= i < shape.rank:
            return None
        idx = i % shape.rank
    elif i >= 0:
        if i >= len(shape.prefix):
            return None
    else:
        if -i > len(shape.suffix):
            return None
        idx = len(shape.items) + i
    assert idx is not None
    items = list(shape.items)
    items[idx] = d
    return Shape(tuple(items))


def _tensor_var(state: State, src: str) -> TensorV | None:
    """The tensor a local names; an unknown value read with ``.shape`` is a tensor of unknown shape."""
    v = state.vars.get(src)
    if isinstance(v, TensorV):
        return v
    if isinstance(v, UnknownV) or (isinstance(v, OpaqueV) and "." not in v.path):
        return TensorV(Shape.unknown())
    return None


class Refinements(AnalyzerBase):
    """Mixin of :class:`~tensorshape.infer.analyzer.Analyzer`."""

    def refine_unpack(
        self, frame: Frame, state: State, value_node: cst.BaseExpression, elements: list[cst.BaseElement], value: Value
    ) -> Value | None:
        """``b, t, d = x.shape``: name ``x``'s unknown dims after the targets (also ``b, t = x.shape[:2]``
        and ``h, w = x.shape[-2:]``, its first or last dims)."""
        sliced = _slice_source(value_node)
        if sliced is not None:
            return self._refine_unpack_slice(frame, state, elements, *sliced)
        src = _shape_source(value_node)
        if src is None:
            return None
        x = _tensor_var(state, src)
        if x is None or any(type(e) is cst.StarredElement for e in elements):
            return None
        n = len(elements)
        s = x.shape
        if s.rank is None:
            if s.min_rank > n:
                return None
            prefix, suffix = s.prefix, s.suffix
            middle = n - len(prefix) - len(suffix)
            fresh = tuple(frame.ctx.fresh(_target_name(elements[len(prefix) + k])) for k in range(middle))
            new = Shape(tuple(prefix) + fresh + tuple(suffix))
        elif s.rank == n:
            new = Shape(
                tuple(
                    frame.ctx.fresh(_target_name(elements[k])) if isinstance(d, Unknown) else d
                    for k, d in enumerate(s.dims)
                )
            )
        else:
            return None
        if new != s:
            old = state.vars.get(src)
            state.vars[src] = TensorV(new, x.dtype, x.layout, x.names)
            self.learnt(frame, old, state.vars[src])  # type: ignore[arg-type]
        return TupleV(tuple(IntV(d) for d in new.dims), SeqKind.SIZE)

    def _refine_unpack_slice(
        self, frame: Frame, state: State, elements: list[cst.BaseElement], src: str, k: int, from_end: bool
    ) -> Value | None:
        x = _tensor_var(state, src)
        if x is None or len(elements) != k or any(type(e) is cst.StarredElement for e in elements):
            return None
        if x.shape.rank is not None and x.shape.rank < k:
            return None  # a shorter slice: the unpacking's own error
        fresh = [frame.ctx.fresh(_target_name(e)) for e in elements]
        new = _named_end(x.shape, k, from_end, fresh)
        if new is None:
            return None
        if new != x.shape:
            old = state.vars.get(src)
            state.vars[src] = TensorV(new, x.dtype, x.layout, x.names)
            self.learnt(frame, old, state.vars[src])  # type: ignore[arg-type]
        ends = new.items[:k] if not from_end else new.items[len(new.items) - k :]
        return TupleV(tuple(IntV(d) for d in ends if not isinstance(d, Star)), SeqKind.SIZE)

    def refine_dim_read(
        self, frame: Frame, state: State, value_node: cst.BaseExpression, name: str, value: Value
    ) -> Value:
        """``n = x.size(-1)``: an unknown dim gets a symbol named ``n`` (and ``x`` gets it too)."""
        if not (isinstance(value, IntV) and isinstance(value.value, Unknown)):
            return value
        got = _dim_source(value_node)
        if got is None:
            return value
        src, i = got
        x = _tensor_var(state, src)
        if x is None:
            return value
        d = frame.ctx.fresh(name)
        new = _with_dim(x.shape, i, d)
        if new is not None:
            old = state.vars.get(src)
            state.vars[src] = TensorV(new, x.dtype, x.layout, x.names)
            self.learnt(frame, old, state.vars[src])  # type: ignore[arg-type]
        return IntV(d)

    # -- conditions and asserts --------------------------------------------------------------
    def refine_condition(
        self, frame: Frame, state: State, test: cst.BaseExpression, truth: bool, assertion: cst.Assert | None = None
    ) -> None:
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            self.refine_condition(frame, state, test.expression, not truth)
            return
        if type(test) is cst.BooleanOperation:
            if (type(test.operator) is cst.And and truth) or (type(test.operator) is cst.Or and not truth):
                self.refine_condition(frame, state, test.left, truth, assertion)
                self.refine_condition(frame, state, test.right, truth, assertion)
            return
        if isinstance(test, (cst.Name, cst.Attribute)):
            if truth:  # ``if self.norm:`` (an empty container is false too: narrow only the true branch)
                self._narrow(frame, state, test, True)
            return
        if type(test) is not cst.Comparison or len(test.comparisons) != 1:
            return
        op = test.comparisons[0].operator
        right = test.comparisons[0].comparator
        if isinstance(op, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
            self._narrow(frame, state, test.left, truth == (type(op) is cst.IsNot))
            return
        equal = (type(op) is cst.Equal and truth) or (type(op) is cst.NotEqual and not truth)
        if not equal:
            return
        left = test.left
        # d % h == 0
        for a, b in ((left, right), (right, left)):
            if type(a) is cst.BinaryOperation and type(a.operator) is cst.Modulo and literal_int(b) == 0:
                d = self._dim_of(frame, state, a.left)
                h = self._dim_of(frame, state, a.right)
                if d is not None and h is not None:
                    self._asserted(frame, state, assertion, Rel.DIVISIBLE, d, h)
                    state.facts = state.facts.assume_divides(h, d)
                return
        for a, b in ((left, right), (right, left)):
            src = _rank_source(a)
            k = literal_int(b)
            if src is not None and k is not None:
                self._refine_rank(state, src, k)
                return
            got = _dim_source(a)
            if got is not None:
                val = self._dim_of(frame, state, b)
                if val is not None:
                    self._refine_dim(state, got[0], got[1], val)
                    cur = self._dim_of(frame, state, a)
                    if cur is not None:
                        self._asserted(frame, state, assertion, Rel.EQ, cur, val)
                        state.facts = state.facts.assume_eq(cur, val)
                return
            src = _shape_source(a)
            other = _shape_source(b)
            if src is not None and other is not None:
                # x.shape == y.shape: the same rank, and each pair of dims equal.
                x, y = _tensor_var(state, src), _tensor_var(state, other)
                if x is not None and y is not None and x.shape.rank is not None and x.shape.rank == y.shape.rank:
                    for o, d in zip(x.shape.dims, y.shape.dims):
                        self._asserted(frame, state, assertion, Rel.EQ, o, d)
                        state.facts = state.facts.assume_eq(o, d)
                return
            if src is not None and isinstance(b, (cst.Tuple, cst.List)):
                dims = [self._dim_of(frame, state, e.value) for e in b.elements]
                x = _tensor_var(state, src)
                if x is not None and all(d is not None for d in dims):
                    if x.shape.rank is None or x.shape.rank == len(dims):
                        old = x.shape.dims if x.shape.rank is not None else None
                        state.vars[src] = TensorV(Shape(tuple(dims)), x.dtype, x.layout, x.names)
                        for o, d in zip(old or (), dims):
                            self._asserted(frame, state, assertion, Rel.EQ, o, d)
                            state.facts = state.facts.assume_eq(o, d)
                return
        a_dim, b_dim = self._dim_of(frame, state, left), self._dim_of(frame, state, right)
        if a_dim is not None and b_dim is not None:
            self._asserted(frame, state, assertion, Rel.EQ, a_dim, b_dim)
            state.facts = state.facts.assume_eq(a_dim, b_dim)

    def _narrow(self, frame: Frame, state: State, target: cst.BaseExpression, not_none: bool) -> None:
        """``x is not None`` / ``self.norm is None``: an optional value becomes what it is on this path."""
        if isinstance(target, cst.Name):
            key = target.value
        elif type(target) is cst.Attribute and isinstance(target.value, cst.Name):
            key = f"{target.value.value}.{target.attr.value}"  # the overlay ``self.<attr>`` reads first
        else:
            return
        v = self.eval(frame, state, target, observe=False)
        if isinstance(v, OptionalV):
            state.vars[key] = v.inner if not_none else NONE

    def _dim_of(self, frame: Frame, state: State, node: cst.BaseExpression) -> Dim | None:
        v = self.eval(frame, state, node, observe=False)
        if isinstance(v, IntV):
            return v.value
        if isinstance(v, OpaqueV):
            return self.opaque_int(frame, v.path)
        return None

    def _refine_rank(self, state: State, src: str, k: int) -> None:
        x = _tensor_var(state, src)
        if x is None or x.shape.rank is not None or x.shape.min_rank > k:
            return
        s = x.shape
        fill = k - s.min_rank
        new = Shape(tuple(s.prefix) + (Unknown(UnknownSource.UNANNOTATED),) * fill + tuple(s.suffix))
        state.vars[src] = TensorV(new, x.dtype, x.layout, x.names)

    def _refine_dim(self, state: State, src: str, i: int, d: Dim) -> None:
        x = _tensor_var(state, src)
        if x is None:
            return
        cur = x.shape.dim(i)
        if cur is None or not isinstance(cur, Unknown):
            return
        new = _with_dim(x.shape, i, d)
        if new is not None:
            state.vars[src] = TensorV(new, x.dtype, x.layout, x.names)

    def exec_assert(self, frame: Frame, state: State, stmt: cst.Assert) -> bool:
        """Check and assume ``stmt``; ``True`` when it always fails (reported; the path ends there)."""
        test = self.eval(frame, state, stmt.test, observe=False)
        if not (isinstance(test, BoolV) and test.value is True):
            self.may_raise += 1
        if isinstance(test, BoolV) and test.value is False:
            if _is_shape_test(stmt.test) or self._decided_by_ints(frame, state, stmt.test):
                self.report(
                    frame,
                    codes.SHAPE_MISMATCH,
                    f"this assertion always fails: {_explain(self, frame, state, stmt.test)}",
                    frame.ticket(stmt.test),
                    "the shapes reaching here cannot satisfy the assertion",
                )
                return True
        self.refine_condition(frame, state, stmt.test, True, assertion=stmt)
        return False

    def raises_check(self, frame: Frame, state: State, stmt: cst.If) -> bool:
        """An installed package's check of the caller's sizes that raises (``if height !=
        self.image_size[0] or width != self.image_size[1]: raise ValueError(...)``), its test known
        true: reported (at the user's call, as a failing ``assert``) and ``True`` (the path ends).
        Only where the test is comparisons of known ints (joined by ``and``/``or``/``not``) in a body
        run with the caller's arguments, the branch is the ``raise`` alone, and no ``try`` under way
        may catch it."""
        body = stmt.body
        if self.in_try or not (
            type(body) is cst.IndentedBlock
            and len(body.body) == 1
            and isinstance(line := body.body[0], cst.SimpleStatementLine)
            and len(line.body) == 1
            and type(line.body[0]) is cst.Raise
        ):
            return False
        leaves = _comparisons(stmt.test)
        if not leaves or not all(self._decided_by_ints(frame, state, c) for c in leaves):
            return False
        failing = [c for c in leaves if truthiness(self.eval(frame, state, c, observe=False)) is True]
        shown = "; ".join(f"`{cst.Module([]).code_for_node(c)}`: {_explain(self, frame, state, c)}" for c in failing)
        self.report(
            frame,
            codes.SHAPE_MISMATCH,
            f"this check always raises: {shown or 'the sizes make it true'}",
            frame.ticket(stmt.test),
            "the sizes reaching here fail the library's own check",
        )
        self.may_raise += 1
        return True

    def _decided_by_ints(self, frame: Frame, state: State, test: cst.BaseExpression) -> bool:
        """An installed package's check of the caller's sizes (``h == self.image_size`` after ``n, c, h,
        w = x.shape``): a comparison of two known ints, in a body run with the caller's arguments."""
        if not frame.module.library or frame.generic:
            return False
        if not (type(test) is cst.Comparison and len(test.comparisons) == 1):
            return False
        sides = (test.left, test.comparisons[0].comparator)
        values = [self.eval(frame, state, e, observe=False) for e in sides]
        return all(isinstance(v, IntV) and type(v.value) is int for v in values)

    def _asserted(self, frame: Frame, state: State, stmt: cst.Assert | None, rel: Rel, a: Dim, b: Dim) -> None:
        """An ``assert`` the analysis relies on is a constraint of the function (shape functions check it)."""
        if stmt is None:
            return
        proved = eq3(a, b, state.facts) is Truth.TRUE if rel is Rel.EQ else state.facts.divisible(a, b) is True
        if proved:
            return
        frame.ctx.require(rel, a, b, f"assert {cst.Module([]).code_for_node(stmt.test)}")

    # -- annotations ---------------------------------------------------------------------------------
    def check_return(self, frame: Frame, state: State, value: Value, node: cst.CSTNode) -> None:
        sig = frame.signature
        if sig is None or sig.returns is None or not frame.generic:
            return
        ann = sig.returns
        if ann.kind in ("tensor", "tuple") and sig.returns_shape:
            params: set[str] = set()
            for p in sig.params:
                if p.annotation is not None:
                    params |= annotation_names(p.annotation)
            self.check_against(frame, state, value, ann, node, "return", frozenset(annotation_names(ann) - params))

    def check_against(
        self,
        frame: Frame,
        state: State,
        value: Value,
        ann: Annotation,
        node: cst.CSTNode,
        what: str,
        open_names: frozenset[str] = frozenset(),
    ) -> Value:
        """Check a value against an annotation whose dims are the function's rigid symbols.

        ``open_names`` (named only by the return annotation: ``-> "b out"``) are bound by the value,
        as jaxtyping binds them, when it gives them a size or an opaque symbol (``nn.Linear(d, 64)``);
        bound to another annotated name they are still that name's mismatch.
        """
        if ann.kind == "tuple":
            if isinstance(value, TupleV) and len(value.items) == len(ann.items):
                items = tuple(
                    self.check_against(frame, state, v, a, node, what, open_names)
                    for v, a in zip(value.items, ann.items)
                )
                return TupleV(items, value.kind)
            return value
        if ann.kind != "tensor" or ann.spec is None:
            return value
        spec = ann.spec
        shape = shape_of(value)
        if shape is None:
            return value
        refs = lambda p: self.ref_value(frame, p, state.vars.get("self"), state)  # type: ignore[arg-type]  # noqa: E731
        b = rigid_bindings(spec, state.facts, refs)
        open_here = [n for n in spec.names() if n in open_names]
        findings, pending = None, None
        if open_here:
            for n in open_here:
                del b.dims[n]
            findings, pending = check_value(spec, shape, b, what)
            if findings or any(_involves_rigid(b.dims.get(n)) for n in open_here):
                findings = pending = None
                b = rigid_bindings(spec, state.facts, refs)
        if findings is None or pending is None:
            findings, pending = check_value(spec, shape, b, what)
        span = frame.ticket(node)
        for f in findings:
            self.report(frame, f.code, f.message, span, f.hint)
        if pending and not any(f.code.severity is Severity.ERROR for f in findings):
            kind = ObligationKind.RETURN if what == "return" else ObligationKind.ASSIGNMENT
            text = simple_text(node)
            frame.ctx.oblige(
                Obligation(
                    kind, span, (SpecCheck(span, text, spec.text),), f"{what}: {'; '.join(dict.fromkeys(pending))}"
                )
            )
            # Gradual cast: past this point the value has the annotated shape.
            rigid_shape = self.rigid_shape(frame, spec, None, state)
            if isinstance(value, TensorV):
                return TensorV(_merge(shape, rigid_shape), value.dtype, value.layout, value.names)
            return TensorV(rigid_shape)
        return value

    def check_setitem(self, frame: Frame, state: State, target: cst.Subscript, value: Value) -> None:
        base = self.eval(frame, state, target.value, observe=False)
        if not isinstance(base, TensorV) or not isinstance(value, TensorV):
            return
        index = self.index_value(frame, state, target)
        from ..rules.context import RuleContext

        quiet = RuleContext(facts=state.facts, options=frame.ctx.options, symbols=frame.ctx.symbols)
        part = engine.getitem(Arg(base), Arg(index), quiet)
        if (
            not isinstance(part, TensorV)
            or quiet.diagnostics
            and any(d.severity.name == "ERROR" for d in quiet.diagnostics)
        ):
            return
        out, issues = broadcast_shapes([part.shape, value.shape], state.facts)
        bad = [i for i in issues if i.verdict is Verdict.ERROR]
        grows = out.rank is not None and part.shape.rank is not None and out.rank > part.shape.rank
        grows_dim = (
            not bad
            and out.rank is not None
            and part.shape.rank == out.rank
            and any(eq3(a, b) is Truth.FALSE for a, b in zip(part.shape.dims, out.dims))
        )
        if bad or grows or grows_dim:
            self.report(
                frame,
                codes.BROADCAST,
                f"cannot assign a tensor of shape {render_shape(value.shape)} into a slice of shape {render_shape(part.shape)}",
                frame.ticket(target),
                "the assigned value must broadcast to the indexed region",
            )


def _merge(actual: Shape, annotated: Shape) -> Shape:
    """Keep what is known of ``actual``; take the annotation's dims where it is unknown."""
    if actual.rank is None or annotated.rank is None or actual.rank != annotated.rank:
        return annotated
    items: list[Item] = [b if isinstance(a, Unknown) else a for a, b in zip(actual.dims, annotated.dims)]
    return Shape(tuple(items))


def _involves_rigid(d: object) -> bool:
    """Is ``d`` (a bound dim) made of annotated names?"""
    return any(is_rigid_symbol(s) for s in getattr(d, "free_symbols", ()))


def _is_shape_test(node: cst.BaseExpression) -> bool:
    if type(node) is cst.Comparison:
        parts = [node.left] + [c.comparator for c in node.comparisons]
        return any(_dim_source(p) or _rank_source(p) or _shape_source(p) for p in parts)
    if type(node) is cst.BooleanOperation:
        return _is_shape_test(node.left) or _is_shape_test(node.right)
    return False


def _comparisons(test: cst.BaseExpression) -> list[cst.Comparison] | None:
    """The comparisons ``test`` joins with ``and``, ``or`` and ``not``; ``None`` when it holds
    anything else."""
    if type(test) is cst.Comparison:
        return [test]
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _comparisons(test.expression)
    if type(test) is cst.BooleanOperation:
        left, right = _comparisons(test.left), _comparisons(test.right)
        return None if left is None or right is None else left + right
    return None


def _explain(an: Refinements, frame: Frame, state: State, node: cst.BaseExpression) -> str:
    if type(node) is cst.Comparison and len(node.comparisons) == 1:
        left = an.eval(frame, state, node.left, observe=False)
        right = an.eval(frame, state, node.comparisons[0].comparator, observe=False)
        return f"{_show(left)} vs {_show(right)}"
    return "the shapes make it false"


def _show(v: Value) -> str:
    if isinstance(v, IntV):
        return render_dim(v.value)
    if isinstance(v, TupleV):
        return "(" + ", ".join(_show(i) for i in v.items) + ")"
    return "?"
