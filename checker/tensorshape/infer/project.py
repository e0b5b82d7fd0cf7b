"""The analysed project: files, module names, imports between them, parsing.

A file's module name comes from its package (folders with ``__init__.py``);
imports resolve against the roots of the analysed files, so ``from .layers
import Block`` and ``from mypkg.layers import Block`` reach the project's own
code.  An import not found there may be an installed package, followed from its source (see
:mod:`.libraries`); anything else is external (``torch``, ``einops``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from ..model.values import Value
from .libraries import Libraries
from .nesting import TooDeep, scan_elif_chains, scan_nesting
from .oversized import LINE_BREAK, MAX_STATEMENT_CHARS, opaque_statement
from .refusals import compile_refusal, refusal
from .source import null_byte, read_bytes, read_source, text_digest
from .spans import SpanTable
from .summaries import SummaryCache
from .toplevel import LineScanner, split, split_lines
from .writers import PackageWriters

__all__ = ["ModuleInfo", "Project", "ParseFailure"]


@dataclass(frozen=True, slots=True)
class ParseFailure:
    message: str
    line: int
    column: int
    #: Valid Python that tensorshape does not analyse (nested too deep, or libcst rejects it):
    #: a warning, not a syntax error.
    skipped: bool = False

    def error(self, path: str = "<string>") -> SyntaxError:
        """The failure as an exception that keeps its place (for the commands that rewrite files):
        a :class:`FileSkipped` when the text is valid Python tensorshape does not take."""
        kind = FileSkipped if self.skipped else SyntaxError
        return kind(self.message, (path, self.line, self.column + 1, None))


class FileSkipped(SyntaxError):
    """Valid Python that tensorshape does not parse (nested too deep, or libcst rejects it)."""


@dataclass(eq=False, slots=True)
class ModuleInfo:
    name: str
    path: str
    source: str
    tree: cst.Module | None
    spans: SpanTable | None
    is_package: bool = False
    globals: dict[str, Value] = field(default_factory=dict)
    #: 0: not run, 1: running (imports in a cycle see partial globals), 2: done.
    state: int = 0
    failure: ParseFailure | None = None
    digest: str = ""
    #: Modules star-imported at the top level (``from .x import *``), searched lazily on a miss.
    stars: list[str] = field(default_factory=list)
    #: The function or class each executed ``def``/``class`` statement made, by node id (kept with
    #: the globals: a module run once for one checked file serves the next one too).
    defined: dict[int, Value] = field(default_factory=dict)
    #: An installed package's module: analysed for its values, never reported in.
    library: bool = False
    #: What the top-level run found that this file's own check reports (its diagnostics and
    #: obligations, the tensor expressions it observed, ``self.training`` reads), kept when another
    #: file's import ran it: a module runs once per process, and its check then takes them from here.
    own_run: Any = None

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]


def module_name_for(path: Path) -> tuple[str, Path, bool]:
    """``(dotted name, root folder, is_package)`` for a source file."""
    path = path.resolve()
    is_pkg = path.name == "__init__.py"
    parts = [] if is_pkg else [path.stem]
    d = path.parent
    while (d / "__init__.py").exists():
        parts.insert(0, d.name)
        if d.parent == d:
            break
        d = d.parent
    return ".".join(parts) or path.stem, d, is_pkg


_PARSE_LOCK = threading.Lock()

#: ``from .x import *`` at the start of a line (possibly indented: under ``if TYPE_CHECKING:``).
_STAR_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\*", re.M)
_STAR_HINT = re.compile(rb"import[ \t]+\*")
#: A decorated ``def``/``class`` (``@register_model`` over ``def resnet18``): its name, for the index of
#: where a registry key may be registered (:meth:`Project.decorated_in`).
_DECORATED = re.compile(rb"^[ \t]*@[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)


def _mentions_word(text: bytes, name: str) -> bool:
    """Does ``text`` mention ``name`` as a whole word?  A module defining ``BertConfig`` must, and
    one that only mentions ``RoCBertConfig`` need not be parsed and run to find that out."""
    word = name.encode()
    if word not in text:
        return False
    return re.search(rb"(?<![\w])" + re.escape(word) + rb"(?![\w])", text) is not None


_ALL = re.compile(rb"^__all__[ \t]*=[ \t]*[\[(]([^\])]*)[\])]", re.M)
_ALL_NAME = re.compile(rb"""["']([\w.]+)["']""")


def _may_export(text: bytes, name: str) -> bool:
    """Can a star import of a module with this text give ``name``?  Not when the module assigns
    ``__all__`` once, a literal list of strings without ``name`` (a module whose docstring or
    imports mention ``BertConfig`` without exporting it), and changes it nowhere else."""
    if text.count(b"__all__") != 1:
        return True
    m = _ALL.search(text)
    if m is None:
        return True
    listed = {n.decode() for n in _ALL_NAME.findall(m.group(1))}
    return name in listed or _ALL_NAME.sub(b"", m.group(1)).strip(b" \t\r\n,") != b""


def _parse_unvalidated(source: str) -> cst.Module:
    """``libcst.parse_module`` without the per-node validation of constructor arguments.

    The parser only builds nodes from source it has accepted, so checking each
    node's fields again (libcst's ``CSTNode.__post_init__``) is redundant work:
    about a fifth of the parse.  Nodes built elsewhere while the lock is held
    (the codemods build theirs outside parsing) are unaffected afterwards.
    """
    with _unvalidated():
        return cst.parse_module(source)


@contextmanager
def _unvalidated() -> Iterator[None]:
    from libcst._nodes.base import CSTNode

    with _PARSE_LOCK:
        saved = CSTNode.__dict__["__post_init__"]
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            yield
        finally:
            CSTNode.__post_init__ = saved  # type: ignore[method-assign]


def _no_validation(self: object) -> None:
    return None


#: Text longer than this is parsed a group of top-level statements (about :data:`PIECE_CHARS`
#: long) at a time: while it parses, libcst's native parser holds about 600 bytes of memory per
#: byte of source (a whole 5 MB file took 3 GB), and the process keeps that memory.
PIECES_FROM = 64 * 1024
PIECE_CHARS = 4 * 1024


def parse_source(source: str) -> tuple[cst.Module | None, ParseFailure | None]:
    """The libcst tree of ``source``, or why there is none.

    Text nested deeper than libcst's native parser can take is never handed to it (it would die
    with SIGSEGV or take minutes): :func:`scan_nesting` finds it in one linear pass first."""
    tree, failure, _ = parse_source_lines(source)
    return tree, failure


def parse_or_raise(source: str, path: str = "<string>") -> cst.Module:
    """:func:`parse_source`'s tree, or its failure raised (a ``SyntaxError`` with its place)."""
    module, failure = parse_source(source)
    if module is None:
        raise failure.error(path) if failure else SyntaxError("cannot parse")
    return module


def parse_source_lines(source: str) -> tuple[cst.Module | None, ParseFailure | None, list[int] | None]:
    """:func:`parse_source`, and the first line of each top-level statement (its leading lines
    included) when the text was parsed in pieces (else None: :class:`SpanTable` finds them)."""
    nul = null_byte(source)
    if nul is not None:  # Python refuses them anywhere (libcst takes them in strings and comments)
        return None, ParseFailure("source code cannot contain null bytes", *nul), None
    if source.startswith("\ufeff"):  # a second byte order mark (the decoding took the first; libcst drops it)
        return None, ParseFailure("invalid non-printable character U+FEFF", 1, 0), None
    deep = scan_nesting(source) or scan_elif_chains(source)
    if deep is None and len(source) > PIECES_FROM:
        pieces = parse_pieces(source)
        if pieces is not None:
            refused = _refused(source, pieces[0])
            return (None, refused, None) if refused else (pieces[0], None, pieces[1])
    tree, failure = _parse_whole(source, deep)
    if tree is not None:
        refused = _refused(source, tree)
        if refused is not None:
            return None, refused, None
    return tree, failure, None


def _refused(source: str, tree: cst.Module) -> ParseFailure | None:
    """Python's refusal to compile text libcst parsed (``return`` outside a function, ...): see
    :mod:`.refusals`."""
    found = refusal(source, tree)
    return ParseFailure(found.message, found.line, found.column) if found else None


def parse_pieces(source: str, piece_chars: int = PIECE_CHARS) -> tuple[cst.Module, list[int]] | None:
    """``source`` parsed a group of top-level statements (about ``piece_chars`` long) at a time and
    assembled into the module a whole parse gives, with the first line of each top-level statement;
    None when a piece does not parse or the pieces disagree on the layout (then parse it whole)."""
    lines = split_lines(source)
    code = [first for first, is_code, _ in split(lines, LineScanner().starts(lines)) if is_code]
    # A statement too big to parse (see oversized.py) is a piece of its own.
    big = {a for a, b in zip(code, [*code[1:], len(lines)]) if sum(map(len, lines[a:b])) > MAX_STATEMENT_CHARS}
    cuts = [0]
    size = 0
    k = 0
    for i, line in enumerate(lines):
        if k < len(code) and code[k] == i:
            if i > cuts[-1] and (size >= piece_chars or i in big or (k > 0 and code[k - 1] in big)):
                cuts.append(i)
                size = 0
            k += 1
        size += len(line)
    cuts.append(len(lines))
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []  # lines between pieces: the next statement's leading lines
    first: cst.Module | None = None
    last: cst.Module | None = None
    indent: str | None = None  # the indentation of the first piece with an indented block
    for a, b in zip(cuts, cuts[1:]):
        try:
            text = "".join(lines[a:b])
            piece = (a in big and _opaque_piece(text, first.default_newline if first else None)) or _parse_unvalidated(
                text
            )
        except Exception:  # noqa: BLE001 - a wrong boundary; the whole parse decides
            return None
        if any(isinstance(getattr(s, "body", None), cst.IndentedBlock) for s in piece.body):
            # Blocks indented as the piece's default record no indentation of their own.
            indent = indent or piece.default_indent
            if piece.default_indent != indent:
                return None
        if first is None:
            first = piece
        else:
            if piece.default_newline != first.default_newline:
                return None
            carried.extend(piece.header)
        stmts = list(piece.body)
        if stmts and carried:
            stmts[0] = stmts[0].with_changes(leading_lines=[*carried, *stmts[0].leading_lines])
            carried = []
        body.extend(stmts)
        carried.extend(piece.footer)
        last = piece
    if first is None or last is None:
        return None
    module = first.with_changes(
        body=body,
        footer=carried,
        default_indent=indent or first.default_indent,
        has_trailing_newline=last.has_trailing_newline,
    )
    starts: list[int] = []
    if len(code) == len(body):
        for at, stmt in zip(code, body):
            leading: Sequence[cst.EmptyLine] = getattr(stmt, "leading_lines", ())
            decorators: Sequence[cst.Decorator] = getattr(stmt, "decorators", ())
            starts.append(at + 1 - len(leading) - (len(decorators[0].leading_lines) if decorators else 0))
    return module, starts


def _opaque_piece(text: str, file_newline: str | None) -> cst.Module | None:
    """The module of one statement too big to parse, kept as text (None: parse it as usual);
    ``file_newline`` is the line break of the pieces before it (None when it is the first)."""
    found = opaque_statement(text)
    if found is None:
        return None
    stmt, rest = found
    after = _parse_unvalidated(rest)
    if after.body:
        return None
    own = stmt.trailing_whitespace.newline.value
    if own is None:  # the file's last line, without a line break
        first_break = LINE_BREAK.search(text)
        newline = file_newline or (first_break.group() if first_break else "\n")
        return cst.Module(body=[stmt], default_newline=newline, has_trailing_newline=False)
    return cst.Module(body=[stmt], footer=[*after.header, *after.footer], default_newline=own)


def _parse_whole(source: str, deep: TooDeep | None) -> tuple[cst.Module | None, ParseFailure | None]:
    if deep is not None:
        failure = ParseFailure(f"not analysed: {deep.what}", deep.line, deep.column, skipped=True)
    else:
        try:
            return _parse_unvalidated(source), None
        except Exception as e:  # noqa: BLE001 - ParserSyntaxError, and others on odd inputs
            message = getattr(e, "message", str(e)) or type(e).__name__
            failure = ParseFailure(
                f"not analysed: tensorshape's parser (libcst) rejects this file although Python accepts it ({message})",
                getattr(e, "raw_line", 1),
                getattr(e, "raw_column", 0),
                skipped=True,
            )
    # Python's own compiler says whether the text is valid (its parser alone takes a bare ``except:``
    # before another handler), and places syntax errors where users expect them; a text too complex
    # for it as well is still skipped, not called invalid.
    refused = compile_refusal(source)
    if refused is not None:
        return None, ParseFailure(refused.message, refused.line, refused.column)
    return None, failure


def absolute_module(package: str, module: str | None, level: int) -> str:
    """The absolute name of ``from {'.' * level}{module} import ...`` in a module of ``package``."""
    if level == 0:
        return module or ""
    base = package.split(".") if package else []
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    parts = [p for p in base if p]
    if module:
        parts.append(module)
    return ".".join(parts)


class Project:
    """Loads and caches modules; resolves imports within the project."""

    def __init__(self, roots: list[Path] | None = None, libraries: Libraries | None = None):
        self.roots: list[Path] = [r.resolve() for r in roots or []]
        self.libraries = libraries
        #: Installed modules that were imported but not followed, with the reason (``--statistics``).
        self.unfollowed: dict[str, str] = {}
        self._library_files: set[Path] = set()
        self.by_name: dict[str, ModuleInfo | None] = {}
        self.by_path: dict[str, ModuleInfo] = {}
        self._found: dict[str, Path | None] = {}
        self._raw: dict[Path, bytes] = {}
        self._stars_of: dict[Path, tuple[str, ...]] = {}
        #: :meth:`may_define` answers by (module, name): the files are read once, so they stand.
        self._defines: dict[tuple[str, str], bool] = {}
        self._decorated: dict[str, dict[str, tuple[str, ...]]] = {}
        #: The functions of installed packages that may write an attribute (``never_written``).
        self.writers = PackageWriters()
        #: Summaries of installed modules kept across runs (``None``: each run parses them).
        self.summaries: SummaryCache | None = None
        if libraries is not None and libraries.summaries:
            self.summaries = SummaryCache(Path(libraries.summaries), libraries.summaries_max_bytes)

    def add_source(self, source: str, path: str = "<string>", name: str | None = None) -> ModuleInfo:
        """A module from text (the LSP's unsaved buffers, tests)."""
        tree, failure, first = parse_source_lines(source)
        spans = SpanTable(tree, source, first) if tree is not None else None
        return self.add_parsed(source, tree, spans, path, name, failure)

    def add_parsed(
        self,
        source: str,
        tree: cst.Module | None,
        spans: SpanTable | None,
        path: str = "<string>",
        name: str | None = None,
        failure: ParseFailure | None = None,
    ) -> ModuleInfo:
        """A module from text already parsed (the LSP assembles its tree from cached pieces)."""
        if name is None:
            p = Path(path)
            if p.suffix == ".py" and p.exists():
                name, root, is_pkg = module_name_for(p)
                self._add_root(root)
            else:
                name, is_pkg = Path(path).stem or "__main__", False
        else:
            is_pkg = path.endswith("__init__.py")
        info = ModuleInfo(
            name,
            path,
            source,
            tree,
            spans,
            is_pkg,
            failure=failure,
            digest=text_digest(source),
        )
        self.by_name[name] = info
        self.by_path[path] = info
        return info

    def _add_library(self, source: str, path: str, name: str, summaries: SummaryCache) -> ModuleInfo:
        """An installed module, from its summary when one was kept (else parsed, and kept)."""
        digest = text_digest(source)
        tree = summaries.load(digest)
        failure = None
        if tree is None:
            tree, failure = parse_source(source)
            if tree is not None:
                summaries.store(digest, tree)
        return self.add_parsed(source, tree, SpanTable(tree, source) if tree is not None else None, path, name, failure)

    def _add_root(self, root: Path) -> None:
        r = root.resolve()
        if r not in self.roots:
            self.roots.append(r)
            self._found = {k: v for k, v in self._found.items() if v is not None}
            self._defines.clear()  # a module not found before may be now

    def load_path(self, path: Path) -> ModuleInfo | str:
        """The module of a file on disk, or an error message (one module per real path)."""
        try:
            key = str(path.resolve())
        except (OSError, RuntimeError) as e:  # a symlink loop (RuntimeError before Python 3.13), a too-long path
            return f"cannot read file: {getattr(e, 'strerror', None) or e}"
        if key in self.by_path:
            return self.by_path[key]
        text, err = read_source(path)
        if text is None:
            return err or "cannot read file"
        name, root, _ = module_name_for(path)
        self._add_root(root)
        existing = self.by_name.get(name)
        if existing is not None and existing.path != key:
            name = key  # two files claim one module name: keep both apart
        return self.add_source(text, key, name)

    def may_define(self, module: str, name: str, _seen: set[str] | None = None) -> bool:
        """Whether ``module`` could define ``name``: its text, or the text of a module it
        star-imports, mentions the name.

        A cheap necessary condition (bytes and a regular expression, no parse), checked before a
        star-import search parses a module: re-exporting ``__init__`` files of big packages
        star-import hundreds of modules, and a name that none defines used to parse them all."""
        if _seen is None:  # the answer of a search from the top, kept (the language server asks on every edit)
            got = self._defines.get((module, name))
            if got is None:
                got = self._defines[(module, name)] = self.may_define(module, name, set())
            return got
        seen = _seen
        if module in seen:
            return False
        seen.add(module)
        path = self.find_module(module)
        if path is None:
            return False
        text = self._raw.get(path)
        if text is None:
            raw, _ = read_bytes(path)
            if raw is None:
                return True  # let the real import report it
            text = self._raw[path] = raw
        if _mentions_word(text, name):
            return _may_export(text, name)
        return any(self.may_define(target, name, seen) for target in self._star_targets(module, path, text))

    def _star_targets(self, module: str, path: Path, text: bytes) -> tuple[str, ...]:
        """The modules ``module`` star-imports (found once per file: a big package's ``__init__`` is
        asked about every name looked up in it)."""
        found = self._stars_of.get(path)
        if found is None and _STAR_HINT.search(text) is None:
            found = self._stars_of[path] = ()  # most modules: no star import, found without a per-line scan
        if found is None:
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            found = self._stars_of[path] = tuple(
                absolute_module(package, m.group(2).decode(), len(m.group(1))) for m in _STAR_IMPORT.finditer(text)
            )
        return found

    def decorated_in(self, package: str, name: str) -> tuple[str, ...]:
        """The modules of the top-level ``package`` that define a decorated function or class called
        ``name`` (``@register_model`` over ``def resnet18`` in ``timm.models.resnet``).

        A registry that a decorator fills is read before the modules that fill it are run (a lazy
        star import never runs ``timm.models.resnet`` unless one of its names is looked up): a key
        missing from it names the function registered under it, and these are the modules to run
        for it.  A hint, never a value: what the registry holds is what running them puts in it.
        Built once per package from the files' bytes (a regular expression, no parse)."""
        top = package.partition(".")[0]
        index = self._decorated.get(top)
        if index is None:
            index = self._decorated[top] = self._index_decorated(top)
        return index.get(name, ())

    def _index_decorated(self, top: str) -> dict[str, tuple[str, ...]]:
        init = self.find_module(top)
        if init is None or init.name != "__init__.py":
            return {}
        found: dict[str, list[str]] = {}
        root = init.parent
        for path in sorted(root.rglob("*.py")):
            raw, _ = read_bytes(path)
            if raw is None or b"@" not in raw:
                continue
            parts = [top, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            module = ".".join(parts)
            for m in _DECORATED.finditer(raw):
                found.setdefault(m.group(1).decode(), []).append(module)
        return {k: tuple(dict.fromkeys(v)) for k, v in found.items()}

    def find_module(self, name: str) -> Path | None:
        """The file of a project module, without reading it (``None``: external)."""
        if name in self._found:
            return self._found[name]
        found: Path | None = None
        if name:
            rel = name.replace(".", "/")
            for root in self.roots:
                for cand in (root / f"{rel}.py", root / rel / "__init__.py"):
                    if cand.is_file():
                        found = cand
                        break
                if found is not None:
                    break
            if found is None and self.libraries is not None:
                found, why = self.libraries.find(name)
                if found is not None:
                    self._library_files.add(found)
                elif why is not None:
                    self.unfollowed[name] = why
        self._found[name] = found
        return found

    def import_module(self, name: str) -> ModuleInfo | None:
        """A project module by dotted name (parsed on first use), or ``None`` when it is external."""
        if name in self.by_name:
            return self.by_name[name]
        found: ModuleInfo | None = None
        cand = self.find_module(name)
        if cand is not None:
            key = str(cand.resolve())
            if key in self.by_path:
                found = self.by_path[key]
            else:
                text, _ = read_source(cand)
                if text is not None:
                    library = cand in self._library_files
                    if library and self.summaries is not None:
                        found = self._add_library(text, key, name, self.summaries)
                    else:
                        found = self.add_source(text, key, name)
                    found.library = library
        self.by_name[name] = found
        return found

    def resolve_relative(self, current: ModuleInfo, module: str | None, level: int) -> str:
        """The absolute module name of ``from .{module} import ...``."""
        return absolute_module(current.package, module, level)
