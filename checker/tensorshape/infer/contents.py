"""Where the elements of small tensors (``rules/contents.py``) can be trusted.

A tensor is a mutable object: ``w = torch.arange(4)`` then ``w.add_(1)`` (or ``w += 1``, ``w[0] =
5``, or a callee that does the same) changes what ``w.tolist()`` reads, while the analysis keeps
values, not objects.  Contents are therefore kept only where no such change can happen unseen:

- they are made only in a function whose body (nested functions included) changes no object in
  place by syntax: no method call whose name ends in one ``_`` (``add_``, ``fill_``,
  ``nn.init.zeros_``), no ``out=`` keyword, no augmented assignment, no assignment to a subscript,
  no ``global``/``nonlocal``, no ``yield``; never at module level;
- they never leave that activation: a returned value, a value stored in an attribute and the
  arguments of a call into code the table does not know carry none, and such a call clears the
  contents of every variable of the activation (the callee could change any of them through
  another reference).

Inside those bounds the program's own arithmetic on the tensors is all there is, and the table
follows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import libcst as cst

from ..model.values import Contents, DictV, TensorV, TupleV, Value
from ..rules import contents as table
from ..rules.context import Arg
from ..rules.names import canonical
from .base import Frame
from .state import State
from .syntax import by_function_body, code_children
from .values import ExternalV, TensorMethodV

__all__ = ["after_call", "after_operator", "before_call", "eligible", "stripped"]

#: Builtins that read their arguments and change none of them.
_PURE_BUILTINS = frozenset(
    "len set list tuple zip enumerate range int float bool min max sum sorted abs round isinstance print str "
    "reversed iter next any all map filter repr hash divmod".split()
)
#: The torch functions that make contents from constants.
_CREATIONS = frozenset({"arange", "tensor", "as_tensor"})


def _changes_in_place(node: cst.CSTNode) -> bool:
    """Does ``node`` change an object in place by syntax (see :func:`eligible`)?"""
    if isinstance(node, (cst.AugAssign, cst.Global, cst.Nonlocal, cst.Yield)):
        return True
    if isinstance(node, (cst.AssignTarget, cst.AnnAssign)):
        return _has_subscript(node.target)
    if type(node) is cst.Call:
        f = node.func
        if type(f) is cst.Attribute:
            name = f.attr.value
            if name.endswith("_") and not name.endswith("__") and not name.startswith("_"):
                return True
        return any(a.keyword is not None and a.keyword.value == "out" for a in node.args)
    return False


@by_function_body
def _unchanged_in_place(fn: cst.FunctionDef) -> bool:
    """Does no statement of ``fn`` (nested functions included) change an object in place?"""
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        if _changes_in_place(node):
            return False
        stack.extend(code_children(node))
    return True


def _has_subscript(target: cst.BaseExpression) -> bool:
    if type(target) is cst.Subscript:
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_has_subscript(e.value) for e in target.elements)
    if type(target) is cst.StarredElement:
        return _has_subscript(target.value)
    return False


def eligible(frame: Frame) -> bool:
    """May this activation make and read contents?"""
    fn = frame.function
    if fn is None:
        return False
    return _unchanged_in_place(fn.node)


def stripped(v: Value) -> Value:
    """``v`` without contents (in a tuple, list or dict too)."""
    if isinstance(v, TensorV) and v.contents is not None:
        return TensorV(v.shape, v.dtype, v.layout, v.names, v.strides)
    if isinstance(v, TupleV) and any(isinstance(i, (TensorV, TupleV, DictV)) for i in v.items):
        items = tuple(stripped(i) for i in v.items)
        if any(a is not b for a, b in zip(items, v.items)):
            return TupleV(items, v.kind)
    if isinstance(v, DictV) and any(isinstance(i, (TensorV, TupleV, DictV)) for _, i in v.items):
        pairs = tuple((k, stripped(i)) for k, i in v.items)
        if any(a[1] is not b[1] for a, b in zip(pairs, v.items)):
            return replace(v, items=pairs)
    return v


def _holds(v: Value, depth: int = 0) -> bool:
    """Does ``v`` hold a tensor with contents (in a tuple, list or dict too)?"""
    if isinstance(v, TensorV):
        return v.contents is not None
    if depth > 3:
        return False
    if isinstance(v, TupleV):
        return any(_holds(i, depth + 1) for i in v.items)
    if isinstance(v, DictV):
        return any(_holds(i, depth + 1) for _, i in v.items)
    return False


def _forget(state: State) -> None:
    for k, v in list(state.vars.items()):
        s = stripped(v)
        if s is not v:
            state.vars[k] = s


def _table_callee(func: Value) -> bool:
    """Is ``func`` a call this module follows (a torch function or tensor method, or a builtin that
    changes none of its arguments)?"""
    if isinstance(func, TensorMethodV):
        return True
    if not isinstance(func, ExternalV):
        return False
    name = canonical(func.qualname)
    if name.startswith("builtins."):
        return name[len("builtins.") :] in _PURE_BUILTINS
    return name.startswith("torch.") and name.count(".") == 1


def before_call(
    frame: Frame, state: State, func: Value, args: list[Arg], kwargs: dict[str, Arg]
) -> tuple[list[Arg], dict[str, Arg]]:
    """The arguments a call gets: without contents for a callee the table does not know; handing it
    one such tensor also clears the contents of the activation's variables (it could change any of
    them through another reference).  A callee given none cannot reach them: they are never stored
    in an object, never returned, and a function nested in this one changes nothing in place
    (:func:`eligible`)."""
    if not frame.holds_contents or _table_callee(func):
        return args, kwargs
    if not any(_holds(a.value) for a in (*args, *kwargs.values())):
        return args, kwargs  # (it gets no tensor with contents: none of them can reach it)
    _forget(state)
    return (
        [replace(a, value=stripped(a.value)) for a in args],
        {k: replace(a, value=stripped(a.value)) for k, a in kwargs.items()},
    )


def after_call(
    frame: Frame, state: State, func: Value, args: Sequence[Arg], kwargs: Mapping[str, Arg], result: Value
) -> Value:
    """``result`` with the contents the call gives it, or the Python values a tensor's contents are
    read as (``t.tolist()``, ``t.item()``, ``int(t)``); clears what a call the table does not
    know could change."""
    if not frame.holds_contents and not (
        isinstance(func, ExternalV) and func.qualname.rpartition(".")[2] in _CREATIONS and eligible(frame)
    ):
        return result  # (no contents here, and none made: the common case, at no cost)
    values = [a.value for a in args]
    kw = {k: a.value for k, a in kwargs.items()}
    if isinstance(func, ExternalV):
        name = canonical(func.qualname)
        if name.startswith("builtins."):
            short = name[len("builtins.") :]
            if short in ("int", "float") and len(values) == 1 and not kw and isinstance(values[0], TensorV):
                read = table.python_values(values[0], short)
                return read if read is not None else result
            if short in _PURE_BUILTINS:
                return result
        elif name.startswith("torch.") and name.count(".") == 1:
            short = name[len("torch.") :]
            made = (
                table.created(short, values, kw, result)
                if short in _CREATIONS
                else table.applied(short, values, kw, result)
            )
            return _with(frame, result, made)
    if isinstance(func, TensorMethodV):
        if func.name in ("tolist", "item") and not values and not kw and isinstance(func.receiver, TensorV):
            read = table.python_values(func.receiver, func.name)
            return read if read is not None else result
        return _with(frame, result, table.applied(func.name, [func.receiver, *values], kw, result))
    return result


def after_operator(frame: Frame, op: str, operands: Sequence[Value], result: Value) -> Value:
    """``result`` of a Python operator on tensors (``op``: ``+``, ``-``..., ``neg`` for unary minus),
    with its contents where the table computes them."""
    if not frame.holds_contents or not isinstance(result, TensorV):
        return result  # (operands with contents exist only where some were made)
    name = "neg" if op == "neg" else table.OPERATORS.get(op)
    if name is None or not any(isinstance(v, TensorV) and v.contents is not None for v in operands):
        return result
    return _with(frame, result, table.applied(name, operands, {}, result))


def _with(frame: Frame, result: Value, made: Contents | None) -> Value:
    if made is None or not isinstance(result, TensorV):
        return result
    frame.holds_contents = True
    return TensorV(result.shape, result.dtype, result.layout, result.names, result.strides, made)
