"""Inference reach (issue 15 items 3, 4, 5a, 6): sizes from ints, loops and branches of real
models, facts from runtime obligations, normalisation without false errors."""

from __future__ import annotations

from .test_constructs import run


def test_sizes_from_ints_keep_their_rank() -> None:
    reveals, problems = run(
        """
        class Norm(nn.Module):
            def __init__(self, ndim: int):
                super().__init__()
                self.weight = nn.Parameter(torch.ones(ndim))

            def forward(self, x: Float[Tensor, "b c h w"]):
                reveal_shape(self.weight)
                return x

        def f(ndim: int, n_embd: int, n_head: int, x: Float[Tensor, "b c h w"], w: Float[Tensor, "c"]):
            reveal_shape(torch.ones(ndim))
            reveal_shape(w[:, None, None] * x)
            reveal_shape(x * ndim)
            reveal_shape(torch.zeros(int(n_embd / n_head)))
            assert n_embd % n_head == 0
            hd = int(n_embd / n_head)
            reveal_shape(torch.zeros(n_head, hd).reshape(n_embd))
        """
    )
    assert reveals == ["[ndim]", "[ndim]", "[b c h w]", "[b c h w]", "[n_embd//n_head]", "[n_embd]"]
    assert problems == []


def test_modulelist_of_identical_blocks_is_a_fixpoint() -> None:
    reveals, problems = run(
        """
        class Block(nn.Module):
            def __init__(self, d: int):
                super().__init__()
                self.fc = nn.Linear(d, d)

            def forward(self, x):
                return self.fc(x)

        class Net(nn.Module):
            def __init__(self, d: int, n: int):
                super().__init__()
                self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
                self.stack = nn.Sequential(*[Block(d) for _ in range(n)])

            def forward(self, x: Float[Tensor, "b t d"]):
                for blk in self.blocks:
                    x = blk(x)
                reveal_shape(x)
                reveal_shape(self.blocks[0](x))
                reveal_shape(self.stack(x))
                return x
        """
    )
    assert reveals == ["[b t d]", "[b t d]", "[b t d]"]
    assert problems == []


def test_optional_layer_narrows_on_is_not_none() -> None:
    reveals, problems = run(
        """
        class Net(nn.Module):
            def __init__(self, d: int, use_norm: bool = True):
                super().__init__()
                self.proj = nn.Linear(d, 2 * d)
                self.norm = nn.LayerNorm(2 * d) if use_norm else None

            def forward(self, x: Float[Tensor, "b d"]):
                x = self.proj(x)
                if self.norm is not None:
                    x = self.norm(x)
                reveal_shape(x)
                y = self.norm(x) if self.norm else x
                reveal_shape(y)
                return x

        def g(x: Float[Tensor, "b 4"]):
            off = Net(4, use_norm=False)
            reveal_shape(off(x))
        """
    )
    assert reveals == ["[b 2*d]; [b 8] (with a caller's sizes)", "[b 2*d]; [b 8] (with a caller's sizes)", "[b 8]"]
    assert problems == []


def test_joins_keep_agreeing_dims_and_widen_the_rest() -> None:
    reveals, problems = run(
        """
        def f(x: Float[Tensor, "b c"], flag: bool, n: int):
            if flag:
                y = torch.cat([x, x], dim=1)
            else:
                y = x
            reveal_shape(y)
            z = x
            for _ in range(n):
                z = torch.cat([z, x], dim=1)
            reveal_shape(z)
            return y
        """
    )
    assert reveals[0] == "[b c']", "dim 0 agrees; dim 1 differs: a fresh symbol, not unknown"
    assert reveals[1].startswith("[b ") and "?" not in reveals[1]
    assert problems == []


def test_a_runtime_obligation_is_a_fact_afterwards() -> None:
    reveals, problems = run(
        """
        def f(x: Float[Tensor, "b t d_model"], n_embd: int, n_head: int):
            proj = nn.Linear(n_embd, n_embd)
            y = proj(x)
            reveal_shape(y)
            z = x + y
            reveal_shape(z)
            head = y.view(x.shape[0], x.shape[1], n_head, n_embd // n_head)
            reveal_shape(head.reshape(x.shape[0], x.shape[1], n_embd))
        """
    )
    assert reveals[0] == "[b t n_embd]"
    assert reveals[1] == "[b t d_model]", "d_model == n_embd was required by the Linear: the add is proven"
    assert problems == []


def test_conditions_are_warnings_and_divisibility_an_obligation() -> None:
    reveals, problems = run(
        """
        def unet(x: Float[Tensor, "b 8 h w"]):
            up = nn.ConvTranspose2d(8, 8, 2, stride=2)
            d = F.max_pool2d(F.max_pool2d(F.max_pool2d(x, 2), 2), 2)
            reveal_shape(d)
            u = up(F.max_pool2d(x, 2))
            return torch.cat([x, u], dim=1)

        def rope(x: Float[Tensor, "b t h d"]):
            y = x.reshape(*x.shape[:-1], -1, 2)
            reveal_shape(y)

        def topk(x: Float[Tensor, "b n"]):
            v, i = torch.topk(x, min(5, x.shape[1]))
            reveal_shape(v)
        """
    )
    assert reveals == ["[b 8 h//8 w//8]", "[b t h d//2 2]", "[b min(5,n)]"]
    assert [(line, code) for line, code, _ in problems] == [(7, "TS115")]
    assert "`h` must be even" in problems[0][2]
