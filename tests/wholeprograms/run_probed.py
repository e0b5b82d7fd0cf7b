"""Run unannotated programs with real torch and record the shape of every tensor they bind.

``python run_probed.py FILE...`` runs each file as ``__main__`` in this one process, its syntax
tree rewritten so that after each assignment (``x = ...``, ``a, b = ...``, ``x += ...``) and at
the start of each ``for`` body, every plain name it binds is recorded: its shape when it holds a
tensor, by ``line:column:name`` of the name (the column is that of Python's parser, which for
ASCII code is the checker's).  The program's own code is untouched otherwise (its lines keep their
numbers, so the raising line is the program's).  Prints one JSON object: for each file, the
``tensors`` seen and where an exception was raised (the innermost frame in that file).

Every expression that may hold a tensor is wrapped too (``f(x)`` runs as ``f(probe(key, x))``), so
``expressions`` records the shapes of each tensor expression by
``line:column:end_line:end_column`` (columns in code points, parentheses outside the range, as
libcst's positions): names, calls, operators, subscripts, everything but what cannot hold one
(constants, the called expression of a call, assignment targets, annotations, decorators,
slices).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "realistic"))
from run_with_torch import raise_record  # noqa: E402 - the realistic suites' runner, beside this one

_PROBE = "__tensorshape_probe__"
_EXPR = "__tensorshape_expression__"


def _names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names(e)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


def _probe(names: list[ast.Name], at: ast.AST) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, n in enumerate(names):
        if any(m.id == n.id for m in names[i + 1 :]):
            continue  # ``pred, _, _ = f()``: after the statement the name holds the last value only
        call = ast.Call(
            ast.Name(_PROBE, ast.Load()),
            [ast.Constant(f"{n.lineno}:{n.col_offset}:{n.id}"), ast.Name(n.id, ast.Load())],
            [],
        )
        out.append(ast.copy_location(ast.Expr(call), at))
    return out


class _Rewrite(ast.NodeTransformer):
    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in body:
            stmt = self.visit(stmt)
            out.append(stmt)
            if isinstance(stmt, ast.Assign):
                out.extend(_probe([n for t in stmt.targets for n in _names(t)], stmt))
            elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
                out.extend(_probe(_names(stmt.target), stmt))
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                setattr(node, field, self._body(body))
        if isinstance(node, (ast.For, ast.AsyncFor)):
            node.body = _probe(_names(node.target), node.body[0]) + node.body
        return node


#: Expressions never wrapped: they cannot hold a tensor, or a call around them would not compile.
_NEVER = (ast.Constant, ast.Starred, ast.Slice, ast.JoinedStr, ast.FormattedValue, ast.Lambda)
#: ``(parent type, field)`` whose expressions are never wrapped (recursed into all the same).
_NOT_FIELDS = {
    (ast.Call, "func"),
    (ast.arg, "annotation"),
    (ast.FunctionDef, "returns"),
    (ast.AsyncFunctionDef, "returns"),
    (ast.AnnAssign, "annotation"),
    (ast.FunctionDef, "decorator_list"),
    (ast.AsyncFunctionDef, "decorator_list"),
    (ast.ClassDef, "decorator_list"),
    (ast.FormattedValue, "format_spec"),
}


class _Expressions(ast.NodeTransformer):
    """Wraps each expression that may hold a tensor in a call recording its shape (and returning it)."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def _column(self, line: int, offset: int) -> int:
        """Python's byte offset as a count of code points (libcst's columns)."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))

    def _wrappable(self, parent: ast.AST, field: str, e: ast.expr) -> bool:
        if isinstance(e, _NEVER) or not isinstance(getattr(e, "ctx", ast.Load()), ast.Load):
            return False
        if isinstance(parent, ast.pattern) or (type(parent), field) in _NOT_FIELDS:
            return False
        if isinstance(parent, ast.Subscript) and field == "slice" and isinstance(e, ast.Tuple):
            return not any(isinstance(x, ast.Slice) for x in e.elts)
        return e.end_lineno is not None and e.end_col_offset is not None

    def _wrap(self, e: ast.expr) -> ast.expr:
        assert e.end_lineno is not None and e.end_col_offset is not None
        start = f"{e.lineno}:{self._column(e.lineno, e.col_offset)}"
        key = f"{start}:{e.end_lineno}:{self._column(e.end_lineno, e.end_col_offset)}"
        return ast.copy_location(ast.Call(ast.Name(_EXPR, ast.Load()), [ast.Constant(key), e], []), e)

    def _child(self, parent: ast.AST, field: str, child: ast.AST) -> ast.AST:
        child = self.visit(child)
        if isinstance(child, ast.expr) and self._wrappable(parent, field, child):
            return self._wrap(child)
        return child

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name, old in ast.iter_fields(node):
            if isinstance(old, list):
                setattr(node, name, [self._child(node, name, x) if isinstance(x, ast.AST) else x for x in old])
            elif isinstance(old, ast.AST):
                setattr(node, name, self._child(node, name, old))
        return node


def _shape(value: Any) -> list[int] | None:
    import torch

    return list(value.shape) if isinstance(value, torch.Tensor) else None


def run(path: str) -> dict[str, Any]:
    seen: dict[str, list[list[int]]] = {}
    expressions: dict[str, list[list[int]]] = {}

    def record(table: dict[str, list[list[int]]], key: str, value: Any) -> None:
        shape = _shape(value)
        if shape is not None:
            shapes = table.setdefault(key, [])
            if len(shapes) < 20 and shape not in shapes:
                shapes.append(shape)

    def probe(key: str, value: Any) -> None:
        record(seen, key, value)

    def expression(key: str, value: Any) -> Any:
        record(expressions, key, value)
        return value

    with open(path, encoding="utf-8") as f:
        text = f.read()
    tree = _Rewrite().visit(_Expressions(text.splitlines()).visit(ast.parse(text, path)))
    ast.fix_missing_locations(tree)
    code = compile(tree, path, "exec")
    raised: dict[str, Any] | None = None
    saved_argv = sys.argv
    sys.argv = [path]
    try:
        exec(code, {"__name__": "__main__", "__file__": path, _PROBE: probe, _EXPR: expression})  # noqa: S102 - the suite's own programs
    except BaseException as exc:  # noqa: BLE001 - recorded, not handled
        raised = raise_record(exc, path)
    finally:
        sys.argv = saved_argv
    return {"tensors": seen, "expressions": expressions, "raised": raised}


def main(paths: list[str]) -> None:
    import torch

    out = {}
    for p in paths:
        torch.manual_seed(0)
        out[p] = run(p)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
