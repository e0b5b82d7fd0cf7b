"""``self.training``: a module built by the program is in training mode until ``.eval()`` (or
``.train(False)``) is called on it or on a parent, and its ``forward`` is analysed in the mode the
code uses; where the mode is not known both branches are joined.  Torch is the judge of each shape.
"""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

from tests.realistic.harness import classify

PROGRAM = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 4)
        self.cache = [torch.empty(0) for _ in range(2)]

    def forward(self, x):
        y = self.proj(x)
        if not self.training:
            self.cache[0] = y.sum(0, keepdim=True)
            y = y + self.cache[0]
        return y if self.training else (y.mean(0), y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head(8)

    def forward(self, x):
        return self.head(x)


def main():
    x = torch.randn(5, 8)
    net = Net()
    out = net(x)
    reveal_shape(out)
    net.eval()
    pooled, full = net(x)
    reveal_shape(pooled)
    net.train()
    reveal_shape(net(x))
    head = Head(8).train(False)
    reveal_shape(head(x)[0])


main()
"""


def _reveals(source: str) -> dict[int, str]:
    result = check_source(source)
    assert result.errors == []
    return {d.span.line: d.message.split("revealed shape: ", 1)[1] for d in result.diagnostics if d.code.id == "TS900"}


def test_forward_is_analysed_in_the_mode_the_program_sets() -> None:
    torch = pytest.importorskip("torch")
    ns: dict[str, object] = {"reveal_shape": lambda t: None}
    exec(compile(PROGRAM.replace("main()\n", ""), "<program>", "exec"), ns)
    net, head, x = ns["Net"](), ns["Head"](8), torch.randn(5, 8)  # type: ignore[operator]
    assert net(x).shape == (5, 4)
    net.eval()
    assert net(x)[0].shape == (4,)
    net.train()
    assert net(x).shape == (5, 4)
    assert head.train(False)(x)[0].shape == (4,)
    reveals = _reveals(PROGRAM)
    assert reveals[32] == "[5 4]"
    assert reveals[35] == "[4]"
    assert reveals[37] == "[5 4]"
    assert reveals[39] == "[4]"


GENERIC = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x: torch.Tensor):
        return x if self.training else x.mean(0)


def use(head: Head, x):
    return head(x)
"""


def test_an_unknown_mode_joins_both_branches_without_error() -> None:
    assert check_source(GENERIC).errors == []


def _views(source: str) -> dict[int, list[str]]:
    """Every view each ``reveal_shape`` line shows (its generic one and its callers')."""
    result = check_source(source)
    assert result.errors == []
    out: dict[int, list[str]] = {}
    for d in result.diagnostics:
        if d.code.id == "TS900":
            shown = d.message.split("revealed shape: ", 1)[1].split(" (with")[0]
            out.setdefault(d.span.line, []).extend(shown.split("; "))
    return out


def _torch_reveals(source: str) -> dict[int, list[list[int]]]:
    """What torch gives each ``reveal_shape`` line (by line), running the program."""
    import inspect

    seen: dict[int, list[list[int]]] = {}

    def reveal(t: object) -> None:
        frame = inspect.currentframe()
        assert frame is not None and frame.f_back is not None
        shape = list(t.shape)
        row = seen.setdefault(frame.f_back.f_lineno, [])
        if shape not in row:
            row.append(shape)

    exec(compile(source, "<program>", "exec"), {"reveal_shape": reveal, "__name__": "__main__"})
    return seen


def _judge(source: str, *, exact: dict[int, str] | None = None) -> dict[int, list[str]]:
    """Every view fits some shape torch gave its line (none silently wrong); ``exact``: lines whose
    every view is that one."""
    pytest.importorskip("torch")
    truth = _torch_reveals(source)
    views = _views(source)
    assert set(views) == set(truth)
    for line, shown in views.items():
        for v in shown:
            assert any(classify(v, actual) != "wrong" for actual in truth[line]), (line, v, truth[line])
    for line, want in (exact or {}).items():
        assert views[line] == [want], (line, views[line])
    return views


PARAMETER = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 4)

    def forward(self, x):
        y = self.proj(x)
        return y if self.training else y.mean(0)


@torch.no_grad()
def predict(model, x):
    model.eval()
    out = model(x)
    reveal_shape(out)
    return out


def main():
    model = Head(8)
    x = torch.randn(5, 8)
    reveal_shape(model(x))
    predict(model, x)
    after = model(x)
    reveal_shape(after)
    model.train()
    reveal_shape(model(x))


main()
"""


def test_eval_on_a_parameter_runs_the_call_in_eval_mode_and_leaves_the_caller_unsure() -> None:
    """``predict(model, x)`` calls ``model.eval()`` on its parameter (as the char-LSTM's ``sample``
    does): its body runs in eval mode; after it the caller's ``model`` is in eval mode too, which the
    caller does not see, so its mode is unknown there (both branches, joined) until ``model.train()``."""
    views = _judge(PARAMETER, exact={26: "[5 4]", 31: "[5 4]"})
    assert "[4]" in views[19]
    assert views[29] != ["[5 4]"]  # torch gives [4]: the caller's mode is not the one it built


UNKNOWN_MODE = """\
import sys

import torch
from torch import nn


class Pool(nn.Module):
    def forward(self, x):
        return x if self.training else x[:1]


def main():
    x = torch.randn(5, 4)
    pool = Pool()
    pool.train(len(sys.argv) > 5)
    reveal_shape(pool(x))
    pool.train(False)
    reveal_shape(pool(x))
    pool.train(mode=True)
    reveal_shape(pool(x))


main()
"""


def test_train_with_a_mode_not_known_joins_both_branches() -> None:
    views = _judge(UNKNOWN_MODE, exact={18: "[1 4]", 20: "[5 4]"})
    assert views[16] != ["[1 4]"] and views[16] != ["[5 4]"]


PARTS = """\
import torch
from torch import nn


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 6)

    def forward(self, x):
        y = self.lin(x)
        if self.training:
            return y
        return y.unsqueeze(0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Branchy()
        self.drop = nn.Dropout(0.5)
        self.norm = nn.BatchNorm1d(6)

    def forward(self, x):
        return self.drop(self.norm(self.inner(x)[0] if not self.training else self.inner(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])

    def forward(self, x):
        return [b(x) for b in self.blocks]


def main():
    net = Net()
    x = torch.randn(3, 4)
    first = net.blocks[0]
    reveal_shape(net(x)[0])
    reveal_shape(first.inner(x))
    net.eval()
    reveal_shape(net(x)[1])
    reveal_shape(first.inner(x))
    for epoch in range(3):
        net.train()
        reveal_shape(net(x)[0])
        net.eval()
        reveal_shape(net(x)[0])
    reveal_shape(net(x)[1])


main()
"""


def test_submodules_follow_their_parent_and_dropout_and_batchnorm_keep_shapes() -> None:
    """``net.eval()`` reaches modules inside a ``ModuleList``, and a part held in another variable
    (``first = net.blocks[0]``) is the same module: in eval mode too.  Dropout and BatchNorm keep
    their shapes in both modes; a loop that switches modes settles."""
    _judge(
        PARTS,
        exact={
            41: "[3 6]",
            42: "[3 6]",
            44: "[3 6]",
            45: "[1 3 6]",
            48: "[3 6]",
            50: "[3 6]",
            51: "[3 6]",
        },
    )
    stats = check_source(PARTS).stats
    assert stats.get("loop-bound", 0) == 0
    assert stats.get("mode-unknown", 0) == 0


HELD = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x):
        return x if self.training else x.sum(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.kept = Head()
        self.blocks = nn.ModuleList([Head()])
        self.pair = (Head(), Head())
        self.table = {"a": Head()}


def main():
    net = Net()
    net.eval()
    x = torch.randn(3, 6)
    reveal_shape(net.kept(x))
    reveal_shape(net.blocks[0](x))
    reveal_shape(net.pair[0](x))
    reveal_shape(net.table["a"](x))


main()
"""


def test_eval_reaches_registered_submodules_only() -> None:
    """``net.eval()`` sets the mode of the modules ``net.children()`` walks (an attribute, a
    ``ModuleList``'s items), not of modules in a tuple or a dict an attribute holds: torch does not
    register those, and they stay in training mode (``[3 6]``, not ``[6]``)."""
    _judge(HELD, exact={23: "[6]", 24: "[6]", 25: "[3 6]", 26: "[3 6]"})


GLOBAL_MODEL = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x):
        return x if self.training else x.sum(0)


model = Head()


def predict():
    out = model(torch.randn(5, 4))
    reveal_shape(out)
    return out


model.eval()
predict()
model.train()
"""


def test_a_global_module_read_in_a_function_has_an_unknown_mode() -> None:
    """The module's run leaves ``model`` in training mode, but ``predict`` ran in eval mode: a
    function reading a global module does not know which mode the program left it in when it runs."""
    views = _judge(GLOBAL_MODEL)
    assert "[5 4]" not in views[15]


def test_statistics_count_training_reads_whose_mode_stays_unknown() -> None:
    assert check_source(GENERIC).stats.get("mode-unknown") == 1
    assert check_source(PROGRAM).stats.get("mode-unknown", 0) == 0


TRAINER = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x):
        return x if self.training else x.sum(0)


class Trainer:
    def __init__(self, model):
        self.model = model

    def predict(self, x):
        return self.model(x)


def main():
    model = Head()
    model.eval()
    trainer = Trainer(model)
    reveal_shape(trainer.predict(torch.randn(5, 4)))


main()
"""


def test_an_object_built_around_a_module_keeps_its_mode() -> None:
    """Building a plain object (a trainer) does not put the module it holds back in training mode."""
    _judge(TRAINER, exact={22: "[4]"})


SEQUENTIAL = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x):
        return x if self.training else x.sum(0)


def main():
    model = nn.Sequential(nn.Linear(4, 4), Head())
    x = torch.randn(5, 4)
    reveal_shape(model(x))
    model.eval()
    reveal_shape(model(x))


main()
"""


def test_eval_on_a_torch_container_reaches_the_project_modules_it_holds() -> None:
    _judge(SEQUENTIAL, exact={13: "[5 4]", 15: "[4]"})


EPOCHS = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        y = self.lin(x)
        return y if self.training else y.softmax(-1).unsqueeze(0)


def evaluate(model, x):
    model.eval()
    with torch.no_grad():
        out = model(x)
    reveal_shape(out)
    return out


def main():
    model = Head()
    x = torch.randn(5, 4)
    for epoch in range(3):
        model.train()
        out = model(x)
        reveal_shape(out)
        evaluate(model, x)
    reveal_shape(model(x))


main()
"""


def test_a_training_loop_with_an_evaluate_call_each_epoch_settles() -> None:
    """``model.train()`` at the top of each epoch, ``evaluate(model, x)`` (``model.eval()`` inside) at
    its end: each call runs in its mode, the loop settles at once, and after it the mode is not known."""
    _judge(EPOCHS, exact={29: "[5 3]"})
    assert "[1 5 3]" in _views(EPOCHS)[19]
    assert check_source(EPOCHS).stats.get("loop-bound", 0) == 0


GLOBALS = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        y = self.lin(x)
        return y if self.training else y.unsqueeze(0)


def _a(x):
    return x


def _b(x):
    return x * 2


_registry = {"a": _a, "b": _b, "c": _a, "d": _b}
HEADS = [Head()]


def run(x):
    for _ in range(3):
        f = _registry["a"]
        g = _registry["b"]
        x = g(f(x))
    reveal_shape(x)
    reveal_shape(HEADS[0](x))
    return x


def main():
    run(torch.randn(5, 4))


main()
"""


def test_a_global_container_without_modules_is_walked_once_per_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """A global read in a function is given the unknown mode of the modules it holds: a container
    that holds none (a registry of functions, a table of configurations) is walked once per mode,
    not at every read; one that holds a module is still put in the unknown mode at each read."""
    from tensorshape.infer import calls
    from tensorshape.model.values import DictV, TupleV

    walked: list[object] = []
    real = calls.with_mode

    def counting(v: object, mode: object, done: object = None) -> object:
        if done is None and isinstance(v, (DictV, TupleV)):  # a container's walk, not its steps
            walked.append(v)
        return real(v, mode, done)  # type: ignore[arg-type]

    monkeypatch.setattr(calls, "with_mode", counting)
    _judge(GLOBALS)
    dicts = [v for v in walked if isinstance(v, DictV)]
    lists = [v for v in walked if not isinstance(v, DictV)]
    assert len(dicts) == 1  # six reads of ``_registry``
    # The list holding a module is walked at each read (each needs its unknown-mode copy).
    assert len(lists) >= 2
    assert "[5 4]" in _views(GLOBALS)[32]


REGISTRY = (
    """\
import torch

_models = {}
_modules = {}


def register(fn):
    name = fn.__name__
    if name in _models:
        raise ValueError(name)
    _models[name] = fn
    _modules[name] = "zoo"
    return fn


"""
    + "".join(f"@register\ndef model{k}(x):\n    return x.flatten(1) * {k}\n\n\n" for k in range(40))
    + """\
def main():
    f = _models["model7"]
    y = f(torch.randn(2, 3, 4))
    reveal_shape(y)
    return y


main()
"""
)


def test_a_registry_filled_entry_by_entry_is_not_walked_again_at_each_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A registry a decorator fills one function (or string) at a time, read at each registration
    (timm's ``@register_model``): each new dict is known to hold no module from the one before it,
    so it is not walked again at the next read (that walk cost the square of the registry's size),
    and its index of keys carries over; the entries are all there (``_models["model7"]``)."""
    from tensorshape.infer import calls
    from tensorshape.model.values import DictV

    walked: list[int] = []
    real = calls.with_mode

    def counting(v: object, mode: object, done: object = None) -> object:
        if done is None and isinstance(v, DictV):
            walked.append(len(v.items))
        return real(v, mode, done)  # type: ignore[arg-type]

    monkeypatch.setattr(calls, "with_mode", counting)
    views = _judge(REGISTRY)
    assert "[2 12]" in views[REGISTRY.splitlines().index("    reveal_shape(y)") + 1]
    assert sum(walked) <= 4  # each dict walked while empty (each walked at every entry: 1,640 items)


def test_a_large_dict_reads_its_first_entry_of_a_key() -> None:
    """A dict's look-ups through its index (large dicts) find what a scan finds: the first entry."""
    from tensorshape.model.values import DictV, IntV, carry_index

    items = tuple((f"k{i % 20}", IntV(i)) for i in range(40))
    d = DictV(items)
    assert d.get("k3") == IntV(3) and d.has("k19") and not d.has("k20") and d.get("k20") is None
    e = DictV((*items, ("new", IntV(99))))
    carry_index(d, e, "new", IntV(99))
    assert e.get("new") == IntV(99) and e.get("k3") == IntV(3)
