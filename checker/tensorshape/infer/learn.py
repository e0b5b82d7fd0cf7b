"""Unannotated parameters learn their shape from their first use.

In a function's generic analysis, a parameter without a shape annotation (no annotation,
or a bare ``Tensor``) has no shape.  The first time it meets an op that requires one, it
takes the shape that op accepts, with fresh opaque symbols for what the op leaves open:

* ``b, n, c = x.shape`` (``refine.py``): rank 3, dims named ``b n c``;
* ``self.fc(x)`` with ``nn.Linear(784, 10)``: ``[*batch 784]``; ``nn.Conv2d(3, 64, 3)``:
  ``[*batch 3 h w]`` (a batch dim or none: torch takes both); ``nn.BatchNorm2d(64)``:
  ``[b 64 h w]``; ``nn.LayerNorm(d)``: ``[*batch d]``; ``nn.Embedding``: ``[*batch]``
  of ints; a declarative stub's spec for the argument (``rules/requires.py``).

The parameter's variable then holds that tensor on this path, so later code relates to it,
and what later code tells about it (``b, c, h, w = x.shape`` after the conv) refines it.
Learning is an assumption drawn from the code's own requirement: the call raises unless
it holds, so it never makes torch's verdict on a size the code allows an error.  It is
per path: a use in one branch teaches nothing to the other, so two uses that disagree
meet only where both run (then torch raises at one of them).

What each parameter learnt is kept per function (:attr:`Learner.learned_params`) for
hover, ``reveal_shape`` and the annotations ``tensorshape annotate`` proposes.  A
parameter that learnt different shapes at two places (two branches) proposes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from ..model.dims import Star
from ..model.shape import Item, Shape
from ..model.values import TensorV, Value
from ..rules.context import Arg
from ..rules.requires import at_least
from ..unify.compare import free_symbols
from ..unify.facts import Facts
from .base import AnalyzerBase
from .syntax import literal_int
from .values import FunctionV, InstanceV, OpaqueV

if TYPE_CHECKING:
    from .base import Frame
    from .signature import Signature
    from .state import State

__all__ = ["Learning", "Learner", "Ask"]

#: ``(arguments, keywords, probe) -> the tensor the op accepts for the probe`` (``None``: nothing).
Ask = Callable[[Sequence[Arg], Mapping[str, Arg], Arg], "TensorV | None"]


@dataclass(eq=False, slots=True)
class Learning:
    """The learning parameters of one generic analysis."""

    #: Each parameter's value at entry (identity marks it: ``y = x`` is the same parameter).
    origins: dict[str, Value]
    #: Star names the function's annotations use (a learnt run never takes one of them).
    taken: frozenset[str] = frozenset()
    #: What each parameter learnt so far (``None``: two places taught different shapes).
    learned: dict[str, TensorV | None] = field(default_factory=dict)
    #: ``id`` of each learnt value -> its parameter (what refines it is learning too).
    by_learned: dict[int, str] = field(default_factory=dict)
    #: The learnt values (kept alive: ``by_learned`` is by ``id``).
    keep: list[TensorV] = field(default_factory=list)
    #: The value learnt at each use (a loop body runs more than once: the same each time).
    memo: dict[tuple[str, int], TensorV] = field(default_factory=dict)
    #: The run name of each parameter's leading dims (``*batch``, then ``*batch_y``...).
    stars: dict[str, str] = field(default_factory=dict)
    #: The node where each parameter first learnt from an op (see :meth:`Learner.learned_through`).
    first_use: dict[str, cst.CSTNode] = field(default_factory=dict)

    def origin_of(self, v: object) -> str | None:
        """The parameter whose entry value ``v`` is (by identity)."""
        for name, o in self.origins.items():
            if o is v:
                return name
        return None

    def record(self, name: str, old: object, new: TensorV) -> None:
        """``new`` is what ``name`` is now known to be (``old``: its value before)."""
        prev = self.learned.get(name, old)
        if prev is new:
            return
        if name in self.learned and prev is not old:
            self.learned[name] = None  # taught at two places: no single shape to propose
        else:
            self.learned[name] = new
        self.by_learned[id(new)] = name
        self.keep.append(new)


class Learner(AnalyzerBase):
    """Mixin of :class:`~tensorshape.infer.analyzer.Analyzer`: parameters that learn from use."""

    #: What the parameters of each function of the checked file learnt (generic analysis):
    #: ``id(def node) -> (def node, {parameter: tensor})``.
    learned_params: dict[int, tuple[cst.FunctionDef, dict[str, TensorV]]]

    def start_learning(self, frame: Frame, state: State, sig: Signature, instance: InstanceV | None) -> None:
        """Let the parameters without a shape annotation learn (a generic analysis only)."""
        if not self.options.learn_params:
            return
        origins: dict[str, Value] = {}
        for i, p in enumerate(sig.params):
            if (i == 0 and sig.is_method) or p.kind in ("var_positional", "var_keyword"):
                continue
            v = state.vars.get(p.name)
            if p.annotation is None:
                if isinstance(v, OpaqueV) and v.path == p.name:
                    origins[p.name] = v
            elif p.annotation.kind == "tensor" and p.annotation.spec is None:
                if isinstance(v, TensorV) and v.shape.is_unknown:
                    origins[p.name] = v  # ``x: Tensor``: a tensor, of no shape yet
        if origins:
            stars = frozenset(n for n in sig.spec_names())
            frame.learning = Learning(origins, stars)

    def finish_learning(self, frame: Frame, node: cst.FunctionDef, end: State | None) -> None:
        """Keep what the parameters learnt (functions of the checked file), with what holds wherever
        the function returns: ``c`` of ``b, n, c = x.shape`` that ``nn.Linear(64, ...)`` later
        requires (a runtime obligation) is 64 past it, and so in the shape an annotation would say."""
        lr = frame.learning
        if lr is None or frame.module is not self.checked:
            return
        facts = frame.return_facts
        if end is not None:
            facts = end.facts if facts is None else facts.join(end.facts)
        got = {name: _under(v, facts) for name, v in lr.learned.items() if v is not None}
        self.stats["learned-parameters"] += len(got)
        self.stats["learning-parameters"] += len(lr.origins)
        if len(got) < len(lr.learned):
            self.tally("cause:a parameter learnt different shapes on different paths", frame, node.name)
        if got:
            self.learned_params[id(node)] = (node, got)

    def take_learned(self) -> list[tuple[cst.FunctionDef, dict[str, TensorV]]]:
        """What the parameters learnt since the last call (the language server's piecewise analysis)."""
        out = list(self.learned_params.values())
        self.learned_params = {}
        return out

    def learn_args(
        self,
        frame: Frame,
        state: State,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
        ask: Ask,
    ) -> tuple[Sequence[Arg], Mapping[str, Arg]]:
        """The arguments, each learning parameter replaced by the tensor the op accepts for it."""
        lr = frame.learning
        if lr is None:
            return args, kwargs
        for key in [*range(len(args)), *kwargs]:
            a = args[key] if isinstance(key, int) else kwargs[key]
            name = lr.origin_of(a.value)
            if name is None:
                continue
            t = lr.memo.get((name, id(node)))
            if t is None:
                cargs = [self.core_arg(frame, x) for x in args]
                ckw = {k: self.core_arg(frame, x) for k, x in kwargs.items()}
                probe = cargs[key] if isinstance(key, int) else ckw[key]
                got = ask(cargs, ckw, probe)
                if got is None:
                    continue
                t = self._as_parameter(lr, name, got, a.value)
                lr.memo[(name, id(node))] = t
                lr.first_use.setdefault(name, node)
            self._substitute(state, a.value, t)
            lr.record(name, a.value, t)
            new = Arg(t, a.span, a.text)
            if isinstance(key, int):
                args = [*args[:key], new, *args[key + 1 :]]
            else:
                kwargs = {**kwargs, key: new}
        return args, kwargs

    def learn_shape_index(self, frame: Frame, state: State, node: cst.Subscript) -> None:
        """``x.shape[2]`` (or ``x.shape[-2]``) of a learning parameter ``x``: it has that dim
        (``[d0 d1 d2 *batch]``); indexing a ``torch.Size`` past its end raises."""
        lr = frame.learning
        base = node.value
        if lr is None or not (type(base) is cst.Attribute and base.attr.value == "shape"):
            return
        if not (isinstance(base.value, cst.Name) and len(node.slice) == 1):
            return
        index = node.slice[0].slice
        i = literal_int(index.value) if type(index) is cst.Index else None
        name = base.value.value
        origin = state.vars.get(name)
        if i is None or origin is None or lr.origin_of(origin) is None:
            return
        key = (name, id(node))
        t = lr.memo.get(key)
        if t is None:
            got = at_least(frame.ctx.fresh, [i], scalar_ok=False)
            if got is None:
                return
            t = self._as_parameter(lr, name, got, origin)
            lr.memo[key] = t
            lr.first_use.setdefault(name, node)
        self._substitute(state, origin, t)
        lr.record(name, origin, t)

    def ask_callee(self, frame: Frame, f: FunctionV, receiver: Value | None) -> Ask:
        """An :data:`Ask` for a call of the project function ``f``: the shape the parameter the probe
        is passed to learns in ``f`` (see :meth:`learned_through`), its sizes fresh symbols here."""

        def ask(args: Sequence[Arg], kwargs: Mapping[str, Arg], probe: Arg) -> TensorV | None:
            sig = self.signature(f)
            params = list(sig.params[1:] if sig.is_method and receiver is not None else sig.params)
            name = next((k for k, a in kwargs.items() if a is probe), None)
            if name is None:
                i = next((i for i, a in enumerate(args) if a is probe), None)
                if i is None or i >= len(params) or params[i].kind not in ("positional", "positional_only"):
                    return None
                name = params[i].name
            got = self.learned_through(f, receiver, name)
            return _renamed(got, frame) if got is not None else None

        return ask

    @staticmethod
    def as_before(frame: Frame, run: Callable[[], object]) -> None:
        """Run a call as it was with the parameter unknown, for its runtime obligations only: what
        the parameter learnt there is still checked at run time (``tensorshape instrument``)."""
        mark = len(frame.ctx.diagnostics)
        run()
        del frame.ctx.diagnostics[mark:]

    def learnt(self, frame: Frame, old: object, new: TensorV) -> None:
        """A refinement (``b, t, d = x.shape``) gave a variable that held ``old`` the tensor ``new``."""
        lr = frame.learning
        if lr is None:
            return
        name = lr.origin_of(old) or lr.by_learned.get(id(old))
        if name is not None:
            lr.record(name, old, new)

    def learn_fixed_rank(self, frame: Frame, state: State, args: Sequence[Arg]) -> None:
        """After a call: a parameter that learnt only a minimum rank (``[d0 d1 *batch]`` from
        ``x.size(1)``) and was passed where exactly one rank runs (``torch.bmm``, ``x.permute(0, 2,
        1)``, a 1-d conv given ``[d0 d1 *batch]``) holds that rank from here on, its new dims the
        fresh symbols the rule took (``[d0 d1 d2]``): the call raises for every other length of
        the run."""
        fixed = list(frame.ctx.runs_fixed)
        frame.ctx.runs_fixed.clear()
        lr = frame.learning
        if lr is None or not fixed:
            return
        for a in args:
            v = a.value
            name = lr.by_learned.get(id(v)) if isinstance(v, TensorV) else None
            if name is None or not isinstance(v, TensorV):
                continue
            new = next((n for o, n in fixed if o == v.shape), None)
            if new is None:
                continue
            t = TensorV(new, v.dtype, v.layout, v.names)
            self._substitute(state, v, t)
            lr.record(name, v, t)

    def _as_parameter(self, lr: Learning, name: str, t: TensorV, origin: Value) -> TensorV:
        """The op's answer as this parameter's value: its own run name, the dtype it had."""
        items = t.shape.items
        if any(isinstance(d, Star) for d in items):
            star = lr.stars.get(name)
            if star is None:
                used = set(lr.stars.values()) | lr.taken
                star = next((s for s in ("batch", f"batch_{name}") if s not in used), f"batch_{name}_{len(used)}")
                lr.stars[name] = star
            items = tuple(Star(star) if isinstance(d, Star) else d for d in items)
        dtype = t.dtype if t.dtype is not None else (origin.dtype if isinstance(origin, TensorV) else None)
        return TensorV(Shape(items), dtype)

    @staticmethod
    def _substitute(state: State, old: Value, new: TensorV) -> None:
        """Every variable holding the parameter (``y = x`` too) holds what it learnt."""
        for k, v in state.vars.items():
            if v is old:
                state.vars[k] = new


def _renamed(t: TensorV, frame: Frame) -> TensorV:
    """``t`` from another analysis with each of its symbols a fresh one of ``frame`` (its run names
    are renamed when the parameter takes it)."""
    mapping = {
        s: frame.ctx.fresh(str(s)) for d in t.shape.items if not isinstance(d, (int, Star)) for s in free_symbols(d)
    }
    if not mapping:
        return t
    items = tuple(d if isinstance(d, (int, Star)) else d.xreplace(mapping) for d in t.shape.items)  # type: ignore[union-attr]
    return TensorV(Shape(items), t.dtype)


def _under(t: TensorV, facts: Facts | None) -> TensorV:
    """``t`` with each symbol a fact fixes to a size replaced by it (a name the code gave is kept
    when it only equals another name)."""
    if not facts:
        return t
    items = tuple(_size_or(d, facts) for d in t.shape.items)
    return t if items == t.shape.items else TensorV(Shape(items), t.dtype, t.layout, t.names)


def _size_or(d: Item, facts: Facts) -> Item:
    if isinstance(d, (int, Star)):
        return d
    got = facts.simplify(d)
    return got if type(got) is int else d
