"""Text libcst parses but Python refuses to compile: ``return`` outside a function, ``break`` outside a
loop, ``nonlocal`` at module level, duplicate parameters, misused ``*`` targets, ``__debug__``
assigned, a late ``from __future__`` import, a bad escape in a string, a 5,000-digit literal...

libcst's parser checks the grammar only; CPython refuses these in its parser's later checks, its
symbol table or its compiler.  ``compile()`` says which and where, but costs about a twentieth of
libcst's parse, so it runs only when a cheap look says it may be needed:

* one search of the text for what only the refused forms need (the words ``yield``, ``await``,
  ``async``, ``lambda``, ``__debug__``, a ``global``/``nonlocal`` statement, ``:=``, a ``match``
  statement, ``\\N``/``\\x``/``\\u`` escapes, a decimal literal past the digit limit, a bytes literal
  in a text with non-ASCII characters, an f-string whose expression holds a backslash, a ``#``,
  its own quote or unbalanced braces, PEP 695 type parameters);
* one walk of the tree's statements (not expressions: a twentieth of compile's cost) for the
  structural ones: ``return`` outside a function, ``break``/``continue`` outside a loop, starred
  assignment targets or values, duplicate parameters, ``import *`` in a function or class, a
  ``from __future__`` import after other code or naming an unknown feature, ``except*``, more than
  20 nested blocks.

Known gap: a keyword argument repeated in a call (``f(a=1, a=2)``) has no cheap sign; it is found
only when another sign makes the text compile.
"""

from __future__ import annotations
import __future__

import re
import sys
import threading
import warnings
from collections.abc import Sequence

import libcst as cst

__all__ = ["Refusal", "compile_refusal", "may_refuse", "refusal"]

# Each pattern starts with a literal (or is asked only when its word is in the text): a pattern that
# starts with ``\b`` or a look-behind makes ``re`` try every position, ten times slower.
#: Words only refused forms the statement walk cannot see (expressions) need, each with its pattern.
_WORDS = {
    "yield": re.compile(r"yield\b"), "await": re.compile(r"await\b"), "async": re.compile(r"async\b"),
    "__debug__": re.compile(r"__debug__\b"), ":=": None, "\\N": None, "\\x": None, "\\u": None, "\\U": None,
}  # fmt: skip
#: A starred target in a comprehension's ``for`` (one on a statement is seen by the walk), a starred iterable.
_STAR_FOR = (re.compile(r"for\b[^\n]*?\*[^\n]*?\bin\b"), re.compile(r"in[ \t(]*\*(?!\*)"))
_LAMBDA = re.compile(r"lambda\b([^:]*):")
_DECLARE = re.compile(r"[\n;:][ \t]*(?:global|nonlocal)[ \t]+\w")
_MATCH = re.compile(r"\n[ \t]*match\b")
_TYPE_PARAMS = (
    re.compile(r"def[ \t]+\w+[ \t]*\["), re.compile(r"class[ \t]+\w+[ \t]*\["), re.compile(r"\n[ \t]*type[ \t]+\w+[ \t]*[=\[]"),
)  # fmt: skip
_BYTES = re.compile(r"[bB][rR]?[\"']|[rR][bB][\"']")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_Q3 = r"""'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"""
_Q1 = r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
_FSTRING = re.compile(
    rf"""(?:[fF][rR]?|[rR][fF])(?:{_Q3}|{_Q3.replace("'", '"')}|{_Q1}|{_Q1.replace("'", '"')})""",
    re.DOTALL,
)
_FSTART = re.compile(r"[fF][rR]?[\"']|[rR][fF][\"']")
_DIGITS: dict[int, re.Pattern[str]] = {}
_FEATURES = frozenset(__future__.all_feature_names)
#: CPython refuses more nested blocks (loops, ``try``, ``with``) than this.
MAX_BLOCKS = 20


class Refusal:
    """Where and why Python refuses to compile a text."""

    __slots__ = ("message", "line", "column")

    def __init__(self, message: str, line: int, column: int):
        self.message, self.line, self.column = message, line, column


def refusal(source: str, tree: cst.Module) -> Refusal | None:
    """Python's refusal of ``source`` (which libcst parsed into ``tree``), or None; compiles only when
    :func:`may_refuse` says it may be needed."""
    return compile_refusal(source) if may_refuse(source, tree) else None


def may_refuse(source: str, tree: cst.Module) -> bool:
    """Can Python refuse ``source``, which libcst parsed into ``tree``?  False only when none of the
    forms Python refuses after its grammar can be there."""
    return _text_signs(source) or _statement_signs(tree.body, MODULE, False, 0, True)


_COMPILE_LOCK = threading.Lock()


def compile_refusal(source: str) -> Refusal | None:
    """Why ``compile()`` refuses ``source`` (its message and place: 1-based line, 0-based column),
    or None.  Warnings are silenced (a ``SyntaxWarning`` made an error would read as a refusal); a text
    too deep or too big for CPython's compiler is not called refused."""
    with _COMPILE_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(source, "<tensorshape>", "exec", dont_inherit=True)
        except SyntaxError as e:
            line = e.lineno or 1
            return Refusal(e.msg or "invalid syntax", max(line, 1), max((e.offset or 1) - 1, 0))
        except (ValueError, MemoryError, RecursionError, OverflowError):
            return None
    return None


def _text_signs(source: str) -> bool:
    for word, pattern in _WORDS.items():
        if word in source and (pattern is None or pattern.search(source)):
            return True
    if "*" in source and any(p.search(source) for p in _STAR_FOR):
        return True
    if "lambda" in source and any(_lambda_suspect(m.group(1)) for m in _LAMBDA.finditer(source)):
        return True
    if ("global" in source or "nonlocal" in source) and (
        source.startswith(("global", "nonlocal")) or _DECLARE.search(source)
    ):
        return True
    if "match" in source and (source.startswith("match") or _MATCH.search(source)):
        return True
    if "[" in source and any(p.search(source) for p in _TYPE_PARAMS):
        return True
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    if limit:
        digits = _DIGITS.get(limit)
        if digits is None:
            digits = _DIGITS[limit] = re.compile(rf"[0-9_]{{{limit + 1}}}")
        if digits.search(source):
            return True
    if _NON_ASCII.search(source) and _BYTES.search(source):
        return True
    if "{" in source:
        for start in _FSTART.finditer(source):
            at = start.start()
            if at and (source[at - 1].isalnum() or source[at - 1] == "_"):
                continue  # ``if"a"``: not a prefix
            m = _FSTRING.match(source, at)
            if m is None or ("{" in m.group() and _fstring_suspect(m.group())):
                return True  # a field holding a comment, a backslash, its own quote...
    return False


def _lambda_suspect(params: str) -> bool:
    """A lambda's parameter list (up to the first colon) that may repeat a name or hide one."""
    if any(c in params for c in "([{\"'"):
        return True
    names = [p.strip().lstrip("*").split("=")[0].strip() for p in params.split(",")]
    names = [n for n in names if n and n != "/"]
    return len(names) != len(set(names))


def _fstring_suspect(token: str) -> bool:
    """An f-string (as a regular expression found it) whose replacement fields Python 3.11 refuses
    or that the expression cut short: a backslash or ``#`` in a field, unbalanced braces (its own
    quote inside a field ends it there)."""
    body = token.replace("{{", "").replace("}}", "")
    depth = 0
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return True
        elif depth and ch in "\\#":
            return True
    return depth != 0


#: The scopes a statement can be in.
MODULE, CLASS, FUNCTION = 0, 1, 2


def _statement_signs(body: Sequence[cst.CSTNode], scope: int, loop: bool, blocks: int, top: bool) -> bool:
    """A refused form among these statements (``scope``: of the module, a class or a function; ``loop``:
    in a loop of that scope; ``blocks``: nested blocks (loops, ``with`` items, ``try``) around them;
    ``top``: the module's own statements, where the ``from __future__`` prologue is)."""
    prologue = top  # still where ``from __future__`` imports may be
    first = top
    for stmt in body:
        kind = type(stmt)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            for small in stmt.body:  # type: ignore[attr-defined]
                if _small_sign(small, scope, loop):
                    return True
                if type(small) is cst.ImportFrom and _future(small):
                    if not prologue or not _known_features(small):
                        return True
                elif not (first and _docstring(small)):
                    prologue = False
                first = False
            continue
        prologue = first = False
        if kind is cst.FunctionDef:
            if _duplicate_params(stmt.params) or _statement_signs(_body(stmt), FUNCTION, False, 0, False):  # type: ignore[attr-defined]
                return True
        elif kind is cst.ClassDef:
            if _statement_signs(_body(stmt), CLASS, False, 0, False):
                return True
        elif kind is cst.TryStar:
            return True  # ``break``/``continue``/``return`` in ``except*``: compile decides
        else:
            # Conservative: CPython counts a ``try`` with handlers and ``finally`` more than once.
            inner = blocks + 2 * (len(stmt.items) if kind is cst.With else kind is not cst.If)  # type: ignore[attr-defined]
            if inner >= MAX_BLOCKS:
                return True
            if kind is cst.For or kind is cst.While:
                if kind is cst.For and (_bad_target(stmt.target) or type(stmt.iter) is cst.StarredElement):  # type: ignore[attr-defined]
                    return True
                if _statement_signs(_body(stmt), scope, True, inner, False):
                    return True
                orelse = stmt.orelse  # type: ignore[attr-defined]
                if orelse is not None and _statement_signs(_body(orelse), scope, loop, inner, False):
                    return True
            elif kind is cst.If:
                node: cst.CSTNode | None = stmt
                while type(node) is cst.If:
                    if _statement_signs(_body(node), scope, loop, inner, False):
                        return True
                    node = node.orelse
                if node is not None and _statement_signs(_body(node), scope, loop, inner, False):
                    return True
            elif kind is cst.With:
                if any(i.asname is not None and _bad_target(i.asname.name) for i in stmt.items):  # type: ignore[attr-defined]
                    return True
                if _statement_signs(_body(stmt), scope, loop, inner, False):
                    return True
            elif kind is cst.Try:
                handlers = stmt.handlers  # type: ignore[attr-defined]
                if any(h.type is None for h in handlers[:-1]):  # a bare ``except:`` before another handler
                    return True
                parts = [stmt, *handlers, stmt.orelse, stmt.finalbody]  # type: ignore[attr-defined]
                if any(p is not None and _statement_signs(_body(p), scope, loop, inner, False) for p in parts):
                    return True
            elif kind is cst.Match:
                return True
            else:
                return True  # a statement this walk does not know: compile decides
    return False


def _body(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statements of a compound statement's block (a one-line suite as one statement line)."""
    suite = node.body  # type: ignore[attr-defined]
    return [suite] if type(suite) is cst.SimpleStatementSuite else suite.body


def _small_sign(small: cst.CSTNode, scope: int, loop: bool) -> bool:
    kind = type(small)
    if kind is cst.Return:
        return scope != FUNCTION or type(small.value) is cst.StarredElement  # type: ignore[attr-defined]
    if kind is cst.Break or kind is cst.Continue:
        return not loop
    if kind is cst.Assign:
        return type(small.value) is cst.StarredElement or any(_bad_target(t.target) for t in small.targets)  # type: ignore[attr-defined]
    if kind is cst.AugAssign or kind is cst.AnnAssign:
        return type(small.value) is cst.StarredElement  # type: ignore[attr-defined]
    if kind is cst.Expr:
        return type(small.value) is cst.StarredElement  # type: ignore[attr-defined]
    if kind is cst.ImportFrom:
        return scope != MODULE and type(small.names) is cst.ImportStar  # type: ignore[attr-defined]
    return False


def _bad_target(target: cst.CSTNode) -> bool:
    """A starred assignment target Python may refuse: a bare one, two in one tuple or list, one in a
    nested tuple, or 256 or more elements before it."""
    if type(target) is cst.StarredElement:
        return True
    if type(target) is cst.Tuple or type(target) is cst.List:
        elements = target.elements
        stars = [i for i, e in enumerate(elements) if type(e) is cst.StarredElement]
        if (stars and len(elements) == 1) or any(getattr(elements[i], "lpar", ()) for i in stars):
            return True  # ``a, (*b) = c``
        if len(stars) > 1 or (stars and (stars[0] >= 255 or len(elements) - stars[0] > 1 << 24)):
            return True
        return any(
            type(e.value) in (cst.Tuple, cst.List, cst.StarredElement) and _bad_target(e.value) for e in elements
        )
    return False


def _duplicate_params(params: cst.Parameters) -> bool:
    names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    for star in (params.star_arg, params.star_kwarg):
        if type(star) is cst.Param:
            names.append(star.name.value)
    return len(names) != len(set(names))


def _future(small: cst.CSTNode) -> bool:
    module = small.module  # type: ignore[attr-defined]
    return type(module) is cst.Name and module.value == "__future__"


def _known_features(small: cst.CSTNode) -> bool:
    names = small.names  # type: ignore[attr-defined]
    if small.relative or type(names) is cst.ImportStar:  # type: ignore[attr-defined]
        return False
    return all(type(a.name) is cst.Name and a.name.value in _FEATURES for a in names)


def _docstring(small: cst.CSTNode) -> bool:
    """A module docstring as the ``from __future__`` rule takes it: a plain (not bytes, not f) string."""
    if type(small) is not cst.Expr:
        return False
    value = small.value
    return type(value) is cst.SimpleString and not any(c in value.prefix.lower() for c in "bf")
