"""A document as top-level statement chunks, each parsed on its own and kept while its text is unchanged.

A *code* chunk is one top-level statement (with its decorators, and ``else``/
``except``/``finally`` clauses): it starts at a line with no indentation that
is not inside brackets, a string or a backslash continuation.  The blank and
comment lines before a statement form a *trivia* chunk of their own, so
editing a comment re-parses nothing.  Boundaries come from a line scan that
tracks brackets and strings; the scan of a line is memoised by its text and
the state it starts in, so a 3,000-line document is split in a few
milliseconds.  A wrong boundary (an odd f-string) can only make a chunk fail
to parse, and then the caller falls back to parsing the whole document.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import count

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..infer.project import ParseFailure, parse_source
from ..infer.refusals import compile_refusal
from ..infer.source import null_byte
from ..infer.spans import nodes_positions
from ..infer.syntax import code_children
from ..infer.toplevel import LineScanner, split, split_lines

__all__ = ["Chunk", "ChunkPool", "split_lines", "split"]

_NAME = re.compile(r"(?<![.\w])[^\W\d]\w*")
#: A statement whose effect on module globals cannot be read off its names.
_WILD = re.compile(r"^[ \t]*global[ \t]+[^\W\d]|import[ \t]*\*", re.M)
_KEYWORDS = frozenset(keyword.kwlist)
_uids = count(1)


@dataclass(eq=False)
class Chunk:
    """One top-level statement's text and parse.  Identity matters: analysis results refer to it."""

    text: str
    tree: cst.Module | None
    failure: ParseFailure | None
    #: Identifiers the text mentions (attribute names after a dot excepted): whatever it may read.
    names: frozenset[str]
    #: Module-level names the statement may (re)bind; ``None``: any name.
    binds: frozenset[str] | None
    uid: int = field(default_factory=lambda: next(_uids))
    #: Shared by the versions of a chunk that differ only in function bodies (see :mod:`.outline`).
    lineage: int = 0
    #: First line (0-based) in the current version of the document.
    line: int = 0
    _positions: Mapping[cst.CSTNode, CodeRange] | None = None
    #: Positions computed for some nodes only (see :meth:`position`).
    _found: dict[cst.CSTNode, CodeRange] = field(default_factory=dict)
    #: Nodes whose positions will be asked for, by ``id``: computed with the next one asked.
    _wanted: dict[int, cst.CSTNode] = field(default_factory=dict)
    #: Code generations made for some nodes only.
    _passes: int = 0
    _targets: Mapping[int, str] | None = None
    _code: tuple[tuple[int, str], ...] | None = None
    _node_ids: frozenset[int] | None = None

    def __post_init__(self) -> None:
        self.lineage = self.lineage or self.uid

    def adopt(self, prev: Chunk) -> None:
        """Take ``prev``'s parse, into which this chunk's function bodies were put (its nodes keep their
        identity): what was computed from this chunk's own parse is dropped."""
        self.tree, self.lineage = prev.tree, prev.lineage
        self._positions = self._targets = self._node_ids = None

    @property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Positions of the chunk's nodes, relative to the chunk (computed once)."""
        if self._positions is None:
            if self.tree is None:
                self._positions = {}
            else:
                wrapper = MetadataWrapper(self.tree, unsafe_skip_copy=True)
                self._positions = dict(wrapper.resolve(PositionProvider))
        return self._positions

    def positions_of(self, nodes: Iterable[cst.CSTNode]) -> dict[cst.CSTNode, CodeRange]:
        """The positions of ``nodes`` relative to the chunk (as :attr:`positions` has them), from one
        code generation that tracks these nodes only (an outline needs its function bodies' spans, not
        libcst's metadata pass over every node of the chunk), unless every position is known already."""
        tree = self.tree
        if self._positions is not None or tree is None or len(tree.body) != 1 or tree.header:
            return {n: r for n in nodes if (r := self.positions.get(n)) is not None}
        return nodes_positions(tree, 0, 1, nodes)

    def want(self, nodes: Iterable[cst.CSTNode]) -> None:
        """Nodes of the chunk whose positions will be asked for (observed expressions, reported
        nodes): the next :meth:`position` computes theirs in the same pass."""
        if self._positions is None:
            self._wanted.update((id(n), n) for n in nodes)

    def position(self, node: cst.CSTNode) -> CodeRange | None:
        """The position of ``node`` relative to the chunk (as :attr:`positions` has it), None when it
        is not in the chunk.  Only the nodes asked for are placed: one code generation tracks this node
        and the wanted ones and stops at the end of the last (a hover needs the observed expressions,
        not the commas and whitespace that are most of the nodes).  After :data:`MAX_PARTIAL_PASSES`
        such passes, or for a node of the layout or a chunk of several statements, every position is
        computed at once."""
        if self._positions is not None:
            return self._positions.get(node)
        found = self._found.get(node)
        if found is not None:
            return found
        tree = self.tree
        if tree is None:
            return None
        whole = node is tree or len(tree.body) != 1 or bool(tree.header) or self._passes >= MAX_PARTIAL_PASSES
        if whole or id(node) not in self.node_ids:
            return self.positions.get(node)
        self._passes += 1
        todo = {k: n for k, n in self._wanted.items() if n not in self._found and k in self.node_ids}
        todo[id(node)] = node
        self._wanted.clear()
        self._found.update(nodes_positions(tree, 0, 1, todo.values()))
        return self._found.get(node)

    @property
    def code(self) -> tuple[tuple[int, str], ...]:
        """The chunk's tokens without comments and layout: equal for texts that differ only there."""
        if self._code is None:
            self._code = _code_tokens(self.text)
        return self._code

    @property
    def node_ids(self) -> frozenset[int]:
        """``id`` of every code node of the chunk (no layout): which chunk a node is in, found without
        the codegen pass that :attr:`positions` costs (computed once)."""
        if self._node_ids is None:
            out: set[int] = set()
            stack: list[cst.CSTNode] = [self.tree] if self.tree is not None else []
            while stack:
                node = stack.pop()
                out.add(id(node))
                stack.extend(code_children(node))
            self._node_ids = frozenset(out)
        return self._node_ids

    @property
    def targets(self) -> Mapping[int, str]:
        """``id`` of an assigned expression -> the variable it is assigned to (computed once)."""
        if self._targets is None:
            # A read-only walk: libcst's visitors rebuild every node they pass, which made most of
            # the cost of a document's first hover.
            out: dict[int, str] = {}
            stack: list[cst.CSTNode] = [self.tree] if self.tree is not None else []
            while stack:
                node = stack.pop()
                if type(node) is cst.Assign:
                    for t in node.targets:
                        if type(t.target) is cst.Name:
                            out[id(node.value)] = t.target.value
                stack.extend(code_children(node))
            self._targets = out
        return self._targets


_LAYOUT = frozenset({tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE})

#: Partial position passes over one chunk before all of its positions are computed at once.
MAX_PARTIAL_PASSES = 4


def _code_tokens(text: str) -> tuple[tuple[int, str], ...]:
    try:
        return tuple(
            (t.type, "" if t.type in _LAYOUT else t.string)
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL)
        )
    except (tokenize.TokenError, SyntaxError):
        return ((-1, text),)  # compared as text


def _make_chunk(text: str) -> Chunk:
    tree, failure = parse_source(text)
    names = frozenset(_NAME.findall(text)) - _KEYWORDS
    return Chunk(text, tree, failure, names, _binds(tree, names, text))


def _binds(tree: cst.Module | None, names: frozenset[str], text: str) -> frozenset[str] | None:
    if tree is None or _WILD.search(text):
        return None
    out: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom, cst.Assign, cst.AnnAssign, cst.AugAssign)) for s in stmt.body
        ):
            for s in stmt.body:
                out |= _small_binds(s)
        elif isinstance(stmt, cst.SimpleStatementLine) and all(_inert(s) for s in stmt.body):
            continue
        else:
            return names  # anything it mentions
    return frozenset(out)


def _inert(s: cst.BaseSmallStatement) -> bool:
    """A docstring or ``pass``: binds nothing."""
    return isinstance(s, cst.Pass) or (
        isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _small_binds(s: cst.BaseSmallStatement) -> set[str]:
    if isinstance(s, cst.Import):
        return {
            a.evaluated_alias if a.asname is not None and a.evaluated_alias else a.evaluated_name.split(".")[0]
            for a in s.names
        }
    if isinstance(s, cst.ImportFrom):
        assert not isinstance(s.names, cst.ImportStar)  # star imports are wild
        return {a.evaluated_alias if a.asname is not None and a.evaluated_alias else a.evaluated_name for a in s.names}
    targets: list[cst.BaseExpression] = []
    if isinstance(s, cst.Assign):
        targets = [t.target for t in s.targets]
    elif isinstance(s, (cst.AnnAssign, cst.AugAssign)):
        targets = [s.target]
    out: set[str] = set()
    for t in targets:
        _target_names(t, out)
    return out


def _target_names(t: cst.BaseExpression, out: set[str]) -> None:
    if isinstance(t, cst.Name):
        out.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            _target_names(e.value, out)
    elif isinstance(t, cst.StarredElement):
        _target_names(t.value, out)
    elif isinstance(t, (cst.Attribute, cst.Subscript)):
        _target_names(t.value, out)  # ``X.attr = ...`` changes what ``X`` is


#: A module-level ``global``/``nonlocal`` statement (Python refuses it after the name is bound or used).
_DECLARE = re.compile(r"^(?:global|nonlocal)\b", re.M)
#: The start of a plain string statement (a docstring may precede ``from __future__`` imports).
_DOCSTRING = re.compile(r"""[rRuU]?["']""")


def _refused_across(source: str, lines: list[str], pieces: list[tuple[int, int]]) -> bool:
    """Does Python refuse the document for something no chunk shows alone: a ``from __future__``
    import after the first chunk, a module-level ``global``?  The whole text is compiled only then."""
    later = False
    for i, (first, n) in enumerate(pieces):
        head = lines[first].lstrip()
        if head.startswith("from __future__"):
            continue  # in its place while only a docstring and such imports come before it
        if any("__future__" in lines[first + k] for k in range(n)) or not (i == 0 and _DOCSTRING.match(head)):
            later = any("__future__" in lines[f + k] for f, m in pieces[i:] for k in range(m))
            break
    if not later and not (("global" in source or "nonlocal" in source) and _DECLARE.search(source)):
        return False
    return compile_refusal(source) is not None


class ChunkPool:
    """Splits documents and reuses the chunks whose text was already parsed."""

    def __init__(self) -> None:
        self._scanner = LineScanner()
        self._by_text: dict[str, list[Chunk]] = {}
        #: The chunks of the last version that parsed (a syntax error can merge many chunks into one).
        self._settled: dict[str, list[Chunk]] = {}

    def chunks(self, source: str) -> tuple[list[str], list[Chunk]]:
        """The document's lines and its code chunks (in order, ``line`` set), reused where the text is unchanged.

        Identical texts get distinct chunks (their nodes must be distinct), in order of appearance."""
        lines = split_lines(source)
        top = self._scanner.starts(lines)
        pieces = [(first, n) for first, is_code, n in split(lines, top) if is_code]
        if null_byte(source) is not None or _refused_across(source, lines, pieces):
            # Python refuses the whole text, a NUL in a comment too (chunks of comments are never parsed),
            # or a statement for what comes before it (a late ``from __future__`` import, a ``global``
            # statement after the name's use), which no chunk shows alone.
            whole = _make_chunk(source)
            whole.line = 0
            self._by_text = {source: [whole]}
            return lines, [whole]
        used: dict[str, list[Chunk]] = {}
        out = []
        for first, n in pieces:
            text = "".join(lines[first : first + n])
            seen = used.setdefault(text, [])
            old = self._by_text.get(text, [])
            old = old + [c for c in self._settled.get(text, ()) if c not in old]
            chunk = old[len(seen)] if len(seen) < len(old) else _make_chunk(text)
            seen.append(chunk)
            chunk.line = first
            out.append(chunk)
        self._by_text = used
        return lines, out

    def settle(self) -> None:
        """Keep the chunks of the last document for reuse until the next call (it parsed)."""
        self._settled = self._by_text
