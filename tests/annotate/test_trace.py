"""The tracer itself, on every interpreter found: ``sys.setprofile`` below 3.12, ``sys.monitoring`` on 3.12+.

torch is only installed for the interpreter running the tests, so the traced program uses a tiny
``torch`` module of its own whose ``Tensor`` has a ``shape`` and a ``dtype``: the tracer recognises a
tensor by its type's module and name, and never imports torch.  What runs is what a user's command
runs: the ``sitecustomize`` hook from :func:`traced_env` starts the tracer in the program and in a
Python subprocess it starts, first calls are sampled whatever their shapes, later ones only when
their shapes are new, and a function seen with too many distinct shapes is switched off.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from tensorshape.annotate.propose import load_trace
from tensorshape.annotate.trace import CALLERS, DISTINCT
from tensorshape.cli.annotate_cmd import traced_env

FAKE_TORCH = """
class Tensor:
    def __init__(self, *shape, dtype="torch.float32"):
        self.shape = tuple(shape)
        self.dtype = dtype
"""

FAKE_LIB = """
def call(f, *args):
    return f(*args)
"""

PROGRAM = """
import os
import subprocess
import sys

from lib import call  # a library's frame between two of the project's (nn.Module.__call__)
from torch import Tensor


def double(x):
    return Tensor(x.shape[0], 2 * x.shape[1])


def count(mask):
    return Tensor(mask.shape[0], dtype="torch.int64")


class Model:
    def forward(self, x, n):
        return Tensor(*x.shape[:-1], n)


class Attn:
    def __init__(self, query_dim, context_dim=None, heads=2):
        context_dim = context_dim or query_dim  # the value kept is the one at return
        self.heads = heads

    def forward(self, x, context):
        return Tensor(*x.shape)


class Wide(Attn):
    def __init__(self, dim):
        super().__init__(dim, 2 * dim)


def gather(values, indices):
    return Tensor(*indices.shape, values.shape[-1])


class Net:
    def forward(self, feats):
        idx = Tensor(feats.shape[0], 8, dtype="torch.int64")
        return (lambda: call(gather, feats, idx))()  # through a lambda and a library-like frame


def in_child(x):
    return x


def pad(x):
    return Tensor(*x.shape)


class Enc:
    def forward(self, x):
        return pad(x)


def other(x):
    return pad(x)


def far(x):
    return Tensor(*x.shape)


class Branchy:
    far = False

    def forward(self, x):
        return far(x) if self.far else x


def shared(x):
    return x


def via_0(x):
    return shared(x)


def via_1(x):
    return shared(x)


def via_2(x):
    return shared(x)


def via_3(x):
    return shared(x)


def via_4(x):
    return shared(x)


def via_5(x):
    return shared(x)


def via_6(x):
    return shared(x)


def via_7(x):
    return shared(x)


def via_8(x):
    return shared(x)


def via_9(x):
    return shared(x)


def via_10(x):
    return shared(x)



def main(child):
    if child:
        double(Tensor(9, 9))  # traced in the subprocess too
        return
    for _ in range(40):
        double(Tensor(3, 4))  # the same shapes: two samples, then nothing more
    for b in range(1, 6):
        double(Tensor(b, 5))  # new shapes after the samples: each recorded
    count(Tensor(3, 4, dtype="torch.bool"))
    m = Model()
    for i in range(100):
        m.forward(Tensor(i + 1, 3), 7)  # a new shape every call: switched off at the bound
    for qd, cd in ((4, None), (4, 6), (4, 6)):
        a = Attn(qd, cd)
        for _ in range(5):
            a.forward(Tensor(2, 3, qd), Tensor(2, 5, 4))  # the same shapes, three instances
    Wide(3).forward(Tensor(1, 3), Tensor(1, 6))
    Net().forward(Tensor(5, 4))
    gather(Tensor(2, 3), Tensor(2, 8))  # from main: its tensors are none of main's arguments
    e = Enc()
    for _ in range(5):
        e.forward(Tensor(2, 6))  # pad: two samples, both from Enc.forward
    other(Tensor(2, 6))  # pad's shapes were seen, but not from other: recorded once, for its caller
    other(Tensor(2, 6))  # ... and not again
    b = Branchy()
    for _ in range(4):
        b.forward(Tensor(3, 7))  # two samples, then not recorded
    b.far = True
    b.forward(Tensor(3, 7))  # not a sample, until far needs it as its caller: then recorded
    for via in (via_0, via_1, via_2, via_3, via_4, via_5, via_6, via_7, via_8, via_9, via_10):
        via(Tensor(4, 4))  # shared: one call per caller, up to CALLERS callers
    pid = os.fork()
    if pid == 0:  # a DataLoader worker's way: fork, then os._exit (no atexit)
        in_child(Tensor(11, 1))
        os._exit(0)
    os.waitpid(pid, 0)
    subprocess.run([sys.executable, __file__, "child"], check=True)


main(len(sys.argv) > 1)
"""


def _interpreters() -> list[str]:
    """This interpreter, and any Python 3.12+ found on PATH or under pyenv (for ``sys.monitoring``)."""
    found = {sys.executable}
    names = [f"python3.{minor}" for minor in range(12, 16)]
    found |= {p for p in (shutil.which(n) for n in names) if p}
    found |= set(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")))
    out: dict[str, str] = {}
    for exe in sorted(found):
        try:
            v = subprocess.run(
                [exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if v and v not in out and (exe == sys.executable or tuple(map(int, v.split("."))) >= (3, 12)):
            out[v] = exe
    return [out[v] for v in sorted(out)]


def _version(exe: str) -> str:
    return subprocess.run(
        [exe, "-c", "import sys; print(sys.version_info[:2] >= (3, 12))"], capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module", params=_interpreters())
def traced(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, list[dict[str, object]]]:
    exe = str(request.param)
    tmp = tmp_path_factory.mktemp("trace")
    fake = tmp / "fake"
    fake.mkdir()
    (fake / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    (fake / "lib.py").write_text(FAKE_LIB, encoding="utf-8")
    project = tmp / "project"
    project.mkdir()
    (project / "app.py").write_text(PROGRAM, encoding="utf-8")
    out = tmp / "trace.jsonl"
    hook = tmp / "hook"
    hook.mkdir()
    env = traced_env(str(hook), str(out), str(project), [str(fake)], 2)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(fake)])
    run = subprocess.run([exe, "app.py"], cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "tracing not started" not in run.stderr, run.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return exe, records


def _calls(records: list[dict[str, object]], qualname: str) -> list[dict[str, object]]:
    return [r for r in records if r["qualname"] == qualname]


def test_first_calls_are_samples_then_only_new_shapes(traced: tuple[str, list[dict[str, object]]]) -> None:
    exe, records = traced
    shapes = [r["args"]["x"]["shape"] for r in _calls(records, "double")]  # type: ignore[index]
    # 2 samples of (3, 4), the 5 new shapes, and the subprocess's own call
    assert sorted(shapes) == sorted([[3, 4], [3, 4], [1, 5], [2, 5], [3, 5], [4, 5], [5, 5], [9, 9]]), exe
    results = [r["result"]["shape"] for r in _calls(records, "double")]  # type: ignore[index]
    assert [9, 18] in results


def test_a_function_with_ever_new_shapes_is_switched_off_at_the_bound(
    traced: tuple[str, list[dict[str, object]]],
) -> None:
    exe, records = traced
    calls = _calls(records, "Model.forward")
    assert len(calls) == 2 * DISTINCT, exe
    assert [bool(r.get("saturated")) for r in calls].count(True) == 1
    assert calls[0]["args"] == {"x": {"shape": [1, 3], "dtype": "float32"}, "n": {"int": 7}}
    trace = load_trace(json.dumps(r) for r in records)
    assert any(q == "Model.forward" for _, q in trace.saturated)


def test_a_method_call_carries_the_constructor_arguments_of_self(
    traced: tuple[str, list[dict[str, object]]],
) -> None:
    """Two samples of the first instance, one call of the second (built differently, though the shapes
    are the same), none of the third (built like the second), and a subclass's merged arguments."""
    exe, records = traced
    inits = [r.get("init") for r in _calls(records, "Attn.forward")]
    first = {"query_dim": 4, "context_dim": 4, "heads": 2}
    assert inits == [
        first,
        first,
        {**first, "context_dim": 6},
        {"query_dim": 3, "context_dim": 6, "heads": 2, "dim": 3},
    ], exe
    assert all("init" not in r for r in _calls(records, "double"))


def test_dtypes_are_recorded(traced: tuple[str, list[dict[str, object]]]) -> None:
    _, records = traced
    (call,) = _calls(records, "count")
    assert call["args"] == {"mask": {"shape": [3, 4], "dtype": "bool"}}
    assert call["result"] == {"shape": [3], "dtype": "int64"}


def test_the_tracing_mechanism_matches_the_interpreter(traced: tuple[str, list[dict[str, object]]]) -> None:
    """The 3.12+ interpreters take the ``sys.monitoring`` path (the module says which it started)."""
    exe, _ = traced
    probe = (
        "import sys, _tensorshape_trace as t; "
        "print(t._active is not None, sys.version_info >= (3, 12) and "
        "sys.monitoring.get_tool(sys.monitoring.PROFILER_ID) == 'tensorshape-annotate')"
    )
    with tempfile.TemporaryDirectory() as h:
        env = traced_env(h, os.devnull, h, [], 2)
        out = subprocess.run([exe, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    started, monitoring = out.stdout.split()
    assert started == "True"
    assert monitoring == ("True" if "True" in _version(exe) else "False")


def test_a_call_names_the_recorded_call_of_the_project_it_was_made_from(
    traced: tuple[str, list[dict[str, object]]],
) -> None:
    """``gather`` from ``Net.forward`` (through a lambda and a library's frame): its parent is that
    call, and ``values`` is the caller's own ``feats``; from ``main``, a parent and nothing the same."""
    exe, records = traced
    by_id = {r["id"]: r for r in records}
    assert len(by_id) == len(records), exe
    first, second = _calls(records, "gather")
    assert by_id[first["parent"]]["qualname"] == "Net.forward"
    assert first["same"] == {"values": "feats"}
    assert by_id[second["parent"]]["qualname"] == "main"
    assert "same" not in second
    (net,) = _calls(records, "Net.forward")
    assert by_id[net["parent"]]["qualname"] == "main"
    assert "parent" not in _calls(records, "main")[0]  # the program's own top
    trace = load_trace(json.dumps(r) for r in records)
    path, qualname, call = trace.by_id[str(first["parent"])]
    assert qualname == "Net.forward" and call["feats"]["shape"] == [5, 4]
    assert trace.callers_of(path, "gather")[0] == [(first["parent"], {"values": "feats"})]


def test_a_call_from_a_caller_not_seen_is_recorded_once_and_a_caller_not_recorded_is_recorded_late(
    traced: tuple[str, list[dict[str, object]]],
) -> None:
    """A call whose shapes were seen is recorded anyway when its caller is a function not seen
    calling it (one call per caller, up to ``CALLERS``); a call of the project that was not
    recorded (its shapes were seen) is recorded when a callee needs it as its caller."""
    exe, records = traced
    by_id = {r["id"]: r for r in records}
    pads = _calls(records, "pad")
    assert [by_id[r["parent"]]["qualname"] for r in pads] == ["Enc.forward", "Enc.forward", "other"], exe
    assert [r["same"] for r in pads] == [{"x": "x"}] * 3
    assert len(_calls(records, "other")) == 2  # its two samples, each recorded once
    (reached,) = _calls(records, "far")
    late = by_id[reached["parent"]]
    assert late["qualname"] == "Branchy.forward" and reached["same"] == {"x": "x"}
    assert late["args"] == {"x": {"shape": [3, 7], "dtype": "float32"}} and late["result"] == late["args"]["x"]
    assert by_id[late["parent"]]["qualname"] == "main"
    assert len(_calls(records, "Branchy.forward")) == 3  # two samples and the late one
    shared = _calls(records, "shared")
    assert len(shared) == CALLERS  # bounded: the last callers' calls are not recorded
    assert [by_id[r["parent"]]["qualname"] for r in shared] == [f"via_{i}" for i in range(CALLERS)]
    assert len(_calls(records, "via_10")) == 1  # its own first call, a sample all the same


def test_a_forked_child_writes_its_own_records_and_not_its_parents(
    traced: tuple[str, list[dict[str, object]]],
) -> None:
    exe, records = traced
    (child,) = _calls(records, "in_child")
    assert child["args"]["x"]["shape"] == [11, 1]  # type: ignore[index]
    assert str(child["id"]).split(":")[0] != str(_calls(records, "main")[0]["id"]).split(":")[0]
    assert len(_calls(records, "count")) == 1, exe  # recorded before the fork, written once
