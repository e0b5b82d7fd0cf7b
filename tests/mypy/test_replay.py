"""Which fine-grained target a shape error is reported in (the daemon re-checks targets with errors)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import build
from mypy.errors import ErrorInfo, Errors
from mypy.modulefinder import BuildSource
from mypy.options import Options
from tensorshape.model import codes
from tensorshape_mypy.errorcodes import error_code
from tensorshape_mypy.replay import Fresh, Replay, Unit, targets_of

pytestmark = pytest.mark.mypy

SOURCE = """\
import os
try:
    def a() -> int:
        def inner() -> None:
            pass
        return 1
except ImportError:
    pass
class C:
    x = 1
    def m(self) -> None:
        pass
    @property
    def p(self) -> int:
        return 2
if os.name:
    def b() -> None:
        pass
y = 3
"""


def test_each_line_is_in_the_target_mypy_gives_its_errors() -> None:
    options = Options()
    options.incremental = False
    options.preserve_asts = True
    result = build.build([BuildSource("m.py", "m", SOURCE)], options)
    target = targets_of(result.files["m"])
    got = [target(line) for line in range(1, SOURCE.count("\n") + 1)]
    # Nested functions are their enclosing function's target; class bodies and decorators the module's.
    assert got == ["m", "m"] + ["m.a"] * 4 + ["m"] * 4 + ["m.C.m"] * 2 + ["m", "m.C.p", "m.C.p", "m"] + ["m.b"] * 2 + [
        "m"
    ]


def _messages(errors: Errors, path: str) -> list[str]:
    return [f"{i.line}: {i.message} ({i.target})" for i in errors.error_info_map.get(path, [])]


def _never(path: str) -> Fresh:
    raise AssertionError(f"{path} analysed again, but no file it read changed")


def test_the_daemon_gets_back_what_a_re_check_without_calls_cleared() -> None:
    """mypy's own error collector, driven as the daemon drives it: a finding in a target where no hook
    fires rides with one where a hook fired, and comes back (once) when that target is cleared and
    re-checked; a `reveal_type` note recorded after that gets its shape without any later hook."""
    options = Options()
    errors = Errors(options)
    errors.set_file("m.py", "m", options)
    replay = Replay(_never)

    def unit(e: Errors) -> list[ErrorInfo]:
        return [e.report(1, 0, "bad config", error_code(codes.CONFIG_ERROR))]

    replay.checking("m.py", lambda: [(1, unit)])
    replay.signal(errors)  # the first hook in m (at its top level): reported before mypy looks for unused ignores
    early = replay.reported_early("m.py")
    assert early is not None and _messages(errors, "m.py") == ["1: bad config (m)"]
    # As if line 1 were in `m.g`, where no hook fired: it rides with `m`, where one did.
    replay.keep(errors, "m.py", [("m.g", unit, early[0][2])], [(5, 4, 0, ("b, 3",))], [])
    assert _messages(errors, "m.py") == ["1: bad config (m)"]

    errors.clear_errors_in_targets("m.py", {"m"})  # the daemon re-checks `m`
    assert _messages(errors, "m.py") == []
    replay.signal(errors)
    replay.signal(errors)
    assert _messages(errors, "m.py") == ["1: bad config (m)"]

    errors.reset()  # the next update
    errors.set_file("m.py", "m", options)
    replay.signal(errors)
    errors.report(5, 4, 'Revealed type is "torch._tensor.Tensor"', severity="note")
    assert _messages(errors, "m.py") == ["1: bad config (m)", '5: Revealed type is "torch._tensor.Tensor[b, 3]" (m)']
    errors.clear_errors_in_targets("m.py", {"m.other"})  # another target: nothing to report again
    replay.signal(errors)
    assert len(_messages(errors, "m.py")) == 2


def test_a_module_whose_read_files_changed_is_analysed_again(tmp_path: Path) -> None:
    """At the first hook of an update in a module whose analysis read a file that changed since, the
    module is analysed again: its new shape errors replace the old ones (a partial re-check shows the
    new analysis, not the last whole check); with nothing changed, it is not analysed again."""
    options = Options()
    errors = Errors(options)
    errors.set_file("m.py", "m", options)
    dep = tmp_path / "lib.py"
    dep.write_text("def f(n):\n    return n\n", encoding="utf-8")

    def finding(line: int, message: str) -> Unit:
        return lambda e: [e.report(line, 0, message, error_code(codes.SHAPE_MISMATCH))]

    analysed: list[str] = []

    def fresh(path: str) -> Fresh:
        analysed.append(path)
        return [(7, finding(7, "new"))], [str(dep)], []

    replay = Replay(fresh)
    replay.checking("m.py", lambda: [(3, finding(3, "old"))])
    replay.signal(errors)
    early = replay.reported_early("m.py")
    assert early is not None
    replay.keep(errors, "m.py", [("m", early[0][1], early[0][2])], [], [str(dep)])
    assert _messages(errors, "m.py") == ["3: old (m)"]

    errors.reset()  # an update that changed nothing the analysis read: the old error comes back
    errors.set_file("m.py", "m", options)
    replay.signal(errors)
    assert _messages(errors, "m.py") == ["3: old (m)"] and analysed == []

    dep.write_text("def f(n):\n    return n + 1\n", encoding="utf-8")
    errors.reset()  # the next update, after an edit of a file the analysis read
    errors.set_file("m.py", "m", options)
    replay.signal(errors)
    replay.signal(errors)
    assert analysed == ["m.py"]
    assert [m.split(" (")[0] for m in _messages(errors, "m.py")] == ["7: new"]

    errors.reset()  # and the new error is what the daemon gets back later
    errors.set_file("m.py", "m", options)
    replay.signal(errors)
    assert [m.split(" (")[0] for m in _messages(errors, "m.py")] == ["7: new"] and analysed == ["m.py"]
