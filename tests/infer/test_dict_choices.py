"""Dicts of known keys joined, dict comprehensions over long tables of constants, and what every
class has (issue 22: transformers' ``sdpa_attention_forward`` and its auto-model registry).

* ``sdpa_kwargs = {}`` then ``sdpa_kwargs["enable_gqa"] = True`` under a condition not decided: the
  join is a dict of keys not known that remembers the dicts it is one of, and ``F.op(**kwargs)`` of a
  torch op is the call with each, the results joined (a problem reported only when each has it).
* ``{v: k for k, v in NAMES.items()}`` over a table of 800 string pairs (longer than loops are
  unrolled) is computed item by item: ``REV["V5"]`` is ``"k5"``.
* ``hasattr(cls, "__name__")`` is true of every class.

Truth from torch: each program runs with real torch and every shape it shows at a ``reveal_shape``
fits the checker's claim.
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import HEAD, agree, check, run_torch

pytestmark = pytest.mark.torch


def line_of(body: str, text: str) -> int:
    """The line of the program (``HEAD`` + ``body``) holding ``text``."""
    lines = (HEAD + body).splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


SPREAD = """
def attend(q, flag):
    extra = {}
    if flag:
        extra["enable_gqa"] = True
    return F.scaled_dot_product_attention(q, q, q, **extra)


def main(flag):
    q = torch.randn(2, 4, 16, 8)
    reveal_shape(attend(q, flag))  # spread
"""


def test_a_torch_op_given_one_of_two_dicts_is_called_with_each() -> None:
    """``**extra`` is ``{}`` or ``{"enable_gqa": True}``: scaled dot-product attention is
    ``[2 4 16 8]`` either way (it was unknown: the keywords not known)."""
    reveals, errors, _ = check(SPREAD)
    assert errors == set()
    assert reveals[line_of(SPREAD, "# spread")] == "[2 4 16 8]", reveals
    seen, raised = run_torch(SPREAD, "True", "False")
    assert raised == [None, None]
    agree(reveals, seen)


MISMATCH = """
def main(flag):
    a = torch.randn(2, 3)
    b = torch.randn(2, 4)
    kw = {}
    if flag:
        kw["dim"] = 1
    reveal_shape(torch.cat([a, b], **kw))  # one option raises
"""


def test_a_problem_of_one_option_only_is_not_reported() -> None:
    """``torch.cat`` of ``[2 3]`` and ``[2 4]`` raises along dim 0 but not along dim 1: not an
    error (one of the dicts runs), and the shape is the option that raises nothing, ``[2 7]``."""
    reveals, errors, _ = check(MISMATCH)
    assert errors == set()
    assert reveals[line_of(MISMATCH, "# one option")] == "[2 7]", reveals
    seen, raised = run_torch(MISMATCH, "True")
    assert raised == [None]
    agree(reveals, seen)


TABLE = (
    "\nNAMES = dict(["
    + ", ".join(f'("k{i}", "V{i}")' for i in range(800))
    + "])\n"
    + """REV = {v: k for k, v in NAMES.items()}


class Box:
    pass


def main(x):
    reveal_shape(torch.zeros(len(REV["V5"])))  # a key
    reveal_shape(torch.zeros(len(REV)))  # its length
    reveal_shape(torch.zeros(5 if hasattr(Box, "__name__") else 6))  # a class's name
"""
)


def test_a_comprehension_over_a_long_table_of_constants_is_computed() -> None:
    """800 pairs, more than a loop is unrolled for: the reversed table is known (its keys and
    length; it was a dict of keys not known)."""
    reveals, errors, _ = check(TABLE)
    assert errors == set()
    assert reveals[line_of(TABLE, "# a key")] == "[2]", reveals
    assert reveals[line_of(TABLE, "# its length")] == "[800]", reveals
    assert reveals[line_of(TABLE, "# a class's name")] == "[5]", reveals
    seen, raised = run_torch(TABLE, "None")
    assert raised == [None]
    agree(reveals, seen)


DELETED = """
def main(x):
    options = {"width": 4, "depth": 2}
    del options["width"]
    n = 3 if "width" in options else 5
    reveal_shape(torch.randn(n))  # dict del
    layers = [nn.Linear(8, 6), nn.Linear(6, 2)]
    del layers[-1]
    reveal_shape(nn.Sequential(*layers)(torch.randn(1, 8)))  # list del
    flags = {"a": 1}
    del flags[x]
    reveal_shape(torch.randn(2 if "a" in flags else 7))  # key not known
"""


def test_deleted_entries_are_gone() -> None:
    """``del options["width"]`` removes the entry (it was read as still there); ``del layers[-1]`` the
    last item; a key not known leaves the dict unknown."""
    reveals, errors, _ = check(DELETED)
    assert reveals[line_of(DELETED, "# dict del")] == "[5]"
    assert reveals[line_of(DELETED, "# list del")] == "[1 6]"
    assert reveals[line_of(DELETED, "# key not known")] not in ("[2]", "[7]")
    assert not errors
    seen, raised = run_torch(DELETED, '"a"')
    assert raised == [None]
    agree(reveals, seen)


def test_reveal_shows_constants() -> None:
    body = """
def main():
    reveal_shape("a" in {"a": 1})  # bool
    reveal_shape("bert".upper())  # str
"""
    reveals, _, _ = check(body)
    assert reveals[line_of(body, "# bool")] == "bool True"
    assert reveals[line_of(body, "# str")] == "str 'BERT'"


KEYWORDS = """
def build(width, **kwargs):
    if "depth" in kwargs:
        width = width * kwargs.pop("depth")
    kwargs.pop("unused", None)
    return nn.Linear(8, width, **kwargs)


class classproperty(property):
    def __get__(self, owner_self, owner_cls):
        return self.fget(owner_cls)


class Config:
    defaults = {"width": 6}

    @classproperty
    def widths(cls):
        return dict(cls.defaults)


def main(x):
    x = torch.randn(3, 8)
    reveal_shape(build(4)(x))  # no keywords
    reveal_shape(build(4, depth=2, bias=False)(x))  # depth
    reveal_shape(build(4, unused=1)(x))  # unused
    reveal_shape(torch.randn(Config().widths["width"]))  # classproperty
"""


def test_keywords_dict_and_class_property() -> None:
    """``**kwargs`` is a new dict each call, private while only read, popped, tested or unpacked into
    a call: ``"depth" in kwargs`` is decided by the keywords given.  A method decorated by a project
    subclass of ``property`` with its own ``__get__`` (transformers' ``classproperty``) is what that
    ``__get__`` returns."""
    reveals, errors, _ = check(KEYWORDS)
    assert reveals[line_of(KEYWORDS, "# no keywords")] == "[3 4]"
    assert reveals[line_of(KEYWORDS, "# depth")] == "[3 8]"
    assert reveals[line_of(KEYWORDS, "# unused")] == "[3 4]"
    assert reveals[line_of(KEYWORDS, "# classproperty")] == "[6]"
    assert not errors
    seen, raised = run_torch(KEYWORDS, "None")
    assert raised == [None]
    agree(reveals, seen)
