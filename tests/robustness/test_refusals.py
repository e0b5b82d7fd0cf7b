"""Text libcst parses but Python refuses to compile (``return`` outside a function, ...): a TS003
syntax error at the place ``compile()`` names, in ``check``, ``instrument``, ``annotate`` and the
language server; and the cheap signs (:mod:`tensorshape.infer.refusals`) that decide when to compile."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import libcst as cst
import pytest
from tensorshape.infer.api import check_source
from tensorshape.infer.project import parse_source
from tensorshape.infer.refusals import may_refuse
from tensorshape.lsp.chunks import ChunkPool
from tensorshape.model import codes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Texts Python refuses after its grammar (and a few it takes, next to them), by what they try.
REFUSED_OR_NOT = {
    "return_mod": "return 1\n",
    "return_class": "class A:\n    return 1\n",
    "yield_mod": "yield 1\n",
    "yield_class": "class A:\n    x = yield\n",
    "await_mod": "await x\n",
    "await_def": "def f():\n    await x\n",
    "await_lambda": "async def f():\n    g = lambda: await x\n",
    "yield_from_async": "async def f():\n    yield from x\n",
    "return_async_gen": "async def f():\n    yield 1\n    return 2\n",
    "async_for_def": "def f():\n    async for x in y:\n        pass\n",
    "async_with_def": "def f():\n    async with x:\n        pass\n",
    "async_comp_def": "def f():\n    return [x async for x in y]\n",
    "await_comp_def": "def f():\n    return [await x for x in y]\n",
    "break_mod": "break\n",
    "continue_mod": "continue\n",
    "break_def_in_loop": "for i in x:\n    def f():\n        break\n",
    "break_class_in_loop": "while 1:\n    class A:\n        break\n",
    "continue_if": "if x:\n    continue\n",
    "nonlocal_mod": "nonlocal x\n",
    "nonlocal_unknown": "def f():\n    nonlocal x\n",
    "nonlocal_class": "class A:\n    nonlocal x\n",
    "nonlocal_global": "x = 1\ndef f():\n    global x\n    nonlocal x\n",
    "nonlocal_param": "def f(x):\n    def g(x):\n        nonlocal x\n",
    "global_param": "def f(x):\n    global x\n",
    "global_after_use": "def f():\n    print(x)\n    global x\n",
    "global_after_assign": "def f():\n    x = 1\n    global x\n",
    "global_annot": "def f():\n    global x\n    x: int = 1\n",
    "nonlocal_annot": "def f():\n    x = 1\n    def g():\n        nonlocal x\n        x: int = 1\n",
    "dup_param": "def f(a, a):\n    pass\n",
    "dup_param_kw": "def f(a, *, a):\n    pass\n",
    "dup_param_star": "def f(a, *a):\n    pass\n",
    "dup_lambda": "g = lambda a, a: 0\n",
    "dup_async": "async def f(a, b, **a):\n    pass\n",
    "star_alone": "*a = 1\n",
    "star_two": "*a, *b = c\n",
    "star_expr_stmt": "*a\n",
    "star_rhs": "a = *b\n",
    "star_for": "for *x in y:\n    pass\n",
    "star_with": "with a as *b:\n    pass\n",
    "star_aug": "*a += 1\n",
    "star_index": "a[*b] = 1\n",
    "star_return_ok": "def f():\n    return *a, b\n",
    "star_del": "del *a\n",
    "star_subscript_ok": "x = a[*b]\n",
    "debug_assign": "__debug__ = 1\n",
    "debug_aug": "__debug__ += 1\n",
    "debug_attr": "x.__debug__ = 1\n",
    "debug_param": "def f(__debug__):\n    pass\n",
    "debug_def": "def __debug__():\n    pass\n",
    "debug_class": "class __debug__:\n    pass\n",
    "debug_import": "import x as __debug__\n",
    "debug_kw": "f(__debug__=1)\n",
    "debug_for": "for __debug__ in x:\n    pass\n",
    "debug_walrus": "(__debug__ := 1)\n",
    "debug_del": "del __debug__\n",
    "debug_ann": "__debug__: int\n",
    "future_late": "import os\nfrom __future__ import annotations\n",
    "future_after_doc_ok": '"""doc"""\nfrom __future__ import annotations\n',
    "future_unknown": "from __future__ import nonsense\n",
    "future_braces": "from __future__ import braces\n",
    "future_in_def": "def f():\n    from __future__ import annotations\n",
    "future_star": "from __future__ import *\n",
    "import_star_def": "def f():\n    from os import *\n",
    "import_star_class": "class A:\n    from os import *\n",
    "bare_except_not_last": "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
    "kw_repeat": "f(a=1, a=2)\n",
    "pos_after_kw": "f(a=1, b)\n",
    "pos_after_kwargs": "f(**a, *b)\n",
    "walrus_comp_iter": "[x for x in (y := z)]\n",
    "walrus_class_comp": "class A:\n    [(y := x) for x in z]\n",
    "walrus_rebind": "[(x := 1) for x in y]\n",
    "yield_comp": "def f():\n    return [(yield x) for x in y]\n",
    "assign_call": "f() = 1\n",
    "assign_literal": "1 = x\n",
    "del_call": "del f()\n",
    "aug_tuple": "a, b += 1\n",
    "assign_none": "None = 1\n",
    "ann_tuple": "a, b: int\n",
    "bytes_nonascii": "x = b'é'\n",
    "bad_N": "x = '\\N{NOPE}'\n",
    "bad_x": "x = '\\x4'\n",
    "bad_u": "x = '\\u12'\n",
    "fstr_empty": "x = f'{}'\n",
    "fstr_conv": "x = f'{a!z}'\n",
    "fstr_bs": "x = f'{\"\\n\"}'\n",
    "fstr_lambda": "x = f'{lambda: 1}'\n",
    "match_dup": "match x:\n    case [a, a]:\n        pass\n",
    "match_capture": "match x:\n    case a:\n        pass\n    case 1:\n        pass\n",
    "match_alt": "match x:\n    case [a] | b:\n        pass\n",
    "match_key": "match x:\n    case {a: 1}:\n        pass\n",
    "match_dupkey": "match x:\n    case {'a': 1, 'a': 2}:\n        pass\n",
    "match_wild": "match x:\n    case _:\n        pass\n    case 1:\n        pass\n",
    "keyword_arg_expr": "f(a.b=1)\n",
    "lambda_default": "lambda *: 0\n",
    "star_only": "def f(*):\n    pass\n",
    "kwonly_default": "def f(a=1, b):\n    pass\n",
    "return_in_class_in_def": "def f():\n    class A:\n        return 1\n",
    "yield_in_class_in_def": "def f():\n    class A:\n        yield 1\n",
    "await_async_gen_comp": "async def f():\n    return (await x for x in y)\n",
    "await_in_genexp_def": "def f():\n    return (await x for x in y)\n",
    "global_in_class_after": "class A:\n    x = 1\n    global x\n",
    "global_mod_ok": "x = 1\nglobal x\n",
    "nonlocal_global_name": "def f():\n    global x\n    def g():\n        nonlocal x\n",
    "starred_kw": "f(*a=1)\n",
    "dict_star": "{*a: 1}\n",
    "set_dstar": "{**a}\n",
    "slice_star": "a[*b:1]\n",
    "ellipsis_assign": "... = 1\n",
    "comp_assign": "[x for x in y] = 1\n",
    "cond_assign": "(a if b else c) = 1\n",
    "genexp_unparen": "f(x for x in y, 1)\n",
    "print_stmt": "print 1\n",
    "type_param": "def f[T, T]():\n    pass\n",
    "except_star_break": "for x in y:\n    try:\n        pass\n    except* E:\n        break\n",
    "return_in_except_star": "def f():\n    try:\n        pass\n    except* E:\n        return\n",
    "await_class_in_async": "async def f():\n    class A:\n        await x\n",
    "global_for": "def f():\n    for x in y:\n        pass\n    global x\n",
    "dup_param_posonly": "def f(a, /, a):\n    pass\n",
    "yield_lambda_ok": "g = lambda: (yield)\n",
    "yield_in_genexp_class": "class A:\n    x = [(yield) for y in z]\n",
    "async_gen_return_value": "async def f():\n    return 1\n    yield\n",
    "fstr_nested_q": 'x = f"{"a"}"\n',
    "fstr_nested_q2": "x = f'{x:{'a'}}'\n",
    "fstr_comment": "x = f'{a # c\n}'\n",
    "fstr_multiline": "x = f'''{a\n}'''\n",
    "for_iter_star": "for x in *a:\n    pass\n",
    "for_iter_star2": "for x in *a, *b:\n    pass\n",
    "aug_star_val": "a += *b\n",
    "ann_star_val": "a: int = *b\n",
    "ann_star_val2": "a: int = *b, c\n",
    "ret_star": "def f():\n    return *a\n",
    "yield_star": "def f():\n    yield *a\n",
    "star_in_if": "x = 1 if *a else 2\n",
    "star_call_kw": "f(x=*a)\n",
    "star_sub": "x = a[*b]\n",
    "star_list_assign": "[*a] = b\n",
    "star_nested": "(a, (*b, *c)) = d\n",
    "star_nested_bare": "a, (*b) = d\n",
    "with_star2": "with a as (*b, *c):\n    pass\n",
    "comp_star_target": "[x for *x in y]\n",
    "star_subscr_assign": "x[*a] = 1\n",
    "await_class_genexp": "async def f():\n    class A:\n        x = [await y for y in z]\n",
    "walrus_ok": "if (n := 1):\n    pass\n",
    "debug_in_str_ok": "x = '__debug__'\n",
    "kwargs_dup_def": "def f(**kw, **kw2):\n    pass\n",
    "class_kw_repeat": "class A(metaclass=M, metaclass=N):\n    pass\n",
    "deco_kw_repeat": "@d(a=1, a=2)\ndef f():\n    pass\n",
    "return_lambda": "x = lambda: (return)\n",
    "del_debug_attr": "del x.__debug__\n",
    "global_twice_ok": "def f():\n    global x\n    global x\n",
    "global_use_in_nested_ok": "def f():\n    def g():\n        x\n    global x\n",
    "nonlocal_in_nested_class": "def f():\n    x = 1\n    class A:\n        nonlocal x\n",
    "future_twice_ok": "from __future__ import annotations\nfrom __future__ import division\n",
    "future_after_doc_comment_ok": "# c\n'''d'''\n# e\nfrom __future__ import annotations\n",
    "future_after_two_docs": "'''d'''\n'''e'''\nfrom __future__ import annotations\n",
    "future_after_fdoc": "f'''d'''\nfrom __future__ import annotations\n",
    "future_after_bdoc": "b'''d'''\nfrom __future__ import annotations\n",
    "future_after_concat_doc": "'a' 'b'\nfrom __future__ import annotations\n",
    "future_paren_doc": "('a')\nfrom __future__ import annotations\n",
    "future_semicolon": "from __future__ import annotations; import os\n",
    "future_semicolon2": "import os; from __future__ import annotations\n",
    "future_in_if": "if 1:\n    from __future__ import annotations\n",
    "future_as": "from __future__ import annotations as a\n",
    "future_rel": "from .__future__ import x\n",
    "future_paren": "from __future__ import (annotations, division)\n",
    "break_in_else_of_loop": "for x in y:\n    pass\nelse:\n    break\n",
    "break_in_while_else_in_loop_ok": "for i in z:\n    for x in y:\n        pass\n    else:\n        break\n",
    "continue_finally_ok": "for x in y:\n    try:\n        pass\n    finally:\n        continue\n",
    "return_module_try": "try:\n    return\nexcept E:\n    pass\n",
    "return_match": "match x:\n    case 1:\n        return\n",
    "break_match_in_loop_ok": "for i in y:\n    match x:\n        case 1:\n            break\n",
    "one_line_suite": "if x: return\n",
    "one_line_def_ok": "def f(): return\n",
    "one_line_loop_ok": "while x: break\n",
    "class_one_line_return": "class A: return\n",
    "async_one_line": "def f(): await x\n",
}
#: Generated ones: a 5,000-digit literal, 300 names before a star, 21 nested loops.
REFUSED_OR_NOT["bigint"] = "x = " + "1" * 5000 + "\n"
REFUSED_OR_NOT["star_too_many"] = "(" + ", ".join(f"a{i}" for i in range(300)) + ", *r) = x\n"
REFUSED_OR_NOT["nested_blocks"] = "".join(" " * i + "for x in y:\n" for i in range(21)) + " " * 21 + "pass\n"
REFUSED_OR_NOT["with_items"] = "with " + ", ".join(f"a{i}" for i in range(21)) + ":\n    pass\n"
#: Keyword arguments repeated have no cheap sign (see the module's docstring): reported only when
#: another sign makes the text compile.
KNOWN_GAP = {"kw_repeat", "class_kw_repeat", "deco_kw_repeat"}


def compiled(text: str) -> tuple[str, int, int] | None:
    """What ``compile()`` says of ``text``: its message, line and 0-based column, or None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, "<t>", "exec", dont_inherit=True)
        except SyntaxError as e:
            return e.msg, e.lineno or 1, max((e.offset or 1) - 1, 0)
    return None


def libcst_parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except Exception:  # noqa: BLE001
        return False
    return True


@pytest.mark.parametrize("name", sorted(REFUSED_OR_NOT))
def test_parse_agrees_with_compile(name: str) -> None:
    text = REFUSED_OR_NOT[name]
    expected = compiled(text)
    tree, failure = parse_source(text)
    got = (failure.message, failure.line, failure.column) if failure is not None and not failure.skipped else None
    if name in KNOWN_GAP:
        assert expected is not None and got is None  # a refusal the signs do not see: say so if that changes
        return
    assert got == expected
    assert (tree is None) == (expected is not None)


def test_most_cases_are_ones_libcst_takes() -> None:
    """The list is about what libcst's grammar takes: most of its refused texts parse there."""
    taken = [n for n, t in REFUSED_OR_NOT.items() if compiled(t) is not None and libcst_parses(t)]
    assert len(taken) >= 80


@pytest.mark.parametrize(
    "text",
    [
        "from __future__ import annotations\n\nimport torch\n\n\ndef f(x):\n    for i in range(3):\n        if i:\n            continue\n        break\n    return x\n",
        '"""Doc."""\nfrom __future__ import annotations\nfrom __future__ import division\n',
        "class A:\n    def f(self, *args, **kw):\n        a, *rest = args\n        return rest\n",
        "while True:\n    try:\n        pass\n    finally:\n        break\n",
        "def f():\n    try:\n        pass\n    except ValueError:\n        return 1\n    except:\n        return 2\n",
    ],
)
def test_valid_code_is_not_refused(text: str) -> None:
    assert compiled(text) is None
    tree, failure = parse_source(text)
    assert failure is None and tree is not None


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_realistic_models_are_not_compiled(path: Path) -> None:
    """The cheap signs stay quiet on ordinary model code (no ``compile()`` for it)."""
    text = path.read_text(encoding="utf-8")
    assert compiled(text) is None
    assert not may_refuse(text, cst.parse_module(text))


def test_check_reports_ts003_at_compiles_place() -> None:
    text = "import torch\n\n\ndef f(x):\n    return x.sum(0)\n\n\nclass Net:\n    return 1\n"
    result = check_source(text, "m.py")
    [d] = result.diagnostics
    assert d.code is codes.SYNTAX_ERROR and "'return' outside function" in d.message
    assert (d.span.line, d.span.column) == compiled(text)[1:]  # type: ignore[index]


@pytest.mark.parametrize(
    "text",
    [
        '"""Doc."""\nimport os\nfrom __future__ import annotations\n',
        "x = 1\nglobal x\n",
        "import os\n\n\ndef f():\n    return 1\n\n\nbreak\n",
    ],
)
def test_language_server_chunks_refuse_like_compile(text: str) -> None:
    """A refusal that depends on earlier statements (a late ``__future__`` import, a module-level
    ``global`` after the name is bound) makes the document one failed chunk."""
    message, line, column = compiled(text)  # type: ignore[misc]
    _, chunks = ChunkPool().chunks(text)
    failed = [c for c in chunks if c.failure is not None]
    assert len(failed) == 1
    c = failed[0]
    assert c.failure is not None and c.failure.message == message
    assert (c.line + c.failure.line, c.failure.column) == (line, column)


def test_instrument_and_annotate_never_write_a_refused_file(tmp_path: Path) -> None:
    text = (
        "import torch\n\n\ndef f(x: torch.Tensor):\n    return x.sum(0)\n\n\nfor i in range(2):\n    pass\ncontinue\n"
    )
    path = tmp_path / "m.py"
    path.write_text(text, encoding="utf-8")
    for argv in (["instrument", "--write", "--all"], ["annotate", "--write"]):
        run = subprocess.run(
            [sys.executable, "-m", "tensorshape.cli.main", *argv, "m.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert "Traceback" not in run.stdout + run.stderr
        assert "m.py:10:1: error: not" in run.stdout + run.stderr
        assert "'continue' not properly in loop" in run.stdout + run.stderr
        assert path.read_text(encoding="utf-8") == text


def test_language_server_compiles_a_document_only_when_a_refusal_may_span_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A docstring and ``from __future__`` imports at the top (most modules) cost no compile per edit."""
    import tensorshape.lsp.chunks as chunks

    calls: list[str] = []
    real = chunks.compile_refusal
    monkeypatch.setattr(chunks, "compile_refusal", lambda s: calls.append(s) or real(s))
    text = (EXAMPLES / "cnn.py").read_text(encoding="utf-8").replace("from __future__ import annotations\n", "")
    chunks.ChunkPool().chunks('"""Doc."""\nfrom __future__ import annotations\n\n' + text)
    assert calls == []
    chunks.ChunkPool().chunks("import os\nfrom __future__ import annotations\n" + text)
    assert len(calls) == 1
