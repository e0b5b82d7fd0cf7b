"""``torch.einsum``: subscripts, ``...``, implicit output, repeated indices, label broadcasting."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import SeqV, StrV, TensorV, TupleV, Value, unknown_tensor
from ...unify.broadcast import broadcast_shapes
from ...unify.compare import Truth, Verdict, eq3
from ..call import Call
from ..registry import rule
from .util import run_exact_rank, run_rank_at_least

__all__ = ["parse_equation", "Equation", "EinsumSyntaxError"]


class EinsumSyntaxError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Term:
    #: Labels in order; ``...`` stands for the ellipsis.
    labels: tuple[str, ...]

    @property
    def has_ellipsis(self) -> bool:
        return "..." in self.labels

    @property
    def named(self) -> int:
        return sum(1 for x in self.labels if x != "...")


@dataclass(frozen=True, slots=True)
class Equation:
    inputs: tuple[Term, ...]
    output: Term | None


def _term(text: str) -> Term:
    labels: list[str] = []
    i = 0
    text = text.replace(" ", "")
    while i < len(text):
        if text.startswith("...", i):
            if "..." in labels:
                raise EinsumSyntaxError("an ellipsis appears twice in one operand")
            labels.append("...")
            i += 3
        elif text[i].isalpha() and text[i].isascii():
            labels.append(text[i])
            i += 1
        else:
            raise EinsumSyntaxError(f"invalid subscript {text[i]!r}: use letters a-z and A-Z and `...`")
    return Term(tuple(labels))


def parse_equation(equation: str) -> Equation:
    lhs, arrow, rhs = equation.partition("->")
    if "->" in rhs:
        raise EinsumSyntaxError("more than one `->`")
    inputs = tuple(_term(t) for t in lhs.split(","))
    return Equation(inputs, _term(rhs) if arrow else None)


def _operands(call: Call) -> list[TensorV] | None:
    v = call.value("operands")
    items: Sequence[Value]
    if isinstance(v, TupleV):
        items = v.items
        if len(items) == 1 and isinstance(items[0], TupleV):  # einsum(eq, [a, b])
            items = items[0].items
    elif isinstance(v, SeqV):
        return None
    else:
        return None
    out = []
    for x in items:
        if not isinstance(x, TensorV):
            return None
        out.append(x)
    return out


@rule("einsum")
def einsum(call: Call) -> Value:
    eq_v = call.value("equation")
    if not isinstance(eq_v, StrV) or eq_v.value is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    try:
        eq = parse_equation(eq_v.value)
    except EinsumSyntaxError as e:
        call.error(codes.INVALID_ARG, f"equation {eq_v.value!r}: {e}", "equation")
        return unknown_tensor(UnknownSource.ERROR)
    ops = _operands(call)
    if ops is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if len(ops) != len(eq.inputs):
        call.error(
            codes.INVALID_ARG,
            f"equation {eq_v.value!r} has {len(eq.inputs)} operand(s), but {len(ops)} tensor(s) are given",
            "equation",
        )
        return unknown_tensor(UnknownSource.ERROR)
    sizes: dict[str, Dim] = {}
    origin: dict[str, str] = {}
    ellipses: list[Shape] = []
    unknown_rank = False
    for k, (term, t) in enumerate(zip(eq.inputs, ops)):
        s = t.shape
        if s.rank is None and term.has_ellipsis:
            run_rank_at_least(call, s, term.named, f"operand {k}", "operands")
        elif s.rank is None:
            # As many dims as subscripts: the run takes the length left (torch raises for any other).
            fixed = run_exact_rank(call, s, term.named, f"operand {k} ({''.join(term.labels)!r})", "operands")
            if fixed is None:
                return unknown_tensor(UnknownSource.ERROR)
            s = fixed
        if s.rank is None:
            unknown_rank = True
            continue
        if (term.has_ellipsis and s.rank < term.named) or (not term.has_ellipsis and s.rank != term.named):
            want = f"at least {term.named}" if term.has_ellipsis else str(term.named)
            call.error(
                codes.RANK_MISMATCH,
                f"operand {k} has subscripts {''.join(term.labels)!r} ({plural(want, 'dim')}) but shape {render_shape(s)}",
                "operands",
            )
            return unknown_tensor(UnknownSource.ERROR)
        dims = list(s.dims)
        if term.has_ellipsis:
            at = term.labels.index("...")
            n_ell = s.rank - term.named
            ellipses.append(Shape(tuple(dims[at : at + n_ell])))
            dims = dims[:at] + dims[at + n_ell :]
        named = [x for x in term.labels if x != "..."]
        seen_here: dict[str, Dim] = {}
        for label, d in zip(named, dims):
            if label in seen_here:
                # A repeated subscript within one operand (a diagonal): sizes must match exactly.
                if eq3(seen_here[label], d, call.facts) is Truth.FALSE:
                    call.error(
                        codes.SHAPE_MISMATCH,
                        f"subscript {label} is repeated in operand {k} with sizes "
                        f"{render_dim(seen_here[label])} and {render_dim(d)}",
                        "operands",
                    )
                    return unknown_tensor(UnknownSource.ERROR)
                continue
            seen_here[label] = d
            if label not in sizes or sizes[label] == 1:
                if label in sizes and d != 1 and sizes[label] == 1:
                    sizes[label] = d
                elif label not in sizes:
                    sizes[label] = d
                origin.setdefault(label, f"operand {k}")
                continue
            if d == 1:
                continue
            prev = sizes[label]
            verdict = call.check(
                eq3(prev, d, call.facts),
                (prev, d),
                f"subscript {label} has size {render_dim(prev)} in {origin[label]} but {render_dim(d)} in operand {k}",
                rel=Rel.BROADCAST,
                at="operands",
                hint="sizes of one subscript must be equal (or 1)",
            )
            if verdict is Verdict.ERROR or verdict is Verdict.UNPROVEN:
                return unknown_tensor(UnknownSource.ERROR)
    ell, issues = broadcast_shapes(ellipses, call.facts) if ellipses else (Shape(()), [])
    if any(i.verdict is Verdict.ERROR for i in issues):
        call.error(
            codes.BROADCAST,
            f"the dims covered by `...` do not broadcast: {', '.join(render_shape(e) for e in ellipses)}",
            "operands",
        )
        return unknown_tensor(UnknownSource.ERROR)
    all_labels = [x for term in eq.inputs for x in term.labels if x != "..."]
    if eq.output is None:
        once = sorted(x for x in set(all_labels) if all_labels.count(x) == 1)
        out_labels: tuple[str, ...] = (("...",) if ellipses else ()) + tuple(once)
    else:
        out_labels = eq.output.labels
        for x in out_labels:
            if x == "...":
                continue
            if out_labels.count(x) > 1:
                call.error(codes.INVALID_ARG, f"output subscript {x} appears more than once", "equation")
                return unknown_tensor(UnknownSource.ERROR)
            if x not in all_labels:
                call.error(codes.INVALID_ARG, f"output subscript {x} does not appear in any operand", "equation")
                return unknown_tensor(UnknownSource.ERROR)
    if unknown_rank:
        return unknown_tensor(UnknownSource.UNANNOTATED)
    items: list[Item] = []
    for x in out_labels:
        if x == "...":
            items.extend(ell.items)
        else:
            items.append(sizes.get(x, Unknown(UnknownSource.UNSUPPORTED)))
    dtype = ops[0].dtype if ops else None
    return TensorV(Shape(tuple(items)), dtype)
