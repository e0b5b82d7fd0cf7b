"""Tricky programs for ``instrument``: snippets a generator composes, and a fixed corpus built from them.

Each snippet is a function (or class) whose body makes the analysis ask for a
runtime check in an awkward place (an ``elif`` test, a comprehension, a lambda,
a conditional expression, after ``:=``, a one-line ``if``, ``a; b``, an ``async
def``, a decorated or nested function, strings holding ``\\x0b \\x0c \\x1c-\\x1e
\\x85 U+2028 U+2029`` and the marker), plus the calls ``main()`` makes with
inputs that satisfy every check, including the inputs a badly placed check
would reject (``None`` guarded by the condition).  Programs vary the line
endings (LF, CRLF, CR), form feeds, a PEP 263 declared encoding, a missing
final newline and ``from __future__ import annotations``.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = """import asyncio
import functools
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def deco(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        return fn(*args, **kwargs)
    return inner
"""

X, W, B = "torch.ones(2, 3)", "torch.ones(4, 3)", "torch.ones(4)"

#: (definition with ``{n}`` for the name, ``{s}`` for a tricky string, ``{c}`` for a tricky comment; calls)
SNIPPETS: list[tuple[str, list[str]]] = [
    (
        '''def {n}(x, w, b):
    """Docstring {s} # tensorshape: instrument
    """
    if x is None:
        y = None
    elif F.linear(x, w, b).sum() > -1e9:  # {c}
        y = F.linear(x, w, b)
    else:
        y = x
    return y
''',
        [f"{{n}}({X}, {W}, {B})", "{n}(None, None, None)"],
    ),
    ("def {n}(xs, w):\n    return [F.linear(z, w) for z in xs]\n", [f"{{n}}([{X}, {X}], {W})", "{n}([], None)"]),
    ("def {n}(xs, w):\n    return {{i: F.linear(z, w).shape for i, z in enumerate(xs)}}\n", [f"{{n}}([{X}], {W})"]),
    ("def {n}(x, w):\n    g = lambda q: F.linear(q, w)\n    return g(x)\n", [f"{{n}}({X}, {W})"]),
    (
        "def {n}(x, w, flag):\n    return F.linear(x, w) if flag else None\n",
        [f"{{n}}({X}, {W}, True)", "{n}(None, None, False)"],
    ),
    ("def {n}(x, w):\n    return x is not None and F.linear(x, w)\n", [f"{{n}}({X}, {W})", "{n}(None, 3)"]),
    (
        "def {n}(x, w):\n    if (h := x) is not None:\n        y = F.linear(h, w)\n    else:\n        y = None\n    return y\n",
        [f"{{n}}({X}, {W})", "{n}(None, None)"],
    ),
    ("def {n}(x, w):\n    y = (h := x) is not None and F.linear(h, w)\n    return y\n", [f"{{n}}({X}, {W})"]),
    ("def {n}(x, w):\n    if x is not None: y = F.linear(x, w)\n    return 1\n", [f"{{n}}({X}, {W})"]),
    ("def {n}(x, w):\n    a = x; y = F.linear(a, w)\n    return y\n", [f"{{n}}({X}, {W})"]),
    ("def {n}(x, w):\n    y = F.linear(x, w); z = 1\n    return y, z\n", [f"{{n}}({X}, {W})"]),
    (
        'async def {n}(x: Float[Tensor, "b d"], w: Float[Tensor, "k d"]) -> Float[Tensor, "b k"]:\n'
        "    await asyncio.sleep(0)\n    return F.linear(x, w)\n",
        [f"asyncio.run({{n}}({X}, {W}))"],
    ),
    (
        '@deco\n# {c}\ndef {n}(x: Float[Tensor, "b d"], w: Float[Tensor, "k d"]) -> Float[Tensor, "b k"]:\n'
        "    return F.linear(x, w)\n",
        [f"{{n}}({X}, {W})"],
    ),
    (
        'def {n}(x, w):\n    def inner(a: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:\n        return a\n'
        "    h = inner(x)\n    return F.linear(h, w)\n",
        [f"{{n}}({X}, {W})"],
    ),
    (
        'def {n}(x, w):\n    s = "{s}"  # {c}\n    t = """\n{s} # tensorshape: instrument\n"""\n'
        "    return F.linear(x, w), len(s) + len(t)\n",
        [f"{{n}}({X}, {W})"],
    ),
    (
        "def {n}(x: 'Float[Tensor, \"b d\"]', w, tag: 'undefined_name_never_evaluated') -> 'Float[Tensor, \"b 4\"]':\n"
        "    return F.linear(x, w)\n",
        [f"{{n}}({X}, {W}, 1)"],
    ),
    (
        'def {n}(x: Float[Tensor, "b d"], *, w: Float[Tensor, "k d"]) -> Float[Tensor, "b k"]:\n'
        "    for i in range(1):\n        while False:\n            pass\n        with torch.no_grad():\n"
        "            y = F.linear(x, w)\n    return y\n",
        [f"{{n}}({X}, w={W})"],
    ),
    (
        "class {N}(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(3, 4)\n\n"
        '    def forward(self, x) -> Float[Tensor, "b 4"]:\n        h = self.fc(x)\n        return h\n',
        [f"{{N}}()({X})"],
    ),
    (
        "def {n}(x, w, b):\n    try:\n        y = F.linear(x, w, b)\n    except RuntimeError:\n        y = None\n"
        "    return y\n",
        [f"{{n}}({X}, {W}, {B})"],
    ),
]

#: Characters ``str.splitlines`` breaks at but Python does not (none of them may end a line of code).
ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True)
class Program:
    source: str
    encoding: str = "utf-8"

    def data(self) -> bytes:
        return self.source.encode(self.encoding)


def program(
    picks: list[int],
    *,
    newline: str = "\n",
    tricky: str = ODD_BREAKS,
    form_feeds: bool = True,
    encoding: str = "utf-8",
    future: bool = False,
    final_newline: bool = True,
) -> Program:
    """A module of the picked snippets with a ``main()`` calling each with valid inputs."""
    comment = tricky.replace("\\", "")
    string = tricky.replace("\\", "").replace('"', "")
    parts = []
    if encoding != "utf-8":
        parts.append(f"# -*- coding: {encoding} -*-\n")
    if future:
        parts.append("from __future__ import annotations\n")
    parts.append(HEADER)
    calls = []
    for k, i in enumerate(picks):
        body, uses = SNIPPETS[i]
        name = f"f{k}"
        parts.append(("\n\x0c\n" if form_feeds else "\n\n") + body.format(n=name, N=f"C{k}", s=string, c=comment))
        calls += [u.format(n=name, N=f"C{k}") for u in uses]
    parts.append("\n\ndef main():\n    torch.manual_seed(0)\n    return [\n")
    parts += [f"        {c},\n" for c in calls]
    parts.append("    ]\n")
    text = "".join(parts).replace("\n", newline)
    if not final_newline:
        text = text[: -len(newline)]
    return Program(text, encoding)


def corpus() -> dict[str, Program]:
    """Every snippet alone, and all together in each line-ending style, encoding and variant."""
    out = {f"snippet{i}": program([i]) for i in range(len(SNIPPETS))}
    everything = list(range(len(SNIPPETS)))
    out["all-lf"] = program(everything)
    out["all-crlf"] = program(everything, newline="\r\n")
    out["all-cr"] = program(everything, newline="\r")
    out["all-no-final-newline"] = program(everything, final_newline=False)
    out["all-future-annotations"] = program(everything, future=True)
    out["all-latin-1"] = program(everything, encoding="latin-1", tricky="\x0b\x0c\x1c\x85é")
    out["all-utf-8-bom"] = Program(program(everything).source, "utf-8-sig")
    out["all-no-form-feeds-crlf"] = program(everything, newline="\r\n", form_feeds=False)
    return out
