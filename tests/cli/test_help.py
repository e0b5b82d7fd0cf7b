"""The command line reads right: ``--help`` without raw markup, help for every option,
``python -m tensorshape``, one version everywhere."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from tensorshape import __version__
from tensorshape.cli.main import build_parser

from tests.expectations import ROOT


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def test_help_has_no_raw_markup_and_every_option_has_help() -> None:
    parser = build_parser()
    subs = _subparsers(parser)
    assert {"check", "codes", "shapefn", "instrument", "lsp", "merge-reports"} <= set(subs)
    for name, p in [("", parser), *subs.items()]:
        text = p.format_help()
        assert "``" not in text and ":class:" not in text, (name, text)
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"tensorshape {name}: {action.option_strings or action.dest} has no help"


def test_python_dash_m_and_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tensorshape", "--version"], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert proc.stdout.strip() == f"tensorshape {__version__}"
    proc = subprocess.run([sys.executable, "-m", "tensorshape", "check", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: tensorshape check")


def test_version_is_written_in_one_place() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and not re.search(r"^version\s*=", pyproject, re.M)
    init = (ROOT / "checker" / "tensorshape" / "__init__.py").read_text(encoding="utf-8")
    assert re.search(rf'^__version__ = "{re.escape(__version__)}"$', init, re.M)
