"""`tensorshape annotate --trace --write` on real model packages from the package registry.

    python benchmarks/annotate_real.py                 # every package below
    python benchmarks/annotate_real.py linformer       # one of them
    python benchmarks/annotate_real.py --keep DIR      # keep the annotated copies in DIR

Each package is fetched at a pinned version with pip (`pip download --no-deps`, the source
distribution when it ships tests), its pure-Python dependencies are installed with `--no-deps`
into a temporary target folder (torch and einops come from the running environment, never
replaced), and its source is unpacked into a temporary project.  Nothing is vendored.  Then, in
that project:

1. `tensorshape check --statistics --format json` on the package: shape coverage before;
2. the package's own tests (`pytest`), or a driver that calls its models on random inputs as its
   README does, timed untraced;
3. `tensorshape annotate --trace --write -- <the same command>`, timed (the tracing overhead);
4. the same command again, under jaxtyping's import hook with beartype on the package: every
   written annotation is checked at every call of the run (it must pass);
5. `tensorshape check` again: coverage after, and errors that were not there before (must be 0).

Printed per package: functions (top-level and methods) in the package's files, functions the run
called with a tensor at their boundary, functions annotated, annotations written, the jaxtyping
run's outcome and how many functions its hook wrapped, coverage before/after (tensor expressions
with a known or symbolic shape), new errors, and run times untraced/traced with their ratio
(wall and CPU of the child processes; the machine is shared, so CPU time is the steadier figure).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from tensorshape.cli.annotate_cmd import traced_env

PY = sys.executable


@dataclass
class Package:
    name: str
    version: str
    #: the import name of the package (its folder)
    module: str
    #: the source distribution (it has the tests), else the wheel
    sdist: bool
    #: small pure-Python dependencies not in the environment: ``name==version``, installed ``--no-deps``
    deps: list[str] = field(default_factory=list)
    #: the command run, from the project folder; ``{py}`` is the interpreter
    command: list[str] = field(default_factory=list)
    #: a driver written into the project as ``driver.py``, when the package has no runnable tests
    driver: str = ""


LINFORMER_DRIVER = '''"""Train a LinformerLM and a Linformer encoder a few steps, as the README uses them."""
import torch
from linformer import Linformer, LinformerLM

torch.manual_seed(0)
lm = LinformerLM(num_tokens=100, dim=64, seq_len=32, depth=2, heads=4, k=16)
opt = torch.optim.SGD(lm.parameters(), lr=1e-3)
for batch in (2, 3, 4):
    x = torch.randint(0, 100, (batch, 32))
    logits = lm(x)
    loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), x)
    opt.zero_grad()
    loss.backward()
    opt.step()
enc = Linformer(dim=40, seq_len=24, depth=1, heads=2, k=8, one_kv_head=True, share_kv=True)
for batch in (1, 2, 5):
    assert enc(torch.randn(batch, 24, 40)).shape == (batch, 24, 40)
rev = Linformer(dim=36, seq_len=20, depth=2, heads=2, k=4, reversible=True)
for batch in (2, 3):
    rev(torch.randn(batch, 20, 36, requires_grad=True)).sum().backward()
print("ok")
'''

PERCEIVER_DRIVER = '''"""Run Perceiver and PerceiverIO on random inputs of a few sizes, as the README uses them."""
import torch
from perceiver_pytorch import Perceiver, PerceiverIO

torch.manual_seed(0)
model = Perceiver(
    input_channels=3, input_axis=2, num_freq_bands=4, max_freq=10.0, depth=2, num_latents=16,
    latent_dim=32, cross_heads=1, latent_heads=4, cross_dim_head=16, latent_dim_head=16,
    num_classes=10, self_per_cross_attn=1,
)
for batch, side in ((1, 8), (2, 12), (3, 10)):
    out = model(torch.randn(batch, side, side, 3))
    assert out.shape == (batch, 10)
    out.sum().backward()
io = PerceiverIO(
    dim=24, queries_dim=20, logits_dim=50, depth=2, num_latents=8, latent_dim=32, cross_heads=1,
    latent_heads=4, cross_dim_head=8, latent_dim_head=8,
)
for batch, n, q in ((1, 30, 7), (2, 17, 5), (4, 9, 11)):
    seq = torch.randn(batch, n, 24)
    mask = torch.ones(batch, n, dtype=torch.bool)
    logits = io(seq, mask=mask, queries=torch.randn(batch, q, 20))
    assert logits.shape == (batch, q, 50)
print("ok")
'''

GMLP_DRIVER = '''"""Train gMLP language models and a gMLPVision a few steps, as the README uses them."""
import torch
from g_mlp_pytorch import gMLP, gMLPVision
from g_mlp_pytorch.autoregressive_wrapper import AutoregressiveWrapper

torch.manual_seed(0)
lm = gMLP(num_tokens=50, dim=32, depth=2, seq_len=16, heads=2, attn_dim=8, circulant_matrix=True, act=torch.nn.Tanh())
opt = torch.optim.SGD(lm.parameters(), lr=1e-3)
for batch in (1, 3, 4):
    x = torch.randint(0, 50, (batch, 16))
    logits = lm(x)
    assert logits.shape == (batch, 16, 50)
    torch.nn.functional.cross_entropy(logits.transpose(1, 2), x).backward()
    opt.step()
    opt.zero_grad()
causal = AutoregressiveWrapper(gMLP(num_tokens=40, dim=24, depth=2, seq_len=12, causal=True, shift_tokens=1))
for batch, n in ((2, 13), (3, 9)):
    causal(torch.randint(0, 40, (batch, n))).backward()  # the loss over n - 1 <= seq_len tokens
causal.generate(torch.randint(0, 40, (2, 4)), 5)
causal.generate(torch.randint(0, 40, (3,)), 3)
vision = gMLPVision(image_size=16, patch_size=4, num_classes=10, dim=32, depth=2, channels=3, prob_survival=0.9)
for batch in (2, 5):
    assert vision(torch.randn(batch, 3, 16, 16)).shape == (batch, 10)
vision.eval()
assert vision(torch.randn(1, 3, 16, 16)).shape == (1, 10)
enc = gMLP(dim=20, depth=1, seq_len=10, ff_mult=2, shift_tokens=2)
for batch in (1, 2, 6):
    assert enc(torch.randn(batch, 10, 20)).shape == (batch, 10, 20)
print("ok")
'''

PACKAGES = [
    Package(
        "local-attention",
        "1.11.2",
        "local_attention",
        sdist=True,
        deps=["hyper-connections==0.4.11", "torch-einops-utils==0.2.0"],
        # the package's own test suite (its 16 cases take minutes on 2 shared cores: the 4 with the
        # smaller window, each option covered)
        command=[
            "{py}",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests",
            "-k",
            "128 and (True-True or False-False)",
        ],
    ),
    Package("linformer", "0.2.3", "linformer", sdist=True, command=["{py}", "driver.py"], driver=LINFORMER_DRIVER),
    Package(
        "perceiver-pytorch",
        "0.11.0",
        "perceiver_pytorch",
        sdist=True,
        command=["{py}", "driver.py"],
        driver=PERCEIVER_DRIVER,
    ),
    Package(
        "egnn-pytorch",
        "0.2.8",
        "egnn_pytorch",
        sdist=True,
        # its own test suite, less the two cases of the torch_geometric variant (not installed)
        command=["{py}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", "-k", "not sparse and not geom"],
    ),
    Package("g-mlp-pytorch", "0.1.5", "g_mlp_pytorch", sdist=True, command=["{py}", "driver.py"], driver=GMLP_DRIVER),
]

#: Runs the command with jaxtyping's import hook (beartype) on the package, then says how many
#: functions of the package the hook wrapped (so a pass cannot come from a hook that did nothing).
HOOKED = """
import atexit, runpy, sys
from jaxtyping import install_import_hook

module = sys.argv[1]
sys.argv = sys.argv[2:]
install_import_hook(module, "beartype.beartype")

def wrapped():
    import inspect
    n = 0
    for name, mod in list(sys.modules.items()):
        if name != module and not name.startswith(module + "."):
            continue
        for obj in vars(mod).values():
            items = [obj, *vars(obj).values()] if inspect.isclass(obj) else [obj]
            for f in items:
                if getattr(f, "__module__", None) == name and hasattr(f, "__wrapped__"):
                    n += 1
    print(f"JAXTYPING-WRAPPED {n}", file=sys.stderr)

atexit.register(wrapped)
if sys.argv[0] == "-m":
    sys.argv = sys.argv[1:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


def pip(*args: str) -> None:
    subprocess.run([PY, "-m", "pip", "-q", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fetch(pkg: Package, tmp: Path) -> tuple[Path, Path]:
    """The project folder (the package's source, its tests) and the target folder of its deps."""
    dl = tmp / "download"
    pip(
        "download",
        "--no-deps",
        *(["--no-binary", ":all:"] if pkg.sdist else []),
        "-d",
        str(dl),
        f"{pkg.name}=={pkg.version}",
    )
    (archive,) = dl.iterdir()
    project = tmp / "project"
    unpacked = tmp / "unpacked"
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            z.extractall(unpacked)
        shutil.copytree(unpacked, project)
    else:
        with tarfile.open(archive) as t:
            t.extractall(unpacked, filter="data")
        (top,) = unpacked.iterdir()
        shutil.copytree(top, project)
    site = tmp / "site"
    if pkg.deps:
        pip("install", "--no-deps", "--target", str(site), *pkg.deps)
    site.mkdir(exist_ok=True)
    if pkg.driver:
        (project / "driver.py").write_text(pkg.driver, encoding="utf-8")
    return project, site


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run ``cmd``; its wall time and the CPU time of the processes it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, wall, cpu


def check(project: Path, module: str, env: dict[str, str]) -> dict[str, object]:
    p = subprocess.run(
        [PY, "-m", "tensorshape", "check", "--no-cache", "--statistics", "--format", "json", module],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    try:
        return dict(json.loads(p.stdout))
    except json.JSONDecodeError:
        raise SystemExit(f"tensorshape check failed on {project}:\n{p.stdout}\n{p.stderr}") from None


def coverage(report: dict[str, object]) -> tuple[int, int]:
    t = report["summary"]["tensor_expressions"]  # type: ignore[index]
    return int(t["known"]) + int(t["symbolic"]), int(t["total"])


def errors(report: dict[str, object]) -> dict[tuple[str, str, str], int]:
    """Errors by file, code and message (lines move when annotations and imports are written),
    each with its first line."""
    out: dict[tuple[str, str, str], int] = {}
    for d in report["diagnostics"]:  # type: ignore[attr-defined]
        if d["severity"] == "error":
            out.setdefault((d["path"], d["code"], d["message"]), d["line"])
    return out


def functions(project: Path, module: str) -> dict[str, set[str]]:
    """The annotatable functions of each file of the package (as the codemod sees them)."""
    import libcst as cst
    from tensorshape.annotate.codemod import collect_functions

    out = {}
    for f in sorted((project / module).rglob("*.py")):
        out[str(f.resolve())] = set(collect_functions(cst.parse_module(f.read_text(encoding="utf-8"))))
    return out


def traced_with_tensors(trace: Path) -> set[tuple[str, str]]:
    seen = set()
    for line in trace.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        slots = [*rec.get("args", {}).values(), rec.get("result")]
        if any(isinstance(s, dict) and "int" not in s and "none" not in s for s in slots):
            seen.add((rec["file"], rec["qualname"]))
    return seen


def measure(pkg: Package, keep: Path | None) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix=f"annotate-real-{pkg.module}-") as t:
        tmp = Path(t)
        project, site = fetch(pkg, tmp)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(project), str(site)])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        cmd = [PY if c == "{py}" else c for c in pkg.command]
        before = check(project, pkg.module, env)
        all_functions = functions(project, pkg.module)
        # untraced and traced (the tracer alone, as the hook starts it), alternated twice, the
        # faster of each: the machine is shared and the first run pays cold caches
        with tempfile.TemporaryDirectory() as hook:
            traced = traced_env(hook, str(tmp / "timing.jsonl"), str(project / pkg.module), [], 8)
            traced["PYTHONPATH"] = os.pathsep.join([hook, env["PYTHONPATH"]])
            plain_runs: list[tuple[float, float]] = []
            traced_runs: list[tuple[float, float]] = []
            for _ in range(2):
                plain, wall, cpu = run(cmd, project, env)
                if plain.returncode != 0:
                    raise SystemExit(f"{pkg.name}: the command fails:\n{plain.stdout[-3000:]}\n{plain.stderr[-3000:]}")
                plain_runs.append((wall, cpu))
                _, wall, cpu = run(cmd, project, traced)
                traced_runs.append((wall, cpu))
            wall0, cpu0 = min(w for w, _ in plain_runs), min(c for _, c in plain_runs)
            wall1, cpu1 = min(w for w, _ in traced_runs), min(c for _, c in traced_runs)
        trace = tmp / "trace.jsonl"
        ann, wall2, cpu2 = run(
            [
                PY,
                "-m",
                "tensorshape",
                "annotate",
                "--trace",
                "--write",
                "--trace-file",
                str(trace),
                "--root",
                pkg.module,
                "--",
                *cmd,
            ],
            project,
            env,
        )
        if ann.returncode != 0:
            raise SystemExit(f"{pkg.name}: annotate failed:\n{ann.stdout[-3000:]}\n{ann.stderr[-3000:]}")
        m = re.search(r"wrote (\d+) annotation\(s\) in (\d+) function\(s\)", ann.stderr)
        written, annotated = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        seen = traced_with_tensors(trace)
        hooked_cmd = [PY, "-c", HOOKED, pkg.module, *cmd[1:]]
        hooked, _, _ = run(hooked_cmd, project, env)
        w = re.search(r"JAXTYPING-WRAPPED (\d+)", hooked.stderr)
        after = check(project, pkg.module, env)
        was, now = errors(before), errors(after)
        new_errors = [
            f"{p}:{line}: {code} {msg}" for (p, code, msg), line in sorted(now.items()) if (p, code, msg) not in was
        ]
        if keep is not None:
            shutil.copytree(project, keep / pkg.module, dirs_exist_ok=True)
            shutil.copy(trace, keep / f"{pkg.module}.trace.jsonl")
        return {
            "package": f"{pkg.name}=={pkg.version}",
            "functions": sum(len(v) for v in all_functions.values()),
            "called_with_tensors": len(seen),
            "annotated": annotated,
            "annotations": written,
            "jaxtyping": "pass" if hooked.returncode == 0 else "FAIL",
            "jaxtyping_output": "" if hooked.returncode == 0 else (hooked.stdout[-2000:] + hooked.stderr[-2000:]),
            "wrapped": int(w.group(1)) if w else 0,
            "coverage_before": coverage(before),
            "coverage_after": coverage(after),
            "new_errors": new_errors,
            "wall": (wall0, wall1, wall2),
            "cpu": (cpu0, cpu1, cpu2),
            "notes": [line for line in ann.stderr.splitlines() if ": note: " in line or "probable bug" in line],
        }


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("only", nargs="*", help="package names to run (default: all)")
    ap.add_argument("--keep", type=Path, help="copy the annotated projects and traces here")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON here")
    a = ap.parse_args()
    todo = [p for p in PACKAGES if not a.only or p.name in a.only or p.module in a.only]
    results = []
    for pkg in todo:
        print(f"== {pkg.name} {pkg.version}: {' '.join(pkg.command).replace('{py}', 'python')}", flush=True)
        r = measure(pkg, a.keep)
        results.append(r)
        cb, ca = r["coverage_before"], r["coverage_after"]
        (w0, w1, w2), (c0, c1, c2) = r["wall"], r["cpu"]  # type: ignore[misc]
        print(f"  functions in the package          {r['functions']}")
        print(f"  called with tensors by the run    {r['called_with_tensors']}")
        print(
            f"  annotated                         {pct(r['annotated'], r['called_with_tensors'])} of those called, "  # type: ignore[arg-type]
            f"{pct(r['annotated'], r['functions'])} of all"
        )  # type: ignore[arg-type]
        print(f"  annotations written               {r['annotations']}")
        print(f"  jaxtyping+beartype run            {r['jaxtyping']} (its hook wrapped {r['wrapped']} functions)")
        if r["jaxtyping_output"]:
            print("    " + str(r["jaxtyping_output"]).replace("\n", "\n    "))
        print(f"  shape coverage before             {pct(*cb)}")  # type: ignore[misc]
        print(f"  shape coverage after              {pct(*ca)}")  # type: ignore[misc]
        print(f"  new errors after annotating       {len(r['new_errors'])}")  # type: ignore[arg-type]
        for e in r["new_errors"]:  # type: ignore[attr-defined]
            print(f"    {e}")
        print(
            f"  run untraced / traced             wall {w0:.1f}s / {w1:.1f}s = {w1 / w0:.2f}x; CPU {c0:.1f}s / {c1:.1f}s = {c1 / c0:.2f}x"
        )
        print(
            f"  whole `annotate --trace --write`  wall {w2:.1f}s = {w2 / w0:.2f}x; CPU {c2:.1f}s = {c2 / c0:.2f}x of the untraced run"
        )
    if a.json:
        a.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print("== totals")
    fn = sum(int(r["functions"]) for r in results)  # type: ignore[call-overload]
    called = sum(int(r["called_with_tensors"]) for r in results)  # type: ignore[call-overload]
    annotated = sum(int(r["annotated"]) for r in results)  # type: ignore[call-overload]
    kb = sum(r["coverage_before"][0] for r in results)  # type: ignore[index]
    ka = sum(r["coverage_after"][0] for r in results)  # type: ignore[index]
    tb = sum(r["coverage_before"][1] for r in results)  # type: ignore[index]
    ta = sum(r["coverage_after"][1] for r in results)  # type: ignore[index]
    print(f"  annotated {pct(annotated, called)} of the functions called with tensors, {pct(annotated, fn)} of all")
    print(f"  jaxtyping runs passed {sum(r['jaxtyping'] == 'pass' for r in results)}/{len(results)}")
    print(f"  coverage {pct(kb, tb)} -> {pct(ka, ta)}")
    print(f"  new errors {sum(len(r['new_errors']) for r in results)}")  # type: ignore[arg-type]
    print(
        "  CPU ratio traced/untraced " + ", ".join(f"{r['package']}: {r['cpu'][1] / r['cpu'][0]:.2f}x" for r in results)  # type: ignore[index]
    )


if __name__ == "__main__":
    main()
