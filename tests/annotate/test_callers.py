"""A helper's sizes named after its caller's dims (generalisation rule 7), from a trace whose records
name their callers: in one module, across modules (the CLI does a module again once its callers'
module is done), and through the same tensor object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tensorshape.annotate.propose import annotate_from_trace, load_trace


def t(*shape: int, dtype: str = "float32") -> dict[str, Any]:
    return {"shape": list(shape), "dtype": dtype}


def rec(path: Path, qual: str, rid: str, args: dict[str, Any], result: Any, **link: Any) -> str:
    r = {"file": str(path.resolve()), "qualname": qual, "line": 1, "args": args, "result": result, "id": rid}
    return json.dumps({**r, **link})


MODEL = """\
from helpers import pick


class EGNN:
    def forward(self, feats, coors):
        idx = coors.topk(8)
        return pick(feats, idx)
"""

HELPERS = """\
def pick(values, indices):
    return values.gather(1, indices)
"""


def _records(model: Path, helpers: Path) -> list[str]:
    """egnn-pytorch's shape of run: the model at 16 and 256 points, the helper reached at 256 only."""
    out = []
    for i, n in enumerate((16, 256, 256)):
        fid = f"7:{10 + i}"
        if n == 256:
            out.append(
                rec(
                    helpers,
                    "pick",
                    f"7:{20 + i}",
                    {"values": t(1, n, 512), "indices": t(1, n, 8, dtype="int64")},
                    t(1, n, 8, 512),
                    parent=fid,
                    same={"values": "feats"},
                )
            )
        out.append(rec(model, "EGNN.forward", fid, {"feats": t(1, n, 512), "coors": t(1, n, 3)}, t(1, n, 8, 512)))
    return out


def test_a_helper_in_the_same_module_takes_its_callers_names(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text(MODEL + "\n\n" + HELPERS, encoding="utf-8")
    trace = load_trace(_records(model, model))
    r = annotate_from_trace(model.read_text(encoding="utf-8"), str(model), trace)
    written = {(q, s): a for q, s, a in r.written}
    assert written[("EGNN.forward", "feats")] == 'Float[Tensor, "1 n 512"]'
    assert written[("pick", "values")] == 'Float[Tensor, "1 n 512"]'
    assert written[("pick", "indices")] == 'Int[Tensor, "1 n 8"]'
    assert written[("pick", "return")] == 'Float[Tensor, "1 n 8 512"]'
    assert any("pick: values: 256 named n, after EGNN.forward" in m for m in r.messages)


def test_without_the_callers_the_module_names_one_observation_else_literals(tmp_path: Path) -> None:
    """An older trace (no callers): in the caller's module, the helper's one observation takes the
    dim the module's 256 varied under (rule 8); alone in its module, the literals of the run."""
    model, helpers = tmp_path / "model.py", tmp_path / "helpers.py"
    model.write_text(MODEL + "\n\n" + HELPERS, encoding="utf-8")
    helpers.write_text(HELPERS, encoding="utf-8")
    for path, want in ((model, "1 n 8"), (helpers, "1 256 8")):
        bare = [
            {k: v for k, v in json.loads(line).items() if k not in ("parent", "same")} for line in _records(model, path)
        ]
        trace = load_trace(json.dumps(x) for x in bare)
        r = annotate_from_trace(path.read_text(encoding="utf-8"), str(path), trace)
        assert ("pick", "indices", f'Int[Tensor, "{want}"]') in r.written
        named = any("256 named n, after the module, where it varies" in m for m in r.messages)
        assert named == (path == model)


def test_a_caller_in_another_module_is_waited_for(tmp_path: Path) -> None:
    """``helpers.py`` sorts before ``model.py``: the CLI does it again once the model is done."""
    model, helpers = tmp_path / "model.py", tmp_path / "helpers.py"
    model.write_text(MODEL, encoding="utf-8")
    helpers.write_text(HELPERS, encoding="utf-8")
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(line + "\n" for line in _records(model, helpers)), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "tensorshape", "annotate", "--from-trace", str(trace), "--write"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    text = helpers.read_text(encoding="utf-8")
    assert 'def pick(values: Float[Tensor, "1 n 512"], indices: Int[Tensor, "1 n 8"])' in text, text
    assert "pick: values: 256 named n, after EGNN.forward" in run.stderr
    assert run.stderr.count("helpers.py:1:1: note: pick: values: 256") == 1  # said once, not once a pass
