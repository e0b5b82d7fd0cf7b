"""Families of hostile programs (issue 17): valid Python that stresses the front end, the spec
language, the import graph and the codemod, each run through ``check`` and an ``instrument --all
--write`` round trip whose output must compile, run as the original does, and come back byte for
byte with ``--remove`` (see :func:`harness.run_case`).

Every program runs under plain Python with torch (no jaxtyping needed: annotations are strings or
``jaxtyping`` is only imported when present), so a rewrite that breaks at run time is seen."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

_HEAD = "import torch\nimport torch.nn.functional as F\n"

#: Annotations the runtime reads as text: the module runs without jaxtyping installed.
_SPEC = "from __future__ import annotations\n" + _HEAD + "from torch import Tensor\n"

_FSTRINGS = (
    _HEAD
    + "n = 3\nx = torch.zeros(n, 4)\ns = f\"\"\"{f'''{f\"{f'{n}'}\"}'''}\"\"\"\n"
    + "t = f\"{x.shape[0]:{n}d}{f'{x.shape!r:>{n * 2}}'}\"\n"
    + "".join(f"u{i} = f'{{n}}' + f\"{{f'{{u{i - 1}}}'}}\"\n" if i else "u0 = ''\n" for i in range(40))
    + "\n\ndef f(x, w):\n    label = f\"{f'{x.shape}'}{w.shape!s:{8}}\"\n    return F.linear(x, w), label\n"
    + "y, _ = f(x, torch.zeros(5, 4))\n"
)

_HUGE_INTS = (
    _SPEC
    + "BIG = 123456789012345678901234567890123456789\n"
    + "\n\ndef f(x: 'Float[Tensor, \"99999999999999999999999999999 3\"]') -> 'Float[Tensor, \"b 3\"]':\n"
    + "    return x\n\n\ndef g(x, w):\n    if x.shape[0] > BIG:\n        x = x.view(BIG, -1)\n"
    + "    return F.linear(x, w)\n\n\ndef h(x):\n    return x.reshape(-1, 10**40) if x.numel() > 10**40 else x\n"
    + "y = g(torch.zeros(2, 3), torch.zeros(4, 3))\nz = h(y)\n"
    + "k = 0x"
    + "f" * 300
    + "\nm = 0b"
    + "1" * 2000
    + "\n"
)

_SPECS = [
    "... ... *a *b",
    "#x x",
    "(a+b",
    "a=1 b",
    " ".join(["_"] * 300),
    "α β",
    "*",
    "a b ... c ... d",
    "1e5 3",
    "",
    "b (c d) e",
    "b c" + " 2" * 500,
    "b -3",
    "b 0x10",
    "b c\u2028d",
    "b {c}",
    "b c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c*c",
    "b " + "(" * 200 + "c" + ")" * 200,
    "b c-c-c-c+c+c//0",
]
_JAXTYPING = _SPEC + "".join(
    f"\n\ndef f{i}(x: {a!r}, w) -> {a!r}:\n    return F.linear(x, w)\n"
    for i, a in enumerate(f"Float[Tensor, {json.dumps(spec, ensure_ascii=False)}]" for spec in _SPECS)
)

_ALIASES = (
    _SPEC
    + "from typing import List, Union\n"
    + "A = List['A']\nB = Union['B', int]\nC = 'C'\nD = 'E'\nE = 'D'\nBatch = 'Float[Tensor, \"b d\"]'\nBatch2 = Batch\n"
    + "\n\ndef f(x: Batch2, xs: A, y: B, z: C, q: D, w) -> Batch2:\n    return F.linear(x, w)\n"
    + "\n\ndef g(x: 'Batch2', w: 'Batch') -> 'Batch':\n    return F.linear(x, w)\n"
    + "y = f(torch.zeros(2, 3), [], 1, None, None, torch.zeros(4, 3))\n"
)

_SELF = (
    _HEAD
    + "import m\nfrom m import f as again\nimport m as me\n"
    + "\n\ndef f(x, w):\n    return F.linear(x, w)\n"
    + "\n\ndef g(x, w):\n    return me.f(x, w) + m.f(x, w)\n"
    + "if __name__ == '__main__':\n    y = g(torch.zeros(2, 3), torch.zeros(4, 3))\n"
)

_DECORATORS = (
    _HEAD
    + "import functools\n"
    + "\n\ndef to_three(fn):\n    return 3\n"
    + "\n\ndef to_class(fn):\n    class K:\n        pass\n    return K\n"
    + "\n\ndef twice(fn):\n    @functools.wraps(fn)\n    def inner(*a, **k):\n        fn(*a, **k)\n        return fn(*a, **k)\n    return inner\n"
    + "\n\n@to_three\ndef f(x, w):\n    return F.linear(x, w)\n"
    + "\n\n@to_class\ndef g(x, w):\n    return F.linear(x, w)\n"
    + "\n\n@twice\n@twice\ndef h(x, w):\n    return F.linear(x, w)\n"
    + "\n\ndef k(x, w):\n    return F.linear(x, w)\n\n\nk = twice(k)\nlinear = k\n"
    + "\n\n@(lambda fn: fn)\ndef p(x, w):\n    return F.linear(x, w)\n"
    + "\n\nclass M:\n    @property\n    def q(self):\n        return torch.zeros(2, 3)\n\n    @staticmethod\n"
    + "    def r(x, w):\n        return F.linear(x, w)\n\n    r = staticmethod(r.__func__)\n"
    + "y = h(torch.zeros(2, 3), torch.zeros(4, 3)) + linear(torch.zeros(2, 3), torch.zeros(4, 3))\n"
    + "z = p(M().q, torch.zeros(4, 3)) + M.r(torch.zeros(2, 3), torch.zeros(4, 3))\nassert f == 3\n"
)

_EXEC = (
    _HEAD
    + "exec('def f(x, w):\\n    return F.linear(x, w)\\n')\n"
    + "g = eval('lambda x, w: F.linear(x, w)')\n"
    + "globals()['h'] = g\n"
    + "y = f(torch.zeros(2, 3), torch.zeros(4, 3)) + g(torch.zeros(2, 3), torch.zeros(4, 3))\n"
    + "z = eval('torch.zeros(2, 4)') + h(torch.zeros(2, 3), torch.zeros(4, 3))\n"
    + "\n\ndef k(x, w):\n    exec('x = x.t()')\n    n = eval('x.shape[0]')\n    return F.linear(x, w)[:n]\n"
    + "q = k(torch.zeros(2, 3), torch.zeros(4, 3))\n"
    + "vars()['r'] = torch.zeros(5)\ns = r + 1  # noqa: F821\n"
)

_UNICODE = (
    _SPEC
    + "ñ = torch.zeros(2, 3)\n"
    + "\n\ndef función(entrada: 'Float[Tensor, \"lote d\"]', peso) -> 'Float[Tensor, \"lote o\"]':\n"
    + "    return F.linear(entrada, peso)\n"
    + "\n\ndef ﬁt(x, w):\n    return F.linear(x, w)\n"  # NFKC: the same name as ``fit``
    + "y = función(ñ, torch.zeros(4, 3)) + fit(ñ, torch.zeros(4, 3))\n"
    + "Δ = y - y\nℌ = Δ.sum()\n𝐱 = torch.zeros(3)\nx = 𝐱 + 1\n"
    + "s = 'a\u2028b'  # a line separator inside a string\n"
)


def _cyclic(n: int) -> Callable[[Path], None]:
    """``n`` modules in a ring: each imports the next at the top and calls it lazily."""

    def setup(d: Path) -> None:
        for i in range(n):
            nxt = (i + 1) % n
            (d / f"c{i}.py").write_text(
                _HEAD
                + f"import c{nxt}\nfrom c{nxt} import *  # noqa: F403\n"
                + f"\n\ndef f{i}(x, w, depth=0):\n    y = F.linear(x, w)\n"
                + f"    if depth < {n}:\n        return c{nxt}.f{nxt}(x, w, depth + 1)\n    return y\n",
                encoding="utf-8",
            )
        (d / "m.py").write_text(_HEAD + "import c0\ny = c0.f0(torch.zeros(2, 3), torch.zeros(4, 3))\n")

    return setup


#: name -> source of ``m.py`` (or a setup writing several files).
FAMILIES: dict[str, str | Callable[[Path], None]] = {
    "nested-fstrings": _FSTRINGS,
    "huge-int-shapes": _HUGE_INTS,
    "jaxtyping-strings": _JAXTYPING,
    "recursive-aliases": _ALIASES,
    "self-import": _SELF,
    "cyclic-imports-50": _cyclic(50),
    "rebinding-decorators": _DECORATORS,
    "exec-eval": _EXEC,
    "unicode-identifiers": _UNICODE,
}
