"""Issue 16 item 1: a problem found only with the program's own sizes is reported at the line torch
raises on, with the calls that led there (outermost first) as related locations: JSON and SARIF
carry them, text shows them as notes, and mypy (through the plugin) as notes too."""

from __future__ import annotations

import json
import runpy
import textwrap
from pathlib import Path

import pytest
from tensorshape.infer import check_file
from tensorshape.infer.analyzer import CALL_CHAIN
from tensorshape.report.jsonfmt import render_json
from tensorshape.report.sarif import render_sarif
from tensorshape.report.text import render_diagnostic

PROGRAM = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d_in, d_hidden):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_in, 10)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h)


def train(model, data):
    return model(data)


def main():
    model = Net(32, 64)
    x = torch.randn(8, 32)
    out = train(model, x)
    print(out.shape)


if __name__ == "__main__":
    main()
"""


def _write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def _chain(d: object) -> list[tuple[int, str]]:
    return [(r.span.line, r.message) for r in d.related if r.message.startswith(CALL_CHAIN)]  # type: ignore[attr-defined]


def test_the_error_is_at_the_raising_line_with_the_chain_from_the_entry_point(tmp_path: Path) -> None:
    path = _write(tmp_path, PROGRAM)
    with pytest.raises(RuntimeError, match="mat1 and mat2"):  # torch raises in forward, at fc2
        runpy.run_path(str(path), run_name="__main__")
    (d,) = check_file(path).diagnostics
    assert (d.span.line, d.code.id) == (13, "TS101")
    assert _chain(d) == [
        (28, f"{CALL_CHAIN}`main` here"),
        (23, f"{CALL_CHAIN}`train` here"),
        (17, f"{CALL_CHAIN}`forward` here"),
    ]
    text = render_diagnostic(d, None)
    assert f"  = note: {path}:28:5: {CALL_CHAIN}`main` here" in text.replace(str(path.resolve()), str(path))


def test_json_and_sarif_carry_the_chain_as_related_locations(tmp_path: Path) -> None:
    path = _write(tmp_path, PROGRAM)
    result = check_file(path)
    data = json.loads(render_json([result]))
    (d,) = data["diagnostics"]
    assert [(r["line"], r["column"]) for r in d["related"]] == [(28, 5), (23, 11), (17, 12)]
    sarif = json.loads(render_sarif([result]))
    (res,) = sarif["runs"][0]["results"]
    lines = [loc["physicalLocation"]["region"]["startLine"] for loc in res["relatedLocations"]]
    assert lines == [28, 23, 17]


def test_a_problem_the_generic_analysis_finds_has_no_chain(tmp_path: Path) -> None:
    # fc2 takes 5 features whatever the sizes: the generic analysis of forward reports it alone.
    source = PROGRAM.replace("nn.Linear(d_in, 10)", "nn.Linear(5, 10)").replace(
        "nn.Linear(d_in, d_hidden)", "nn.Linear(d_in, 7)"
    )
    path = _write(tmp_path, source)
    (d,) = check_file(path).diagnostics
    assert (d.span.line, d.code.id) == (13, "TS101")
    assert _chain(d) == []


def test_a_chain_through_a_loop_over_a_loader(tmp_path: Path) -> None:
    source = """\
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    class Head(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.proj = nn.Linear(width, width)
            self.out = nn.Linear(width * 2, 3)

        def forward(self, x):
            return self.out(self.proj(x))


    def evaluate(model, loader):
        for (x,) in loader:
            model(x)


    if __name__ == "__main__":
        ds = TensorDataset(torch.randn(20, 16))
        evaluate(Head(16), DataLoader(ds, batch_size=4))
    """
    path = _write(tmp_path, source)
    with pytest.raises(RuntimeError):
        runpy.run_path(str(path), run_name="__main__")
    (d,) = check_file(path).diagnostics
    assert (d.span.line, d.code.id) == (13, "TS101")
    assert [line for line, _ in _chain(d)] == [23, 18]
