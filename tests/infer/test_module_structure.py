"""No construct at module level hides a definition from the checker (issue 15 item 1).

Each construct a module's top level can hold (``if``/``elif``/``else`` with an
undecidable test, ``if TYPE_CHECKING:``, ``try``/``except``/``else``/``finally``,
``with``, ``for``/``while`` with ``else``, ``match``, decorated and nested
definitions, class bodies with control flow, ``if __name__ == "__main__":``) is
put before a function with a matmul mismatch, and the function is put inside
each of the construct's blocks: the mismatch must be reported every time, and
``--statistics`` must count every function as analysed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tensorshape.infer import CheckSettings, check_file, check_source
from tensorshape.infer.project import Project

BUG = "torch.zeros(2, 3) @ torch.zeros(4, 5)"

#: Module-level constructs; ``{body}`` marks each block a definition can sit in.
CONSTRUCTS: dict[str, str] = {
    "if-type-checking": """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from torch import Tensor
            {body}
        """,
    "if-type-checking-else": """
        import typing
        if typing.TYPE_CHECKING:
            from torch import Tensor
            {body}
        else:
            Tensor = object
            {body}
        """,
    "if-elif-else": """
        import sys
        if sys.version_info >= (3, 12):
            FAST = True
            {body}
        elif sys.platform == "win32":
            FAST = False
            {body}
        else:
            FAST = None
            {body}
        """,
    "if-raise": """
        import sys
        if sys.platform == "emscripten":
            raise ImportError("not supported")
            {body}
        """,
    "try-import": """
        try:
            import einops
            {body}
        except ImportError:
            einops = None
            {body}
        """,
    "try-except-else-finally": """
        try:
            import numpy as np
            {body}
        except (ImportError, ModuleNotFoundError) as e:
            np = None
            {body}
        else:
            HAVE_NUMPY = True
            {body}
        finally:
            DONE = True
            {body}
        """,
    "try-star": """
        try:
            import scipy
            {body}
        except* ImportError:
            scipy = None
            {body}
        """,
    "with": """
        with torch.no_grad():
            ZERO = torch.zeros(3)
            {body}
        """,
    "with-as": """
        import contextlib
        with contextlib.suppress(Exception) as ctx:
            {body}
        """,
    "for-else": """
        for _name in ["a", "b"]:
            {body}
        else:
            {body}
        """,
    "for-unknown": """
        import os
        for _key in os.environ:
            {body}
        """,
    "while-break": """
        import os
        while os.environ.get("X"):
            {body}
            break
        else:
            {body}
        """,
    "match": """
        import sys
        match sys.platform:
            case "linux":
                {body}
            case _:
                {body}
        """,
    "nested-def": """
        def factory(n):
            def inner(x):
                return x * n
            return inner
        {body}
        """,
    "decorated": """
        import functools

        @functools.lru_cache(maxsize=None)
        def cached(n):
            return n
        {body}
        """,
    "class-with-control-flow": """
        class Config:
            if hasattr(torch, "compile"):
                compiled = True
                def method(self):
                    return 1
            else:
                compiled = False
            try:
                import einops as _einops
            except ImportError:
                _einops = None
            for _i in range(2):
                pass
        {body}
        """,
    "main-guard": """
        def main():
            pass

        if __name__ == "__main__":
            main()
            {body}
        """,
    "global-assert-del": """
        _TMP = 1
        del _TMP
        assert torch is not None
        {body}
        """,
}


def _program(template: str, slot: int) -> tuple[str, int]:
    """The construct with the buggy function in block ``slot`` (-1: after the construct); the bug's line."""
    body = textwrap.dedent(template)
    lines = ["import torch", *body.splitlines()]
    out: list[str] = []
    seen = 0
    bug_line = 0
    for line in lines:
        if "{body}" in line:
            indent = line[: len(line) - len(line.lstrip())]
            if seen == slot:
                out.append(f"{indent}def buggy():")
                out.append(f"{indent}    return {BUG}")
                bug_line = len(out)
            else:
                out.append(f"{indent}pass")
            seen += 1
        else:
            out.append(line)
    if slot == -1:
        out += ["", "", "def buggy():", f"    return {BUG}"]
        bug_line = len(out)
    return "\n".join(out) + "\n", bug_line


CASES = [
    pytest.param(name, slot, id=f"{name}-{'after' if slot == -1 else f'block{slot}'}")
    for name, template in CONSTRUCTS.items()
    for slot in [-1, *range(template.count("{body}"))]
    if not (name == "if-raise" and slot == 0)  # after `raise`: really unreachable, tested below
]


@pytest.mark.parametrize(("name", "slot"), CASES)
def test_no_module_level_construct_hides_a_definition(name: str, slot: int) -> None:
    source, line = _program(CONSTRUCTS[name], slot)
    result = check_source(source, "m.py", CheckSettings())
    errors = {(d.span.line, d.code.id) for d in result.errors}
    assert (line, "TS101") in errors, f"the mismatch on line {line} was not reported:\n{source}"
    assert result.stats.get("unanalysed", 0) == 0, result.unanalysed
    assert result.stats["functions"] >= 1


def test_method_under_control_flow_in_a_class_body_is_checked() -> None:
    source = textwrap.dedent(
        f"""
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 4)

            if hasattr(torch, "compile"):
                def forward(self, x):
                    return self.fc(torch.zeros(2, 5))
            else:
                def forward(self, x):
                    return {BUG}
        """
    )
    result = check_source(source, "m.py", CheckSettings())
    assert {(d.span.line, d.code.id) for d in result.errors} == {(12, "TS101"), (15, "TS101")}
    assert result.stats.get("unanalysed", 0) == 0


def test_nested_function_is_checked_on_its_own() -> None:
    source = textwrap.dedent(
        f"""
        import torch

        def outer(n):
            w = torch.zeros(4, 5)

            def inner():
                return torch.zeros(2, 3) @ w

            class Local:
                def method(self):
                    return {BUG}

            return inner
        """
    )
    result = check_source(source, "m.py", CheckSettings())
    assert {(d.span.line, d.code.id) for d in result.errors} == {(8, "TS101"), (12, "TS101")}
    assert result.stats["functions"] == 3
    assert result.stats.get("unanalysed", 0) == 0


def test_unreachable_definitions_are_counted_with_a_reason() -> None:
    source = textwrap.dedent(
        """
        import torch

        if False:
            def dead():
                return torch.zeros(2, 3) @ torch.zeros(4, 5)

        def live(x):
            return x
            def after_return():
                pass
        """
    )
    result = check_source(source, "m.py", CheckSettings())
    assert result.errors == []
    assert result.stats["functions"] == 1
    assert result.stats["unanalysed"] == 2
    assert result.stats["unanalysed:unreachable"] == 2
    assert [(w, line, name) for w, line, _, name in result.unanalysed] == [
        ("unreachable", 5, "dead"),
        ("unreachable", 10, "after_return"),
    ]


def test_import_guards_keep_the_imported_name() -> None:
    source = textwrap.dedent(
        """
        from typing import TYPE_CHECKING, Any

        import torch
        from tensorshape import reveal_shape

        try:
            import einops
        except ImportError:
            einops = None

        if TYPE_CHECKING:
            from jaxtyping import Float
            from torch import Tensor
        else:
            Float = Any
            Tensor = Any

        def f(x: Float[Tensor, "b 6"]):
            y = einops.rearrange(x, "b (h d) -> b h d", h=2)
            reveal_shape(y)
            return y
        """
    )
    result = check_source(source, "m.py", CheckSettings())
    reveals = [d.message for d in result.diagnostics if d.code.id == "TS900"]
    assert reveals == ["revealed shape: [b 2 3]"]


def test_a_module_already_run_for_another_file_is_still_checked(tmp_path: Path) -> None:
    """The runner checks many files with one project: a module first imported by another is checked too."""
    (tmp_path / "layers.py").write_text(
        "import torch\n\ntry:\n    import einops\nexcept ImportError:\n    einops = None\n\n\n"
        f"def buggy():\n    return {BUG}\n",
        encoding="utf-8",
    )
    (tmp_path / "model.py").write_text("from layers import buggy\n\n\ndef run():\n    return buggy()\n", "utf-8")
    project = Project([tmp_path])
    check_file(tmp_path / "model.py", CheckSettings(), project)
    result = check_file(tmp_path / "layers.py", CheckSettings(), project)
    assert {(d.span.line, d.code.id) for d in result.errors} == {(10, "TS101")}
    assert result.stats["functions"] == 1


def test_a_module_top_level_is_reported_whichever_file_ran_it_first(tmp_path: Path) -> None:
    """A module runs once per process; when another file's import ran it first, its own check still
    reports what its top level does (torch raises at ``zeros(2, 3) @ zeros(4, 5)``) and counts its
    tensor expressions, as when it is checked alone or first."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "consts.py").write_text(
        "import torch\n\nproj = torch.zeros(2, 3) @ torch.zeros(4, 5)\nbase = torch.zeros(2, 3)\n"
        "print(base.sum(0))\nreveal_shape(base)\n",
        encoding="utf-8",
    )
    (tmp_path / "pkg" / "model.py").write_text("from pkg.consts import base\n\nshifted = base + 1\n", "utf-8")

    def results(order: list[str]) -> dict[str, tuple[list[tuple[int, str]], int, int]]:
        project = Project([tmp_path])
        out = {}
        for name in order:
            r = check_file(tmp_path / "pkg" / f"{name}.py", CheckSettings(), project)
            out[name] = ([(d.span.line, d.code.id) for d in r.diagnostics], r.stats.get("known", 0), r.stats.get("unknown", 0))
        return out

    alone = results(["consts"])["consts"]
    assert alone[0] == [(3, "TS101"), (6, "TS900")]
    assert results(["model", "consts"])["consts"] == alone
    assert results(["model", "consts"]) == results(["consts", "model"])
