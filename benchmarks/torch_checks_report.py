"""How many of torch's own shape and size checks the op rules model (docs/torch-checks.md).

    python benchmarks/torch_checks_report.py              # the counts
    python benchmarks/torch_checks_report.py --markdown   # rewrite docs/torch-checks.md's table

Scans the installed torch's ``nn/functional.py`` and ``nn/modules/*.py`` for the checks reached
from the ops of the table (tests/differential/torch_checks.py), joins them with the inventory
(tests/differential/torch_checks.csv: kind, modelled, the named case that makes torch raise it),
and prints the counts.  Checks of torch's C++ kernels are in the inventory as ``aten`` rows, found
by calling the ops (each with its case).  Exit status 1 if the scan and the inventory disagree.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.differential.torch_checks import Entry, load_inventory, scan, table_ops, torch_dir  # noqa: E402

DOC = ROOT / "docs" / "torch-checks.md"
BEGIN, END = "<!-- inventory: begin -->", "<!-- inventory: end -->"


def counts(entries: list[Entry]) -> dict[str, int]:
    shape = [e for e in entries if e.kind == "shape"]
    return {
        "checks": len(entries),
        "shape": len(shape),
        "modelled": sum(e.modelled for e in shape),
        "other": sum(e.kind == "other" for e in entries),
        "internal": sum(e.kind == "internal" for e in entries),
    }


def table(entries: list[Entry]) -> str:
    rows = ["| source | where | op / function | torch's message | kind | modelled | case |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for e in entries:
        msg = e.message.replace("|", "\\|")
        if len(msg) > 110:
            msg = msg[:107] + "..."
        note = f" ({e.note})" if e.note else ""
        case = f"`{e.case}`" if e.case else ""
        rows.append(
            f"| {e.source} | `{e.where}` | `{e.function}` | {msg}{note.replace('|', '/')} | {e.kind} | "
            f"{'yes' if e.modelled else 'no'} | {case} |"
        )
    return "\n".join(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true", help="rewrite the table in docs/torch-checks.md")
    args = ap.parse_args()
    found = scan(*table_ops())
    entries = load_inventory()
    listed = {(e.where, e.function, e.message) for e in entries if e.source == "python"}
    scanned = {(f"torch/{s.file}", s.function, s.message) for s, _ in found.values()}
    print(f"torch {torch_dir()}")
    print(f"python checks found by the scan: {len(scanned)} (raise/assert/torch._check sites reached from the table's ops)")
    missing, stale = scanned - listed, listed - scanned
    for k in sorted(missing):
        print("  not in the inventory:", k)
    for k in sorted(stale):
        print("  no longer in torch:", k)
    by_source = {src: [e for e in entries if e.source == src] for src in sorted({e.source for e in entries})}
    for src, es in by_source.items():
        c = counts(es)
        print(
            f"{src:10s} {c['checks']:4d} checks: {c['shape']:4d} on shapes/sizes, {c['modelled']:4d} of them modelled; "
            f"{c['other']} on other things (dtype, mode, probability), {c['internal']} internal/unreachable"
        )
    c = counts(entries)
    print(
        f"all        {c['checks']:4d} checks: {c['shape']:4d} on shapes/sizes, {c['modelled']:4d} of them modelled "
        f"({100 * c['modelled'] / max(c['shape'], 1):.0f}%)"
    )
    unmodelled = [e for e in entries if e.kind == "shape" and not e.modelled]
    print(f"shape checks not modelled: {len(unmodelled)}")
    for e in unmodelled:
        print(f"  {e.function}: {e.message[:80]}  ({e.note})")
    print("kinds:", dict(Counter(e.kind for e in entries)))
    if args.markdown:
        text = DOC.read_text()
        head, rest = text.split(BEGIN)
        _, tail = rest.split(END)
        DOC.write_text(f"{head}{BEGIN}\n{table(entries)}\n{END}{tail}")
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
