"""Hostile texts (issue 17): how a file is written rather than what it computes.  Deep nesting,
sheer size, odd bytes and line endings, odd indentation and comments, each around an ordinary
module that ``instrument`` has work in (a check before ``F.linear``, an annotated function to
decorate), run through every front end by :func:`harness.text_cases`."""

from __future__ import annotations

#: A module with a runtime obligation (``F.linear`` of unknown shapes) and a shape-annotated function.
BASE = (
    "from __future__ import annotations\n"
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from torch import Tensor\n"
    "\n"
    "\n"
    "def f(x: 'Float[Tensor, \"b d\"]', w) -> 'Float[Tensor, \"b o\"]':\n"
    "    return F.linear(x, w)\n"
)
#: The line and column of ``F.linear`` in :data:`BASE` (hovered in the language server's session).
HOVER = (7, 11)


def _if_nest(depth: int) -> str:
    """``depth`` nested ``if``/``else`` statements, one more space of indentation a level."""
    out = []
    for i in range(depth):
        out.append(" " * i + f"if c == {i}:\n" + " " * (i + 1) + f"y = {i}\n" + " " * i + "else:\n")
    out.append(" " * depth + "y = -1\n")
    return "".join(out)


def _mixed_newlines(text: str) -> str:
    """``text``'s lines ended by CRLF, LF and CR in turn.  A CR is always followed by a CRLF: a CR
    that ends a line before an empty line ended by LF would make one CRLF, one line less."""
    lines = text.split("\n")
    ends = ("\r\n", "\n", "\r")
    return "".join(line + ends[i % 3] for i, line in enumerate(lines[:-1])) + lines[-1]


_TYPE_COMMENTS = (
    BASE
    + "\n\ndef g(x,  # type: Tensor\n      w,  # type: Tensor\n      ):\n"
    + "    # type: (...) -> Tensor\n    return F.linear(x, w)  # type: ignore[\n"
    + "\n\ndef h(x, w):  # type: (Tensor, Tensor) -> Tensor  # type: ignore\n"
    + "    y = F.linear(x, w)  # type: Float[Tensor, \"b o\"]\n    return y  # type:\n"
    + "\n\nclass K:  # type: ignore\n    a = 1  # type: int  # type: str\n"
    + "    # type: (int) -> None\n    def m(self, x):  # type: (\n        return x  # type: )\n"
    + "\n\nz = [  # type: List[int]\n    1,  # type: int\n]\nfor i in z:  # type: int\n    pass\n"
    + "with open(__file__) as fh:  # type: IO[str]\n    pass\n"
)

#: name -> the bytes of ``m.py``; the names in :data:`FAST` run in CI (the others with ``-m slow``).
TEXTS: dict[str, bytes] = {
    "parens-10k": (BASE + "y = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n").encode(),
    "plus-chain-100k": (BASE + "a = 1\ny = a" + " + a" * 100_000 + "\n").encode(),
    "elif-chain-5000": (
        BASE
        + "\n\ndef g(c):\n    if c == 0:\n        return 0\n"
        + "".join(f"    elif c == {i}:\n        return {i}\n" for i in range(1, 5000))
        + "    else:\n        return -1\n"
    ).encode(),
    "if-else-nest-100": (BASE + "c = 3\n" + _if_nest(100)).encode(),
    "if-else-nest-1000": (BASE + "c = 3\n" + _if_nest(1000)).encode(),
    "lines-100k": (BASE + "".join(f"\n\ndef g{i}(x, w):\n    return F.linear(x, w)\n" for i in range(25_000))).encode(),
    "nul-byte-code": (BASE + "s = 1\x00\n").encode(),
    "nul-byte-string": (BASE + "s = 'a\x00b'\n").encode(),
    "nul-byte-comment": (BASE + "# a\x00b\n").encode(),
    "invalid-utf8": BASE.encode() + b"# caf\xe9\ns = 1\n",
    "invalid-utf8-string": BASE.encode() + b"s = '\xff\xfe'\n",
    "bom": b"\xef\xbb\xbf" + BASE.encode(),
    "bom-twice": b"\xef\xbb\xbf\xef\xbb\xbf" + BASE.encode(),
    "mixed-newlines": _mixed_newlines(BASE + "\n\ndef g(x, w):\n    y = F.linear(x, w)\n    return y\n").encode(),
    "form-feeds": (
        "\x0c" + BASE + "\x0c\n\n\x0cdef g(x, w):\n\x0c    y = F.linear(x, w)\n\x0c    return y  # \x0c\n"
    ).encode(),
    "tabs-inconsistent": (BASE + "\n\ndef g(x, w):\n\tif x is None:\n        return w\n\treturn F.linear(x, w)\n").encode(),
    "tabs-and-spaces": (BASE + "\n\ndef g(x, w):\n\tif x is None:\n\t\treturn w\n\treturn F.linear(x, w)\n").encode(),
    "line-1mb-string": (BASE + "s = '" + "a" * 1_000_000 + "'\n").encode(),
    "line-1mb-list": (BASE + "xs = [" + "1, " * 333_333 + "]\n").encode(),
    "line-1mb-comment": (BASE + "# " + "x" * 1_000_000 + "\n").encode(),
    "line-1mb-no-newline": (BASE + "s = '" + "a" * 1_000_000 + "'").encode(),
    "type-comments": _TYPE_COMMENTS.encode(),
    # Python's compiler refuses these, not its grammar (libcst takes them): a syntax error too.
    "return-outside-function": (BASE + "\n\nclass K:\n    return F.linear\n").encode(),
    "late-future-import": (BASE + "from __future__ import division\n").encode(),
    "decorator-100k-args": (
        BASE
        + "\n\ndef deco(*args, **kwargs):\n    return lambda fn: fn\n"
        + "\n\n@deco("
        + ", ".join(str(i) for i in range(100_000))
        + ", "
        + ", ".join(f"k{i}={i}" for i in range(10_000))
        + ")\ndef h(x: 'Float[Tensor, \"b d\"]', w) -> 'Float[Tensor, \"b o\"]':\n    return F.linear(x, w)\n"
    ).encode(),
}

#: The texts whose cases run in CI (cheap ones, one of each kind of trouble).
FAST_TEXTS = frozenset({"nul-byte-string", "bom-twice", "form-feeds", "return-outside-function"})
