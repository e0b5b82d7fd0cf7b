"""Figures for the whole-program suite (tests/wholeprograms, issue 16): unannotated training
scripts checked with no configuration, against torch.

    python benchmarks/whole_programs.py

Per program: the seeded bug found at the line torch raises on (or missed), false errors (an error
on a correct program, or on a bug file anywhere but the bug's line), shape coverage of tensor
expressions (``exprs``: every expression torch evaluated to a tensor that the checker gives a
known or symbolic shape, from the function's own analysis or the program's sizes) and of tensor
bindings (``bindings``: the names assignments and ``for`` bind), shapes silently wrong (in
either), the checker's own statistics (``generic``: tensor expressions of the generic analyses
with a known or symbolic shape, among those it saw as tensors) and the time to check.  Last, the
unannotated parameters of the correct programs that learnt a shape from their use: the checker's
counter (every learning parameter of a generic analysis: models, loaders and configs too), and
among the parameters torch saw hold a tensor (their first read in the function is a tensor).
Needs torch (each file runs once with real torch for the truth).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.realistic.harness import marked_bug  # noqa: E402
from tests.wholeprograms.harness import BUGS, PROGRAMS, check, coverage, tensor_parameters, truth  # noqa: E402


def main() -> None:
    print(f"{'file':30} {'bug':>8} {'false':>5} {'exprs':>13} {'bindings':>13} {'wrong':>5} {'generic':>8} {'time':>6}")
    bugs = found = false = covered = total = wrong = e_covered = e_total = low = 0
    learning = learnt = tensors = tensors_learnt = 0
    seconds = 0.0
    for path in PROGRAMS + BUGS:
        static = check(path)
        c = coverage(path)
        e = coverage(path, expressions=True)
        marks = marked_bug(path) if path in BUGS else set()
        if path in BUGS:
            bugs += 1
            hit = bool(marks & (static.errors | static.warnings))
            found += hit
            real = truth(path)["raised"] is not None
            verdict = ("found" if hit else "MISSED") + ("" if real else "?")
        else:
            verdict = "-"
            covered += c.covered
            total += c.total
            e_covered += e.covered
            e_total += e.total
            low += e.share < 0.6
            learning += static.stats.get("learning-parameters", 0)
            learnt += static.stats.get("learned-parameters", 0)
            held = tensor_parameters(path)
            tensors += len(held)
            tensors_learnt += len(held & static.learned)
        # On a bug file torch stops at the first raise: another error repeating the bug's problem (the
        # broken layer called again later) is not false; any other is.
        said = {static.messages[m] for m in marks if m in static.messages}
        others = {e for e in static.errors - marks if static.messages[e] not in said}
        false += len(others)
        wrong += len(c.wrong) + len(e.wrong)
        seconds += static.seconds
        s = static.stats
        shaped = s.get("known", 0) + s.get("symbolic", 0)
        generic = shaped / max(shaped + s.get("unknown", 0), 1)
        print(
            f"{path.stem:30} {verdict:>8} {len(others):5} {e.covered:4}/{e.total:<3} {100 * e.share:3.0f}% "
            f"{c.covered:4}/{c.total:<3} {100 * c.share:3.0f}% {len(c.wrong) + len(e.wrong):5} "
            f"{100 * generic:7.0f}% {static.seconds:5.2f}s"
        )
    print()
    print(f"bugs found at their line: {found} of {bugs}")
    print(f"false errors: {false}")
    print(
        f"coverage of the correct programs: {e_covered}/{e_total} tensor expressions "
        f"({100 * e_covered / max(e_total, 1):.1f}%), {covered}/{total} tensor bindings "
        f"({100 * covered / max(total, 1):.1f}%)"
    )
    print(f"correct programs under 60% of tensor expressions: {low} of {len(PROGRAMS)}")
    print(f"shapes silently wrong: {wrong}")
    print(
        f"parameters that learnt a shape from their use: {learnt} of {learning} learning parameters "
        f"({100 * learnt / max(learning, 1):.1f}%); {tensors_learnt} of the {tensors} that torch saw hold a "
        f"tensor ({100 * tensors_learnt / max(tensors, 1):.1f}%)"
    )
    n = len(PROGRAMS) + len(BUGS)
    print(f"check time: {seconds:.2f} s in all, {seconds / max(n, 1):.2f} s per file")


if __name__ == "__main__":
    main()
