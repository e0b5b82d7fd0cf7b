"""SARIF output: valid against the SARIF 2.1.0 JSON schema, and what GitHub code scanning needs."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from tensorshape.infer.api import check_file
from tensorshape.model import codes
from tensorshape.report.sarif import render_sarif

from tests.expectations import EXAMPLES, ROOT

#: The OASIS schema is not vendored (it is another project's file) and CI has no network:
#: point TENSORSHAPE_SARIF_SCHEMA at a copy of sarif-schema-2.1.0.json to validate against it.
SCHEMA = os.environ.get("TENSORSHAPE_SARIF_SCHEMA")


def _document() -> dict:  # type: ignore[type-arg]
    results = [check_file(p) for p in sorted((EXAMPLES / "bugs").glob("*.py"))]
    return json.loads(render_sarif(results))  # type: ignore[no-any-return]


@pytest.mark.skipif(not SCHEMA or not Path(SCHEMA).is_file(), reason="set TENSORSHAPE_SARIF_SCHEMA to the SARIF 2.1.0 schema")
def test_valid_against_the_sarif_schema() -> None:
    import jsonschema

    schema = json.loads(Path(SCHEMA).read_text())  # type: ignore[arg-type]
    validator = jsonschema.validators.validator_for(schema)(schema)  # the schema says draft-04
    doc = _document()
    validator.validate(doc)
    broken = dict(doc, runs=[dict(doc["runs"][0], results=[{"level": "fatal"}])])
    assert not validator.is_valid(broken), "the validator must reject a result without a message"


def test_what_github_code_scanning_needs() -> None:
    doc = _document()
    assert doc["version"] == "2.1.0" and "$schema" in doc
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "tensorshape" and driver["version"] and driver["informationUri"]
    rule_ids = [r["id"] for r in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    for r in driver["rules"]:
        assert r["name"] and r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["helpUri"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note", "none")
    assert run["columnKind"] == "unicodeCodePoints"
    assert len(run["results"]) >= 13
    for res in run["results"]:
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not loc["artifactLocation"]["uri"].startswith(("/", "file:"))
        region = loc["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert res["partialFingerprints"]["primaryLocationLineHash"]


def _github_anchor(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_help_links_point_at_sections_that_exist() -> None:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    anchors = {_github_anchor(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    (run,) = _document()["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert len(rules) == len(codes.ALL_CODES)
    for rule in rules:
        page, _, anchor = rule["helpUri"].partition("#")
        assert page.endswith("/docs/diagnostics.md") and anchor in anchors, rule["helpUri"]
