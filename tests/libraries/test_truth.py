"""The library programs against real torch (issue 22): no silently wrong shape, no false error, every
seeded bug on the line torch raises on and reported there.  The torchvision programs run by default;
timm and transformers are installed (pinned, no dependencies) into a cache folder by the slow test,
which is skipped when they cannot be installed (offline)."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tests.libraries.truth import PROGRAMS, Score, install, needs_site, score
from tests.realistic.harness import header

TORCHVISION = [p for p in PROGRAMS if not needs_site(p)]
HUB = [p for p in PROGRAMS if needs_site(p)]


@functools.cache
def _scored(path: Path) -> Score:
    if path in TORCHVISION:
        return _torchvision()[path.name]
    site = install()
    if site is None:
        pytest.skip("timm and transformers cannot be installed (offline)")
    return score([path], site)[path.name]


@functools.cache
def _torchvision() -> dict[str, Score]:
    return score(TORCHVISION)


def _assert_agrees(path: Path) -> None:
    s = _scored(path)
    detail = "\n".join(s.rows)
    assert s.misplaced == [], f"the program's marks disagree with torch: {s.misplaced}"
    assert s.wrong == 0, f"silently wrong shape:\n{detail}"
    assert s.false_errors == 0, f"false error:\n{detail}"
    miss = header(path, "known-miss")
    if miss is None:
        assert s.found == s.bugs, f"seeded bug not reported at the user's line:\n{detail}"
    elif s.bugs:
        assert s.found < s.bugs, f"known-miss is reported now ({miss}): remove the header"


@pytest.mark.parametrize("path", TORCHVISION, ids=lambda p: p.stem)
def test_torchvision_program_agrees_with_torch(path: Path) -> None:
    _assert_agrees(path)


@pytest.mark.slow
@pytest.mark.parametrize("path", HUB, ids=lambda p: p.stem)
def test_hub_program_agrees_with_torch(path: Path) -> None:
    _assert_agrees(path)
