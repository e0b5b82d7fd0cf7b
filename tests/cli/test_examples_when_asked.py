"""Where each counted cause was first met is found only when the report shows it (``--statistics``,
the JSON summary): a plain check skips that work, and a later JSON run with the same cache has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tensorshape.cli.main import main

SOURCE = "import torch\n\n\ndef f(x: torch.Tensor):\n    return x.frobnicate()\n"


def test_a_plain_check_then_a_json_one_with_the_same_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    cache = tmp_path / "cache"
    common = ["check", str(src), "--cache-dir", str(cache), "-j", "1", "--enable", "TS006"]
    main([*common, "--color", "never"])
    capsys.readouterr()
    main([*common, "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    ops = doc["summary"]["unmodelled_ops"]
    assert ops, doc["summary"]
    (entry,) = [v for k, v in ops.items() if "frobnicate" in k]
    assert entry["example"].endswith("m.py:5:12"), entry
    main([*common, "--color", "never", "--statistics"])
    assert "m.py:5:12" in capsys.readouterr().out
