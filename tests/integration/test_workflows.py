"""The repository's own GitHub workflows: CI runs .ci/run; a tag builds, checks and publishes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml
from tensorshape import __version__

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"


def _load(name: str) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_ci_runs_the_ci_entry_point() -> None:
    wf = _load("ci.yml")
    runs = [s.get("run") for job in wf["jobs"].values() for s in job["steps"]]
    assert "bash .ci/run" in runs


def test_release_builds_checks_and_publishes_with_trusted_publishing() -> None:
    wf = _load("release.yml")
    assert wf[True]["push"]["tags"] == ["v*"]  # YAML reads the key `on` as True
    build = [s.get("run", "") for s in wf["jobs"]["build"]["steps"]]
    assert "python -m build" in build and any("twine check" in r for r in build)
    publish = wf["jobs"]["publish"]
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert any(s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in publish["steps"])
    assert not any("password" in str(s.get("with", {})) for s in publish["steps"]), "trusted publishing, no token"


def test_release_refuses_a_tag_that_is_not_the_version() -> None:
    (check,) = [
        s["run"] for s in _load("release.yml")["jobs"]["build"]["steps"] if "GITHUB_REF_NAME" in s.get("run", "")
    ]
    for tag, ok in ((f"v{__version__}", True), ("v999.0.0", False)):
        env = dict(os.environ, GITHUB_REF_NAME=tag)
        proc = subprocess.run(["bash", "-e", "-c", check], cwd=ROOT, env=env, capture_output=True, text=True)
        assert (proc.returncode == 0) == ok, proc.stdout + proc.stderr
