"""Inference through each language construct of the libcst front end (issue 3 item 1).

``reveal_shape(x)`` makes the checker report what it infers; these tests read
those notes.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from tensorshape.infer import CheckSettings, check_file, check_source
from tensorshape.model.diagnostics import Severity

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor
from tensorshape import reveal_shape
"""


def run(body: str, **kw: object) -> tuple[list[str], list[tuple[int, str, str]]]:
    src = HEADER + textwrap.dedent(body)
    result = check_source(src, "t.py", CheckSettings(**kw))  # type: ignore[arg-type]
    reveals = [d.message.removeprefix("revealed shape: ") for d in result.diagnostics if d.code.id == "TS900"]
    problems = [
        (d.span.line - HEADER.count("\n"), d.code.id, d.message)
        for d in result.diagnostics
        if d.severity >= Severity.WARNING
    ]
    return reveals, problems


def test_literals_and_ops() -> None:
    reveals, problems = run(
        """
        x = torch.randn(3, 4)
        y = x @ torch.randn(4, 5)
        reveal_shape(y)
        reveal_shape(y.T)
        reveal_shape(torch.cat([y, y], dim=0))
        reveal_shape(y[:, None, :2])
        """
    )
    assert reveals == ["[3 5]", "[5 3]", "[6 5]", "[3 1 2]"]
    assert problems == []


def test_shape_unpacking_gives_symbols_used_later() -> None:
    reveals, problems = run(
        """
        def f(x):
            b, t, d = x.shape
            reveal_shape(x)
            z = torch.zeros(b, 2 * d)
            reveal_shape(z)
            n = x.size(-1)
            reveal_shape(torch.ones(n, n))
            return x.view(b, t, 4, d // 4)
        reveal_shape(f(torch.randn(2, 3, 8)))
        """
    )
    assert reveals[0] == "[b t d]; [2 3 8] (with a caller's sizes)"
    assert reveals[1] == "[b 2*d]; [2 16] (with a caller's sizes)"
    assert reveals[2] == "[d d]; [8 8] (with a caller's sizes)", "x.size(-1) is the symbol already named d"
    assert reveals[3] == "[2 3 4 2]", "inlined with concrete sizes"
    assert problems == []


def test_annotated_function_symbolic_view() -> None:
    reveals, problems = run(
        """
        def heads(x: Float[Tensor, "b t d"], h: int):
            assert x.shape[2] % h == 0
            b, t, d = x.shape
            y = x.view(b, t, h, d // h)
            reveal_shape(y)
            z = y.reshape(b, t, d)
            reveal_shape(z)
            return z
        """
    )
    assert reveals == ["[b t h d//h]", "[b t d]"]
    assert problems == []


def test_augmented_assignment_keeps_shape_and_checks_broadcast() -> None:
    reveals, problems = run(
        """
        x = torch.randn(4, 5)
        x += torch.randn(5)
        reveal_shape(x)
        x *= torch.randn(3, 4, 5)
        """
    )
    assert reveals == ["[4 5]"]
    assert [p[:2] for p in problems] == [(5, "TS102")]


def test_if_else_join() -> None:
    reveals, problems = run(
        """
        def f(flag: bool):
            if flag:
                x = torch.randn(2, 3)
            else:
                x = torch.randn(2, 4)
            reveal_shape(x)
            y = torch.randn(2, 3) if flag else torch.randn(2, 3)
            reveal_shape(y)
        """
    )
    assert reveals == ["[2 n]", "[2 3]"], "the dim that differs is a fresh symbol: the rank and dim 0 stay"
    assert problems == []


def test_branch_pruned_on_known_rank() -> None:
    reveals, problems = run(
        """
        def f(x: Float[Tensor, "b d"]):
            if x.dim() == 3:
                x = x.flatten(0, 1)
            reveal_shape(x)
        """
    )
    assert reveals == ["[b d]"]
    assert problems == []


def test_early_return_joins_returns() -> None:
    reveals, _ = run(
        """
        def f(x, flag):
            if flag:
                return torch.zeros(2, 3)
            return torch.ones(2, 3)
        reveal_shape(f(torch.randn(1), True))
        """
    )
    assert reveals == ["[2 3]"]


def test_for_range_fixpoint_widens_what_changes() -> None:
    reveals, problems = run(
        """
        def grow(n: int):
            x = torch.zeros(1, 4)
            for i in range(n):
                x = torch.cat([x, torch.zeros(1, 4)], dim=0)
            reveal_shape(x)
            h = torch.zeros(8, 16)
            for i in range(n):
                h = torch.tanh(h @ torch.randn(16, 16))
            reveal_shape(h)
        """
    )
    assert reveals == ["[n' 4]", "[8 16]"], "the growing dim is widened to a fresh symbol, not to unknown"
    assert problems == []


def test_loop_over_modulelist_and_sequential() -> None:
    reveals, problems = run(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(16, 32), nn.Linear(32, 8)])
                self.head = nn.Sequential(nn.ReLU(), nn.Linear(8, 2))

            def forward(self, x: Float[Tensor, "b 16"]):
                for layer in self.layers:
                    x = layer(x)
                reveal_shape(x)
                y = self.head(x)
                reveal_shape(y)
                return y
        """
    )
    assert reveals == ["[b 8]", "[b 2]"]
    assert problems == []


def test_sizes_from_constructor_parameters_and_config_dataclass() -> None:
    reveals, problems = run(
        """
        from dataclasses import dataclass

        @dataclass
        class Config:
            d_model: int = 64
            vocab: int = 100

        class LM(nn.Module):
            def __init__(self, cfg: Config, hidden: int):
                super().__init__()
                self.emb = nn.Embedding(cfg.vocab, cfg.d_model)
                self.up = nn.Linear(cfg.d_model, hidden)

            def forward(self, tokens):
                h = self.up(self.emb(tokens))
                reveal_shape(h)
                return h

        lm = LM(Config(), 32)
        reveal_shape(lm(torch.zeros(2, 7, dtype=torch.long)))
        """
    )
    assert reveals[0] == "[*batch hidden]; [2 7 32] (with a caller's sizes)", "generic analysis (the constructor's symbols), then main's call"
    assert reveals[1] == "[2 7 32]"
    assert problems == []


def test_config_object_attributes_relate_symbolically() -> None:
    reveals, problems = run(
        """
        class Attn(nn.Module):
            def __init__(self, config):
                super().__init__()
                self.heads = config.num_heads
                self.head_dim = config.hidden_size // config.num_heads
                self.q = nn.Linear(config.hidden_size, config.hidden_size)

            def forward(self, x):
                b, t, _ = x.shape
                q = self.q(x).view(b, t, self.heads, self.head_dim)
                reveal_shape(q)
                return q
        """
    )
    assert reveals == ["[b t num_heads hidden_size//num_heads]"]
    assert problems == []


def test_with_and_comprehension() -> None:
    reveals, problems = run(
        """
        with torch.no_grad():
            xs = [torch.randn(2, 3) for _ in range(4)]
            reveal_shape(torch.stack(xs))
            ys = [t * 2 for t in (torch.randn(5), torch.randn(5))]
            reveal_shape(ys)
        """
    )
    assert reveals[0] == "[4 2 3]", "short loops over range() are unrolled"
    assert reveals[1] == "[[5], [5]]" or reveals[1].startswith("([5]")
    assert problems == []


def test_unannotated_inputs_are_unknown_and_silent() -> None:
    reveals, problems = run(
        """
        def f(x, w):
            y = x @ w
            z = y.sum(dim=-1) + x.mean()
            reveal_shape(z)
            return z.softmax(0)
        """
    )
    assert reveals == ["unknown"]
    assert problems == []


def test_annotated_call_checks_arguments_and_returns_annotation() -> None:
    reveals, problems = run(
        """
        def proj(x: Float[Tensor, "b n"], w: Float[Tensor, "n m"]) -> Float[Tensor, "b m"]:
            return x @ w

        a = proj(torch.randn(4, 3), torch.randn(3, 7))
        reveal_shape(a)
        proj(torch.randn(4, 3), torch.randn(5, 7))
        """
    )
    assert reveals == ["[4 7]"]
    assert [p[:2] for p in problems] == [(7, "TS101")]
    assert "n=3" in problems[0][2]


def test_unannotated_user_function_is_inlined() -> None:
    reveals, problems = run(
        """
        def block(x, w):
            return torch.relu(x @ w)

        reveal_shape(block(torch.randn(2, 3), torch.randn(3, 5)))
        block(torch.randn(2, 3), torch.randn(4, 5))
        """
    )
    assert reveals == ["[2 5]"]
    assert [(p[0], p[1]) for p in problems] == [(3, "TS101")], "reported inside the helper, where the bug is"


def test_inlining_is_three_calls_deep() -> None:
    """Shapes flow through three levels of unannotated helpers; a fourth is not interpreted
    (its result is unknown, so it gives no error and no shape), but it is still checked on its own.
    (A program's entry point, the top level or a function without parameters, goes six deep.)"""
    reveals, problems = run(
        """
        def l4(x):
            return x @ torch.randn(4, 6)

        def l3(x):
            return torch.relu(x @ torch.randn(3, 4))

        def l2(x):
            return l3(x)

        def l1(x):
            return l2(x)

        def deeper(x):
            return l4(l3(x))

        def top(x):
            return l1(deeper(x))

        def check(n):  # a function with a parameter: its own analysis inlines three deep
            reveal_shape(l1(torch.randn(2, 3)))
            reveal_shape(top(torch.randn(2, 3)))
            l1(torch.randn(2, 5))
        """
    )
    assert reveals == ["[2 4]", "unknown"]
    assert [(p[0], p[1]) for p in problems] == [(6, "TS101")]


def test_assert_relates_annotated_dims_for_operators() -> None:
    """``assert`` between two annotated dims makes them equal for what follows, operators
    included (``x @ w``, ``y + x``), and ``x.shape == y.shape`` relates every dim."""
    _, problems = run(
        """
        def f(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]):
            assert x.shape[1] == w.shape[0]
            return x @ w

        def g(x: Float[Tensor, "b n"], y: Float[Tensor, "b m"]):
            assert x.shape == y.shape
            return y + x

        def h(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]):
            n, m = x.shape[1], w.shape[0]
            assert n == m
            return x @ w

        def unasserted(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]):
            return x @ w
        """
    )
    assert [(p[0], p[1]) for p in problems] == [(16, "TS104")]


def test_class_shared_dims_across_methods() -> None:
    reveals, problems = run(
        """
        class AE(nn.Module):
            def encode(self, x: Float[Tensor, "b d"]) -> Float[Tensor, "b z"]:
                ...
            def decode(self, z: Float[Tensor, "b z"]) -> Float[Tensor, "b d"]:
                ...
            def forward(self, x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
                z = self.encode(x)
                reveal_shape(z)
                return self.decode(z)
        """
    )
    assert reveals == ["[b z]"]
    assert problems == []


def test_return_annotation_checked() -> None:
    _, problems = run(
        """
        def f(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
            return x.sum(1)
        def g(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
            return x.sum(2)
        """
    )
    assert [p[:2] for p in problems] == [(5, "TS104")]


def test_assert_refines_unknown_dims() -> None:
    reveals, problems = run(
        """
        def f(x):
            assert x.ndim == 2
            assert x.shape[1] == 3
            reveal_shape(x)
            w = torch.randn(4, 5)
            return x @ w
        """
    )
    assert reveals == ["[? 3]"]
    assert [p[1] for p in problems] == ["TS101"]


def test_always_failing_assert() -> None:
    _, problems = run(
        """
        x = torch.randn(2, 3)
        assert x.shape[1] == 4
        """
    )
    assert [p[:2] for p in problems] == [(3, "TS101")]


def test_setitem_broadcast() -> None:
    _, problems = run(
        """
        out = torch.zeros(4, 8)
        out[:, :2] = torch.randn(4, 2)
        out[:, :2] = torch.randn(4, 3)
        """
    )
    assert [p[:2] for p in problems] == [(4, "TS102")]


def test_gradual_obligations_recorded() -> None:
    src = HEADER + textwrap.dedent(
        """
        def proj(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
            return x @ torch.randn(16, 4)

        def caller(x):
            return proj(x)
        """
    )
    result = check_source(src, "t.py", CheckSettings(obligations=True))
    assert result.errors == []
    kinds = [o.kind.value for o in result.obligations]
    assert "argument" in kinds
    ob = next(o for o in result.obligations if o.kind.value == "argument")
    assert ob.checks[0].text == "x" and ob.checks[0].spec == "b 16"


def test_syntax_error_and_bad_shape_string() -> None:
    r = check_source("def f(:\n", "bad.py")
    assert [d.code.id for d in r.diagnostics] == ["TS003"] and r.diagnostics[0].span.line == 1
    r = check_source(HEADER + 'def f(x: Float[Tensor, "b,c"]): ...\n', "t.py")
    (d,) = r.diagnostics
    assert d.code.id == "TS001"
    line = (HEADER + 'def f(x: Float[Tensor, "b,c"]): ...\n').splitlines()[d.span.line - 1]
    assert line[d.span.column] == ","


def test_suppression_comment() -> None:
    _, problems = run(
        """
        y = torch.randn(2, 3) @ torch.randn(4, 5)  # tensorshape: ignore[shape-mismatch]
        z = torch.randn(2, 3) @ torch.randn(4, 5)  # tensorshape: ignore[TS102]
        """
    )
    assert [p[:2] for p in problems] == [(3, "TS101")]


def test_type_ignore_with_tensorshape_codes_suppresses() -> None:
    """One comment for mypy (with the plugin) and the CLI: ``# type: ignore[<code>]``."""
    body = """
        a = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore[shape-mismatch]
        b = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore[misc, TS101]  # why
        c = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore[misc]
        d = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore
        e = torch.randn(2, 3) @ torch.randn(4, 5)  # type:ignore[broadcast-mismatch]
        """
    _, problems = run(body)
    assert [p[:2] for p in problems] == [(4, "TS101"), (5, "TS101"), (6, "TS101")]
    _, problems = run(body, bare_type_ignore=True)
    assert [p[:2] for p in problems] == [(4, "TS101"), (6, "TS101")]


def test_cross_file_project(tmp_path: Path) -> None:
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(
        HEADER
        + textwrap.dedent(
            """
            class Block(nn.Module):
                def __init__(self, d: int):
                    super().__init__()
                    self.fc = nn.Linear(d, 2 * d)
                def forward(self, x):
                    return self.fc(x)

            def head(x: Float[Tensor, "b n"]) -> Float[Tensor, "b 1"]:
                return x.sum(-1, keepdim=True)
            """
        )
    )
    (pkg / "model.py").write_text(
        HEADER
        + textwrap.dedent(
            """
            from .layers import Block, head
            from proj import layers

            b = Block(8)
            y = b(torch.randn(3, 8))
            reveal_shape(y)
            reveal_shape(head(y))
            reveal_shape(layers.head(torch.randn(5, 2)))
            b(torch.randn(3, 9))
            """
        )
    )
    r = check_file(pkg / "model.py")
    reveals = [d.message.removeprefix("revealed shape: ") for d in r.diagnostics if d.code.id == "TS900"]
    assert reveals == ["[3 16]", "[3 1]", "[5 1]"]
    errors = r.errors
    assert len(errors) == 1 and errors[0].span.line == HEADER.count("\n") + 10
    assert "layers.py" in (errors[0].related[0].path or "")
    assert {p for p, _ in r.dependencies} >= {str(pkg / "layers.py"), str(pkg / "model.py")}


def test_star_imports_are_followed_lazily(tmp_path: Path) -> None:
    pkg = tmp_path / "starpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .unused import *\nfrom .layers import *\n")
    (pkg / "layers.py").write_text(
        HEADER + "def double(x: Float[Tensor, 'b n']) -> Float[Tensor, 'b 2*n']:\n    return torch.cat([x, x], 1)\n"
    )
    (pkg / "unused.py").write_text("def other():\n    return 1\n")
    (pkg / "model.py").write_text(HEADER + "from starpkg import double\nreveal_shape(double(torch.randn(3, 4)))\n")
    from tensorshape.infer.project import Project

    project = Project()
    r = check_file(pkg / "model.py", project=project)
    reveals = [d.message.removeprefix("revealed shape: ") for d in r.diagnostics if d.code.id == "TS900"]
    assert reveals == ["[3 8]"]
    # The last star import shadows the first, so it is searched first: `unused` is never parsed.
    assert project.by_name.get("starpkg.unused") is None


def test_star_import_search_parses_only_modules_that_mention_the_name(tmp_path: Path) -> None:
    """A re-exporting package (``from .a import *`` ...) searched for a name parses only the
    modules whose text, or whose star-imported modules' text, mentions it."""
    pkg = tmp_path / "agg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .sub import *\n" + "".join(f"from .part{i} import *\n" for i in range(20)))
    for i in range(20):
        (pkg / f"part{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (pkg / "sub" / "__init__.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .deep import *\n")
    (pkg / "sub" / "deep.py").write_text(
        HEADER + "def double(x: Float[Tensor, 'b n']) -> Float[Tensor, 'b 2*n']:\n    return torch.cat([x, x], 1)\n"
    )
    (pkg / "model.py").write_text(
        HEADER + "from agg import double, missing\nreveal_shape(double(torch.randn(3, 4)))\nmissing()\n"
    )
    from tensorshape.infer.project import Project

    project = Project()
    r = check_file(pkg / "model.py", project=project)
    reveals = [d.message.removeprefix("revealed shape: ") for d in r.diagnostics if d.code.id == "TS900"]
    assert reveals == ["[3 8]"]
    parsed = {m.name for m in project.by_path.values()}
    assert not any(name.startswith("agg.part") for name in parsed), parsed
    assert "agg.sub.deep" in parsed


def test_internal_failure_is_a_diagnostic_not_a_crash(monkeypatch: object) -> None:
    from tensorshape.infer import analyzer

    src = HEADER + "def ok():\n    return torch.randn(2) @ torch.randn(3)\ndef boom():\n    pass\n"
    original = analyzer.Analyzer.analyze_function

    def flaky(self, f, *a, **k):  # type: ignore[no-untyped-def]
        if f.node.name.value == "boom":
            raise ValueError("simulated")
        return original(self, f, *a, **k)

    monkeypatch.setattr(analyzer.Analyzer, "analyze_function", flaky)  # type: ignore[attr-defined]
    r = check_source(src, "t.py")
    assert sorted(d.code.id for d in r.diagnostics) == ["TS004", "TS101"]


def test_messages_use_the_singular_for_one() -> None:
    _, problems = run(
        """
        y = nn.Conv2d(3, 8, 3)(torch.randn(2, 1, 8, 8))
        z = torch.randn(5).permute(0, 1)
        w = nn.Conv2d(4, 8, 3)(torch.randn(2, 4, 8, 8))
        """
    )
    messages = [m for _, _, m in problems]
    assert any("(1 channel at dim 1)" in m and "with 3 channels" in m for m in messages), messages
    assert any("permute needs 1 dim for [5], got 2" in m for m in messages), messages
    assert not any(re.search(r"\b1 (dims|channels|values|elements)\b", m) for m in messages), messages


def test_module_methods_that_return_the_module() -> None:
    """``model = Net().to(device)``, ``.eval()``, ``.cuda()``... give the module back (torch returns ``self``)."""
    reveals, problems = run(
        """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(10, 3)

            def forward(self, x):
                return self.fc(x)

        model = Net().to(torch.device("cpu"))
        model.eval()
        reveal_shape(model.train().float()(torch.randn(4, 10)))
        head = nn.Linear(3, 2).to("cpu").requires_grad_(False)
        reveal_shape(head(model(torch.randn(5, 10))))
        model.to("cpu")(torch.randn(4, 12))
        """
    )
    assert reveals == ["[4 3]", "[5 2]"]
    # torch raises inside forward, at `self.fc(x)`
    assert [(code, line) for line, code, _ in problems] == [("TS101", 8)]


def test_slice_from_a_symbolic_negative_start_counts_from_the_end() -> None:
    """``freqs[-q_len:]`` keeps the last ``q_len`` rows (it gave ``m+n``, a false broadcast error
    in local-attention's rotary embedding once annotated); torch agrees for sizes in range."""
    body = """
        def rotary(q: Float[Tensor, "b n 64"], freqs: Float[Tensor, "m 64"]):
            q_len = q.shape[-2]
            q_freqs = freqs[..., -q_len:, :]
            reveal_shape(q_freqs)
            reveal_shape(freqs[-q_len:-1])
            return q * q_freqs.cos()
        """
    reveals, problems = run(body)
    assert reveals == ["[n 64]", "[n-1 64]"]
    assert problems == []
    import torch

    freqs = torch.randn(7, 64)
    for n in (1, 3, 7):
        assert freqs[..., -n:, :].shape == (n, 64) and freqs[-n:-1].shape == (n - 1, 64)
