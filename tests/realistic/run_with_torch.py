"""Run realistic programs with real torch and record what happened (used by ``harness.py``).

``python run_with_torch.py [--path DIR]... FILE...`` runs each file as ``__main__``
in this one process (torch is imported once) and prints one JSON object: for each
file, the shapes every ``reveal_shape(x)`` call saw, by line, and the line of the
file where an exception was raised (the innermost frame in that file), if any.
``--path`` appends a folder of installed packages to ``sys.path`` (timm and
transformers installed into a cache folder by a test).  torchvision's compiled
operators may not load beside the CPU torch: the ones it asks for are declared
first (the models never call them).
"""

from __future__ import annotations

import importlib.util
import json
import re
import runpy
import sys
import traceback
from typing import Any

import tensorshape


def _shape(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return list(value.shape)
    if isinstance(value, (tuple, list)):
        return [_shape(v) for v in value]
    if isinstance(value, int):
        return value
    return None


def run(path: str) -> dict[str, Any]:
    seen: dict[int, list[Any]] = {}

    def reveal_shape(value: Any) -> Any:
        frame = sys._getframe(1)
        if frame.f_code.co_filename == path:
            shapes = seen.setdefault(frame.f_lineno, [])
            if len(shapes) < 20:
                shapes.append(_shape(value))
        return value

    tensorshape.reveal_shape = reveal_shape  # type: ignore[assignment]
    raised: dict[str, Any] | None = None
    saved_argv = sys.argv
    sys.argv = [path]
    try:
        runpy.run_path(path, run_name="__main__")
    except BaseException as exc:  # noqa: BLE001 - recorded, not handled
        raised = raise_record(exc, path)
    finally:
        sys.argv = saved_argv
    return {"reveals": {str(k): v for k, v in seen.items()}, "raised": raised}


def raise_record(exc: BaseException, path: str) -> dict[str, Any]:
    """What was raised and the line of ``path`` it was raised on (the innermost frame in that file)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    return {
        "type": type(exc).__name__,
        "message": str(exc).splitlines()[0] if str(exc) else "",
        "line": frames[-1].lineno if frames else None,
    }


def load_torchvision() -> None:
    """Import torchvision, declaring each compiled operator its wheel fails to register."""
    import torch

    if importlib.util.find_spec("torchvision") is None:
        return
    lib = torch.library.Library("torchvision", "FRAGMENT")
    for _ in range(20):
        try:
            import torchvision  # noqa: F401
        except RuntimeError as e:
            missing = re.search(r"operator torchvision::(\w+) does not exist", str(e))
            if missing is None:
                raise
            lib.define(missing.group(1) + "(Tensor[] args) -> Tensor")
            for name in [m for m in sys.modules if m.startswith("torchvision")]:
                del sys.modules[name]
        else:
            _keep.append(lib)
            return


_keep: list[Any] = []


def main(args: list[str]) -> None:
    import torch

    paths: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "--path":
            sys.path.append(args.pop(0))
        else:
            paths.append(arg)
    load_torchvision()
    torch.manual_seed(0)
    out = {p: run(p) for p in paths}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
