"""Output formats: text (with a code frame), JSON, SARIF 2.1.0, GitHub annotations."""

from .github import render_github
from .jsonfmt import render_json
from .sarif import render_sarif
from .text import render_text

FORMATS = {"text": render_text, "json": render_json, "sarif": render_sarif, "github": render_github}

__all__ = ["FORMATS", "render_text", "render_json", "render_sarif", "render_github"]
