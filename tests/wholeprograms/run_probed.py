"""Run unannotated programs with real torch and record the shape of every tensor they bind.

``python run_probed.py FILE...`` runs each file as ``__main__`` in this one process, its syntax
tree rewritten so that after each assignment (``x = ...``, ``a, b = ...``, ``x += ...``) and at
the start of each ``for`` body, every plain name it binds is recorded: its shape when it holds a
tensor, by ``line:column:name`` of the name (the column is that of Python's parser, which for
ASCII code is the checker's).  The program's own code is untouched otherwise (its lines keep their
numbers, so the raising line is the program's).  Prints one JSON object: for each file, the
``tensors`` seen and where an exception was raised (the innermost frame in that file).
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
    for n in names:
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


def _shape(value: Any) -> list[int] | None:
    import torch

    return list(value.shape) if isinstance(value, torch.Tensor) else None


def run(path: str) -> dict[str, Any]:
    seen: dict[str, list[list[int]]] = {}

    def probe(key: str, value: Any) -> None:
        shape = _shape(value)
        if shape is not None:
            shapes = seen.setdefault(key, [])
            if len(shapes) < 20 and shape not in shapes:
                shapes.append(shape)

    with open(path, encoding="utf-8") as f:
        tree = _Rewrite().visit(ast.parse(f.read(), path))
    ast.fix_missing_locations(tree)
    code = compile(tree, path, "exec")
    raised: dict[str, Any] | None = None
    saved_argv = sys.argv
    sys.argv = [path]
    try:
        exec(code, {"__name__": "__main__", "__file__": path, _PROBE: probe})  # noqa: S102 - the suite's own programs
    except BaseException as exc:  # noqa: BLE001 - recorded, not handled
        raised = raise_record(exc, path)
    finally:
        sys.argv = saved_argv
    return {"tensors": seen, "raised": raised}


def main(paths: list[str]) -> None:
    import torch

    out = {}
    for p in paths:
        torch.manual_seed(0)
        out[p] = run(p)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
