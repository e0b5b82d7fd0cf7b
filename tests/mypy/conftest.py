"""Run mypy with the plugin in-process, sharing one cache per session.

A cold mypy run analyses torch (about 15 s here); later runs in the session
reuse the cache, so tests batch their files into few invocations.
"""

from __future__ import annotations

import pytest

pytest.importorskip("mypy")
pytest.importorskip("torch")

from tests.mypy.runner import Mypy  # noqa: E402


@pytest.fixture(scope="session")
def mypy_runner(tmp_path_factory: pytest.TempPathFactory) -> Mypy:
    return Mypy(tmp_path_factory.mktemp("mypy"))
