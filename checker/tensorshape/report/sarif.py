"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other viewers.

Every diagnostic code is a rule (stable ``ruleId``), locations are relative to
``%SRCROOT%`` (the working directory), columns count Unicode code points, and
each result has a ``primaryLocationLineHash`` fingerprint so alerts survive
unrelated edits.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..infer.result import FileResult
from ..model import codes
from ..model.diagnostics import Code, Diagnostic, Severity
from .summary import all_diagnostics

__all__ = ["render_sarif", "sarif_document", "help_uri", "merge_sarif"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/tensorshape/tensorshape"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def help_uri(c: Code) -> str:
    """The code's section in docs/diagnostics.md (the anchor GitHub makes of ``## TS101 shape-mismatch``)."""
    return f"{INFO_URI}/blob/main/docs/diagnostics.md#{c.id.lower()}-{c.name}"


def _uri(path: str | None) -> str:
    if not path:
        return "unknown"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return Path(path).as_uri()
    if rel.startswith(".."):
        return Path(path).resolve().as_uri()
    return Path(rel).as_posix()


def _fingerprint(d: Diagnostic, lines: dict[str, list[str]]) -> str:
    text = ""
    if d.path:
        if d.path not in lines:
            try:
                lines[d.path] = Path(d.path).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines[d.path] = []
        src = lines[d.path]
        if 0 < d.span.line <= len(src):
            text = src[d.span.line - 1].strip()
    h = hashlib.sha256(f"{d.code.id}\0{text}\0{d.message}".encode()).hexdigest()[:32]
    return f"{h}:1"


def sarif_document(results: Sequence[FileResult]) -> dict[str, Any]:
    rules = []
    index: dict[str, int] = {}
    for i, c in enumerate(sorted(codes.ALL_CODES.values(), key=lambda c: c.id)):
        index[c.id] = i
        rules.append(
            {
                "id": c.id,
                "name": "".join(p.capitalize() for p in c.name.split("-")),
                "shortDescription": {"text": c.summary},
                "fullDescription": {"text": f"{c.summary} ({c.name})."},
                "helpUri": help_uri(c),
                "defaultConfiguration": {"level": _LEVEL[c.severity] if c.default_enabled else "none"},
                "properties": {"tags": ["tensorshape", "shapes", c.name]},
            }
        )
    lines: dict[str, list[str]] = {}
    out = []
    for d in all_diagnostics(results):
        s = d.span
        result: dict[str, Any] = {
            "ruleId": d.code.id,
            "ruleIndex": index[d.code.id],
            "level": _LEVEL[d.severity],
            "message": {"text": d.message + (f" (hint: {d.hint})" if d.hint else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(d.path), "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": max(s.line, 1),
                            "startColumn": s.column + 1,
                            "endLine": max(s.end_line, 1),
                            "endColumn": max(s.end_column + 1, s.column + 2 if s.end_line == s.line else 1),
                        },
                    }
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": _fingerprint(d, lines)},
        }
        if d.related:
            result["relatedLocations"] = [
                {
                    "id": k,
                    "message": {"text": r.message},
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(r.path or d.path), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": max(r.span.line, 1), "startColumn": r.span.column + 1},
                    },
                }
                for k, r in enumerate(d.related)
            ]
        out.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tensorshape",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFO_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": out,
            }
        ],
    }


def render_sarif(results: Sequence[FileResult], **_: object) -> str:
    return json.dumps(sarif_document(results), indent=2) + "\n"


def merge_sarif(docs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One SARIF document with one run holding the results of every document's runs (shards of one
    check).  One run, not several: code scanning rejects a file with several runs of one tool and
    category.  The rule table and ``ruleIndex`` values are shared, so every run must come from the
    same tensorshape version (``ValueError`` otherwise)."""
    runs = [run for doc in docs for run in doc["runs"]]
    if not runs:
        raise ValueError("no SARIF runs to merge")
    first = runs[0]
    version = first["tool"]["driver"].get("version")
    results: list[Any] = []
    for run in runs:
        driver = run["tool"]["driver"]
        if driver.get("name") != "tensorshape" or driver.get("version") != version:
            raise ValueError(
                f"cannot merge a run of {driver.get('name')} {driver.get('version')} with tensorshape {version}"
            )
        results.extend(run.get("results", []))
    results.sort(key=_result_order)
    return {**docs[0], "runs": [{**first, "results": results}]}


def _result_order(result: dict[str, Any]) -> tuple[str, int, int, str]:
    loc = result["locations"][0]["physicalLocation"]
    region = loc["region"]
    return (loc["artifactLocation"]["uri"], region["startLine"], region["startColumn"], result["ruleId"])
