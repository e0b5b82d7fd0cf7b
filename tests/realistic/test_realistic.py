"""Realistic programs and seeded bugs, checked against torch (see ``harness.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import BUGS, PROGRAMS, assert_seeded_bug_reported, check, header, probes, truth

pytestmark = pytest.mark.torch

pytest.importorskip("torch")


def _id(p: Path) -> str:
    return p.stem


@pytest.mark.parametrize("path", PROGRAMS, ids=_id)
def test_program_runs_and_checks_clean(path: Path) -> None:
    t = truth(path)
    assert t["raised"] is None, f"the program itself fails under torch: {t['raised']}"
    static = check(path)
    reason = header(path, "known-false-error")
    if reason:
        pytest.xfail(reason) if static.errors else pytest.fail(f"no false error any more: drop the header ({reason})")
    assert not static.errors, f"false errors on a correct program: {sorted(static.errors)}"


@pytest.mark.parametrize("path", PROGRAMS + BUGS, ids=_id)
def test_no_shape_is_silently_wrong(path: Path) -> None:
    wrong = [p for p in probes(path, check(path)) if p.verdict == "wrong"]
    assert not wrong, [(p.line, p.static, p.actual[:3]) for p in wrong]


@pytest.mark.parametrize("path", PROGRAMS, ids=_id)
def test_exact_shapes_do_not_regress(path: Path) -> None:
    """``# exact-at-least: N`` in a program is a ratchet: the probes the checker gets exactly."""
    floor = header(path, "exact-at-least")
    assert floor is not None, "every program states how many of its probes are exact (# exact-at-least: N)"
    exact = sum(p.verdict == "exact" for p in probes(path, check(path)))
    assert exact >= int(floor), f"{exact} exact probes, expected at least {floor}"


@pytest.mark.parametrize("path", BUGS, ids=_id)
def test_bug_is_real_and_reported_on_its_line(path: Path) -> None:
    static = check(path)
    line, code = assert_seeded_bug_reported(path, truth(path)["raised"], static.errors, static.warnings)
    others = static.errors - {(line, code)}
    assert not others, f"other errors too: {sorted(others)}"


def test_option_defaults_evaluate_expressions_the_probe_does_not_bind(tmp_path: Path) -> None:
    """``2*width`` is scored with the program's ``--width`` default (torch ran it without arguments):
    exact when it evaluates to torch's size, wrong when it does not, partial for a name with no default."""
    from .harness import argparse_defaults, classify

    program = tmp_path / "prog.py"
    program.write_text(
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--width', type=int, default=8)\n"
        "parser.add_argument('--hidden-dim', dest='hidden', type=int, default=48)\n"
        "parser.add_argument('--lr', type=float, default=0.1)\n"
        "parser.add_argument('--bias', type=bool, default=True)\n",
        encoding="utf-8",
    )
    defaults = argparse_defaults(program)
    assert defaults == {"width": 8, "hidden": 48}
    assert classify("[batch_size 2*width 16 16]", [4, 16, 16, 16], defaults) == "exact"
    assert classify("[batch_size 2*width 16 16]", [4, 32, 16, 16], defaults) == "wrong"
    assert classify("[batch_size 2*depth]", [4, 16], defaults) == "partial"
    assert classify("[batch_size 2*width]", [4, 16]) == "partial"
    # A name the probe binds wins over the default: "width" is what torch saw in this probe.
    assert classify("[width 2*width]", [5, 10], defaults) == "exact"
