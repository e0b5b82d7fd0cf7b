"""A cache of check results, keyed by file content.

An entry is valid while the file and every project file its analysis read
(imports it followed) have the same content digests, and the tool version
(and its modules' sizes and times), stubs and settings are the same.  Entries are JSON files written atomically,
so parallel runs can share a cache directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .. import __version__
from ..infer.result import FileResult
from ..infer.source import checker_digest, read_source, text_digest
from ..rules.stubdir import stubs_digest
from .serialize import dump_result, load_result

__all__ = ["Cache", "checker_digest", "text_digest", "stubs_digest"]

_FORMAT = 3  # 3: results carry the example location of each counted cause


class Cache:
    def __init__(self, directory: Path, settings_key: str):
        self.directory = directory / f"v{_FORMAT}"
        self.salt = f"{__version__}:{checker_digest()}:{stubs_digest()}:{settings_key}"
        self._digests: dict[str, str | None] = {}
        #: Why the first write failed (a cache folder that is a file, read-only, on a full disk); None: none did.
        self.write_failure: str | None = None
        #: Files whose text changed between the cache's look at them and their analysis: not cached.
        self.changed: list[str] = []

    def digest(self, path: str) -> str | None:
        """The content digest of a file (memoised for one run)."""
        if path not in self._digests:
            text, _ = read_source(Path(path))
            self._digests[path] = None if text is None else text_digest(text)
        return self._digests[path]

    def _entry(self, path: str, digest: str) -> Path:
        key = hashlib.blake2b(f"{self.salt}\0{os.path.abspath(path)}\0{digest}".encode(), digest_size=20).hexdigest()
        return self.directory / key[:2] / f"{key}.json"

    def get(self, path: str) -> FileResult | None:
        digest = self.digest(path)
        if digest is None:
            return None
        entry = self._entry(path, digest)
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            result = load_result(data)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None  # unreadable or of the wrong shape: checked again and rewritten
        for dep, dep_digest in result.dependencies:
            if dep != path and self.digest(dep) != dep_digest:
                return None
        return result

    def put(self, path: str, result: FileResult) -> None:
        digest = self.digest(path)
        if digest is None:
            return
        real = os.path.realpath(path)
        read = {d for dep, d in result.dependencies if os.path.realpath(dep) == real}
        if read and digest not in read:  # the analysis read another text: keyed by this digest, it would lie
            self.changed.append(path)
            return
        entry = self._entry(path, digest)
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(dump_result(result), f)
            os.replace(tmp, entry)
        except OSError as e:  # a read-only or full cache never fails a check; the run says so once
            if self.write_failure is None:
                self.write_failure = f"{e.filename or self.directory}: {e.strerror or e}"
