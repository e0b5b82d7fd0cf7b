"""The generator of the seeded bugs (``seeded.py``): a bug that no longer fits its program fails loudly."""

from __future__ import annotations

from typing import Any

import pytest

from .seeded import BugSpecError, render, specs

PROGRAM = '''# exact-at-least: 2
"""A program."""
import torch


def forward(x):
    y = x.view(-1, 4)  # flatten
    return y


def other(x):
    y = x.view(-1, 4)  # flatten
    return y
'''


def _spec(**over: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "program": "p",
        "bug": "views with the wrong width.",
        "raises": "y = x.view(-1, 5)",
        "code": "TS101",
        "replace": [{"old": "def forward(x):\n    y = x.view(-1, 4)  # flatten", "new": "def forward(x):\n    y = x.view(-1, 5)"}],
    }
    spec.update(over)
    return spec


def test_renders_the_patched_program_with_its_marker_and_headers() -> None:
    out = render("b", _spec(**{"known-miss": "not yet"}), PROGRAM)
    assert out.splitlines()[:4] == ["# known-miss: not yet", '"""Bug: views with the wrong width.', "", 'A program."""']
    assert "    y = x.view(-1, 5)  # E: TS101\n" in out  # the indentation kept
    assert out.count("y = x.view(-1, 4)  # flatten") == 1  # the other function is untouched
    assert "exact-at-least" not in out


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"replace": [{"old": "y = x.view(-1, 3)", "new": "y = 1"}]}, "not found"),
        ({"replace": [{"old": "y = x.view(-1, 4)  # flatten", "new": "y = 1"}]}, "found 2 times"),
        ({"raises": "return y"}, "found 2 times"),
        ({"replace": []}, "no [[b.replace]] edit"),
    ],
)
def test_a_line_not_found_exactly_once_fails_naming_the_bug(over: dict[str, Any], message: str) -> None:
    with pytest.raises(BugSpecError, match=rf"bug 'b'.*{message}".replace("[", r"\[")):
        render("b", _spec(**over), PROGRAM)


def test_every_bug_names_an_existing_program_and_the_known_fields() -> None:
    fields = {"program", "bug", "raises", "code", "replace", "known-miss"}
    for name, spec in specs().items():
        assert set(spec) <= fields, (name, set(spec) - fields)
        assert {"program", "bug", "raises", "code", "replace"} <= set(spec), name
