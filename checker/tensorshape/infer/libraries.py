"""Installed third-party packages, followed from their source.

An import that the project's own roots do not resolve is looked up in the
site-packages folders of the target environment (the running interpreter's by
default, or ``python_executable``'s, plus ``python_path``).  Some modules are
never read from source: torch (its API is modelled by the stubs), every module a
stub file models (``torchvision.transforms``: the stub wins), the standard
library, and the packages excluded by configuration.  Why a module was not
followed is kept, so that ``--statistics`` can say it.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..rules.stubdir import stubs_dir

__all__ = [
    "Libraries",
    "DEFAULT_MAX_BYTES",
    "default_directory",
    "user_cache_dir",
    "NEVER_FOLLOWED",
    "DEFAULT_EXCLUDE",
    "environment_paths",
    "stub_modules",
    "modelled_by_stubs",
]

#: The default bound of the folder (bytes): torchvision, timm and transformers together take about
#: a tenth of it.
DEFAULT_MAX_BYTES = 1 << 30


def user_cache_dir() -> Path:
    """The platform's per-user cache folder: ``$XDG_CACHE_HOME`` (else ``~/.cache``) on Linux,
    ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    return Path.home() / ".cache"


def default_directory() -> Path:
    """Where library summaries are kept unless configured: ``$TENSORSHAPE_LIBRARY_CACHE``, else
    ``tensorshape/libraries`` under the user cache folder."""
    env = os.environ.get("TENSORSHAPE_LIBRARY_CACHE")
    return Path(env) if env else user_cache_dir() / "tensorshape" / "libraries"


#: Modelled by the stubs, never read from source (their source would shadow the model).
NEVER_FOLLOWED = ("torch", "functorch", "torchgen", "triton", "jaxtyping", "beartype", "typeguard", "tensorshape")

#: Packages with no models in them, or mostly compiled code: following them costs time and finds
#: nothing (configuration ``include`` can bring one back).
DEFAULT_EXCLUDE = (
    "numpy",
    "scipy",
    "pandas",
    "matplotlib",
    "sklearn",
    "PIL",
    "cv2",
    "tqdm",
    "yaml",
    "requests",
    "urllib3",
    "huggingface_hub",
    "safetensors",
    "tokenizers",
    "regex",
    "sympy",
    "mpmath",
    "networkx",
    "jinja2",
    "filelock",
    "fsspec",
    "packaging",
    "setuptools",
    "pkg_resources",
    "pip",
    "_pytest",
    "pytest",
    "typing_extensions",
    "libcst",
    "tensorshape",
    "mypy",
)

#: Modules followed inside a package excluded by default: huggingface_hub's ``@strict`` decorates
#: transformers' configuration classes, whose fields are the models' sizes.
DEFAULT_FOLLOWED_WITHIN = ("huggingface_hub.dataclasses",)


@functools.lru_cache(maxsize=64)
def _as_set(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(names)


def _under(module: str, names: tuple[str, ...] | frozenset[str]) -> bool:
    """Is ``module`` one of ``names`` or inside one of them?  Asked of every module a check looks
    up: each of its few dotted prefixes is looked up, not each of the many names."""
    found = names if isinstance(names, frozenset) else _as_set(names)
    prefix = module
    while True:
        if prefix in found:
            return True
        prefix, dot, _ = prefix.rpartition(".")
        if not dot:
            return False


@functools.cache
def stub_modules() -> frozenset[str]:
    """The modules a stub file models (``torchvision.transforms``), never read from source."""
    return frozenset(p.name[: -len(".shapes.pyi")] for p in stubs_dir().glob("*.shapes.pyi"))


def modelled_by_stubs(module: str) -> bool:
    """Is ``module`` modelled by the stubs (torch, ``torchvision.datasets``, ...), so never read
    from source even inside a package that is followed (``from torchvision import datasets``)?"""
    return _under(module, NEVER_FOLLOWED) or _under(module, stub_modules())


@functools.cache
def _interpreter_path(executable: str) -> tuple[str, ...]:
    """``sys.path`` of another interpreter (asked once per process)."""
    try:
        out = subprocess.run(
            [executable, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
        paths = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError):
        return ()
    return tuple(p for p in paths if isinstance(p, str))


def _is_packages_dir(p: str) -> bool:
    return Path(p).name in ("site-packages", "dist-packages")


def environment_paths(python_executable: str | None = None, python_path: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The folders installed packages are searched in: ``python_path`` first, then the
    site-packages folders of ``python_executable`` (default: the running interpreter)."""
    found = _interpreter_path(python_executable) if python_executable else tuple(sys.path)
    out: list[str] = []
    for p in (*python_path, *(p for p in found if _is_packages_dir(p))):
        if p and p not in out and Path(p).is_dir():
            out.append(p)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Libraries:
    """Where installed packages are found, and which are followed."""

    paths: tuple[str, ...] = ()
    #: Top-level packages (or dotted modules) never followed, on top of :data:`DEFAULT_EXCLUDE`.
    exclude: tuple[str, ...] = ()
    #: When set, only these packages are followed; an include also overrides a default exclude.
    include: tuple[str, ...] | None = None
    #: The folder of library summaries kept across runs (:mod:`.summaries`; ``None``: parse each run).
    summaries: str | None = None
    #: The bound of that folder, in bytes.
    summaries_max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def of_environment(
        cls,
        python_executable: str | None = None,
        python_path: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        include: tuple[str, ...] | None = None,
        summaries: str | None = None,
        summaries_max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> Libraries:
        return cls(environment_paths(python_executable, python_path), exclude, include, summaries, summaries_max_bytes)

    def refusal(self, module: str) -> str | None:
        """Why ``module`` is not followed from source (``None``: it may be)."""
        top = module.partition(".")[0]
        if modelled_by_stubs(module):
            return "modelled by stubs"
        if top in sys.stdlib_module_names:
            return "standard library"
        if _under(module, self.exclude):
            return "excluded by configuration"
        if self.include is not None:
            return None if _under(module, self.include) else "not in `include`"
        if _under(module, DEFAULT_EXCLUDE) and not _under(module, DEFAULT_FOLLOWED_WITHIN):
            return "excluded by default"
        return None

    def find(self, module: str) -> tuple[Path | None, str | None]:
        """The source file of an installed module, or why there is none to follow: the reason is
        ``None`` when the module is not installed at all."""
        if not self.paths or not module:
            return None, None
        why = self.refusal(module)
        folder, _, leaf = module.replace(".", "/").rpartition("/")
        for root in self.paths:
            parent = os.path.join(root, folder) if folder else root
            names = _listing(parent)
            if not names:
                continue
            for cand in (f"{leaf}.py", f"{leaf}/__init__.py"):
                if cand.partition("/")[0] in names and os.path.isfile(p := os.path.join(parent, cand)):
                    return (None, why) if why else (Path(p), None)
            prefix = leaf + "."
            if any(n.startswith(prefix) and n.endswith((".so", ".pyd")) for n in names):
                return None, why or "C extension"
        return None, None


def _listing(folder: str) -> frozenset[str]:
    """The names in a folder (empty: none, or not a folder), read once per change of the folder:
    probing each candidate file and globbing for compiled extensions cost seconds over a package
    of many modules."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return frozenset()
    return _listing_at(folder, mtime)


@functools.lru_cache(maxsize=4096)
def _listing_at(folder: str, mtime: int) -> frozenset[str]:
    try:
        return frozenset(os.listdir(folder))
    except OSError:
        return frozenset()
