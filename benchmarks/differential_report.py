"""How much of the op table the differential suite covers, and how many cases agree with torch.

    python benchmarks/differential_report.py [--examples 100]

Draws ``--examples`` calls per op (and per module class) with the suite's
strategies (tests/differential), runs each through torch (tiny CPU tensors)
and through tensorshape's rule, and prints the counts.  A disagreement is
printed with the call; the exit status is 1 if there is any.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import UnsatisfiedAssumption  # noqa: E402
from tensorshape.rules.stubs import load_table  # noqa: E402

from tests.differential import cases, runs  # noqa: E402
from tests.differential.harness import compare  # noqa: E402
from tests.differential.modules import EXCLUDED_MODULES, MODULES  # noqa: E402
from tests.differential.test_ops import OPS  # noqa: E402

#: Ops whose family may leave dims unknown (by the family the suite draws them with, as test_ops.py).
_PARTIAL_OK = cases.PARTIAL_OK_OPS | {q for q, f in OPS if f in cases.PARTIAL_OK}


def _seeded(f: Callable[..., None], n: int | None) -> Callable[..., None]:
    return f if n is None else seed(n)(f)


def run(draws: dict[str, object], examples: int, n: int | None = None) -> tuple[int, int, list[str]]:
    ran = errors = 0
    failures: list[str] = []
    for name, draw in draws.items():

        @settings(max_examples=examples, deadline=None, phases=[Phase.generate], database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.data())
        def one(data: st.DataObject) -> None:
            nonlocal ran, errors
            try:
                call = draw(data)  # type: ignore[operator]  # noqa: B023
            except cases._Skip:
                return
            try:
                want, _ = compare(call, partial_ok=name in _PARTIAL_OK)  # noqa: B023
            except UnsatisfiedAssumption:
                raise
            except AssertionError as e:
                failures.append(str(e)[:300])
                return
            ran += 1
            errors += want.status == "error"

        try:
            _seeded(one, n)()
        except Exception as e:  # noqa: BLE001
            failures.append(f"{name}: {type(e).__name__}")
    return ran, errors, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=100)
    ap.add_argument("--runs", type=int, default=25, metavar="N",
                    help="calls per op drawn again with a run of unknown length in one shape (0: skip)")
    ap.add_argument("--seed", type=int, default=None,
                    help="hypothesis seed for every op's draws (default: a random draw each time)")
    ap.add_argument("--missed", action="store_true",
                    help="print each missed error of the sweep with a run (the call and torch's message)")
    args = ap.parse_args()
    table = load_table()
    op_draws = {q: (lambda data, q=q, f=f: cases.FAMILIES[f](data, q)) for q, f in OPS}
    mod_draws = {n: MODULES[n] for n in sorted(MODULES)}
    ran_o, err_o, fail_o = run(op_draws, args.examples, args.seed)
    ran_m, err_m, fail_m = run(mod_draws, args.examples, args.seed)
    n_ops = sum(1 for q in table.ops if q.rsplit(".", 1)[0] not in table.classes)
    print(f"op table: {len(table.ops)} entries: {n_ops} functions/methods, {len(table.classes)} module classes")
    print(f"functions/methods covered: {len(OPS)} of {n_ops} ({len(cases.EXCLUDED)} excluded with reasons; "
          f"properties and ops without a tensor argument counted as covered when drawn)")
    print(f"module classes covered:    {len(MODULES)} of {len(table.classes)} ({len(EXCLUDED_MODULES)} excluded)")
    print(f"cases run: {ran_o + ran_m} ({err_o + err_m} where torch raises), families: {len(cases.FAMILIES)}")
    print(f"disagreements: {len(fail_o) + len(fail_m)}")
    for f in fail_o + fail_m:
        print("  " + f)
    fail_r = run_with_runs(args.runs, args.seed, args.missed) if args.runs else []
    sys.exit(1 if fail_o or fail_m or fail_r else 0)


def run_with_runs(examples: int, n: int | None = None, show_missed: bool = False) -> list[str]:
    """The same calls with a window of one shape made a run ``*b`` (tests/differential/runs.py)."""
    from collections import Counter

    counts: Counter[str] = Counter()
    raised: Counter[str] = Counter()
    failures: list[str] = []
    missed: list[str] = []
    for name, draw in runs.draws().items():

        @settings(max_examples=examples, deadline=None, phases=[Phase.generate], database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.data())
        def one(data: st.DataObject) -> None:
            case = runs.draw_case(data, draw)  # noqa: B023
            if case is None:
                return
            v = runs.check(case)
            if v.status == "bad-call":
                return
            counts["cases"] += 1
            counts[case.pattern] += 1
            counts[v.status] += 1
            kind = "all" if v.raised == len(runs.LENGTHS) else "none" if v.raised == 0 else "some"
            raised[kind] += 1
            if kind == "some":
                raised["some, warned"] += v.warned
            raised["all, sized"] += v.sized
            if v.status in ("false-error", "wrong-shape"):
                failures.append(f"{v.status}: {v.detail[:300]}")
            elif v.status == "missed":
                missed.append(f"{name}: {v.detail[:400 if show_missed else 200]}")  # noqa: B023

        try:
            _seeded(one, n)()
        except Exception as e:  # noqa: BLE001
            failures.append(f"{name}: {type(e).__name__}: {e}"[:300])
    print(f"with a run (lengths {', '.join(map(str, runs.LENGTHS))}): {counts['cases']} cases "
          f"(run leading {counts['leading']}, trailing {counts['trailing']}, middle {counts['middle']}, "
          f"the whole shape {counts['only']})")
    print(f"  torch raises for every length {raised['all']} (of which {raised['all, sized']} run for other sizes "
          f"of the run's dims or a longer run), for some {raised['some']} "
          f"(the rule warns or leaves a run-time check on {raised['some, warned']}), for none {raised['none']}")
    print(f"  agree {counts['agree']}, missed errors {counts['missed']}, "
          f"false errors {counts['false-error']}, wrong shapes {counts['wrong-shape']}")
    ops = Counter(m.split(":", 1)[0] for m in missed)
    if ops:
        print("  missed errors by op: " + ", ".join(f"{o} {n}" for o, n in ops.most_common()))
    if show_missed:
        for m in sorted(missed):
            print("  missed: " + m)
    print(f"disagreements with a run: {len(failures)}")
    for f in failures:
        print("  " + f)
    return failures


if __name__ == "__main__":
    main()
