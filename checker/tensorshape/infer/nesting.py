"""A linear pre-scan of source text for nesting that libcst's native parser cannot take.

libcst's parser recurses natively: about 2,000 nested brackets or a few thousand
chained operators overflow its stack (the process dies with SIGSEGV, no
exception), and its time grows with the cube of the depth well before that
(200 nested calls: 2 s).  The analysis walks trees recursively too.  So before
a file reaches libcst, one regular-expression pass over its text estimates the
depth of the deepest expression tree:

* each open bracket is a level (``f(g(x))``, ``a[0][1]``, ``f()()``);
* each operator, ``.``, ``and``/``or``/``not``, ``if``/``else``, ``lambda``,
  ``await`` chains one level more (``a + b + c`` is nested binary nodes in
  libcst), except
  that a run of tight operators (``*``, ``**``, ``.``) ends at the next loose one
  (``a*b*c + d*e*f`` is a sum of two products, not six levels);
* a comma, ``;``, ``=`` or the end of a logical line starts a new chain at the
  depth of the enclosing bracket (list elements do not nest); ``:`` does not
  (``lambda: lambda: ...`` nests).

Juxtaposed strings (``"a" "b" "c"``, nested in libcst too) are counted apart,
with a bound of their own.  The estimate errs high (``**`` counts two), which is what a guard needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_BRACKETS", "MAX_DEPTH", "MAX_ELIFS", "MAX_STRINGS", "TooDeep", "scan_elif_chains", "scan_nesting"]

#: Brackets nested deeper than this are refused (CPython itself stops at 200; libcst takes 0.25 s
#: at 100 and its time grows with the cube of the depth).
MAX_BRACKETS = 100
#: Juxtaposed strings refused (libcst nests them: 10,000 overflow its stack; tables of 256 byte
#: strings are real code, and the analysis takes 500).
MAX_STRINGS = 500
#: Estimated expression depth refused (the analysis recurses about 4 frames per level within
#: Python's default recursion limit of 1000; libcst's native stack overflows near 2,000).
MAX_DEPTH = 200

_Q3 = r"""'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"""
_QQ3 = _Q3.replace("'", '"')
_Q1 = r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
_QQ1 = _Q1.replace("'", '"')
#: Operators that bind tighter than ``+``: a run of them nests, but a ``+`` starts a sibling.
_TIGHT = "*/%@."

_TOKEN = re.compile(
    rf"""(?P<str>(?:[rRbBuUfF]{{1,2}})?(?:{_Q3}|{_QQ3}|{_Q1}|{_QQ1}))"""
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<cont>\\\r?\n)"
    r"|(?P<word>\b(?:and|or|not|if|else|lambda|await|in|is)\b)"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<newline>\n)"
    r"|(?P<sep>(?<![=!<>:])=(?!=)|[,;])"
    r"|(?P<op>[-+*/%@&|^~<>!.=:]+)",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class TooDeep:
    """Where the text first exceeds a bound, and which."""

    line: int
    column: int
    what: str


def scan_nesting(
    source: str, max_brackets: int = MAX_BRACKETS, max_depth: int = MAX_DEPTH, max_strings: int = MAX_STRINGS
) -> TooDeep | None:
    """The first place where ``source`` nests deeper than the bounds, or ``None``."""
    frames: list[int] = []  # chain depth at each open bracket
    base = 0  # chain depth at which the innermost bracket's elements start
    cur = 0  # depth of the chain of loose operators (``+``, ``and``, comparisons...) so far
    tight = 0  # depth of the run of tight ones (``*``, ``**``, ``.``) since the last loose one
    last_string = False
    strings = 0  # length of the current run of juxtaposed strings (``"a" "b" "c"``)
    for m in _TOKEN.finditer(source):
        kind = m.lastgroup
        if kind == "str":
            if last_string:
                strings += 1
                if strings > max_strings:
                    return _where(source, m.start(), f"more than {max_strings} strings concatenated")
            else:
                strings = 0
            last_string = True
        elif kind in ("comment", "cont") or (kind == "newline" and frames):
            continue  # within brackets a line break joins: ``("a"\n "b")`` is one concatenation
        else:
            last_string = False
            if kind == "word":
                cur += 1
                tight = 0
            elif kind == "op":
                text = m.group()
                loose = len(text.strip(_TIGHT))
                if loose:  # ``a*b + c*d``: the products are siblings under the sum, not nested
                    cur += loose
                    tight = 0
                else:
                    tight += len(text)
            elif kind == "open":
                cur += tight + 1
                tight = 0
                frames.append(cur)
                base = cur
                if len(frames) > max_brackets:
                    return _where(source, m.start(), f"brackets nested more than {max_brackets} deep")
            elif kind == "close":
                if frames:
                    cur = frames.pop()
                tight = 0
                base = frames[-1] if frames else 0
            elif kind in ("sep", "newline"):
                cur = base
                tight = 0
        if cur + tight > max_depth:
            return _where(source, m.start(), f"an expression nested more than {max_depth} levels deep")
    return None


def _where(source: str, offset: int, what: str) -> TooDeep:
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1)
    return TooDeep(line, column, what)


#: ``elif`` branches of one ``if`` refused: each is an ``If`` nested in the one before (libcst, ``ast``
#: and the analysis recurse through them; CPython's compiler itself fails on 5,000).
MAX_ELIFS = 200

_LINE_START = re.compile(r"^([ \t\f]*)([^ \t\f\r\n#][^\r\n]*)?$", re.M)


def scan_elif_chains(source: str, max_elifs: int = MAX_ELIFS) -> TooDeep | None:
    """The first ``elif`` past ``max_elifs`` in one chain (the same indentation, nothing but deeper
    lines, blank lines and comments between them), or ``None``; one line scan, only when the text
    has that many ``elif`` at all."""
    if source.count("elif") <= max_elifs:
        return None
    chains: dict[str, int] = {}  # indentation -> elif branches in the chain open there
    for m in _LINE_START.finditer(source):
        indent, code = m.group(1), m.group(2)
        if code is None:
            continue  # blank or comment
        chains = {i: n for i, n in chains.items() if len(i) < len(indent) or i == indent}
        if code.startswith("elif") and code[4:5] in (" ", "\t", "(", "\f"):
            n = chains[indent] = chains.get(indent, 0) + 1
            if n > max_elifs:
                return _where(source, m.start(2), f"an `if` with more than {max_elifs} `elif` branches")
        elif not code.startswith("else") and not (indent in chains and code.startswith(("if ", "if("))):
            chains.pop(indent, None)
        elif code.startswith(("if ", "if(")):
            chains[indent] = 0
    return None
