"""The project's own code type-checks under ``mypy --strict`` and passes ruff."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict() -> None:
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "-p", "tensorshape", "-p", "tensorshape_mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    proc = subprocess.run(
        [ruff, "check", "checker", "plugin", "stubs", "tests", "benchmarks"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package modules it imports at run time (``if TYPE_CHECKING:`` blocks left out)."""
    import ast

    top = package.parent
    modules: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        name = ".".join(path.relative_to(top).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}

    def runtime_nodes(tree: ast.AST) -> list[ast.AST]:
        out: list[ast.AST] = []
        stack = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                stack.extend(node.orelse)
                continue
            out.append(node)
            stack.extend(ast.iter_child_nodes(node))
        return out

    for name, path in modules.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
                target = ".".join(p for p in (base, node.module or "") if p)
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [target, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.add(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


#: The op table's registry: ``rules.registry`` imports ``rules.ops`` lazily so that every rule
#: module registers itself, and the ``nn.Sequential``/``TransformerEncoder`` rules call back into
#: the engine for the modules they hold.  Nothing outside ``rules`` takes part.
_ACCEPTED_CYCLE_PREFIX = "tensorshape.rules."


def test_no_import_cycles() -> None:
    """Dependencies point down: no two modules of the checker import each other, directly or not."""
    cycles = _cycles(_import_graph(ROOT / "checker" / "tensorshape"))
    bad = [sorted(c) for c in cycles if not all(m.startswith(_ACCEPTED_CYCLE_PREFIX) for m in c)]
    assert not bad, bad


def test_cycle_finder_sees_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("def f():\n    from .a import y\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\n")
    assert _cycles(_import_graph(pkg)) == [{"pkg.a", "pkg.b"}]


def test_node_types_tested_by_identity_have_no_subclass() -> None:
    """``type(n) is cst.X`` stands for ``isinstance(n, cst.X)`` only while nothing subclasses ``cst.X``
    (the interpreter's own lazy definitions and opaque code subclass ``FunctionDef``, ``ClassDef`` and
    ``Name``): every class so tested is a leaf once the whole package is imported."""
    import importlib
    import pkgutil
    import re

    import libcst as cst
    import tensorshape

    for m in pkgutil.walk_packages(tensorshape.__path__, "tensorshape."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)

    def subclasses(c: type) -> list[type]:
        return [s for d in c.__subclasses__() for s in (d, *subclasses(d))]

    tested: set[str] = set()
    for p in (ROOT / "checker" / "tensorshape").rglob("*.py"):
        tested |= set(re.findall(r"type\([^()]*(?:\([^()]*\))?[^()]*\) is (?:not )?cst\.(\w+)", p.read_text()))
    assert tested, "the pattern finds the identity tests"
    # ``type(n) is cst.Name`` is meant where a name must not be the opaque code that stands in for
    # an oversized expression (``infer/oversized.py``): a plain name's attribute overlay, ``__future__``.
    deliberate = {"Name"}
    bad = {
        n: [s.__qualname__ for s in subclasses(getattr(cst, n))]
        for n in tested - deliberate
        if subclasses(getattr(cst, n))
    }
    assert not bad, f"subclassed node classes tested with `type(n) is`: {bad}"
