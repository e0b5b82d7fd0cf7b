"""Fixtures of the library tests: a synthetic installed package beside a user project."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from tensorshape.infer.api import check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project

#: ``(line, code, message)`` of each diagnostic of the user's ``main.py``.
Found = list[tuple[int, str, str]]
#: ``(user source, {package: {module: source}})`` -> what the check of the user's file reports.
CheckWithSite = Callable[[str, Mapping[str, Mapping[str, str]]], Found]


@pytest.fixture
def check_with_site(tmp_path: Path) -> CheckWithSite:
    """Write each package's modules (and an empty ``__init__.py``) into a site folder and the user
    source as ``proj/main.py``, then check it with the site's packages followed (none given: a
    project alone)."""

    def run(user: str, packages: Mapping[str, Mapping[str, str]]) -> Found:
        site = tmp_path / "site-packages"
        for package, modules in packages.items():
            (site / package).mkdir(parents=True, exist_ok=True)
            (site / package / "__init__.py").write_text("")
            for name, text in modules.items():
                (site / package / f"{name}.py").write_text(text)
        proj = tmp_path / "proj"
        proj.mkdir(exist_ok=True)
        (proj / "main.py").write_text(user)
        libraries = Libraries((str(site),)) if packages else None
        project = Project([proj], libraries) if libraries else Project([proj])
        r = check_file(proj / "main.py", project=project)
        return [(d.span.line, d.code.id, d.message) for d in r.diagnostics]

    return run


def reveals(found: Found) -> dict[int, str]:
    """The revealed shapes by line."""
    return {line: msg for line, code, msg in found if code == "TS900"}


def torch_shapes(tmp_path: Path, user: str, package: str, modules: Mapping[str, str]) -> dict[int, str]:
    """Run ``user`` with torch (``reveal_shape`` printing the line and shape) next to ``package``'s
    modules: the shapes by line."""
    (tmp_path / package).mkdir(exist_ok=True)
    (tmp_path / package / "__init__.py").write_text("")
    for name, text in modules.items():
        (tmp_path / package / f"{name}.py").write_text(text)
    probe = user.replace(
        "from tensorshape import reveal_shape\n",
        "import sys\n\ndef reveal_shape(t):\n    print(sys._getframe(1).f_lineno, list(t.shape))\n\n",
    )
    shift = probe.count("\n") - user.count("\n")
    (tmp_path / "probe.py").write_text(probe)
    out = subprocess.run([sys.executable, "probe.py"], capture_output=True, text=True, cwd=tmp_path, check=True)
    shapes = {}
    for row in out.stdout.splitlines():
        line, _, shape = row.partition(" ")
        shapes[int(line) - shift] = "[" + " ".join(re.findall(r"\d+", shape)) + "]"
    return shapes
