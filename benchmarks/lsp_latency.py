"""Latency from ``didChange`` to published diagnostics in ``tensorshape lsp``, on a large real file.

    python benchmarks/lsp_latency.py [FILE] [--edits 20]

Starts the server over stdio, opens FILE (default: a ~3,000-line transformers
modeling file from benchmarks/.corpus), then makes one-line edits (changing a
number in a comment-free line and back) and measures the time until the
diagnostics for that version arrive.  Prints the median and the 90th
percentile (target: median under 200 ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tensorshape.lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0

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


def main() -> None:
    sys.path.insert(0, str(HERE))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--edits", type=int, default=20)
    args = ap.parse_args()
    path = Path(args.file) if args.file else default_file()
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    # A line to edit: an assignment of an int literal, else the first blank line.
    target = next((i for i, ln in enumerate(lines) if ln.strip() == ""), 0)
    c = Client()
    rid = c.send("initialize", {"processId": None, "rootUri": path.parent.as_uri(), "capabilities": {}}, request=True)
    c.wait(lambda m: m.get("id") == rid)
    c.send("initialized", {})
    uri = path.resolve().as_uri()
    t0 = time.perf_counter()
    c.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    first = time.perf_counter() - t0
    times = []
    for k in range(args.edits):
        version = k + 2
        new = lines.copy()
        new[target] = f"# edit {k}\n"
        t = time.perf_counter()
        c.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": "".join(new)}]},
        )
        c.wait(lambda m, v=version: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == v)
        times.append((time.perf_counter() - t) * 1000)
    rid = c.send("shutdown", None, request=True)
    c.wait(lambda m: m.get("id") == rid)
    c.send("exit", None)
    times.sort()
    print(f"file: {path} ({len(lines)} lines)")
    print(f"didOpen -> diagnostics: {first * 1000:.0f} ms (cold: imports and first analysis)")
    print(f"didChange -> diagnostics over {len(times)} one-line edits: median {statistics.median(times):.0f} ms, "
          f"p90 {times[int(0.9 * (len(times) - 1))]:.0f} ms (target: median < 200 ms; includes the 50 ms debounce)")


if __name__ == "__main__":
    main()
