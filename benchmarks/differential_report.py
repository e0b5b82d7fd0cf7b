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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import UnsatisfiedAssumption  # noqa: E402
from tensorshape.rules.stubs import load_table  # noqa: E402

from tests.differential import cases  # noqa: E402
from tests.differential.harness import compare  # noqa: E402
from tests.differential.modules import EXCLUDED_MODULES, MODULES  # noqa: E402
from tests.differential.test_ops import OPS  # noqa: E402


def run(draws: dict[str, object], examples: int) -> tuple[int, int, list[str]]:
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
                want, _ = compare(call, partial_ok=name in cases.PARTIAL_OK_OPS)  # noqa: B023
            except UnsatisfiedAssumption:
                raise
            except AssertionError as e:
                failures.append(str(e)[:300])
                return
            ran += 1
            errors += want.status == "error"

        try:
            one()
        except Exception as e:  # noqa: BLE001
            failures.append(f"{name}: {type(e).__name__}")
    return ran, errors, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=100)
    args = ap.parse_args()
    table = load_table()
    op_draws = {q: (lambda data, q=q, f=f: cases.FAMILIES[f](data, q)) for q, f in OPS}
    mod_draws = {n: MODULES[n] for n in sorted(MODULES)}
    ran_o, err_o, fail_o = run(op_draws, args.examples)
    ran_m, err_m, fail_m = run(mod_draws, args.examples)
    n_ops = sum(1 for q in table.ops if q.rsplit(".", 1)[0] not in table.classes)
    print(f"op table: {len(table.ops)} entries: {n_ops} functions/methods, {len(table.classes)} module classes")
    print(f"functions/methods covered: {len(OPS)} of {n_ops} ({len(cases.EXCLUDED)} excluded with reasons; "
          f"properties and ops without a tensor argument counted as covered when drawn)")
    print(f"module classes covered:    {len(MODULES)} of {len(table.classes)} ({len(EXCLUDED_MODULES)} excluded)")
    print(f"cases run: {ran_o + ran_m} ({err_o + err_m} where torch raises), families: {len(cases.FAMILIES)}")
    print(f"disagreements: {len(fail_o) + len(fail_m)}")
    for f in fail_o + fail_m:
        print("  " + f)
    sys.exit(1 if fail_o or fail_m else 0)


if __name__ == "__main__":
    main()
