"""Overhead of `tensorshape annotate --trace`: a training step with and without the shape tracer.

    python benchmarks/annotate_overhead.py              # 200 steps of a small transformer, 8 samples
    python benchmarks/annotate_overhead.py --steps 50 --samples 64
    python benchmarks/annotate_overhead.py --per-call   # nanoseconds per call, past the samples

The model is written in a user's style (a module of its own under a temporary "project", many
small Python functions and methods per step).  The same process times the steps untraced, then
starts the tracer exactly as the `sitecustomize` hook does and times them again: the first steps
(sampled calls pay) and the later ones (every function has its samples).  ``--per-call`` times
instead one call of a function of the project with two tensor arguments, past its samples and not
switched off (its arguments' signature is taken at every call), and one call of a C method, the
least noisy measure of the tracer itself.  Prints milliseconds of
wall and of CPU (the process's, torch's threads included: the steadier figure on a shared
machine) per step and their ratios; the target is at most 2x while tracing.  The tracer is the
one of the ``tensorshape`` imported (``PYTHONPATH`` picks another checkout's to compare).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

MODEL = """
import torch
from torch import nn


def attention(q, k, v):
    w = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
    return w.softmax(-1) @ v


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.heads = heads

    def split(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.heads, d // self.heads).transpose(1, 2)

    def merge(self, x):
        b, h, t, e = x.shape
        return x.transpose(1, 2).reshape(b, t, h * e)

    def forward(self, x):
        q, k, v = self.qkv(self.n1(x)).chunk(3, dim=-1)
        x = x + self.out(self.merge(attention(self.split(q), self.split(k), self.split(v))))
        return x + self.mlp(self.n2(x))


class Model(nn.Module):
    def __init__(self, vocab=100, d=64, heads=4, layers=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        x = self.emb(tokens)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def loss_fn(logits, targets):
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def train_step(model, opt, tokens, targets):
    opt.zero_grad()
    loss = loss_fn(model(tokens), targets)
    loss.backward()
    opt.step()
    return loss
"""


CALLS = """
def f(x, y):
    return x


def loop(n, x, y):
    for _ in range(n):
        f(x, y)


def c_loop(n, x):
    for _ in range(n):
        x.dim()
"""


def per_call(samples: int, n: int = 200_000) -> None:
    """CPU nanoseconds per call untraced and traced: a project function past its samples, a C method."""
    import torch
    from tensorshape.annotate import trace

    with tempfile.TemporaryDirectory() as root:
        Path(root, "usercalls.py").write_text(CALLS, encoding="utf-8")
        sys.path.insert(0, root)
        m = importlib.import_module("usercalls")
        x, y = torch.zeros(8, 32), torch.zeros(8, 32, dtype=torch.int64)

        def best(fn: object, *args: object) -> float:
            times = []
            for _ in range(3):
                c0 = time.process_time()
                fn(*args)  # type: ignore[operator]
                times.append(time.process_time() - c0)
            return min(times) / n * 1e9

        base = best(m.loop, n, x, y), best(m.c_loop, n, x)
        trace.start({trace.ENV_FILE: str(Path(root, "t.jsonl")), trace.ENV_ROOT: root, trace.ENV_SAMPLES: str(samples)})
        m.loop(samples + 1, x, y)  # past the samples
        traced = best(m.loop, n, x, y), best(m.c_loop, n, x)
        trace.stop()
    print(f"python {sys.version.split()[0]}, tracer: {trace.__file__}")
    for what, b, t in zip(("project function, past its samples", "C method"), base, traced, strict=True):
        print(f"{what:<36} {b:8.0f} ns/call untraced {t:8.0f} ns/call traced (+{t - b:.0f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--per-call", action="store_true", help="time single calls instead of training steps")
    a = ap.parse_args()
    if a.per_call:
        per_call(a.samples)
        return
    import torch
    from tensorshape.annotate import trace

    torch.manual_seed(0)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as root:
        Path(root, "usermodel.py").write_text(MODEL, encoding="utf-8")
        sys.path.insert(0, root)
        m = importlib.import_module("usermodel")
        model = m.Model()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        batches = [(torch.randint(0, 100, (8, 32)), torch.randint(0, 100, (8, 32))) for _ in range(4)]

        def run(n: int) -> tuple[float, float]:
            """Wall and CPU seconds per step."""
            t0, c0 = time.perf_counter(), time.process_time()
            for i in range(n):
                m.train_step(model, opt, *batches[i % 4])
            return (time.perf_counter() - t0) / n, (time.process_time() - c0) / n

        run(10)  # warm up
        base = run(a.steps)
        out = Path(root, "trace.jsonl")
        env = {trace.ENV_FILE: str(out), trace.ENV_ROOT: root, trace.ENV_SAMPLES: str(a.samples)}
        trace.start(env)
        first = run(a.samples)  # the steps whose calls are sampled
        later = run(a.steps)
        trace.stop()
        records = len(out.read_text(encoding="utf-8").splitlines()) if out.exists() else 0
        print(f"steps: {a.steps}, samples per function: {a.samples}, python {sys.version.split()[0]}")
        print(f"tracer: {trace.__file__}")
        print(f"untraced:            wall {base[0] * 1e3:8.2f} ms/step            CPU {base[1] * 1e3:8.2f} ms/step")
        for what, (w, c) in ((f"sampling (first {a.samples})", first), ("after", later)):
            print(
                f"traced, {what:<17} wall {w * 1e3:8.2f} ms/step {w / base[0]:5.2f}x   "
                f"CPU {c * 1e3:8.2f} ms/step {c / base[1]:5.2f}x"
            )
        print(f"records written: {records}")


if __name__ == "__main__":
    main()
