"""The run-time half of ``tensorshape annotate --trace``: record tensor shapes at function boundaries.

A traced process starts :func:`start` from a ``sitecustomize`` module that ``annotate --trace`` puts
on ``PYTHONPATH`` (so every Python subprocess of the command is traced too).  The environment says
what to trace:

* ``TENSORSHAPE_TRACE_FILE``: the JSON-lines file the records are appended to (one line per call);
* ``TENSORSHAPE_TRACE_INCLUDE``: ``os.pathsep``-separated paths and globs of the project's files;
  only functions of files that match one are recorded (``TENSORSHAPE_TRACE_ROOT``, one folder, when
  it is not set; the current folder when neither is);
* ``TENSORSHAPE_TRACE_EXCLUDE``: ``os.pathsep``-separated paths and globs left out (the virtualenv);
* ``TENSORSHAPE_TRACE_SAMPLES``: how many calls of one function are recorded whatever their shapes
  (default 8).

After those first calls, a call is recorded only when the shapes and dtypes of its tensor arguments
(and its int arguments) are ones the function has not been seen with: a model's ``forward`` first
called by one configuration and then by another must be annotated for both, or jaxtyping refuses
the second.  That costs a cheap signature per call; once a function has been seen with
:data:`DISTINCT` times the samples distinct signatures, it is switched off (a note in the trace
says so).  On Python 3.12+ the tracer uses ``sys.monitoring`` and turns a code object's events off
once it is switched off (or is not the user's); below, ``sys.setprofile`` with one dictionary
look-up per call of a function that is off.

The ``__init__`` of the project's classes is never switched off: when it returns, the int values
of its parameters (``query_dim``, ``context_dim`` after ``default(context_dim, query_dim)``) are
kept for the instance, and a recorded call of one of the instance's methods carries them as
``"init"`` (a size equal to a constructor argument is named after it).  They are part of a
method call's signature, so one method of two instances built differently is recorded for both.

Each record has an ``id``; a call made (directly or through code that is not the project's, such as
``nn.Module.__call__``) from a recorded call of the project's code names it as its ``parent``, and
says which of its tensor arguments are the same objects as the parent's (``same``): a helper reached
at one size only is then named after its caller's dims.  A child made by ``fork`` (a DataLoader
worker) leaves the records it inherited to its parent and writes its own one by one (it may end by
``os._exit``, past ``atexit``).  Nothing of torch is imported here: a tensor is
recognised by its type's module and name, so tracing a process that never uses torch costs no
import.
"""

from __future__ import annotations

import atexit
import fnmatch
import json
import os
import sys
import threading
import weakref
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

__all__ = [
    "start",
    "stop",
    "describe",
    "signature",
    "hook_source",
    "ENV_FILE",
    "ENV_ROOT",
    "ENV_INCLUDE",
    "ENV_EXCLUDE",
    "matches",
    "resolve_pattern",
    "ENV_SAMPLES",
    "DISTINCT",
    "CALLERS",
]

ENV_FILE = "TENSORSHAPE_TRACE_FILE"
ENV_ROOT = "TENSORSHAPE_TRACE_ROOT"
ENV_INCLUDE = "TENSORSHAPE_TRACE_INCLUDE"
ENV_EXCLUDE = "TENSORSHAPE_TRACE_EXCLUDE"
ENV_SAMPLES = "TENSORSHAPE_TRACE_SAMPLES"

#: How deep a container is looked into, and how many of its items.
_DEPTH = 3
_ITEMS = 16
_TENSOR_TYPES = {"Tensor", "Parameter"}
#: After the first samples, up to this many times the samples calls of distinct signatures are recorded.
DISTINCT = 8
#: Distinct callers (functions of the project) a function keeps one linked call for, shapes seen or not.
CALLERS = 8


def _glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


def resolve_pattern(pattern: str, base: str) -> str:
    """A path or glob made absolute (relative to ``base``), its folders before any glob character
    resolved as :func:`os.path.realpath` resolves a file's; a glob without a folder (``test_*.py``)
    is kept: it matches a file's name."""
    if _glob(pattern) and os.sep not in pattern and "/" not in pattern:
        return pattern
    full = os.path.join(base, os.path.expanduser(pattern))
    if not _glob(full):
        return os.path.realpath(full)
    parts = full.split(os.sep)
    i = next(i for i, part in enumerate(parts) if _glob(part))
    return os.path.join(os.path.realpath(os.sep.join(parts[:i]) or os.sep), *parts[i:])


def matches(path: str, patterns: list[str]) -> bool:
    """Whether the real path of a file matches one of the patterns of :func:`resolve_pattern`: the
    file or a folder above it, a glob (``*`` also crosses folders), or a glob of the file's name."""
    for pat in patterns:
        if not os.path.isabs(pat):
            if fnmatch.fnmatchcase(os.path.basename(path), pat):
                return True
        elif not _glob(pat):
            if path == pat or path.startswith(os.path.join(pat, "")):
                return True
        elif fnmatch.fnmatchcase(path, pat) or fnmatch.fnmatchcase(path, os.path.join(pat, "*")):
            return True
    return False


#: type -> whether it is torch's tensor (asked once per type: every call of a function past its samples asks)
_TENSOR_KIND: dict[type, bool] = {}


def _is_tensor(t: type) -> bool:
    got = _TENSOR_KIND.get(t)
    if got is None:
        got = _TENSOR_KIND[t] = t.__name__ in _TENSOR_TYPES and t.__module__ in ("torch", "torch.nn.parameter")
    return got


def signature(value: object, depth: int = 0) -> object:
    """What of ``value`` decides its annotation (shapes, dtypes, ints, container layout), hashable and
    cheaper than :func:`describe` (a tensor's ``torch.Size`` is a tuple: it hashes and compares as one)."""
    t = type(value)
    if _is_tensor(t):
        return (getattr(value, "shape", ()), getattr(value, "dtype", None))
    if t is int:
        return value
    if depth < _DEPTH and (t is tuple or t is list):
        return (t, *(signature(v, depth + 1) for v in value[:_ITEMS]))  # type: ignore[index]
    if depth < _DEPTH and t is dict:
        return (t, *((str(k), signature(v, depth + 1)) for k, v in list(value.items())[:_ITEMS]))  # type: ignore[attr-defined]
    return t


def describe(value: object, depth: int = 0) -> Any:
    """A JSON description of the tensors in ``value`` (``None`` when there are none)."""
    t = type(value)
    # torch.Tensor and Parameter only: first-class-dim tensors (functorch) are not ``torch.Tensor``s
    if _is_tensor(t):
        shape = getattr(value, "shape", None)
        dtype = getattr(value, "dtype", None)
        if shape is None:
            return None
        return {"shape": [int(s) for s in shape], "dtype": str(dtype).removeprefix("torch.")}
    if t is int:  # sizes passed as numbers name dims (``batch_size``)
        return {"int": value}
    if value is None and depth == 0:  # an optional tensor (``mask=None``) left out
        return {"none": True}
    if depth >= _DEPTH:
        return None
    if t is tuple or t is list:
        items = [describe(v, depth + 1) for v in value[:_ITEMS]]  # type: ignore[index]
        if len(value) > _ITEMS or all(i is None or "int" in i for i in items):  # type: ignore[arg-type]
            return None
        return {t.__name__: items}
    if t is dict:
        pairs = list(value.items())[:_ITEMS]  # type: ignore[attr-defined]
        d = {str(k): describe(v, depth + 1) for k, v in pairs}
        if not any(v is not None and "int" not in v for v in d.values()):
            return None
        if all(type(k) is str for k, _ in pairs):
            return {"dict": d}
        return {"dict": d, "keys": "other"}
    return None


#: generators, coroutines, async generators: a call event per resumption, nothing to annotate simply
#: (and code without CO_OPTIMIZED, 0x01, is a class or module body)
_GENERATOR = 0x20 | 0x80 | 0x100 | 0x200


#: an argument not bound in the frame (never the case at a call's start, but kept apart from ``None``)
_MISSING = object()


def _qualname(code: CodeType) -> str:
    return str(getattr(code, "co_qualname", code.co_name))


class _Tracer:
    def __init__(self, out: str, include: list[str], exclude: list[str], samples: int) -> None:
        here = os.getcwd()
        self.include = [resolve_pattern(p, here) for p in include if p]
        self.exclude = [resolve_pattern(p, here) for p in exclude if p]
        self.samples = samples
        #: code object -> first calls still to record (-1: only calls with a new signature; 0: off)
        self.left: dict[CodeType, int] = {}
        #: code object -> the names of its parameters
        self.params: dict[CodeType, tuple[str, ...]] = {}
        #: file name -> whether it is the project's
        self.files: dict[str, bool] = {}
        #: code object -> the signatures of its arguments recorded so far
        self.seen: dict[CodeType, set[object]] = {}
        self.pending: dict[int, dict[str, Any]] = {}
        #: frame id -> the ``__init__`` and the instance it builds (its ints are read when it returns)
        self.building: dict[int, tuple[CodeType, object]] = {}
        #: id(instance) -> (a weak reference to it, its constructor's int arguments)
        self.inits: dict[int, tuple[Callable[[], object], dict[str, int]]] = {}
        #: frame id -> the tensor arguments of a recorded call as they were at its start (``same``)
        self.tensors: dict[int, list[tuple[str, object]]] = {}
        #: code object -> the functions of the project a recorded call of it was linked to
        self.callers: dict[CodeType, set[CodeType]] = {}
        #: frame id -> a call not recorded (its shapes were seen): its code, argument names and values,
        #: and its constructor's ints, so it is recorded late when a callee needs it as its caller
        self.skipped: dict[int, tuple[CodeType, tuple[str, ...], tuple[object, ...], dict[str, int] | None]] = {}
        self.lines: list[str] = []
        #: records kept before a write (1 in a forked child: it may end by ``os._exit``)
        self.batch = 256
        self.out = out
        self.lock = threading.Lock()
        self.prefix = f"{os.getpid()}:"
        self.count = 0
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self.forked)

    def forked(self) -> None:
        """In a child made by ``fork`` (a DataLoader worker): the records copied from the parent are
        the parent's to write, and the child writes each of its own at once."""
        self.lines.clear()
        self.batch = 1
        self.prefix = f"{os.getpid()}:"

    def wanted(self, code: CodeType) -> int:
        f = code.co_filename
        mine = self.files.get(f)
        if mine is None:  # once per file: an import of torch meets thousands of functions
            path = os.path.realpath(f) if f and not f.startswith("<") else ""
            mine = self.files[f] = bool(path) and matches(path, self.include) and not matches(path, self.exclude)
        if not mine:
            return 0
        if (
            code.co_name.startswith("<")
            or "<locals>" in _qualname(code)
            or code.co_flags & _GENERATOR
            or not code.co_flags & 0x01
        ):
            return 0  # lambdas, comprehensions, module bodies, nested functions: nothing to annotate
        return self.samples

    def init_of(self, obj: object) -> dict[str, int] | None:
        """The int arguments ``obj`` was constructed with (``None`` when its ``__init__`` was not seen)."""
        got = self.inits.get(id(obj))
        if got is None or got[0]() is not obj:
            return None
        return got[1]

    def enter(self, frame: FrameType) -> bool:
        """Record the arguments of a call if it is a sample; ``False`` once the code object needs no more."""
        code = frame.f_code
        left = self.left.get(code)
        if left is None:
            left = self.wanted(code)
            if left:
                self.seen[code] = set()
                self.callers[code] = set()
        if left == 0:
            self.left[code] = 0
            return False
        names = self.params.get(code)
        if names is None:
            n = code.co_argcount + code.co_kwonlyargcount
            n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
            names = self.params[code] = code.co_varnames[:n]
        local = frame.f_locals
        this = local.get("self", self) if names and names[0] == "self" else self
        init = None
        if this is not self:
            if code.co_name == "__init__":
                self.building[id(frame)] = (code, this)  # every construction: its ints name the instance's sizes
            else:
                init = self.init_of(this)
        seen = self.seen[code]
        values = tuple([local.get(name, _MISSING) for name in names])  # a list first: faster than a generator
        kind = _TENSOR_KIND  # a tensor's signature inline: this runs at every call past the samples
        key = tuple(
            [None if v is _MISSING else (v.shape, v.dtype) if kind.get(type(v)) else signature(v) for v in values]
        )
        if init:
            key += tuple(init.items())
        if left > 0:  # the first samples, whatever their shapes
            self.left[code] = left - 1 or -1
        elif key in seen:
            known = self.callers[code]
            back = frame.f_back  # the caller's frame itself most often: no walk up the stack
            if len(known) >= CALLERS or (back is not None and back.f_code in known):
                self.skipped[id(frame)] = (code, names, values, init)
                return True
            up = self.caller(frame)
            if up is None or up.f_code in known:
                self.skipped[id(frame)] = (code, names, values, init)
                return True
            # shapes seen, but from a caller not seen: recorded once, so the caller's names reach it
        seen.add(key)
        last = left < 0 and len(seen) >= self.samples * DISTINCT
        if last and code.co_name != "__init__":
            self.left[code] = 0  # enough distinct calls: this one is the last
        self.record(frame, code, names, values, init, last)
        return True

    def record(
        self,
        frame: FrameType,
        code: CodeType,
        names: tuple[str, ...],
        values: tuple[object, ...],
        init: dict[str, int] | None,
        last: bool = False,
    ) -> dict[str, Any]:
        """Make the record of a call (written when it returns) and link it to its caller."""
        args = {}
        for name, value in zip(names, values):
            if value is not _MISSING:
                d = describe(value)
                if d is not None:
                    args[name] = d
        self.count += 1
        rec: dict[str, Any] = {
            "file": os.path.realpath(code.co_filename),
            "qualname": _qualname(code),
            "line": code.co_firstlineno,
            "args": args,
            "id": self.prefix + str(self.count),
        }
        if init:
            rec["init"] = init
        if last:
            rec["saturated"] = True
        tensors = [(name, v) for name, v in zip(names, values) if _is_tensor(type(v))]
        self.pending[id(frame)] = rec
        if tensors:
            self.tensors[id(frame)] = tensors
        self.link(frame, rec, tensors)
        return rec

    def caller(self, frame: FrameType) -> FrameType | None:
        """The nearest call of a function of the project up the stack (past library frames such as
        ``nn.Module.__call__``, lambdas and comprehensions), or ``None``."""
        f = frame.f_back
        seen = self.seen
        depth = 64
        while f is not None and depth:
            if f.f_code in seen:
                return f
            f = f.f_back
            depth -= 1
        return None

    def link(self, frame: FrameType, rec: dict[str, Any], tensors: list[tuple[str, object]]) -> None:
        """Name the recorded call of the project's code this one was made from (``parent``), and which
        arguments are that call's own tensor arguments (``same``: this argument -> the caller's).  The
        nearest function of the project up the stack is the caller; a call of it that was not recorded
        (its shapes were seen) is recorded now, from its arguments as they were at its start."""
        f = self.caller(frame)
        if f is None:
            return
        up = self.pending.get(id(f))
        if up is None:
            late = self.skipped.pop(id(f), None)
            if late is None or late[0] is not f.f_code:
                return  # a function switched off, or a frame whose call was never seen
            up = self.record(f, *late)
        if up["qualname"] != _qualname(f.f_code):
            return
        rec["parent"] = up["id"]
        self.callers[frame.f_code].add(f.f_code)
        theirs = self.tensors.get(id(f), ())
        same = {mine: name for mine, obj in tensors for name, other in theirs if obj is other}
        if same:
            rec["same"] = same

    def leave(self, frame: FrameType, value: object) -> None:
        if self.building:
            got = self.building.pop(id(frame), None)
            if got is not None and got[0] is frame.f_code:
                self.built(frame, got[1])
        rec = self.pending.pop(id(frame), None)
        if rec is None:
            if self.skipped:
                self.skipped.pop(id(frame), None)
            return
        self.tensors.pop(id(frame), None)
        rec["result"] = describe(value)
        line = json.dumps(rec, separators=(",", ":"))
        with self.lock:
            self.lines.append(line)
            if len(self.lines) >= self.batch:
                self.flush()

    def built(self, frame: FrameType, this: object) -> None:
        """An ``__init__`` returns: keep the int values its parameters have now (a default resolved)."""
        code = frame.f_code
        local = frame.f_locals
        ints = {
            k: v
            for k in code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount]
            if type(v := local.get(k)) is int
        }
        try:
            ref = weakref.ref(this)
        except TypeError:  # no weak reference (``__slots__``): ids may be reused, so nothing is kept
            return
        have = self.inits.get(id(this))
        if have is not None and have[0]() is this:  # ``super().__init__`` returned first: the subclass's win
            ints = {**have[1], **ints}
        self.inits[id(this)] = (ref, ints)

    def flush(self) -> None:
        if not self.lines:
            return
        data = "".join(line + "\n" for line in self.lines)
        self.lines.clear()
        try:
            with open(self.out, "a", encoding="utf-8") as f:  # one write per batch: processes append
                f.write(data)
        except OSError as e:  # the traced program goes on; the trace says less
            sys.stderr.write(f"tensorshape annotate: cannot write the trace: {e}\n")


def _profile(tracer: _Tracer) -> Callable[[FrameType, str, object], None]:
    left = tracer.left

    def hook(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            if left.get(frame.f_code, 1):
                tracer.enter(frame)
        elif event == "return":
            key = id(frame)
            if key in tracer.pending or key in tracer.skipped or tracer.building:
                tracer.leave(frame, arg)

    return hook


def _monitor(tracer: _Tracer) -> None:  # pragma: no cover - Python 3.12+
    mon = sys.monitoring  # type: ignore[attr-defined,unused-ignore]
    tool = mon.PROFILER_ID
    mon.use_tool_id(tool, "tensorshape-annotate")
    events = mon.events

    def on_start(code: CodeType, offset: int) -> object:
        frame = sys._getframe(1)
        if not tracer.enter(frame):
            return mon.DISABLE
        return None

    def on_return(code: CodeType, offset: int, value: object) -> object:
        frame = sys._getframe(1)
        tracer.leave(frame, value)
        if not tracer.left.get(code, 0) and not tracer.pending and not tracer.building:
            return mon.DISABLE
        return None

    mon.register_callback(tool, events.PY_START, on_start)
    mon.register_callback(tool, events.PY_RETURN, on_return)
    mon.set_events(tool, events.PY_START | events.PY_RETURN)


_active: _Tracer | None = None


def stop() -> None:
    """Stop tracing this process and write what was recorded."""
    global _active
    if _active is None:
        return
    if sys.version_info >= (3, 12):  # pragma: no cover
        sys.monitoring.set_events(sys.monitoring.PROFILER_ID, 0)  # type: ignore[attr-defined,unused-ignore]
        sys.monitoring.free_tool_id(sys.monitoring.PROFILER_ID)  # type: ignore[attr-defined,unused-ignore]
    else:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type,unused-ignore]
    _active.flush()
    _active = None


def start(env: dict[str, str] | None = None) -> bool:
    """Start tracing this process as the environment says; ``False`` when it says nothing."""
    env = dict(os.environ) if env is None else env
    out = env.get(ENV_FILE)
    if not out:
        return False
    try:
        samples = int(env.get(ENV_SAMPLES, "8"))
    except ValueError:
        samples = 8
    include = env.get(ENV_INCLUDE, "").split(os.pathsep)
    if not any(include):
        include = [env.get(ENV_ROOT) or os.getcwd()]
    tracer = _Tracer(out, include, env.get(ENV_EXCLUDE, "").split(os.pathsep), max(samples, 1))
    global _active
    _active = tracer
    atexit.register(tracer.flush)
    if sys.version_info >= (3, 12):  # pragma: no cover
        _monitor(tracer)
    else:
        hook = _profile(tracer)
        sys.setprofile(hook)
        threading.setprofile(hook)
    return True


def hook_source() -> str:
    """The ``sitecustomize`` that starts the tracer (this module is copied next to it, so the traced
    interpreter needs no tensorshape installed), then runs any other ``sitecustomize`` on the path."""
    return """\
import os as _os
import sys as _sys

_here = _os.path.dirname(_os.path.abspath(__file__))
try:
    import _tensorshape_trace
    _tensorshape_trace.start()
except Exception as _e:  # never break the traced program
    _sys.stderr.write(f"tensorshape annotate: tracing not started: {_e}\\n")
_path = _sys.path[:]
_me = _sys.modules.get("sitecustomize")
try:
    _sys.path[:] = [p for p in _path if _os.path.abspath(p or ".") != _here]
    _sys.modules.pop("sitecustomize", None)
    import sitecustomize  # noqa: F401  (the environment's own, if any)
except ImportError:
    pass
finally:
    _sys.path[:] = _path
    if _me is not None:
        _sys.modules.setdefault("sitecustomize", _me)
"""
