"""Shape coverage of unannotated code, and the cold analysis time of the corpus.

    python benchmarks/param_coverage.py                 # realistic programs + examples + corpus
    python benchmarks/param_coverage.py --no-corpus     # the small programs only
    python benchmarks/param_coverage.py --no-learning   # the same without parameters learning from use

Coverage is the share of tensor expressions whose shape is known (all ints) or
symbolic (no unknown part), as ``--statistics`` counts them; the small programs also
print the share of unannotated parameters that learnt a shape from their first use.  The corpus
(``benchmarks/corpus.py``: torchvision and timm model code; the first
``--transformers`` files of transformers) is checked in one process, cold (no
cache), and its CPU time is printed with the coverage, so the cost of a change to
inference shows next to what it buys.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from corpus import PACKAGES, ensure  # noqa: E402
from tensorshape.infer.api import CheckSettings, check_file, check_source  # noqa: E402
from tensorshape.infer.memory import settle, tune_gc  # noqa: E402
from tensorshape.infer.project import Project  # noqa: E402
from tensorshape.rules.context import Options  # noqa: E402

SMALL = sorted((ROOT / "tests" / "realistic" / "programs").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))


def share(c: Counter[str]) -> str:
    total = c["known"] + c["symbolic"] + c["unknown"]
    return f"{100 * (c['known'] + c['symbolic']) / total:5.1f}%" if total else "    -"


def run(files: list[Path], settings: CheckSettings, project: Project, verbose: bool) -> tuple[Counter[str], float]:
    totals: Counter[str] = Counter()
    seconds = 0.0
    for p in files:
        t = time.process_time()  # CPU time: the machine may be shared, wall time is noisy
        r = check_file(p, settings, project)
        settle()
        seconds += time.process_time() - t
        c = Counter({k: r.stats.get(k, 0) for k in ("known", "symbolic", "unknown")})
        c["errors"] = len(r.errors)
        c["params"] = r.stats.get("learning-parameters", 0)
        c["learned"] = r.stats.get("learned-parameters", 0)
        totals.update(c)
        if verbose:
            print(f"  {p.name:36} {c['known']:5} {c['symbolic']:5} {c['unknown']:5} {share(c)} {c['errors']:3}")
    return totals, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-learning", action="store_true", help="parameters do not learn from their first use")
    ap.add_argument("--transformers", type=int, default=300, help="first N files of transformers (0: none)")
    ap.add_argument("--packages", nargs="*", default=[p[0] for p in PACKAGES], help="corpus packages to check")
    args = ap.parse_args()
    settings = CheckSettings(options=Options(learn_params=not args.no_learning))
    tune_gc()
    check_source("import torch\nx = torch.zeros(2, 3)\n", "<warm-up>", settings)
    print(f"  {'file':36} {'known':>5} {'symb':>5} {'unkn':>5} {'cover':>6} {'err':>3}")
    small, _ = run(SMALL, settings, Project([ROOT]), verbose=True)
    print(
        f"small programs: {share(small)} of {small['known'] + small['symbolic'] + small['unknown']} tensor "
        f"expressions have a shape ({small['errors']} errors)"
    )
    print(
        f"unannotated parameters that learnt a shape from their use: {small['learned']} of {small['params']} "
        f"({100 * small['learned'] / max(small['params'], 1):.1f}%; functions of the checked files with such a "
        "parameter, each analysed once generically)"
    )
    if args.no_corpus:
        return
    corpus = HERE / ".corpus"
    ensure(verbose=True)
    for dist, version, folders in PACKAGES:
        if dist not in args.packages:
            continue
        root = corpus / f"{dist}-{version}"
        files = sorted(p for f in folders for p in (root / f).rglob("*.py"))
        if dist == "transformers":
            files = files[: args.transformers]
        if not files:
            continue
        c, seconds = run(files, settings, Project([root]), verbose=False)
        n = c["known"] + c["symbolic"] + c["unknown"]
        print(
            f"{dist:13} {len(files):5} files  cover {share(c)} of {n:6}  cold {seconds:7.2f} s CPU  errors {c['errors']}"
        )


if __name__ == "__main__":
    main()
