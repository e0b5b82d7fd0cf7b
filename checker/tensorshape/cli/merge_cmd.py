"""``tensorshape merge-reports REPORT...``: one report from the reports of ``check --shard K/N`` runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..infer.result import FileResult
from ..model.diagnostics import Severity
from ..report import FORMATS
from ..report.jsonfmt import read_json_report
from ..report.sarif import merge_sarif
from ..report.summary import add_summaries

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "merge-reports",
        help="merge the reports of sharded runs (check --shard K/N) into one",
        description="Merge the reports of `tensorshape check --shard K/N` runs: JSON reports (--format json) "
        "into one report in any format, with the summary added up; SARIF reports into one SARIF document "
        "whose single run holds every result.  Exit status 1 when the merged report has errors.",
    )
    p.add_argument("reports", nargs="+", metavar="REPORT", help="reports written by `tensorshape check`")
    p.add_argument(
        "--format",
        choices=sorted(FORMATS),
        default=None,
        help="output format (default: the inputs' format; SARIF inputs give SARIF only)",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the merged report to a file instead of stdout")
    p.set_defaults(run=run)


def _fail(message: str) -> int:
    sys.stderr.write(f"tensorshape merge-reports: error: {message}\n")
    return 2


def run(args: argparse.Namespace) -> int:
    docs: list[dict[str, Any]] = []
    for name in args.reports:
        try:
            doc = json.loads(Path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            return _fail(f"cannot read {name}: {e}")
        if not isinstance(doc, dict) or not ("runs" in doc or "diagnostics" in doc):
            return _fail(f"{name} is neither a JSON report (--format json) nor a SARIF report")
        docs.append(doc)
    kinds = {"sarif" if "runs" in d else "json" for d in docs}
    if len(kinds) > 1:
        return _fail("cannot merge JSON and SARIF reports together: write one kind from every shard")
    kind = kinds.pop()
    fmt = args.format or kind
    try:
        if kind == "sarif":
            if fmt != "sarif":
                return _fail("SARIF reports merge into SARIF only; merge JSON reports for other formats")
            merged = merge_sarif(docs)
            text = json.dumps(merged, indent=2) + "\n"
            errors = any(r.get("level") == "error" for r in merged["runs"][0]["results"])
        else:
            parts = [read_json_report(d) for d in docs]
            diagnostics = [x for diags, _ in parts for x in diags]
            summary = add_summaries([s for _, s in parts])
            results = [FileResult("<merged>", diagnostics)]
            kwargs: dict[str, Any] = {"summary": summary} if fmt in ("text", "json") else {}
            text = FORMATS[fmt](results, **kwargs)
            errors = any(d.severity is Severity.ERROR for d in diagnostics)
    except (KeyError, TypeError, ValueError) as e:
        return _fail(f"malformed report: {e}")
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 1 if errors else 0
