"""Find the argument checks torch's Python sources make for the ops of the table.

``scan()`` parses the installed ``torch/nn/functional.py`` and ``torch/nn/modules/*.py``
(never imports them) and returns every ``raise``, ``assert`` and ``torch._check`` reached from an op of the
table: for a function ``torch.nn.functional.X``, the body of ``X`` (through
``boolean_dispatch``) and the private helpers of ``functional.py`` it calls; for a module
class ``torch.nn.X``, every method of ``X`` and of its base classes in ``torch.nn.modules``,
and the functions of ``functional.py`` they call that the table does not declare itself.
A check is one site (file, function, message); the ops that reach it are listed with it.

``torch_checks.csv`` classifies every site found (a shape or size check, or a check of
something else: a dtype, a mode name, a probability) and says whether the rule models it
and which named case of ``checks.py`` makes torch raise it.  It also lists the checks of
torch's C++ kernels (``TORCH_CHECK`` in ``aten/src/ATen/native``) that the sweep found by
calling the ops; those are not in the Python sources, so only their case proves them.

    python benchmarks/torch_checks_report.py            # the counts
    python benchmarks/torch_checks_report.py --markdown # docs/torch-checks.md
"""

from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Site", "Entry", "scan", "load_inventory", "save_inventory", "table_ops", "INVENTORY", "torch_dir"]

INVENTORY = Path(__file__).with_name("torch_checks.csv")

_EXCEPTIONS = frozenset(
    {"ValueError", "RuntimeError", "IndexError", "TypeError", "AssertionError", "NotImplementedError"}
)


@dataclass(frozen=True)
class Site:
    #: ``nn/functional.py``, ``nn/modules/conv.py``...
    file: str
    #: ``pad``, ``_ConvNd.__init__``...
    function: str
    #: The message with each formatted value as ``{}`` (an ``assert`` without one: its condition).
    message: str
    exception: str
    line: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.file, self.function, self.message)


@dataclass(frozen=True)
class Entry:
    """One line of the inventory."""

    where: str
    function: str
    message: str
    kind: str
    modelled: bool
    case: str | None
    note: str = ""
    #: ``python`` (found by :func:`scan`) or ``aten`` (found by calling the op).
    source: str = "python"


def torch_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None, "torch is not installed"
    return Path(spec.origin).parent


def _text(node: ast.expr | None, env: dict[str, ast.expr], top: bool = False) -> str:
    """A message as source text: literal parts kept, formatted values as ``{}``.

    ``env`` gives the expression a local name was assigned, and (for a message that is
    a parameter, ``top``) a parameter's default.
    """
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)  # type: ignore[misc]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = _text(node.left, env)
        return left + _text(node.right, env) if isinstance(node.op, ast.Add) else left
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _text(node.func.value, env, top)
    if isinstance(node, ast.Name) and node.id in env:
        return _text(env.pop(node.id), env)
    if isinstance(node, ast.Name) and top and "param:" + node.id in env:
        # A message passed in, with a default (``msg: str = "Expected hidden size {}, got {}"``).
        return _text(env.pop("param:" + node.id), env)
    return "{}"


def _env(fn: ast.FunctionDef, before: int) -> dict[str, ast.expr]:
    """Each local name's last string-valued assignment before line ``before``, and parameter defaults."""
    env: dict[str, ast.expr] = {}
    args = fn.args.args[len(fn.args.args) - len(fn.args.defaults) :]
    env.update({"param:" + a.arg: d for a, d in zip(args, fn.args.defaults)})
    for n in sorted(_body_nodes(fn), key=lambda n: getattr(n, "lineno", 0)):
        if isinstance(n, ast.Assign) and n.lineno < before:
            for t in n.targets:
                if isinstance(t, ast.Name):
                    env[t.id] = n.value
    return env


def _message(node: ast.Raise | ast.Assert, env: dict[str, ast.expr]) -> tuple[str, str] | None:
    if isinstance(node, ast.Assert):
        return "AssertionError", " ".join(
            (_text(node.msg, env, True) if node.msg is not None else ast.unparse(node.test)).split()
        )
    exc = node.exc
    if exc is None:
        return None  # a re-raise
    name = exc.func if isinstance(exc, ast.Call) else exc
    ename = name.id if isinstance(name, ast.Name) else name.attr if isinstance(name, ast.Attribute) else ""
    if ename not in _EXCEPTIONS:
        return None
    arg = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
    return ename, " ".join(_text(arg, env, True).split())


def _body_nodes(fn: ast.FunctionDef) -> list[ast.AST]:
    """The nodes of ``fn`` without those of nested function definitions."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(
            c for c in ast.iter_child_nodes(n) if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        )
    return out


#: ``torch._check*`` helpers and the exception each raises.
_TORCH_CHECKS = {"_check": "RuntimeError", "_check_value": "ValueError", "_check_index": "IndexError", "_check_type": "TypeError"}


def _torch_check(n: ast.Call, env: dict[str, ast.expr]) -> tuple[str, str] | None:
    """``torch._check(cond, lambda: msg)`` and ``torch._check_with(Exc, cond, lambda: msg)``."""
    f = n.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "torch"):
        return None
    args = list(n.args)
    if f.attr == "_check_with" and args:
        exc = args.pop(0)
        name = exc.id if isinstance(exc, ast.Name) else "RuntimeError"
    elif f.attr in _TORCH_CHECKS:
        name = _TORCH_CHECKS[f.attr]
    else:
        return None
    msg = args[1] if len(args) > 1 else next((k.value for k in n.keywords if k.arg == "message"), None)
    if isinstance(msg, ast.Lambda):
        msg = msg.body
    return name, " ".join((_text(msg, env, True) if msg is not None else ast.unparse(args[0]) if args else "").split())


def _sites(fn: ast.FunctionDef, file: str, qual: str) -> list[Site]:
    out = []
    for n in _body_nodes(fn):
        got = None
        if isinstance(n, (ast.Raise, ast.Assert)):
            got = _message(n, _env(fn, n.lineno))
        elif isinstance(n, ast.Call):
            got = _torch_check(n, _env(fn, n.lineno))
        if got is not None:
            out.append(Site(file, qual, got[1], got[0], n.lineno))
    return out


def _called(fn: ast.FunctionDef, prefix: str | None) -> set[str]:
    """Names called in ``fn``: bare names (``prefix`` None) or ``prefix.name``."""
    out = set()
    for n in _body_nodes(fn):
        if isinstance(n, ast.Call):
            f = n.func
            if prefix is None and isinstance(f, ast.Name):
                out.add(f.id)
            elif (
                prefix is not None
                and isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Name)
                and f.value.id == prefix
            ):
                out.add(f.attr)
    return out


class _Functional:
    def __init__(self, root: Path) -> None:
        tree = ast.parse((root / "nn" / "functional.py").read_text())
        self.defs: dict[str, ast.FunctionDef] = {}
        self.dispatch: dict[str, list[str]] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.defs[node.name] = node
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
                names = [
                    k.value.id
                    for k in node.value.keywords
                    if k.arg in ("if_true", "if_false") and isinstance(k.value, ast.Name)
                ]
                for t in targets:
                    if names:
                        self.dispatch[t] = names

    def reach(self, name: str, depth: int = 3) -> list[ast.FunctionDef]:
        """``name``'s definitions and the private helpers they call, ``depth`` levels down."""
        todo = self.dispatch.get(name, [name])
        seen: dict[str, ast.FunctionDef] = {}
        for _ in range(depth + 1):
            nxt: list[str] = []
            for n in todo:
                fn = self.defs.get(n)
                if fn is None or n in seen:
                    continue
                seen[n] = fn
                nxt += [c for c in _called(fn, None) if c.startswith("_") and c in self.defs]
            todo = nxt
        return list(seen.values())


class _Modules:
    def __init__(self, root: Path) -> None:
        self.classes: dict[str, tuple[str, ast.ClassDef]] = {}
        for path in sorted((root / "nn" / "modules").glob("*.py")):
            tree = ast.parse(path.read_text())
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, (f"nn/modules/{path.name}", node))

    def reach(self, name: str) -> list[tuple[str, ast.ClassDef]]:
        """``name``, its base classes, and the module classes its ``__init__`` builds (their bases too)."""
        out: list[tuple[str, ast.ClassDef]] = []
        todo = [name]
        while todo:
            n = todo.pop(0)
            if n == "Module" or n not in self.classes or any(c.name == n for _, c in out):
                continue
            file, cls = self.classes[n]
            out.append((file, cls))
            todo += [
                b.id if isinstance(b, ast.Name) else b.attr
                for b in cls.bases
                if isinstance(b, (ast.Name, ast.Attribute))
            ]
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                    todo += sorted(c for c in _called(node, None) if c in self.classes)
        return out


def scan(
    table_functions: list[str], table_classes: list[str], root: Path | None = None
) -> dict[tuple[str, str, str], tuple[Site, tuple[str, ...]]]:
    """Every check site reached from the ops named (``torch.nn.functional.X``, ``torch.nn.X``)."""
    root = root or torch_dir()
    fun, mods = _Functional(root), _Modules(root)
    found: dict[tuple[str, str, str], tuple[Site, set[str]]] = {}

    def add(site: Site, op: str) -> None:
        found.setdefault(site.key, (site, set()))[1].add(op)

    declared = {q.rsplit(".", 1)[1] for q in table_functions}
    for q in table_functions:
        for fn in fun.reach(q.rsplit(".", 1)[1]):
            for s in _sites(fn, "nn/functional.py", fn.name):
                add(s, q)
    for q in table_classes:
        for file, cls in mods.reach(q.rsplit(".", 1)[1]):
            for node in cls.body:
                if not isinstance(node, ast.FunctionDef):
                    continue
                for s in _sites(node, file, f"{cls.name}.{node.name}"):
                    add(s, q)
                # The functional it forwards to, when the table does not declare that one itself.
                for name in sorted(_called(node, "F") - declared):
                    for fn in fun.reach(name):
                        for s in _sites(fn, "nn/functional.py", fn.name):
                            add(s, q)
    return {
        k: (s, tuple(sorted(ops)))
        for k, (s, ops) in sorted(found.items(), key=lambda kv: (kv[1][0].file, kv[1][0].line))
    }


#: The inventory's columns.
COLUMNS = ("source", "where", "function", "kind", "modelled", "case", "message", "note")


def load_inventory(path: Path = INVENTORY) -> list[Entry]:
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        Entry(
            where=r["where"],
            function=r["function"],
            message=r["message"],
            kind=r["kind"],
            modelled=r["modelled"] == "yes",
            case=r["case"] or None,
            note=r["note"],
            source=r["source"],
        )
        for r in rows
    ]


def save_inventory(entries: list[Entry], path: Path = INVENTORY) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for e in entries:
            w.writerow(
                [e.source, e.where, e.function, e.kind, "yes" if e.modelled else "no", e.case or "", e.message, e.note]
            )


def table_ops() -> tuple[list[str], list[str]]:
    """The ``torch.nn.functional`` functions and ``torch.nn`` classes of the table."""
    from tensorshape.rules.stubs import load_table

    table = load_table()
    funcs = sorted(q for q in table.ops if q.startswith("torch.nn.functional.") and q.count(".") == 3)
    classes = sorted(q for q in table.classes if q.startswith("torch.nn.") and q.count(".") == 2)
    return funcs, classes
