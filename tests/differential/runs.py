"""The op table against torch on shapes holding a run of unknown length (``[d0 d1 *b]``, ``[*b d]``,
``[d *b d']``), as annotations give them.

A drawn call of the ordinary sweep (:mod:`tests.differential.cases`) has a window of one tensor's
dims replaced by the run ``*b`` (other tensors of the same shape, or a suffix of it holding the
window, share the run).  The rule sees the shape with the run; torch runs the call with the run
instantiated at every length in :data:`LENGTHS`.  The verdict must hold for every length:

* an error only if torch raises for every length;
* otherwise a result consistent with torch's for each length torch runs (``*b`` spliced back;
  an anonymous run, an unknown dim or a symbolic dim matches anything).

Where torch raises for every length and the rule reports nothing, the case is a *missed* error
(counted, not a disagreement: a run may hide what the concrete sweep checks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st
from tensorshape.model.diagnostics import Severity
from tensorshape.model.dims import Star
from tensorshape.model.shape import Shape
from tensorshape.model.values import (
    BoolV,
    DTypeV,
    IntV,
    NoneV,
    PackedV,
    SeqKind,
    SeqV,
    TensorV,
    TupleV,
    Value,
    constant_value,
)

from . import harness
from .harness import Call, Outcome, T

__all__ = ["LENGTHS", "RUN", "RunCase", "with_run", "check", "Verdict"]

#: The run lengths torch is run with.
LENGTHS = (0, 1, 2, 3)

#: The run's name (an annotation's ``*b``).
RUN = "b"


@dataclass(frozen=True)
class TR:
    """A tensor whose shape holds the run at ``at`` (``items`` are the dims around it)."""

    before: tuple[int, ...]
    after: tuple[int, ...]
    dtype: str = "float32"

    def instance(self, run: tuple[int, ...]) -> T:
        return T(self.before + run + self.after, self.dtype)

    def value(self) -> TensorV:
        return TensorV(Shape((*self.before, Star(RUN), *self.after)), self.dtype)

    def __repr__(self) -> str:
        return f"T[{' '.join([*map(str, self.before), '*' + RUN, *map(str, self.after)])}]"


@dataclass(frozen=True)
class RunCase:
    call: Call
    #: The run's dims for each length torch runs the call with.
    runs: tuple[tuple[int, ...], ...]
    #: ``leading``, ``trailing``, ``middle`` or ``only`` (the run is the whole shape).
    pattern: str


def _tensors(v: Any) -> Iterator[T]:
    if isinstance(v, T):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _tensors(x)


def _map(v: Any, f: Callable[[T], Any]) -> Any:
    if isinstance(v, T):
        return f(v)
    if isinstance(v, list):
        return [_map(x, f) for x in v]
    if isinstance(v, tuple):
        return tuple(_map(x, f) for x in v)
    return v


def with_run(data: st.DataObject, call: Call) -> RunCase | None:
    """``call`` with a window of its first tensor's dims made the run; ``None`` if it has no tensor."""
    first = next(_tensors((call.args, tuple(call.kwargs.values()))), None)
    if first is None:
        return None
    s = first.shape
    at = data.draw(st.integers(0, len(s)), label="run at")
    width = data.draw(st.integers(0, len(s) - at), label="run width")
    window = s[at : at + width]
    end = len(s) - at - width  # dims after the window

    def share(t: T) -> Any:
        # The same shape, or a suffix of it that holds the window: the same run (right-aligned).
        k = len(s) - len(t.shape)
        if 0 <= k <= at and t.shape == s[k:]:
            return TR(t.shape[: at - k], t.shape[len(t.shape) - end :] if end else (), t.dtype)
        return t

    if width == len(s) and width == 0:
        pattern = "only"
    elif at == 0 and end == 0:
        pattern = "only"
    elif at == 0:
        pattern = "leading"
    elif end == 0:
        pattern = "trailing"
    else:
        pattern = "middle"
    runs: list[tuple[int, ...]] = []
    for n in LENGTHS:
        if n == width:
            runs.append(window)  # the drawn call itself is one of the instances
        else:
            runs.append(tuple(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n), label=f"run {n}")))
    new = replace(
        call,
        args=_map(call.args, share),
        kwargs={k: _map(v, share) for k, v in call.kwargs.items()},
    )
    return RunCase(new, tuple(runs), pattern)


def instance(case: RunCase, run: tuple[int, ...]) -> Call:
    def inst(v: Any) -> Any:
        if isinstance(v, TR):
            return v.instance(run)
        if isinstance(v, list):
            return [inst(x) for x in v]
        if isinstance(v, tuple):
            return tuple(inst(x) for x in v)
        return v

    c = case.call
    return replace(c, args=inst(c.args), kwargs={k: inst(v) for k, v in c.kwargs.items()})


def _value(v: Any) -> Value:
    if isinstance(v, TR):
        return v.value()
    if isinstance(v, (list, tuple)):
        c = constant_value(v, _value)
        assert c is not None
        return c
    return harness._to_value(v)


# -- consistency of the rule's result with torch's for one instance -------------------------------------
def _items_match(items: Sequence[Any], got: tuple[int, ...], run: tuple[int, ...]) -> bool:
    expanded: list[Any] = []
    for i in items:
        if isinstance(i, Star) and i.name == RUN:
            expanded.extend(run)
        else:
            expanded.append(i)
    stars = [k for k, i in enumerate(expanded) if isinstance(i, Star)]
    if stars:
        k = stars[0]
        head, tail = expanded[:k], expanded[k + 1 :]
        if len(head) + len(tail) > len(got):
            return False
        return _dims_match(head, got[: len(head)]) and _dims_match(tail, got[len(got) - len(tail) :])
    return len(expanded) == len(got) and _dims_match(expanded, got)


def _dims_match(dims: Sequence[Any], got: Sequence[int]) -> bool:
    return all(type(d) is not int or d == g for d, g in zip(dims, got))


def consistent(v: Value | None, want: Any, run: tuple[int, ...]) -> bool:
    """Whether the rule's result ``v`` (on the shape with the run) can be torch's ``want`` for ``run``."""
    if v is None:
        return True
    if isinstance(v, TensorV):
        if not (isinstance(want, tuple) and len(want) == 2 and want[0] == "T"):
            return False
        return _items_match(v.shape.items, want[1], run)
    if isinstance(v, PackedV):
        return isinstance(want, tuple) and want[:1] == ("packed",)
    if isinstance(v, SeqV):
        if v.sizes is not None and isinstance(want, tuple) and all(type(x) is int for x in want):
            return _items_match(v.sizes.items, want, run)
        return isinstance(want, tuple)
    if isinstance(v, TupleV):
        if not isinstance(want, tuple) or len(want) != len(v.items):
            return False
        if v.kind is SeqKind.SIZE:
            return all(consistent(x, w, run) for x, w in zip(v.items, want))
        return all(consistent(x, w, run) for x, w in zip(v.items, want))
    if isinstance(v, IntV):
        return type(v.value) is not int or v.value == want
    if isinstance(v, BoolV):
        return v.value is None or v.value == want
    if isinstance(v, DTypeV):
        return want == ("dtype", v.name)
    if isinstance(v, NoneV):
        return want == ("none",)
    return True


@dataclass(frozen=True)
class Verdict:
    #: ``agree``, ``false-error``, ``wrong-shape``, ``missed`` (torch raises for every length, the
    #: rule says nothing), ``bad-call`` (torch cannot bind the call for some length: not a shape case).
    status: str
    #: How many lengths torch raised for.
    raised: int
    detail: str = ""
    #: The rule warned or left a requirement to check at run time.
    warned: bool = False
    #: Torch raised for every drawn length, but runs for other sizes of the run (:data:`MORE_RUNS`).
    sized: bool = False


#: The run's dims beyond the drawn ones, tried when torch raises for every drawn length: a check that
#: fails for the drawn sizes may pass for others (``reshape(x, 1, 2)`` of ``[*b]`` runs for ``*b =
#: [2]``), and a longer run may pass where lengths 0 to 3 do not (``transpose(x, -4, 3)``).
MORE_RUNS = tuple(
    [(k,) * n for n in (1, 2, 3) for k in (1, 2, 3, 4, 5, 6, 8)]
    + [(k,) * n for n in (4, 5) for k in (1, 2, 3)]
    + [(2, 3), (3, 2), (4, 2), (2, 4), (5, 3), (3, 5), (6, 4), (2, 1), (1, 2), (2, 3, 4), (4, 3, 2), (3, 1, 4)]
)


def runs_for_some_size(case: RunCase) -> tuple[tuple[int, ...], Any] | None:
    """A run (beyond the drawn ones) for which torch runs the call, and its result; ``None`` if it
    raises (or cannot bind the call) for every one of :data:`MORE_RUNS`."""
    for r in MORE_RUNS:
        if r in case.runs:
            continue
        w = harness.run_torch(instance(case, r))
        if w.status == "ok":
            return r, w.value
    return None


def check(case: RunCase) -> Verdict:
    wants: list[Outcome] = [harness.run_torch(instance(case, r)) for r in case.runs]
    if any(w.status == "bad-call" for w in wants):
        return Verdict("bad-call", 0)
    raised = sum(w.status == "error" for w in wants)
    got, warned, errors = run_rule(case.call)
    if errors:
        if raised < len(wants):
            ok = [f"{len(r)}: {w.value}" for r, w in zip(case.runs, wants) if w.status == "ok"]
            return Verdict("false-error", raised, f"{case.call!r}: the rule says {errors}; torch runs for run lengths {ok}")
        other = runs_for_some_size(case)
        if other is not None:
            return Verdict(
                "false-error", raised, f"{case.call!r}: the rule says {errors}; torch runs for *b = {other[0]}: {other[1]}"
            )
        return Verdict("agree", raised, warned=warned)
    for r, w in zip(case.runs, wants):
        if w.status == "ok" and not consistent(got, w.value, r):
            return Verdict("wrong-shape", raised, f"{case.call!r}: the rule gives {_show(got)}; torch {w.value} for *b = {r}")
    if raised == len(wants):
        other = runs_for_some_size(case)
        if other is None:
            return Verdict("missed", raised, f"{case.call!r}: torch raises {wants[0].message}", warned=warned)
        if not consistent(got, other[1], other[0]):
            return Verdict("wrong-shape", raised, f"{case.call!r}: the rule gives {_show(got)}; torch {other[1]} for *b = {other[0]}")
        # Torch raises for the drawn sizes only: the rule may not report an error.
        return Verdict("agree", raised, warned=warned, sized=True)
    return Verdict("agree", raised, warned=warned)


def _show(v: Value | None) -> str:
    if isinstance(v, TensorV):
        return f"[{' '.join(map(str, v.shape.items))}]"
    return repr(v)[:200]


def run_rule(call: Call) -> tuple[Value | None, bool, str]:
    """The rule's result on ``call`` (tensors with runs as such), whether it warned or left a
    requirement to run time, and its error messages (empty: none)."""
    result, ctx = harness.rule_result(call, _value)
    errors = "; ".join(d.message for d in ctx.diagnostics if d.severity is Severity.ERROR)
    warned = bool(ctx.obligations) or any(d.severity is not Severity.ERROR for d in ctx.diagnostics)
    return result, warned, errors


def draws() -> dict[str, Callable[[st.DataObject], Call]]:
    """Every op and module class the ordinary sweep draws calls for, by name."""
    from . import cases
    from .modules import MODULES
    from .test_ops import OPS

    out: dict[str, Callable[[st.DataObject], Call]] = {
        q: (lambda data, q=q, f=f: cases.FAMILIES[f](data, q)) for q, f in OPS
    }
    out.update({n: MODULES[n] for n in sorted(MODULES)})
    return out


def draw_case(data: st.DataObject, draw: Callable[[st.DataObject], Call]) -> RunCase | None:
    from .cases import _Skip

    try:
        call = draw(data)
    except _Skip:
        return None
    return with_run(data, call)
