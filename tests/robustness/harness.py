"""Hostile input for every front end, run as subprocesses and classified.

Each :class:`Case` builds its files in a fresh folder and runs one command
(``tensorshape check``, ``instrument``, ``shapefn``, or the language server fed
raw bytes).  The outcome is one of:

* ``clean``: the process ended by itself, without a Python traceback;
* ``traceback``: ``Traceback (most recent call last)`` on stdout or stderr;
* ``hang``: still running after the time limit (killed);
* ``crash``: killed by a signal (SIGSEGV in a native parser, say);
* ``damage``: a case that may rewrite files (``instrument --write``) left a
  user file that is neither its original bytes nor a good rewrite of them: the
  rewrite must compile when the original did, and ``instrument --remove
  --write`` must give back the original bytes.  Disk-full and read-only faults
  are injected on such runs (``RLIMIT_FSIZE``, file modes).

``python benchmarks/robustness.py`` prints the counts per outcome; the tests in
this folder assert that every case is ``clean`` (and check its exit status).
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from .families import FAMILIES
    from .texts import FAST_TEXTS, HOVER, TEXTS
except ImportError:  # run from benchmarks/robustness.py, with this folder on sys.path
    from families import FAMILIES  # type: ignore[no-redef]
    from texts import FAST_TEXTS, HOVER, TEXTS  # type: ignore[no-redef]

__all__ = ["Case", "Outcome", "run_case", "all_cases", "count", "KINDS"]

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0

#: Ordinary model code to mutate.
SEED_SOURCE = (REPO / "examples" / "cnn.py").read_text(encoding="utf-8")


@dataclass
class Case:
    name: str
    #: Arguments after ``tensorshape`` (run in the case's folder).
    argv: list[str]
    #: Writes the case's files into the folder.
    setup: Callable[[Path], None] = lambda d: None
    #: Bytes fed to stdin (the language server's cases).
    stdin: bytes | None = None
    #: Exit statuses that count as correct (checked by the tests; any is fine by default).
    expect: tuple[int, ...] = ()
    slow: bool = False
    #: Extra text that must appear on stdout+stderr.
    says: str = ""
    env: dict[str, str] = field(default_factory=dict)
    #: The run may rewrite files: check every ``.py`` file for damage afterwards.
    writes: bool = False
    #: Bytes a file of the run may grow to (``RLIMIT_FSIZE``, SIGXFSZ ignored: a full disk).
    fsize: int | None = None
    #: A rewrite must run as the original does: ``python m.py`` before the run and after it.
    runs: bool = False


@dataclass
class Outcome:
    kind: str  # clean, traceback, hang, crash, damage
    returncode: int | None
    output: str


def run_case(case: Case, timeout: float = TIMEOUT) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="ts-robust-") as tmp:
        d = Path(tmp)
        case.setup(d)
        before = _snapshot(d) if case.writes else {}
        env = {**os.environ, "XDG_CACHE_HOME": str(d / ".cache"), **case.env}
        env.pop("TENSORSHAPE_DEBUG", None)
        ran = _run_module(d, env, timeout) if case.runs else None
        cmd = [sys.executable, "-m", "tensorshape.cli.main", *case.argv]
        p = subprocess.Popen(
            cmd,
            cwd=d,
            env=env,
            stdin=subprocess.PIPE if case.stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=None if case.fsize is None else _disk_full(case.fsize),
        )
        try:
            out, err = p.communicate(case.stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return Outcome("hang", None, (out + err).decode("utf-8", "replace"))
        finally:
            _unlock(d)
        text = (out + err).decode("utf-8", "replace")
        if p.returncode < 0:
            return Outcome("crash", p.returncode, text)
        if "Traceback (most recent call last)" in text:
            return Outcome("traceback", p.returncode, text)
        broken = []
        if ran is not None and ran[0] == 0:  # before ``_damage``, which takes the checks out again
            now = _run_module(d, env, timeout)
            if now[0] != 0:
                broken = [f"m.py: the rewrite does not run as the original did (exit {now[0]}: {now[1]})"]
        damaged = broken + [f"{name}: {why}" for name, why in _damage(d, before, env).items()]
        if damaged:
            return Outcome("damage", p.returncode, text + "\ndamaged: " + "; ".join(damaged))
        return Outcome("clean", p.returncode, text)


def _run_module(d: Path, env: dict[str, str], timeout: float) -> tuple[int, str]:
    """``python m.py`` in the case's folder: its exit status (-1: it did not end) and last line of output."""
    try:
        p = subprocess.run(
            [sys.executable, "m.py"], cwd=d, env={**env, "PYTHONPATH": str(d)}, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -1, "timed out"
    lines = (p.stdout + p.stderr).decode("utf-8", "replace").strip().splitlines()
    return p.returncode, lines[-1] if lines else ""


def _disk_full(limit: int) -> Callable[[], None]:
    def limit_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limit_files


def _snapshot(d: Path) -> dict[Path, bytes]:
    out = {}
    for f in d.rglob("*.py"):
        try:
            if f.is_file() and not f.is_symlink():
                out[f] = f.read_bytes()
        except OSError:
            pass
    return out


def _damage(d: Path, before: dict[Path, bytes], env: dict[str, str]) -> dict[str, str]:
    """What is wrong with each file the run changed: a rewrite must compile when the original did,
    and taking the checks out again must give back the original bytes."""
    out: dict[str, str] = {}
    for f, old in before.items():
        name = str(f.relative_to(d))
        try:
            new = f.read_bytes()
        except OSError as e:
            out[name] = f"cannot be read any more ({e.strerror})"
            continue
        if new == old:
            continue
        if _compiles(old) and not _compiles(new):
            out[name] = "the rewrite does not compile"
            continue
        subprocess.run(
            [sys.executable, "-m", "tensorshape.cli.main", "instrument", "--remove", "--write", name],
            cwd=d,
            env=env,
            capture_output=True,
            check=False,
            timeout=TIMEOUT,
        )
        if f.read_bytes() != old:
            out[name] = "`instrument --remove --write` does not give back the original bytes"
    return out


def _compiles(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a mutant's SyntaxWarnings are not the tool's
            compile(data, "m.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    return True


def _unlock(d: Path) -> None:
    for sub in d.rglob("*"):
        try:
            if sub.is_dir() and not sub.is_symlink():
                sub.chmod(0o755)
        except OSError:
            pass


def count(outcomes: list[Outcome]) -> Counter[str]:
    return Counter({k: 0 for k in KINDS} | Counter(o.kind for o in outcomes))


#: The outcomes, in the order they are printed.
KINDS = ("clean", "traceback", "hang", "crash", "damage")


# -- the cases ------------------------------------------------------------------------------------
def _write(name: str, text: str | bytes) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        (d / name).write_bytes(data)

    return setup


#: Deeply nested but (mostly) valid source, as generated code or a fuzzer writes it.
NESTING: dict[str, Callable[[int], str]] = {
    "and-chain": lambda n: "x = 1" + " and 1" * n,
    "nested-calls": lambda n: "x = " + "f(" * n + ")" * n,
    "unary-chain": lambda n: "x = " + "-" * n + "1",
    "attribute-chain": lambda n: "x = a" + ".b" * n,
    "operator-chain": lambda n: "x = a" + " + b" * n,
    "call-chain": lambda n: "x = f" + "()" * n,
    "nested-lists": lambda n: "x = " + "[" * n + "]" * n,
    "not-chain": lambda n: "x = " + "not " * n + "1",
    "strings": lambda n: "x = " + "'a' " * n,
    "subscripts": lambda n: "x = a" + "[0]" * n,
    "lambdas": lambda n: "x = " + "lambda: " * n + "1",
    "ternaries": lambda n: "x = " + "1 if c else " * n + "1",
}


_COMMANDS = (["check", "--no-cache", "m.py"], ["instrument", "m.py"], ["shapefn", "m.py::f"])


def nesting_cases(sizes: tuple[int, ...], commands: int, slow: bool) -> Iterator[Case]:
    """Each kind of nesting at each size, through the first ``commands`` front ends."""
    for kind, make in NESTING.items():
        for n in sizes:
            src = "import torch\n" + make(n) + "\n"
            for cmd in _COMMANDS[:commands]:
                yield Case(f"nesting:{kind}:{n}:{cmd[0]}", cmd, _write("m.py", src), slow=slow)


def pool_cases() -> Iterator[Case]:
    """Parallel runs (``-j 2``) where some files are nested too deep: the pool reports them and goes on."""

    def setup(d: Path) -> None:
        for k in range(12):
            (d / f"ok{k}.py").write_text("import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
        (d / "deep.py").write_text("x = " + "f(" * 5000 + ")" * 5000 + "\n")
        (d / "chain.py").write_text("x = 1" + " and 1" * 8000 + "\n")

    yield Case("pool:deep-files", ["check", "--no-cache", "-j", "2", "."], setup, expect=(1,), says="in 14 files")


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(6)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            del b[i : i + rng.randint(1, 20)]
        elif op == 1:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif op == 2:
            b[i:i] = rng.choice(
                [b"(", b")", b"[", b"]", b":", b"\n    ", b"\t", b"\\", b"'''", b"\x00", b"\xff", b"**9"]
            )
        elif op == 3 and b:
            j = rng.randrange(len(b))
            b[i:i] = b[j : j + rng.randint(1, 200)]  # duplicate a stretch
        elif op == 4:
            b[i:i] = rng.choice(
                [b"10**10**10", b'"2**2**2**2**2"', b"[x] * 10**9", b"(" * 300 + b")" * 300, b"\r", b"\x0c"]
            )
        else:
            b[i:i] = rng.choice([b"Float[Tensor, 'b c']", b"torch.zeros(10**5000)", b"x.view(-1, 0)", b"@shapecheck\n"])
    return bytes(b)


def mutation_cases(n: int, seed: int, per_run: int, slow: bool) -> Iterator[Case]:
    """``n`` mutants of an example model, ``per_run`` files to a ``check`` run (and each mutant
    instrumented), seeded so that a failure can be replayed."""
    rng = random.Random(seed)
    mutants = [_mutate(rng, SEED_SOURCE.encode()) for _ in range(n)]
    for start in range(0, n, per_run):
        group = mutants[start : start + per_run]

        def setup(d: Path, group: list[bytes] = group) -> None:
            for k, m in enumerate(group):
                (d / f"m{k}.py").write_bytes(m)

        yield Case(f"mutants:{seed}:{start}:check", ["check", "--no-cache", "-j", "2", "."], setup, slow=slow)
        yield Case(f"mutants:{seed}:{start}:instrument", ["instrument", "--write", "."], setup, slow=slow, writes=True)
        yield Case(
            f"mutants:{seed}:{start}:instrument-all",
            ["instrument", "--all", "--write", "."],
            setup,
            slow=slow,
            writes=True,
        )


def _fifo(d: Path) -> None:
    os.mkfifo(d / "fifo.py")
    (d / "ok.py").write_text("x = 1\n")


def _loop(d: Path) -> None:
    (d / "a.py").symlink_to("b.py")
    (d / "b.py").symlink_to("a.py")
    (d / "ok.py").write_text("x = 1\n")


def _zero(d: Path) -> None:
    (d / "zero.py").symlink_to("/dev/zero")
    (d / "ok.py").write_text("x = 1\n")


def _unreadable(d: Path) -> None:
    (d / "locked").mkdir()
    (d / "locked" / "m.py").write_text("x = 1\n")
    (d / "ok.py").write_text("x = 1\n")
    (d / "locked").chmod(0)
    (d / "m.py").write_text("x = 1\n")
    (d / "m.py").chmod(0)


def odd_file_cases() -> Iterator[Case]:
    yield Case("odd:fifo-in-folder", ["check", "--no-cache", "."], _fifo, expect=(0,), says="TS008")
    yield Case("odd:fifo-named", ["check", "--no-cache", "fifo.py"], _fifo, expect=(0,), says="not a regular file")
    yield Case("odd:symlink-loop", ["check", "--no-cache", "."], _loop, expect=(0,), says="TS008")
    yield Case("odd:symlink-loop-named", ["check", "a.py"], _loop, expect=(2,), says="symbolic link loop")
    yield Case("odd:dev-zero", ["check", "--no-cache", "."], _zero, expect=(0,), says="not a regular file")
    yield Case("odd:unreadable", ["check", "--no-cache", "."], _unreadable, expect=(0,))
    yield Case("odd:too-long", ["check", "a" * 5000 + ".py"], expect=(2,), says="cannot check")
    yield Case("odd:missing", ["check", "nope.py"], expect=(2,), says="cannot check")
    yield Case("odd:empty-folder", ["check", "."], expect=(2,), says="no Python files")
    yield Case("odd:folder-named-py", ["check", "--no-cache", "."], lambda d: (d / "x.py").mkdir(), expect=(2,))
    yield Case("odd:nul-in-path", ["check", "a\x01b.py"], expect=(2,))
    yield Case("odd:instrument-fifo", ["instrument", "."], _fifo)
    yield Case("odd:binary", ["check", "--no-cache", "m.py"], _write("m.py", bytes(range(256)) * 40), expect=(1,))
    yield Case(
        "odd:bad-encoding", ["check", "--no-cache", "m.py"], _write("m.py", b"# coding: nope\nx=1\n"), expect=(1,)
    )
    yield Case("odd:nul-bytes", ["check", "--no-cache", "m.py"], _write("m.py", b"x = 1\x00\n"), expect=(1,))
    yield Case(
        "odd:long-concatenation",
        ["check", "--no-cache", "m.py"],
        _write("m.py", "x = (" + "'a'\n" * 2000 + ")\n"),
        expect=(0,),
    )


#: A function whose ``F.linear`` meets unknown sizes: ``instrument`` inserts checks into it.
_LINEAR = "import torch.nn.functional as F\n\n\ndef f(x, w):\n    return F.linear(x, w)\n"
_LINEAR_MANY = _LINEAR + "".join(f"\n\ndef g{i}(x, w):\n    return F.linear(x, w)\n" for i in range(40))
#: User lines that end with the marker comment the tool puts on its own lines.
_MARKER = 'import torch.nn.functional as F\n\nDOC = """\nx = 1  # tensorshape: inserted\n"""\n\n\ndef f(x, w):\n    return F.linear(x, w)\n'


def _files(**named: str | bytes) -> Callable[[Path], None]:
    def setup(d: Path) -> None:
        for name, text in named.items():
            _write(f"{name}.py", text)(d)

    return setup


def _read_only(d: Path) -> None:
    _files(a=_LINEAR, b=_LINEAR)(d)
    (d / "a.py").chmod(0o444)


def _read_only_folder(d: Path) -> None:
    (d / "sub").mkdir()
    _write("sub/a.py", _LINEAR)(d)
    (d / "sub").chmod(0o555)


def fault_cases() -> Iterator[Case]:
    """``instrument --write`` under faults and on files whose bytes are easy to lose (issue 17 item 3)."""
    write = ["instrument", "--write", "."]
    every = ["instrument", "--all", "--write", "."]
    many = _files(a=_LINEAR_MANY, b=_LINEAR)
    limit = len(_LINEAR_MANY) + 100  # a.py cannot be rewritten, b.py can
    yield Case("fault:disk-full", write, many, expect=(2,), says="not written", writes=True, fsize=limit)
    yield Case("fault:disk-full-remove", ["instrument", "--remove", "--write", "."], many, writes=True, fsize=10)
    yield Case("fault:read-only-file", write, _read_only, expect=(2,), writes=True)
    yield Case("fault:read-only-folder", write, _read_only_folder, writes=True)  # root may write there
    crlf = _LINEAR_MANY.replace("\n", "\r\n")
    yield Case("fault:crlf", write, _files(a=crlf), expect=(0,), writes=True)
    yield Case("fault:cr", write, _files(a=_LINEAR_MANY.replace("\n", "\r")), expect=(0,), writes=True)
    latin = ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + _LINEAR).encode("latin-1")
    yield Case("fault:latin-1", write, _files(a=latin), expect=(0,), writes=True)
    yield Case("fault:bom", write, _files(a=b"\xef\xbb\xbf" + _LINEAR.encode()), expect=(0,), writes=True)
    yield Case("fault:marker-lines", write, _files(a=_MARKER), expect=(0,), writes=True)
    yield Case("fault:examples-all", every, _examples, writes=True)


def _examples(d: Path) -> None:
    for f in sorted((REPO / "examples").glob("*.py")):
        (d / f.name).write_bytes(f.read_bytes())


_CONFIGS = {
    "tool-int": "tool = 1\n",
    "table-int": "[tool]\ntensorshape = 3\n",
    "jobs-bool": "[tool.tensorshape]\njobs = true\n",
    "jobs-negative": "[tool.tensorshape]\njobs = -1\n",
    "cache-dir-list": "[tool.tensorshape]\ncache_dir = ['a']\n",
    "paths-int": "[tool.tensorshape]\npaths = 3\n",
    "severity-int": "[tool.tensorshape]\nseverity = { TS101 = 1 }\n",
    "severity-list": "[tool.tensorshape]\nseverity = [1]\n",
    "unknown-key": "[tool.tensorshape]\nfoo = 1\n",
    "undecodable": b"\xff\xfe[tool]\n",
    "not-toml": "[[[\n",
    "deeply-nested": "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "enable-unknown": "[tool.tensorshape]\nenable = ['TS999']\n",
}


def config_cases() -> Iterator[Case]:
    for name, text in _CONFIGS.items():

        def setup(d: Path, text: str | bytes = text) -> None:
            _write("pyproject.toml", text)(d)
            (d / "m.py").write_text("x = 1\n")

        yield Case(f"config:{name}", ["check", "--no-cache", "m.py"], setup, expect=(2,), says="TS005")


def _bad_cache(d: Path) -> None:
    (d / "m.py").write_text("import torch\nx = torch.zeros(2, 3)\n")
    subprocess.run(
        [sys.executable, "-m", "tensorshape.cli.main", "check", "--cache-dir", "c", "m.py"],
        cwd=d,
        capture_output=True,
        check=False,
    )
    for entry in (d / "c").rglob("*.json"):
        data = json.loads(entry.read_text())
        data["stats"] = ["x"]
        data["diagnostics"] = [{"code": 5, "span": "x"}]
        entry.write_text(json.dumps(data))


def cache_cases() -> Iterator[Case]:
    yield Case("cache:wrong-types", ["check", "--cache-dir", "c", "--statistics", "m.py"], _bad_cache, expect=(0,))
    for name, text in {"list": "[]", "null": "null", "number": "1", "garbage": "\x00\xff"}.items():

        def setup(d: Path, text: str = text) -> None:
            _bad_cache(d)
            for entry in (d / "c").rglob("*.json"):
                entry.write_text(text, encoding="utf-8", errors="surrogateescape")

        yield Case(f"cache:{name}", ["check", "--cache-dir", "c", "m.py"], setup, expect=(0,))


def output_cases() -> Iterator[Case]:
    ok = _write("m.py", "x = 1\n")
    yield Case(
        "output:missing-folder", ["check", "m.py", "-o", "no/such/report.txt"], ok, expect=(2,), says="cannot write"
    )
    if Path("/dev/full").exists():
        yield Case("output:dev-full", ["check", "m.py", "-o", "/dev/full"], ok, expect=(2,), says="cannot write")
    yield Case("output:folder", ["check", "m.py", "-o", "."], ok, expect=(2,), says="cannot write")


_HOSTILE = {
    "tower": "n = 10**10**10\nm = 2**10**8\n",
    "spec-tower": "import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n"
    'def f(x: Float[Tensor, "2**2**2**2**2**2"]) -> None:\n    y = x + 1\n',
    "power-of-sum": "import torch\ndef f(a: int, b: int, c: int, d: int, e: int, g: int, h: int, k: int):\n"
    "    x = torch.zeros((a+b+c+d+e+g+h+k)**30)\n    y = x.reshape(-1, 2)\n    z = x + torch.zeros(3, 4)\n",
    "repeat-list": "import torch\nx = torch.zeros(3)\nl = [x] * 10**9\ny = torch.cat(l)\n",
    "zeros-huge": "import torch\nx = torch.zeros(10**5000)\ny = x.reshape(-1, 7)\n",
    # Under Python's 4,300-digit limit for int literals (past it, Python refuses the file: below).
    "zeros-digits": "import torch\nx = torch.zeros(" + "9" * 4000 + ")\n",
    "spec-terms": "import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n"
    "def f(x: Float[Tensor, '" + " ".join(f"d{i}" for i in range(2000)) + "']):\n    return x + x\n",
    "diamonds": "\n".join(
        ["class A0:\n    pass"]
        + [
            f"class B{i}(A{i - 1}): pass\nclass C{i}(A{i - 1}): pass\nclass A{i}(B{i}, C{i}):\n    def g(self): return self.h()"
            for i in range(1, 40)
        ]
        + ["x = A39().g()"]
    ),
    "float-overflow": "x = 2.5 ** 10**6\ny = 1e308 * 10\nz = 10**400 / 3\n",
    "shift": "x = 1 << 10**9\n",
}


def hostile_cases() -> Iterator[Case]:
    for name, src in _HOSTILE.items():
        # None is an error torch would raise for the sizes the code allows: exit 0, no false error.
        yield Case(f"hostile:{name}", ["check", "--no-cache", "m.py"], _write("m.py", src), expect=(0,))
    # Python refuses an int literal past its digit limit: a syntax error at its place, exit 1.
    past = "import torch\nx = torch.zeros(" + "9" * 5000 + ")\n"
    yield Case(
        "hostile:digits-past-limit",
        ["check", "--no-cache", "m.py"],
        _write("m.py", past),
        expect=(1,),
        says="m.py:2:1: error: syntax error: Exceeds the limit",
    )
    yield from size_cases()


#: Of the program families, the ones whose round trip the default (CI) run tries.
_FAST_FAMILIES = {"jaxtyping-strings", "unicode-identifiers"}


def family_cases(full: bool) -> Iterator[Case]:
    """The families of hostile programs (families.py): ``check``, and ``instrument --write`` with and
    without ``--all``, whose rewrite must compile, run as the original does and come back with ``--remove``."""
    for name, program in FAMILIES.items():
        setup = _write("m.py", program) if isinstance(program, str) else program
        for tag, argv, writes in (
            ("check", ["check", "--no-cache", "."], False),
            ("instrument", ["instrument", "--write", "."], True),
            ("instrument-all", ["instrument", "--all", "--write", "."], True),
        ):
            fast = name in _FAST_FAMILIES and tag == "instrument-all"
            if full or fast:
                yield Case(f"family:{name}:{tag}", argv, setup, writes=writes, runs=writes, slow=not fast)


#: The front ends each hostile text goes through: ``annotate --write`` must leave a text it
#: proposes nothing for byte for byte as it was (the damage check sees any change).
TEXT_COMMANDS: dict[str, tuple[list[str], bool]] = {
    "check": (["check", "--no-cache", "--statistics", "m.py"], False),
    "instrument": (["instrument", "--write", "m.py"], True),
    "instrument-all": (["instrument", "--all", "--write", "m.py"], True),
    "annotate": (["annotate", "--write", "m.py"], True),
    "lsp": (["lsp"], False),
}


def text_cases(full: bool) -> Iterator[Case]:
    """The hostile texts (texts.py) through every front end; the language server opens the text and
    hovers in it (as an editor sends it: the byte order mark taken off, undecodable bytes replaced)."""
    for name, data in TEXTS.items():
        for tag, (argv, writes) in TEXT_COMMANDS.items():
            fast = name in FAST_TEXTS
            if full or fast:
                stdin = lsp_open_hover(data.decode("utf-8-sig", "replace")) if tag == "lsp" else None
                yield Case(f"text:{name}:{tag}", argv, _write("m.py", data), stdin=stdin, writes=writes, slow=not fast)


def lsp_open_hover(text: str, uri: str = "file:///tmp/m.py") -> bytes:
    """A language server session that opens ``text`` and hovers at :data:`texts.HOVER` at once."""
    return _lsp_session(
        _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + _frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
            }
        )
        + _frame(_hover(uri))
    )


def _hover(uri: str) -> dict[str, object]:
    position = {"line": HOVER[0], "character": HOVER[1]}
    return {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": position},
    }


def lsp_hover_after_analysis(text: str, timeout: float = TIMEOUT) -> tuple[str, dict[str, object] | None, str]:
    """Open ``text`` in a language server, wait until its analysis is settled (the log line that ends
    it), then hover at :data:`texts.HOVER`: the outcome (``clean``, ``traceback``, ``hang``, ``crash``),
    the hover's answer and what the server wrote on stderr."""
    uri = "file:///tmp/m.py"
    with tempfile.TemporaryDirectory(prefix="ts-robust-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / ".cache")}
        p = subprocess.Popen(
            [sys.executable, "-m", "tensorshape.cli.main", "lsp"],
            cwd=tmp,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert p.stdin is not None and p.stdout is not None
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        answer: dict[str, object] | None = None
        try:
            p.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
            p.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            doc = {"uri": uri, "languageId": "python", "version": 1, "text": text}
            p.stdin.write(_frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}))
            p.stdin.flush()
            sent = False
            while True:
                message = _read_frame(p.stdout)
                if message is None:
                    break
                params = message.get("params")
                log = params.get("message", "") if isinstance(params, dict) else ""
                if not sent and message.get("method") == "window/logMessage" and "version 1:" in str(log):
                    p.stdin.write(_frame(_hover(uri)))
                    p.stdin.flush()
                    sent = True
                elif message.get("id") == 5:
                    answer = message
                    p.stdin.write(_frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}))
                    p.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
                    p.stdin.close()
            p.wait()
            err = p.stderr.read().decode("utf-8", "replace") if p.stderr else ""
        finally:
            timer.cancel()
    if p.returncode == -signal.SIGKILL and answer is None:
        return "hang", None, err
    if p.returncode < 0:
        return "crash", answer, err
    return ("traceback" if "Traceback (most recent call last)" in err else "clean"), answer, err


def _read_frame(stream: Any) -> dict[str, Any] | None:
    """One message from a language server's output (None at its end)."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    body = stream.read(length or 0)
    message = json.loads(body)
    return message if isinstance(message, dict) else {}


def _timed_out(d: Path) -> None:
    (d / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 0.000001\n")
    body = "".join(f"x{k} = torch.zeros({k} + 1, 3)\n" for k in range(300))
    for name in ("a.py", "b.py", "c.py"):
        (d / name).write_text("import torch\n" + body)


def size_cases() -> Iterator[Case]:
    """Size as a denial of service (issue 17 item 9): what libcst rejects and files past their time bound."""
    strings = "x = " + " ".join(['"a"'] * 100_000) + "\n"
    yield Case(
        "size:juxtaposed-strings", ["check", "--no-cache", "m.py"], _write("m.py", strings), expect=(0,), says="TS008"
    )
    huge = "import torch\nx = torch.zeros(2, 3)\ny = torch.cat([" + ", ".join(["x"] * 100_000) + "])\n" + _LINEAR
    stats = ["check", "--no-cache", "--statistics", "m.py"]
    yield Case("size:cat-100k", stats, _write("m.py", huge), expect=(0,), says="sequence of more than 1,000 items")
    yield Case("size:cat-100k-instrument", ["instrument", "--write", "m.py"], _write("m.py", huge), writes=True)
    for jobs in ("1", "2"):
        yield Case(
            f"size:file-timeout-j{jobs}",
            ["check", "--no-cache", "-j", jobs, "."],
            _timed_out,
            expect=(0,),
            says="file_timeout",
        )


def _frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _lsp_session(middle: bytes) -> bytes:
    init = _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    end = _frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}) + _frame({"jsonrpc": "2.0", "method": "exit"})
    return init + middle + end


def lsp_cases(n_random: int, seed: int, slow: bool) -> Iterator[Case]:
    fixed = {
        "noise": b"\x00\xff\xfe garbage\r\n\r\n",
        "bad-length": b"Content-Length: abc\r\n\r\n{}",
        "missing-length": b"Content-Type: x\r\n\r\n{}",
        "short-length": b'Content-Length: 5\r\n\r\n{"jsonrpc":"2.0"}',
        "bad-json": b"Content-Length: 5\r\n\r\n{{{{{",
        "not-object": _frame([1, 2, 3]),
        "bad-params": _frame({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {"x": 1}}),
        "deep-json": b"Content-Length: 20001\r\n\r\n" + b"[" * 20001,
        "huge-length": b"Content-Length: 99999999999\r\n\r\n{}",
        "open-deep": _frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": "file:///tmp/x.py",
                        "languageId": "python",
                        "version": 1,
                        "text": "x = 1" + " and 1" * 8000 + "\n",
                    }
                },
            }
        ),
    }
    for name, middle in fixed.items():
        yield Case(f"lsp:{name}", ["lsp"], stdin=_lsp_session(middle))
    rng = random.Random(seed)
    for k in range(n_random):
        parts = []
        for _ in range(rng.randint(1, 6)):
            choice = rng.randrange(4)
            if choice == 0:
                parts.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))))
            elif choice == 1:
                parts.append(b"Content-Length: %d\r\n\r\n" % rng.randint(0, 40) + b"{" * rng.randint(0, 40))
            elif choice == 2:
                method = rng.choice(["textDocument/hover", "textDocument/didOpen", "textDocument/inlayHint", "x/y"])
                params = rng.choice([None, 1, "s", [], {}, {"textDocument": 3}, {"textDocument": {"uri": 5}}])
                msg: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
                if rng.random() < 0.5:
                    msg["id"] = rng.choice([1, "a", None, 2.5, True, [], {}])
                parts.append(_frame(msg))
            else:
                parts.append(rng.choice([b"\r\n", b"\n", b"Content-Length: 3\r\n", b"Content-Length: -1\r\n\r\n"]))
        yield Case(f"lsp:random:{seed}:{k}", ["lsp"], stdin=_lsp_session(b"".join(parts)), slow=slow)


_FAST_NESTING = {"and-chain", "nested-calls", "attribute-chain", "strings", "lambdas", "nested-lists"}
_FAST_CONFIGS = {"tool-int", "jobs-bool", "cache-dir-list", "undecodable", "deeply-nested"}


def all_cases(full: bool = False) -> list[Case]:
    """The fast subset (``full=False``) or everything."""
    cases: list[Case] = []
    if full:
        cases += nesting_cases((150, 300, 1000, 5000, 20000), 3, slow=True)
    else:
        cases += [c for c in nesting_cases((5000,), 1, slow=False) if c.name.split(":")[1] in _FAST_NESTING]
    cases += pool_cases()
    cases += mutation_cases(200 if full else 20, seed=17, per_run=10, slow=full)
    cases += odd_file_cases()
    cases += fault_cases()
    cases += [c for c in config_cases() if full or c.name.split(":")[1] in _FAST_CONFIGS]
    cases += cache_cases()
    cases += output_cases()
    cases += hostile_cases()
    cases += family_cases(full)
    cases += text_cases(full)
    cases += lsp_cases(60 if full else 3, seed=17, slow=full)
    return cases
