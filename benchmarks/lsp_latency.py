"""Latency from ``didChange`` to published diagnostics in ``tensorshape lsp``, on a large real file.

    python benchmarks/lsp_latency.py [FILE] [--edits 20] [--full-runs 5]

Starts the server over stdio, opens FILE (default: a ~3,000-line transformers
modeling file from benchmarks/.corpus, downloaded by ``corpus.py`` when
missing), then makes one-line edits of four kinds, each edit followed by its
undo: a statement inserted in a method body near the middle of the file, a
module-level statement inserted before a class, a blank line turned into a
comment, and a name added to the import of ``nn`` (the worst case: every
definition that mentions ``nn`` is analysed again).  It measures the time from ``didChange`` until the diagnostics for
that version arrive and prints the median and the 90th percentile per kind
(target: median under 50 ms) with the server's own CPU time per edit (read from
``/proc``: steady on a machine shared with other work), then the time of a full
analysis of the file in process (what every edit cost before the analysis was incremental).
``--annotated`` uses a ~3,000-line file of annotated models instead (the suite of
``benchmarks/annotated_models/`` laid end to end, each copy with its own widths),
where shapes are known and the analysis has real work to do.  After the edits a
second file (the same text under another name) is opened in the warm server: the
time to its first diagnostics is printed (target: under 0.5 s).

``--explain`` skips the server and says, in process, where a method-body edit's
time goes: the definitions it analyses again with the CPU of each, the calls
into the edited function (how many, with how many distinct arguments, how many
memoised or cut short by the depth bound: an early cut-off on the edited
function's results would have to re-evaluate it once per distinct argument set)
and the instances built, by class.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tensorshape.lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

    def cpu_ms(self) -> float | None:
        """The server's CPU time so far (user + system, ms), from ``/proc``; ``None`` where there is none.

        Wall-clock latency is what a user waits for, but on a machine shared with other work it
        mostly measures the others: the server's own CPU per edit is printed beside it."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    def send(self, method: str, params: Any, request: bool = False) -> int | None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        rid = None
        if request:
            self.next_id += 1
            rid = msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return rid

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))  # type: ignore[no-any-return]

    def wait(self, pred: Any) -> dict[str, Any]:
        while True:
            msg = self.read()
            if pred(msg):
                return msg


def default_file() -> Path:
    corpus = HERE / ".corpus"
    if not corpus.exists():
        from corpus import ensure  # type: ignore[import-not-found]

        ensure()
    files = sorted(corpus.glob("transformers-*/transformers/models/*/modeling_*.py"))
    return min(files, key=lambda p: abs(p.read_text().count("\n") - 3000))


def _distinct(text: str, k: int) -> str:
    """``text`` with its top-level classes and functions renamed apart (``Block`` -> ``Block_7``): one
    module defines each model once, as a real file does."""
    text = text.replace("from __future__ import annotations\n", "")
    for name in re.findall(r"^(?:class|def) (\w+)", text, flags=re.M):
        text = re.sub(rf"\b{name}\b", f"{name}_{k}", text)
    return text


def annotated_file(dest: Path, lines: int = 3000) -> Path:
    """One module of about ``lines`` lines: the annotated-model suite, copies end to end."""
    # The script, not the package of models beside it that has its name.
    spec = importlib.util.spec_from_file_location("annotated_models_bench", HERE / "annotated_models.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    lay_out = bench.lay_out

    parts: list[str] = []
    copies = 0
    while sum(p.count("\n") for p in parts) < lines:
        copies += 1
        shutil.rmtree(dest / "src", ignore_errors=True)
        parts = [_distinct(p.read_text(), k) for k, p in enumerate(lay_out(dest / "src", copies))]
    out = dest / "annotated_3k.py"
    out.write_text("from __future__ import annotations\n\n" + "\n".join(parts))
    return out


def body_edit(lines: list[str], k: int) -> list[str]:
    """Insert ``_edit = k`` after a simple statement in the body of a method near the middle of the file."""
    mid = len(lines) // 2
    for i in sorted(range(len(lines) - 1), key=lambda i: abs(i - mid)):
        ln, nxt = lines[i], lines[i + 1]
        indent = ln[: len(ln) - len(ln.lstrip())]
        if (
            len(indent) >= 8
            and nxt.startswith(indent)
            and not nxt[len(indent)].isspace()
            and " = " in ln
            and ln.rstrip().endswith(")")
            and ln.count("(") == ln.count(")")
            and not nxt.lstrip().startswith((")", "]", "}", "."))
        ):
            return lines[: i + 1] + [f"{indent}_edit = {k}\n"] + lines[i + 1 :]
    raise SystemExit("no function body line to edit")


def module_edit(lines: list[str], k: int) -> list[str]:
    """Insert a module-level statement ``_EDIT = k`` before a class near the middle of the file."""
    mid = len(lines) // 2
    i = min((i for i, ln in enumerate(lines) if ln.startswith("class ")), key=lambda i: abs(i - mid))
    return lines[:i] + [f"_EDIT = {k}\n", "\n\n"] + lines[i:]


def import_edit(lines: list[str], k: int) -> list[str]:
    """Add a name to the import of ``nn`` (or ``torch``): every definition that mentions it is analysed again."""
    cands = [i for i, ln in enumerate(lines) if ln.rstrip() in ("from torch import nn", "import torch.nn as nn")]
    cands += [i for i, ln in enumerate(lines) if ln.rstrip() == "import torch"]  # else the import of torch
    i = cands[0]
    name = "nn" if lines[i].startswith("from") else lines[i].split()[1]
    return lines[:i] + [lines[i].rstrip("\n") + f", {name} as _imported{k}\n"] + lines[i + 1 :]


def comment_edit(lines: list[str], k: int) -> list[str]:
    """Turn the first blank line into a comment."""
    i = next((i for i, ln in enumerate(lines) if ln.strip() == ""), 0)
    return lines[:i] + [f"# edit {k}\n"] + lines[i + 1 :]


def percentiles(times: list[float]) -> str:
    times = sorted(times)
    return f"median {statistics.median(times):4.0f} ms, p90 {times[int(0.9 * (len(times) - 1))]:4.0f} ms"


def full_analysis(path: Path, text: str, runs: int) -> list[float]:
    """In-process CPU time of a full analysis (parse, interpret, positions), what every edit cost before."""
    from tensorshape.infer.api import CheckSettings
    from tensorshape.infer.project import Project
    from tensorshape.lsp.analysis import analyse

    project = Project([path.parent])
    analyse(text, str(path), CheckSettings(), 1, [], project)
    out = []
    for _ in range(runs):
        t = time.process_time()
        analyse(text, str(path), CheckSettings(), 1, [], project)
        out.append((time.process_time() - t) * 1000)
    return out


def main() -> None:
    sys.path.insert(0, str(HERE))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--edits", type=int, default=20, help="edits of each kind")
    ap.add_argument("--full-runs", type=int, default=5, help="full analyses to time (0: skip)")
    ap.add_argument("--annotated", action="store_true", help="a 3,000-line file of annotated models")
    ap.add_argument("--explain", action="store_true", help="where a method-body edit's time goes (in process)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ts-lsp-"))
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, work: Path) -> None:
    if args.annotated:
        path = annotated_file(work)
    else:
        path = Path(args.file).resolve() if args.file else default_file()
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    if args.explain:
        explain(path, lines, args.edits)
        return
    c = Client()
    rid = c.send("initialize", {"processId": None, "rootUri": path.parent.as_uri(), "capabilities": {}}, request=True)
    c.wait(lambda m: m.get("id") == rid)
    c.send("initialized", {})
    uri = path.resolve().as_uri()
    t0 = time.perf_counter()
    c.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    first = time.perf_counter() - t0
    version = 1
    results: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    kinds = [
        ("function body", body_edit),
        ("module level", module_edit),
        ("comment line", comment_edit),
        ("import line", import_edit),
    ]
    for name, edit in kinds:
        times = results.setdefault(name, [])
        cpus = cpu.setdefault(name, [])
        for k in range(args.edits):
            for new in (edit(lines, k), lines):  # the edit, then back: every change is one line
                version += 1
                c0 = c.cpu_ms()
                t = time.perf_counter()
                c.send(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": "".join(new)}]},
                )
                c.wait(
                    lambda m, v=version: (
                        m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == v
                    )
                )
                times.append((time.perf_counter() - t) * 1000)
                c1 = c.cpu_ms()
                if c0 is not None and c1 is not None:
                    cpus.append(c1 - c0)
    other = work / f"opened_{path.name}"
    other.write_text(text)
    c0 = c.cpu_ms()
    t = time.perf_counter()
    c.send(
        "textDocument/didOpen",
        {"textDocument": {"uri": other.as_uri(), "languageId": "python", "version": 1, "text": text}},
    )
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("uri") == other.as_uri())
    second = time.perf_counter() - t
    c1 = c.cpu_ms()
    second_cpu = f", server CPU {c1 - c0:.0f} ms" if c0 is not None and c1 is not None else ""
    rid = c.send("shutdown", None, request=True)
    c.wait(lambda m: m.get("id") == rid)
    c.send("exit", None)
    print(f"file: {path} ({len(lines)} lines)")
    print(f"didOpen -> diagnostics: {first * 1000:.0f} ms (cold: imports and first analysis)")
    print(f"didOpen of another file, warm server -> diagnostics: {second * 1000:.0f} ms{second_cpu} (target < 500 ms)")
    print("didChange -> diagnostics, one-line edits (includes the 50 ms debounce; target: median < 50 ms):")
    for name, times in results.items():
        server = f"; server CPU median {statistics.median(cpu[name]):4.0f} ms" if cpu[name] else ""
        print(f"  {name:14} {percentiles(times)}{server}  ({len(times)} edits)")
    if args.full_runs:
        print(f"full analysis of the file, in process (CPU): {percentiles(full_analysis(path, text, args.full_runs))}")


def edited_function(new: list[str], old: list[str]) -> str:
    """The qualified name (``Class.method``) of the innermost function whose body ``new`` edits."""
    line = next(i for i, (a, b) in enumerate(zip(new, old)) if a != b) + 1
    best: list[str] = []

    def walk(node: ast.AST, names: list[str]) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = [*names, child.name]
                end = child.end_lineno or child.lineno
                if child.lineno <= line <= end and not isinstance(child, ast.ClassDef):
                    best = inner
                walk(child, inner)

    walk(ast.parse("".join(new)), [])
    if not best:
        raise SystemExit("the edit is not inside a function")
    return ".".join(best)


def explain(path: Path, lines: list[str], edits: int) -> None:
    """In process: where the CPU of a method-body edit (and its undo) goes."""
    import tensorshape.lsp.incremental as incremental
    from tensorshape.infer.api import CheckSettings
    from tensorshape.infer.memory import tune_gc
    from tensorshape.infer.project import Project
    from tensorshape.lsp.analysis import lsp_settings
    from tensorshape.lsp.incremental import IncrementalAnalyser
    from tensorshape.lsp.recording import RecordingAnalyzer

    target = edited_function(body_edit(lines, 0), lines)
    per_def: dict[str, list[float]] = defaultdict(list)
    calls: Counter[str] = Counter()
    keys: set[int] = set()
    call_cpu = [0.0]
    built: dict[str, list[float]] = defaultdict(list)
    counting = [False]

    class Accounting(RecordingAnalyzer):
        """Times the definitions, the calls into the edited function and the outermost constructions."""

        _building = 0

        def analyze_function(self, f: Any, *a: Any, **k: Any) -> None:
            t = time.process_time()
            try:
                super().analyze_function(f, *a, **k)
            finally:
                if counting[0]:
                    per_def[".".join(f.qualname.rsplit(".", 2)[-2:])].append(time.process_time() - t)

        def inline(self, frame: Any, f: Any, *a: Any, **k: Any) -> Any:
            if not counting[0] or not f.qualname.endswith("." + target):
                return super().inline(frame, f, *a, **k)
            t, cut = time.process_time(), self._cut
            try:
                key = hash((tuple(x.value for x in a[1]), tuple(sorted((n, x.value) for n, x in a[2].items()))))
            except TypeError:
                key = None
            try:
                return super().inline(frame, f, *a, **k)
            finally:
                call_cpu[0] += time.process_time() - t
                calls["calls"] += 1
                calls["cut short by the depth bound (never memoised)"] += self._cut != cut
                calls["memoised (stored or reused)"] += key is not None and self._cut == cut
                calls["arguments not hashable"] += key is None
                if key is not None:
                    keys.add(key)

        def instantiate(self, frame: Any, state: Any, cls: Any, *a: Any, **k: Any) -> Any:
            t = time.process_time()
            self._building += 1
            try:
                return super().instantiate(frame, state, cls, *a, **k)
            finally:
                self._building -= 1
                if counting[0] and not self._building:
                    built[cls.qualname.rsplit(".", 1)[-1]].append(time.process_time() - t)

    incremental.RecordingAnalyzer = Accounting  # type: ignore[misc]
    tune_gc()  # as the server does
    inc = IncrementalAnalyser(Project([path.parent]), lsp_settings(CheckSettings()), str(path))
    inc.update("".join(lines), 1)
    inc.update("".join(body_edit(lines, 99)), 2)  # the first edit: warm
    inc.update("".join(lines), 3)
    version, total, n = 3, 0.0, 0
    counting[0] = True
    for k in range(edits):
        for new in (body_edit(lines, k), lines):
            version += 1
            t = time.process_time()
            inc.update("".join(new), version)
            total += time.process_time() - t
            n += 1
    print(f"file: {path} ({len(lines)} lines); method-body edit of `{target}`, and its undo, {n} updates")
    print(f"CPU per update, in process: {total / n * 1000:.0f} ms")
    print(f"definitions analysed again per update: {sum(len(v) for v in per_def.values()) / n:.0f}")
    for q, ts in sorted(per_def.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {q:60} {sum(ts) / n * 1000:6.1f} ms")
    print(f"calls into `{target}` per update: {calls['calls'] / n:.1f}, {len(keys)} distinct argument sets in all,")
    print(f"  {call_cpu[0] / n * 1000:.0f} ms (an early cut-off on its results re-evaluates each argument set);")
    for what in (
        "memoised (stored or reused)",
        "cut short by the depth bound (never memoised)",
        "arguments not hashable",
    ):
        print(f"  {what}: {calls[what] / n:.1f}")
    print(f"instances built (outermost constructions) per update: {sum(len(v) for v in built.values()) / n:.1f}")
    for name, ts in sorted(built.items(), key=lambda kv: -sum(kv[1]))[:6]:
        print(f"  {name:60} {len(ts) / n:5.1f} x {sum(ts) / n * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
