"""Per-call cost of runtime shape checks: tensorshape vs a hand-written assert vs jaxtyping + beartype.

    python benchmarks/runtime_overhead.py

For a 2-argument and a 4-argument function (tiny tensors, so the check
dominates), prints microseconds per call of: the plain function, the same
with a hand-written ``assert x.shape[...] == ...``, with ``@shapecheck``, with
``@shapecheck`` and ``TENSORSHAPE_RUNTIME`` switched off, and with
jaxtyping's ``@jaxtyped(typechecker=beartype)``; then the overheads (time
minus the plain function's) and their ratios.  Targets: within 3x of the
hand-written assert, at least 10x cheaper than jaxtyping + beartype.
Then, for each example, how many checks ``tensorshape instrument`` inserts
(only at obligations) against ``--all`` (every annotated function).
"""

from __future__ import annotations

import timeit

import torch
from beartype import beartype
from jaxtyping import Float, jaxtyped
from tensorshape import runtime
from tensorshape.runtime import shapecheck
from torch import Tensor

N = 20000
OUT2 = torch.zeros(4, 3)


def plain2(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
    return OUT2


def assert2(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
    assert x.ndim == 2 and w.ndim == 2 and x.shape[1] == w.shape[0]
    out = OUT2
    assert out.ndim == 2 and out.shape[0] == x.shape[0] and out.shape[1] == w.shape[1]
    return out


def plain4(
    x: Float[Tensor, "b t d"], w: Float[Tensor, "d k"], bias: Float[Tensor, " k"], mask: Float[Tensor, "b t"]
) -> Float[Tensor, "b t d"]:
    return x


def assert4(
    x: Float[Tensor, "b t d"], w: Float[Tensor, "d k"], bias: Float[Tensor, " k"], mask: Float[Tensor, "b t"]
) -> Float[Tensor, "b t d"]:
    assert x.ndim == 3 and w.ndim == 2 and bias.ndim == 1 and mask.ndim == 2
    assert x.shape[2] == w.shape[0] and bias.shape[0] == w.shape[1] and mask.shape == x.shape[:2]
    out = x
    assert out.shape == x.shape
    return out


def per_call(fn: object, *args: object) -> float:
    timer = timeit.Timer(lambda: fn(*args))  # type: ignore[operator]
    best = min(timer.repeat(repeat=5, number=N))
    return best / N * 1e6


def main() -> None:
    x2, w = torch.zeros(4, 5), torch.zeros(5, 3)
    x4, bias, mask = torch.zeros(4, 6, 5), torch.zeros(3), torch.zeros(4, 6)
    rows = []
    for label, plain, handwritten, args in (
        ("2 args", plain2, assert2, (x2, w)),
        ("4 args", plain4, assert4, (x4, w, bias, mask)),
    ):
        checked = shapecheck(plain)
        jax = jaxtyped(typechecker=beartype)(plain)
        t_plain = per_call(plain, *args)
        t_assert = per_call(handwritten, *args)
        t_ts = per_call(checked, *args)
        runtime.disable()
        t_off = per_call(checked, *args)
        runtime.enable()
        t_jax = per_call(jax, *args)
        rows.append((label, t_plain, t_assert, t_ts, t_off, t_jax))
    print(f"{'':8}{'plain':>9}{'assert':>9}{'tensorshape':>13}{'(off)':>8}{'jaxtyping':>11}   us per call")
    for label, t_plain, t_assert, t_ts, t_off, t_jax in rows:
        print(f"{label:8}{t_plain:>9.2f}{t_assert:>9.2f}{t_ts:>13.2f}{t_off:>8.2f}{t_jax:>11.2f}")
    print()
    for label, t_plain, t_assert, t_ts, t_off, t_jax in rows:
        o_assert, o_ts, o_jax, o_off = t_assert - t_plain, t_ts - t_plain, t_jax - t_plain, t_off - t_plain
        print(
            f"{label}: overhead tensorshape {o_ts:.2f} us = {o_ts / o_assert:.1f}x the hand-written assert "
            f"(target <= 3x); jaxtyping+beartype {o_jax:.2f} us = {o_jax / o_ts:.1f}x tensorshape "
            f"(target >= 10x); switched off {o_off:.2f} us"
        )


def instrument_counts() -> None:
    """Checks ``tensorshape instrument`` inserts in the examples, against ``--all`` (every annotated boundary)."""
    from pathlib import Path

    from tensorshape.instrument import instrument_source

    root = Path(__file__).resolve().parents[1] / "examples"
    total = {"obligations": 0, "all": 0, "skipped": 0}
    print(f"\n{'example':<34}{'instrument':>11}{'--all':>7}{'skipped':>9}")
    for path in sorted(root.rglob("*.py")):
        src = path.read_text()
        r = instrument_source(src, str(path))
        a = instrument_source(src, str(path), every_boundary=True)
        total["obligations"] += r.inserted
        total["all"] += a.inserted
        total["skipped"] += len(r.skipped)
        print(f"{str(path.relative_to(root)):<34}{r.inserted:>11}{a.inserted:>7}{len(r.skipped):>9}")
    print(f"{'total':<34}{total['obligations']:>11}{total['all']:>7}{total['skipped']:>9}")


if __name__ == "__main__":
    main()
    instrument_counts()
