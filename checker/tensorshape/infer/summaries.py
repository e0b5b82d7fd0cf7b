"""Summaries of installed packages' modules, kept on disk across runs and projects (issue 22).

Following ``import torchvision`` means reading its modules, and parsing them with libcst is most
of the cost of a first check.  A library module's *summary* is its parsed tree with every
function body kept aside as a compact serialised blob, loaded only when the analysis reaches
into that function (most of a library's functions are never called by a given user file), plus
facts the analysis asks of every method when it builds a class (the ``self`` attributes a
method assigns), computed once so that building a class does not load its methods' bodies.

Summaries are keyed by the content digest of the module's text and by the checker's own digest
(its modules, libcst's and Python's versions): a changed library file, a new package version or
another checker gets a fresh summary; two projects (or virtual environments) with the same
package version share one.  They live in a user-level folder (:func:`default_directory`), are
written atomically (a temporary file renamed over the entry: concurrent runs never see half an
entry), an unreadable or corrupt entry is ignored and rewritten, and the folder is kept under a
size bound (least recently used entries go first).
"""

from __future__ import annotations

import enum
import functools
import hashlib
import io
import os
import pickle
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import libcst as cst

from .libraries import DEFAULT_MAX_BYTES, default_directory, user_cache_dir
from .source import checker_digest
from .syntax import NODE, SEQUENCE, class_level_reads, node_kind, node_layout, self_assignments, suite_body

__all__ = [
    "FORMAT",
    "DEFAULT_MAX_BYTES",
    "LazyClassDef",
    "LazyFunctionDef",
    "assigned_attrs",
    "SummaryCache",
    "checker_digest",
    "default_directory",
    "body_loads",
    "statement_index",
    "user_cache_dir",
]

#: Bumped whenever the layout of an entry changes.
FORMAT = 1

# -- function bodies loaded on demand ----------------------------------------------------------

_BODY: Any = cst.FunctionDef.__dict__["body"]  # the slot of the libcst class
_FIELDS: tuple[str, ...] = tuple(str(s) for s in vars(cst.FunctionDef)["__slots__"] if s != "body")
_SLOTS: dict[str, Any] = {name: cst.FunctionDef.__dict__[name] for name in _FIELDS}


class _Blob:
    """A function body not loaded yet: its serialised form."""

    __slots__ = ("data",)

    def __init__(self, data: bytes):
        self.data = data


_loaded_bodies = 0


def body_loads() -> int:
    """How many function bodies were loaded from summaries so far (in this process)."""
    return _loaded_bodies


def _get_body(node: LazyFunctionDef) -> cst.BaseSuite:
    global _loaded_bodies
    body = _BODY.__get__(node)
    if isinstance(body, _Blob):
        body = _loads(body.data)
        _BODY.__set__(node, body)
        object.__setattr__(node, "loaded", True)
        _loaded_bodies += 1
    return body  # type: ignore[no-any-return]


def _set_body(node: LazyFunctionDef, body: cst.BaseSuite) -> None:
    _BODY.__set__(node, body)


class LazyFunctionDef(cst.FunctionDef):
    """A ``def`` read from a summary: a :class:`libcst.FunctionDef` whose ``body`` is read from its
    blob the first time it is used (libcst's visitors and code generation see a plain node)."""

    __slots__ = ("self_assigned", "loaded")  # type: ignore[misc]

    #: The attributes of ``self`` the body assigns or mutates (``None``: not known; ask the body).
    self_assigned: frozenset[str] | None
    #: Whether the body was loaded.
    loaded: bool

    body = property(_get_body, _set_body)


# Visitors dispatch on the class name (``visit_FunctionDef``): the subclass keeps its parent's.
LazyFunctionDef.__name__ = "FunctionDef"
LazyFunctionDef.__qualname__ = "FunctionDef"


def assigned_attrs(fn: cst.FunctionDef) -> set[str]:
    """Attributes of ``self`` a method assigns or mutates (a library summary knows them without
    loading the method's body)."""
    known = fn.self_assigned if isinstance(fn, LazyFunctionDef) else None
    return set(known) if known is not None else self_assignments(fn)


def _lazy_def(fields: tuple[Any, ...], blob: bytes, self_assigned: frozenset[str] | None) -> LazyFunctionDef:
    node = object.__new__(LazyFunctionDef)
    for name, value in zip(_FIELDS, fields):
        _SLOTS[name].__set__(node, value)
    _BODY.__set__(node, _Blob(blob))
    object.__setattr__(node, "self_assigned", self_assigned)
    object.__setattr__(node, "loaded", False)
    return node


class LazyClassDef(cst.ClassDef):
    """A ``class`` read from a summary, with the names its class-level code reads (its methods'
    bodies left out) known without walking it."""

    __slots__ = ("level_reads",)  # type: ignore[misc]

    #: ``None``: not known (a class inside a function body); walk the body.
    level_reads: frozenset[str] | None


LazyClassDef.__name__ = "ClassDef"
LazyClassDef.__qualname__ = "ClassDef"


def _lazy_class(fields: tuple[Any, ...], level_reads: frozenset[str] | None) -> LazyClassDef:
    node = object.__new__(LazyClassDef)
    for slot, value in zip(node_layout(cst.ClassDef)[1], fields):
        slot.__set__(node, value)
    object.__setattr__(node, "level_reads", level_reads)
    return node


def _node(cls: type, values: tuple[Any, ...]) -> cst.CSTNode:
    # ``cls`` is a libcst node class: the only classes :meth:`_Unpickler.find_class` gives.
    node: cst.CSTNode = object.__new__(cls)
    for slot, value in zip(node_layout(cls)[1], values):
        slot.__set__(node, value)
    return node


#: The whitespace nodes every summary shares (see :meth:`_Pickler.reducer_override`).
_SHARED: dict[str, cst.CSTNode] = {"n": cst.Newline()}


def _shared(key: str) -> cst.CSTNode:
    node = _SHARED.get(key)
    if node is None:
        if not key.startswith("w"):
            raise pickle.UnpicklingError(f"unknown shared node {key!r}")
        node = _SHARED[key] = cst.SimpleWhitespace(key[1:])  # libcst checks that it is whitespace
    return node


class _Pickler(pickle.Pickler):
    """Writes every ``def`` with its body as a separate blob (nested ``def``\\ s inside it too), and
    every other node as its class and its fields (libcst's own ``__getstate__`` asks
    :func:`dataclasses.fields` for every node: most of the time of a write)."""

    def __init__(self, out: io.BytesIO, facts: Callable[[cst.FunctionDef], frozenset[str]], in_body: bool):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.facts = facts
        self.in_body = in_body

    def reducer_override(self, obj: Any) -> Any:
        t: type = type(obj)
        # Whitespace is two fifths of a tree's nodes and nearly always "", " " or a newline: written
        # as a reference to one shared node.
        if t is cst.SimpleWhitespace:
            return _shared, ("w" + obj.value,)
        if t is cst.Newline and obj.value is None:
            return _shared, ("n",)
        if t is cst.FunctionDef:
            fields = tuple(getattr(obj, name) for name in _FIELDS)
            return _lazy_def, (fields, _dumps(obj.body, self.facts, True), self.facts(obj))
        if t is cst.ClassDef:
            # A class inside a function body is rarely built: what it reads is found when it is.
            reads = None if self.in_body else frozenset(class_level_reads(suite_body(obj.body)))
            return _lazy_class, (node_layout(t)[0](obj), reads)
        if isinstance(obj, cst.CSTNode):
            return _node, (t, node_layout(t)[0](obj))
        return NotImplemented


def _dumps(obj: object, facts: Callable[[cst.FunctionDef], frozenset[str]], in_body: bool = False) -> bytes:
    out = io.BytesIO()
    _Pickler(out, facts, in_body).dump(obj)
    return out.getvalue()


_LOADERS = {"_lazy_def": _lazy_def, "_lazy_class": _lazy_class, "_node": _node, "_shared": _shared}


class _Unpickler(pickle.Unpickler):
    """Only libcst's node classes, this module's loaders and plain containers may be named in an
    entry (a tampered file cannot make the checker call anything else)."""

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name in _LOADERS:
            return _LOADERS[name]
        if module.startswith("libcst._nodes.") or module == "libcst._maybe_sentinel":
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, (cst.CSTNode, enum.Enum)):
                return found
        if module == "builtins" and name in ("frozenset", "set", "tuple", "list", "dict"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a library summary")


def _loads(data: bytes) -> Any:
    return _Unpickler(io.BytesIO(data)).load()


@functools.cache
def _inner(cls: type) -> bool:
    """Whether nodes of ``cls`` can hold what the analysis takes spans of (whitespace, commas and
    operators hold nothing of interest: two thirds of a tree)."""
    return cls.__module__ not in ("libcst._nodes.whitespace", "libcst._nodes.op")


def statement_index(module: cst.Module) -> dict[int, int]:
    """The index of the top-level statement that holds each node of ``module`` (by ``id``; not
    whitespace or operators), through the loaded part of the tree only: a body still serialised
    cannot hold a node the analysis met, and is not loaded to look."""
    out: dict[int, int] = {}
    for k, stmt in enumerate(module.body):
        out.update(dict.fromkeys(node_ids(stmt), k))
    return out


def node_ids(stmt: cst.CSTNode) -> list[int]:
    """The ids of ``stmt`` and of the nodes under it, as :func:`statement_index` indexes them."""
    out: list[int] = []
    todo: list[Any] = [stmt]
    while todo:
        n = todo.pop()
        t: type = type(n)
        kind = node_kind(t)
        if kind == SEQUENCE:
            todo.extend(n)
            continue
        if kind != NODE or not _inner(t):
            continue
        out.append(id(n))
        if t is LazyFunctionDef and isinstance(_BODY.__get__(n), _Blob):
            todo.extend(getattr(n, name) for name in _FIELDS)
        else:
            todo.extend(node_layout(t)[0](n))
    return out


# -- the folder --------------------------------------------------------------------------------


class SummaryCache:
    """Summaries of library modules in a folder: :meth:`load` and :meth:`store` by module text."""

    def __init__(self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES):
        import libcst

        self.root = Path(directory)
        self.directory = self.root / f"v{FORMAT}"
        self.max_bytes = max_bytes
        version = getattr(libcst, "__version__", "") or _libcst_version()
        self.salt = f"{FORMAT}:{summary_code_digest()}:{version}:{sys.version_info[:2]}"
        #: ``hit``, ``miss``, ``corrupt`` (ignored and rewritten), ``written``, ``pruned``.
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._pruned = False

    def _entry(self, digest: str) -> Path:
        key = hashlib.blake2b(f"{self.salt}\0{digest}".encode(), digest_size=20).hexdigest()
        return self.directory / key[:2] / f"{key}.pkl"

    def load(self, digest: str) -> cst.Module | None:
        """The tree of the module whose text has ``digest``, or ``None`` (a miss)."""
        entry = self._entry(digest)
        try:
            data = entry.read_bytes()
        except OSError:
            self.counts["miss"] += 1
            return None
        try:
            fmt, stored, tree = _loads(data)
            if fmt != FORMAT or stored != digest or type(tree) is not cst.Module:
                raise ValueError("not a summary of this module")
        except Exception:  # noqa: BLE001 - a truncated, corrupt or foreign file: checked again, rewritten
            self.counts["corrupt"] += 1
            self.counts["miss"] += 1
            return None
        try:
            os.utime(entry)  # recently used: the size bound removes the least recently used first
        except OSError:
            pass
        self.counts["hit"] += 1
        return tree

    def store(self, digest: str, tree: cst.Module) -> None:
        """Keep the summary of a freshly parsed module (never fails a check)."""
        try:
            data = _dumps((FORMAT, digest, tree), lambda fn: frozenset(self_assignments(fn)))
        except (RecursionError, pickle.PicklingError, TypeError, ValueError):
            return  # too deep to serialise: parsed again next time
        entry = self._entry(digest)
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, entry)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return  # a read-only or full disk never fails a check
        self.counts["written"] += 1
        with self._lock:
            if not self._pruned:
                self._pruned = True
                self.prune()

    def prune(self) -> None:
        """Remove the least recently used entries while the folder is over its bound (to 80% of it)."""
        entries: list[tuple[float, int, Path]] = []
        try:
            for sub in self.root.glob("v*/*/*"):
                try:
                    st = sub.stat()
                except OSError:
                    continue
                entries.append((st.st_mtime, st.st_size, sub))
        except OSError:
            return
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 0.8:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            self.counts["pruned"] += 1


@functools.lru_cache(maxsize=1)
def summary_code_digest() -> str:
    """A fingerprint of the code a summary is made by: the text of this module (the format, the
    lazy nodes), of :mod:`.syntax` (the facts stored beside the tree) and of :mod:`.project` and
    :mod:`.source` (how a module is read and parsed).

    Not :func:`checker_digest` (every checker module's size and modification time): a summary
    does not depend on the rest of the checker, and an edit, a ``git checkout`` or a formatter
    touching any other file made every later check miss every summary and parse the libraries
    again (issue 22: a check of ``hf_bert_bad_head`` read 0 summaries and parsed 68 modules, +9 s,
    because the checker's files were touched between its first and its later check)."""
    h = hashlib.blake2b(digest_size=16)
    here = Path(__file__).resolve().parent
    for name in ("summaries.py", "syntax.py", "project.py", "source.py"):
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(checker_digest().encode())  # not readable: the whole checker's fingerprint
    return h.hexdigest()


def _libcst_version() -> str:
    """libcst's version: from the module its build writes (``importlib.metadata`` costs 20-50 ms of
    imports and a scan of every installed distribution), else from its distribution's metadata."""
    try:
        from libcst._version import __version__

        return str(__version__)
    except Exception:  # noqa: BLE001 - a libcst built without the module
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("libcst")
    except PackageNotFoundError:
        return ""
