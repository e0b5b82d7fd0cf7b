"""`tensorshape annotate --trace --write` on the bundled examples: what it writes and what that buys.

    python benchmarks/annotate_examples.py            # examples/*.py (not vollo/, not bugs/)

For each example, in a temporary copy: trace its `demo()`, write the annotations, then report the
functions with tensors at their boundary that have an annotation (in parentheses: those that had
one by hand before), whether jaxtyping's runtime
checker (with beartype, through its import hook) accepts the annotated demo, the checker's shape
coverage (tensor expressions with a known or symbolic shape) before and after, and new errors.
A verdict ``REFUSED*`` means jaxtyping refused the example's own annotations already, before annotate.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = "import {m}; {m}.demo()"
HOOKED = """
from jaxtyping import install_import_hook
with install_import_hook("{m}", "beartype.beartype"):
    import {m}
try:
    {m}.demo()
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0] if str(e) else "")
"""


def coverage(path: Path) -> tuple[int, int, int]:
    from tensorshape.infer import check_file
    from tensorshape.model.diagnostics import Severity

    r = check_file(path)
    known = r.stats.get("known", 0) + r.stats.get("symbolic", 0)
    errors = sum(d.severity is Severity.ERROR for d in r.diagnostics)
    return known, known + r.stats.get("unknown", 0), errors


def main() -> None:
    tensorshape = [sys.executable, "-m", "tensorshape"]
    totals = [0, 0, 0, 0, 0]
    notes: list[str] = []
    print(
        f"{'example':24} {'functions':>9} {'annotated (by hand)':>11} {'jaxtyping':>10} {'coverage before':>16} {'after':>8} {'new errors':>10}"
    )
    for src in sorted((ROOT / "examples").glob("*.py")):
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp, src.name)
            shutil.copy(src, f)
            m = f.stem
            before = coverage(f)
            original = f.read_text(encoding="utf-8")
            run0 = subprocess.run([sys.executable, "-c", HOOKED.format(m=m)], cwd=tmp, capture_output=True, text=True)
            refused_before = "TypeCheckError" in run0.stdout + run0.stderr  # its own annotations
            subprocess.run(
                [*tensorshape, "annotate", "--trace", "--write", "--", sys.executable, "-c", RUN.format(m=m)],
                cwd=tmp,
                capture_output=True,
                text=True,
            )
            calls = [json.loads(line) for line in Path(tmp, "tensorshape-trace.jsonl").read_text().splitlines()]
            tensor_fns = {
                c["qualname"]
                for c in calls
                if any("shape" in json.dumps(v) for v in [*c["args"].values(), c["result"]] if v)
            }
            after = coverage(f)
            text = f.read_text(encoding="utf-8")
            annotated = sum(
                1 for q in tensor_fns if f"def {q.split('.')[-1]}(" in text and "Tensor, " in _def_line(text, q)
            )
            had = sum(1 for q in tensor_fns if "Tensor, " in _def_line(original, q))
            out = subprocess.run([sys.executable, "-c", HOOKED.format(m=m)], cwd=tmp, capture_output=True, text=True)
            verdict = "accepted" if "TypeCheckError" not in out.stdout + out.stderr else "REFUSED"
            if verdict == "REFUSED" and refused_before:
                verdict = "REFUSED*"
                notes.append(f"{src.name}: jaxtyping refuses its own annotations already, before annotate")
            totals[0] += len(tensor_fns)
            totals[1] += annotated
            totals[4] += had
            totals[2] += verdict == "accepted"
            totals[3] += 1
            print(
                f"{src.name:24} {len(tensor_fns):9} {f'{annotated} ({had})':>11} {verdict:>10} "
                f"{before[0]:>7}/{before[1]:<8} {after[0]:>4}/{after[1]:<4} {after[2] - before[2]:10}"
            )
    print(
        f"functions with tensors annotated: {totals[1]}/{totals[0]} ({totals[4]} of them by hand before); "
        f"files accepted by jaxtyping: {totals[2]}/{totals[3]}"
    )
    for note in notes:
        print(f"* {note}")


def _def_line(text: str, qual: str) -> str:
    name = qual.split(".")[-1]
    for line in text.splitlines():
        if line.lstrip().startswith(f"def {name}("):
            return line
    return ""


if __name__ == "__main__":
    main()
