"""``hasattr`` of a project ``nn.Module`` (issue 22): transformers' ``sdpa_attention_forward`` asks
``hasattr(module, "num_key_value_groups")`` of the attention module it is given.  torch's
``nn.Module.__getattr__`` looks only in the parameters, buffers and submodules, so for a module the
program built, whose construction the analysis followed, the answer is the class's members and what
was set on it: ``False`` for a name nothing set.  Where something may have set it unseen (a name
not known, a ``__getattr__`` of the class's own, a base other than ``nn.Module``, a method not run,
a write from outside, code not interpreted given the module, a method's generic ``self`` that may
be a subclass's), it stays undecided: both branches, never the one ``False`` would pick.

Truth from torch: each program runs with real torch and every shape it shows at a ``reveal_shape``
fits the checker's claim (``test_param_learning.agree``).
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch

#: ``attend`` repeats the query by the module's groups when it has them (transformers' GQA branch).
ATTEND = """
def attend(module, q):
    if hasattr(module, "groups") and module.groups > 1:
        q = q.repeat(1, module.groups)
    return q
"""

DECIDED = (
    ATTEND
    + """
class Attn(nn.Module):
    heads = 4

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("scale", torch.ones(8))
        self.is_causal = False

    def forward(self, x):
        return attend(self, self.proj(x))

    def extra(self):
        return 1


class Grouped(nn.Module):
    groups = 2

    def forward(self, x):
        return attend(self, x)


def main(x):
    m = Attn()
    q = torch.randn(2, 8)
    reveal_shape(m(q))
    reveal_shape(torch.zeros(getattr(m, "groups", 3)))
    reveal_shape(torch.zeros(5) if hasattr(m, "heads") else torch.zeros(6))
    reveal_shape(torch.zeros(5) if hasattr(m, "extra") else torch.zeros(6))
    reveal_shape(Grouped()(q))
"""
)


def test_a_module_built_here_lacks_what_nothing_set() -> None:
    """The attention module sets ``proj``, a buffer and a flag: ``hasattr(m, "groups")`` is
    ``False`` (it was undecided: the repeated query and the plain one joined), ``getattr`` gives the
    default; a class attribute or method is there (``True``)."""
    reveals, errors, _ = check(DECIDED)
    assert errors == set()
    assert reveals[37] == "[2 8]", reveals
    assert reveals[38] == "[3]" and reveals[39] == "[5]" and reveals[40] == "[5]", reveals
    assert reveals[41] == "[2 16]", reveals
    seen, raised = run_torch(DECIDED, "None")
    assert raised == [None]
    agree(reveals, seen)


#: Each class may have ``groups`` by a way the analysis does not see set; ``main`` asks of each.
UNDECIDED = (
    ATTEND
    + """
class ByName(nn.Module):
    def __init__(self, key):
        super().__init__()
        setattr(self, key, 2)


class Registers(nn.Module):
    def __init__(self, key):
        super().__init__()
        self.register_buffer(key, torch.tensor(2))


class Lazy(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def __getattr__(self, name):
        if name == "groups":
            return 2
        return super().__getattr__(name)


class Later(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def grow(self):
        self.groups = 2


class Wide(nn.Linear):
    def __init__(self):
        super().__init__(8, 8)


class Base(nn.Module):
    def forward(self, x):
        return attend(self, x)


class Sub(Base):
    def __init__(self):
        super().__init__()
        self.groups = 2


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)


def grow(m, key):
    setattr(m, key, 2)


def main(x):
    q = torch.randn(2, 8)
    reveal_shape(attend(ByName("groups"), q))
    reveal_shape(attend(Registers("groups"), q))
    reveal_shape(attend(Lazy(), q))
    later = Later()
    later.grow()
    reveal_shape(attend(later, q))
    reveal_shape(attend(Wide(), q))
    reveal_shape(Sub()(q))
    written = Plain()
    written.groups = 2
    reveal_shape(attend(written, q))
    named = Plain()
    grow(named, "groups")
    reveal_shape(attend(named, q))
    deleted = Sub()
    del deleted.groups
    reveal_shape(attend(deleted, q))
"""
)


def test_a_module_that_may_have_it_unseen_stays_undecided() -> None:
    """``setattr``/``register_buffer`` by a name not known, a ``__getattr__`` of its own, a method not
    part of construction that sets it, a torch base other than ``nn.Module``, a write from outside,
    a ``del``: each module but the ``nn.Linear`` and the ``del``'s has ``groups`` at run time, and
    the check takes neither branch alone."""
    reveals, errors, _ = check(UNDECIDED)
    assert errors == set()
    seen, raised = run_torch(UNDECIDED, "None")
    assert raised == [None]
    agree(reveals, seen)
    for line in (71, 72, 73, 76, 78, 81, 84):
        assert seen[line] == [[2, 16]], (line, seen[line])
        assert reveals[line] != "[2 8]", (line, reveals[line])
    assert seen[77] == [[2, 8]] and seen[87] == [[2, 8]]  # (``nn.Linear``'s attributes are torch's)


ESCAPED = (
    ATTEND
    + """
class Gain(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8, 8))

    def forward(self, x):
        return x @ self.weight


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Gain()


class Apart(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(8, 8))


def main(x):
    q = torch.randn(2, 8)
    g = Gain()
    torch.nn.utils.weight_norm(g)
    reveal_shape(torch.zeros(5) if hasattr(g, "weight_g") else torch.zeros(6))
    h = Holder()
    torch.nn.utils.weight_norm(h.inner)
    reveal_shape(torch.zeros(5) if hasattr(h.inner, "weight_g") else torch.zeros(6))
    fresh = Apart()
    reveal_shape(torch.zeros(5) if hasattr(fresh, "weight_g") else torch.zeros(6))
"""
)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_module_given_to_code_not_interpreted_stays_undecided() -> None:
    """torch's ``weight_norm`` gives the module ``weight_g`` and ``weight_v``: after a module (or one
    holding it) is given to code the analysis does not interpret, ``hasattr`` is not decided on it;
    a module made and kept apart is.  (A construction the analysis memoised is the escaped
    object's copy, so another ``Gain()`` would stay undecided too.)"""
    reveals, errors, _ = check(ESCAPED)
    assert errors == set()
    seen, raised = run_torch(ESCAPED, "None")
    assert raised == [None]
    agree(reveals, seen)
    assert seen[36] == [[5]] and reveals[36] != "[6]", reveals
    assert seen[39] == [[5]] and reveals[39] != "[6]", reveals
    assert reveals[41] == "[6]", reveals


def test_nn_module_names_are_torch_s() -> None:
    """The public names every module has from torch, which ``hasattr`` never answers ``False`` for."""
    import torch.nn as nn
    from tensorshape.infer.values import NN_MODULE_NAMES

    assert {n for n in dir(nn.Module()) if not n.startswith("_")} <= NN_MODULE_NAMES


ASSUMED = """
import os


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)


def main(x):
    m = Plain()
    before = hasattr(m, "groups")
    setattr(x, str(x), 2)
    after = hasattr(m, "groups")
    reveal_shape(torch.zeros(3 if after else 4))
"""


def test_the_assumption_about_unseen_writes_is_counted() -> None:
    # ``setattr`` of a name not known on an object not known: taken not to reach ``m``, so the later
    # ``hasattr`` is decided; that answer is counted in the statistics (never silent), the earlier
    # one, made before any such write, is not.
    reveals, errors, result = check(ASSUMED)
    assert errors == set()
    assert reveals[max(reveals)] == "[4]"
    assert result.stats.get("hasattr-assumed") == 1, result.stats
    # Without the write, nothing rests on the assumption.
    _, _, plain = check(ASSUMED.replace("    setattr(x, str(x), 2)\n", ""))
    assert plain.stats.get("hasattr-assumed", 0) == 0
