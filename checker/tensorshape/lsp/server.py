"""The language server: pygls wiring, debouncing, conversion to LSP types."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument, Workspace

from .. import __version__
from ..infer.api import CheckSettings
from ..infer.deadline import FileTimeout, deadline
from ..infer.memory import tune_gc
from ..infer.project import Project
from ..infer.toplevel import split_lines
from ..model import codes
from ..model.diagnostics import Severity
from .analysis import Analysis, lsp_settings, utf16_column
from .framing import SafeReader
from .incremental import IncrementalAnalyser
from .settings import CLIENT_KEYS, ServerSettings, server_settings

__all__ = ["build_server", "settled_message", "DEBOUNCE_SECONDS", "MAX_DOCUMENT"]

#: Wait this long after the last change before analysing (typing bursts cost one analysis).
DEBOUNCE_SECONDS = 0.05
#: Documents longer than this (characters) are not analysed as you type: a TS008 warning says so.
MAX_DOCUMENT = 4_000_000

_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}


class TensorshapeServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tensorshape", __version__)
        #: ``[tool.tensorshape]`` with the editor's settings on top.
        self.config = ServerSettings()
        #: The editor's settings as last sent (``initializationOptions``, ``didChangeConfiguration``).
        self.client_options: Any = None
        self.analyses: dict[str, Analysis] = {}
        #: Per open document: its chunks and per-chunk results, reused across edits.
        self.incremental: dict[str, IncrementalAnalyser] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.roots: list[Path] = []
        #: Imported modules, parsed and interpreted once; dropped when a file is saved.
        self.project = Project()
        self.lock = threading.Lock()
        tune_gc()

    @property
    def settings(self) -> CheckSettings:
        return self.config.check

    def project_roots(self) -> list[Path]:
        return [*self.roots, *self.config.import_roots]

    def configure(self) -> None:
        """Read the configuration again and apply the editor's settings on top; say what was wrong."""
        self.config = server_settings(self.roots[0] if self.roots else None, self.client_options)
        self.project = Project(self.project_roots())
        for problem in self.config.problems:
            self.window_show_message(
                lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"tensorshape: {problem}")
            )

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdio, reading frames through :class:`SafeReader` (pygls's own reader
        wedges on a malformed frame and drops requests whose params do not fit, unanswered)."""
        stop = self._stop_event = threading.Event()
        writer = _ClosingWriter(stdout or sys.stdout.buffer)
        self.protocol.set_writer(writer)
        loop_box: list[asyncio.AbstractEventLoop] = []

        def reply(data: bytes) -> None:  # from the reading thread: write on the loop's thread
            loop_box[0].call_soon_threadsafe(writer.write, data)

        reader = SafeReader(stdin or sys.stdin.buffer, self.thread_pool, self.protocol.structure_message, reply)

        async def serve() -> None:
            loop_box.append(asyncio.get_running_loop())
            await run_async(stop, reader, self.protocol, error_handler=self.report_server_error)

        try:
            asyncio.run(serve())
        except (BrokenPipeError, KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]


class _ClosingWriter(StdoutWriter):
    """pygls's stdout writer, quiet once closed: after ``exit`` closes the output, an analysis still
    running (a long document) may finish and publish; that message goes nowhere, without an error."""

    def __init__(self, stdout: Any) -> None:
        super().__init__(stdout)
        self.closed = False

    def close(self) -> None:
        self.closed = True
        super().close()  # type: ignore[no-untyped-call]

    def write(self, data: bytes) -> None:
        if not self.closed:
            super().write(data)


class _PythonLinesDocument(TextDocument):
    """A document whose lines are LSP's (``\\n``, ``\\r\\n``, ``\\r``), as Python's: pygls splits them with
    ``str.splitlines``, which also breaks at a form feed, U+2028 and others, so that an incremental edit
    after such a character in a comment landed on another line than the editor's."""

    @property
    def lines(self) -> Sequence[str]:
        return split_lines(self.source)


class _PythonLinesWorkspace(Workspace):
    def _create_text_document(
        self, doc_uri: str, source: str | None = None, version: int | None = None, language_id: str | None = None
    ) -> TextDocument:
        return _PythonLinesDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _has_settings(options: Any) -> bool:
    """Whether a configuration message carries tensorshape settings (clients also send empty ones)."""
    return isinstance(options, dict) and ("tensorshape" in options or any(k in options for k in CLIENT_KEYS))


def build_server() -> TensorshapeServer:
    server = TensorshapeServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: TensorshapeServer, params: lsp.InitializeParams) -> None:
        folders = params.workspace_folders or []
        roots = [Path(_path(f.uri)) for f in folders]
        if not roots and params.root_uri:
            roots = [Path(_path(params.root_uri))]
        ls.roots = roots
        ls.client_options = params.initialization_options
        # pygls has just made the workspace (no documents yet): its documents get LSP's lines.
        ls.workspace.__class__ = _PythonLinesWorkspace

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: TensorshapeServer, params: lsp.InitializedParams) -> None:
        ls.configure()  # after `initialize`: a problem is shown with window/showMessage

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: TensorshapeServer, params: lsp.DidChangeConfigurationParams) -> None:
        if not _has_settings(params.settings):
            return
        ls.client_options = params.settings
        ls.configure()
        for uri in list(ls.analyses):
            _schedule(ls, uri, 0.0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: TensorshapeServer, params: lsp.DidOpenTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri, 0.0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: TensorshapeServer, params: lsp.DidChangeTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: TensorshapeServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.project = Project(ls.project_roots())  # what other files import from the saved one may have changed
        _schedule(ls, params.text_document.uri, 0.0)
        # Files that import the saved one see its new annotations.
        saved = _path(params.text_document.uri)
        for uri, a in list(ls.analyses.items()):
            if uri != params.text_document.uri and saved in a.dependencies:
                _schedule(ls, uri, 0.0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TensorshapeServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.analyses.pop(params.text_document.uri, None)
        ls.incremental.pop(params.text_document.uri, None)
        task = ls.pending.pop(params.text_document.uri, None)
        if task is not None:
            task.cancel()
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: TensorshapeServer, params: lsp.HoverParams) -> lsp.Hover | None:
        a = ls.analyses.get(params.text_document.uri)
        if a is None:
            return None
        lines = _lines(ls, params.text_document.uri)
        line, col = params.position.line + 1, params.position.character
        best = None
        for s in a.shapes:
            sp = s.span
            if (
                (sp.line, _u(lines, sp.line, sp.column))
                <= (line, col)
                <= (sp.end_line, _u(lines, sp.end_line, sp.end_column))
            ):
                if best is None or (sp.end_line - sp.line, sp.end_column - sp.column) < (
                    best.span.end_line - best.span.line,
                    best.span.end_column - best.span.column,
                ):
                    best = s
        if best is None:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=best.hover_text()),
            range=_range(lines, best.span),
        )

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    def inlay_hints(ls: TensorshapeServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        a = ls.analyses.get(params.text_document.uri)
        if a is None:
            return []
        lines = _lines(ls, params.text_document.uri)
        hints: dict[int | tuple[int, int], lsp.InlayHint] = {}
        first, last = params.range.start.line + 1, params.range.end.line + 1
        for s in a.shapes:
            if s.target is None or s.unknown or not first <= s.span.line <= last:
                continue
            text = lines[s.span.line - 1] if s.span.line - 1 < len(lines) else ""
            if s.learnt:  # after the parameter's name, as its annotation would be
                pos = lsp.Position(line=s.span.line - 1, character=utf16_column(text, s.span.end_column))
                hints[(s.span.line, s.span.column)] = lsp.InlayHint(
                    position=pos, label=f": {s.shape}", kind=lsp.InlayHintKind.Type, padding_left=False
                )
                continue
            col = text.find(s.target)
            if col < 0:
                continue
            pos = lsp.Position(line=s.span.line - 1, character=utf16_column(text, col + len(s.target)))
            hints[s.span.line] = lsp.InlayHint(
                position=pos, label=f": {s.shape}", kind=lsp.InlayHintKind.Type, padding_left=False
            )
        return list(hints.values())

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION)
    def code_actions(ls: TensorshapeServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        doc = ls.workspace.get_text_document(uri)
        lines = split_lines(doc.source)
        out: list[lsp.CodeAction] = []
        for d in params.context.diagnostics:
            code = str(d.code) if d.code is not None else None
            if not code:
                continue
            row = d.range.start.line
            text = lines[row].rstrip("\r\n") if row < len(lines) else ""
            end = lsp.Position(line=row, character=utf16_column(text, len(text)))
            out.append(
                lsp.CodeAction(
                    title=f"Suppress {code} on this line",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    edit=lsp.WorkspaceEdit(
                        changes={
                            uri: [
                                lsp.TextEdit(
                                    range=lsp.Range(start=end, end=end), new_text=f"  # tensorshape: ignore[{code}]"
                                )
                            ]
                        }
                    ),
                )
            )
            if code in ("TS305",) or "keepdim" in d.message:
                fix = _keepdim_fix(text)
                if fix is not None:
                    out.append(
                        lsp.CodeAction(
                            title="Add keepdim=True",
                            kind=lsp.CodeActionKind.QuickFix,
                            diagnostics=[d],
                            edit=lsp.WorkspaceEdit(
                                changes={
                                    uri: [
                                        lsp.TextEdit(
                                            range=lsp.Range(start=lsp.Position(line=row, character=0), end=end),
                                            new_text=fix,
                                        )
                                    ]
                                }
                            ),
                        )
                    )
        a = ls.analyses.get(uri)
        if a is not None:
            out.extend(_annotate_actions(a, uri, doc.source, lines, params.range))
        if a is not None:
            from ..instrument.edit import instrument_source

            want = params.range.start.line + 1
            if any(o.span.line == want for o in a.obligations):
                new = instrument_source(doc.source, _path(uri)).source
                added = [
                    (i, ln)
                    for i, ln in enumerate(split_lines(new))
                    if ln.rstrip().endswith("# tensorshape: instrument") and "check_shapes" in ln
                ]
                for _, ln in added:
                    if f':{want}")' in ln:
                        pos = lsp.Position(line=want - 1, character=0)
                        out.append(
                            lsp.CodeAction(
                                title="Insert a runtime shape check here",
                                kind=lsp.CodeActionKind.RefactorRewrite,
                                edit=lsp.WorkspaceEdit(
                                    changes={uri: [lsp.TextEdit(range=lsp.Range(start=pos, end=pos), new_text=ln)]}
                                ),
                            )
                        )
        return out

    return server


def _annotate_actions(
    a: Analysis, uri: str, source: str, lines: Sequence[str], where: lsp.Range
) -> list[lsp.CodeAction]:
    """ "Annotate `x` with its inferred shape" on an unannotated parameter that learnt one."""
    from ..annotate.static import annotate_statically

    first, last = where.start.line + 1, where.end.line + 1
    out = []
    for s in a.shapes:
        if not s.learnt or s.target is None or not first <= s.span.line <= last:
            continue
        name, line = s.target, s.span.line
        r = annotate_statically(source, _path(uri), only=_one_slot(name, line))
        if not r.written:
            continue  # a default, two shapes on two paths, or it would bring an error: nothing to offer
        end = lsp.Position(line=len(lines), character=0)
        out.append(
            lsp.CodeAction(
                title=f"Annotate `{name}` with its inferred shape {s.shape}",
                kind=lsp.CodeActionKind.RefactorRewrite,
                edit=lsp.WorkspaceEdit(
                    changes={
                        uri: [
                            lsp.TextEdit(
                                range=lsp.Range(start=lsp.Position(line=0, character=0), end=end), new_text=r.source
                            )
                        ]
                    }
                ),
            )
        )
    return out


def _one_slot(name: str, line: int) -> Callable[[str, str, int], bool]:
    """Keeps the one parameter ``name`` on ``line``."""
    return lambda _qual, slot, at: slot == name and at == line


def _keepdim_fix(text: str) -> str | None:
    """``x.sum(dim=1)`` -> ``x.sum(dim=1, keepdim=True)`` on a line with one such reduction."""
    import re

    m = re.search(r"\.(sum|mean|amax|amin|max|min|prod|std|var|logsumexp|norm)\(([^()]*)\)", text)
    if m is None or "keepdim" in m.group(2):
        return None
    args = m.group(2).strip()
    new = f".{m.group(1)}({args + ', ' if args else ''}keepdim=True)"
    return text[: m.start()] + new + text[m.end() :]


def _lines(ls: TensorshapeServer, uri: str) -> list[str]:
    """The document's lines as Python and LSP split them (``\\n``, ``\\r\\n``, ``\\r``): not pygls's
    ``lines`` (``str.splitlines``, which also breaks at a form feed, U+2028 and others)."""
    return split_lines(ls.workspace.get_text_document(uri).source)


def _u(lines: Sequence[str], line: int, col: int) -> int:
    return utf16_column(lines[line - 1], col) if 0 < line <= len(lines) else col


def _range(lines: Sequence[str], span: Any) -> lsp.Range:
    return lsp.Range(
        start=lsp.Position(line=max(span.line - 1, 0), character=_u(lines, span.line, span.column)),
        end=lsp.Position(line=max(span.end_line - 1, 0), character=_u(lines, span.end_line, span.end_column)),
    )


def _analyse_locked(
    ls: TensorshapeServer,
    uri: str,
    source: str,
    version: int | None,
    early: Callable[[Analysis], None] | None = None,
) -> Analysis:
    """The document's analysis; raises :class:`FileTimeout` past ``file_timeout`` (then the document's
    incremental state, half updated, is dropped: the next edit starts afresh).  ``early`` receives the
    first part of a newly opened document's analysis, or an edit's edited definitions
    (:meth:`IncrementalAnalyser.update`); an edit's analysis of other definitions is left to a newer
    version when one waits."""
    with ls.lock:  # one analysis at a time: they share the project's module cache
        inc = ls.incremental.get(uri)
        settings = lsp_settings(ls.settings)
        if inc is None or inc.project is not ls.project or inc.settings != settings:
            # New document, saved files (a new project) or new settings: start afresh.
            inc = ls.incremental[uri] = IncrementalAnalyser(ls.project, settings, _path(uri))
        def superseded() -> bool:  # a newer version waits (read from the analysing thread)
            doc = ls.workspace.text_documents.get(unquote(uri))
            return doc is not None and doc.version != version

        try:
            with deadline(settings.file_timeout):
                return inc.update(source, version, early, superseded)
        except FileTimeout:
            ls.incremental.pop(uri, None)
            raise
        finally:
            if not _is_open(ls, uri):  # closed while it was analysed: keep nothing of it
                ls.incremental.pop(uri, None)


def _is_open(ls: TensorshapeServer, uri: str) -> bool:
    return unquote(uri) in ls.workspace.text_documents


def _schedule(ls: TensorshapeServer, uri: str, delay: float) -> None:
    old = ls.pending.pop(uri, None)
    if old is not None:
        old.cancel()
    ls.pending[uri] = asyncio.get_event_loop().create_task(_run(ls, uri, delay))


def _publish_skipped(ls: TensorshapeServer, uri: str, version: int | None, why: str) -> None:
    """Say that the document was not analysed (a TS008 warning on its first line), and why."""
    ls.analyses.pop(uri, None)
    ls.incremental.pop(uri, None)
    skipped = lsp.Diagnostic(
        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0)),
        message=f"not analysed: {why}",
        severity=lsp.DiagnosticSeverity.Warning,
        code=codes.FILE_SKIPPED.id,
        source="tensorshape",
    )
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[skipped]))


async def _run(ls: TensorshapeServer, uri: str, delay: float) -> None:
    try:
        if delay:
            await asyncio.sleep(delay)
        doc = ls.workspace.get_text_document(uri)
        source, version = doc.source, doc.version
        started = time.perf_counter()
        if ls.config.excludes(_path(uri)):
            ls.analyses.pop(uri, None)
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=[]))
            _settled(ls, uri, version, "excluded by the settings, no diagnostics")
            return
        if len(source) > MAX_DOCUMENT:
            why = f"the document has {len(source):,} characters "
            why += f"(the editor limit is {MAX_DOCUMENT:,}; `tensorshape check` takes it)"
            _publish_skipped(ls, uri, version, why)
            _settled(ls, uri, version, "not analysed (too long)")
            return
        loop = asyncio.get_event_loop()

        def early(part: Analysis) -> None:  # on the analysing thread: published from the loop's
            loop.call_soon_threadsafe(_publish, ls, uri, version, source, part)

        try:
            a = await loop.run_in_executor(None, _analyse_locked, ls, uri, source, version, early)
        except FileTimeout:
            why = f"the analysis took more than {ls.settings.file_timeout:g} s (file_timeout)"
            _publish_skipped(ls, uri, version, why)
            _settled(ls, uri, version, "not analysed (file_timeout)")
            return
        except Exception as e:  # noqa: BLE001 - the server never dies on a document
            ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=f"tensorshape: {e!r}"))
            _settled(ls, uri, version, "analysis failed")
            return
        if _publish(ls, uri, version, source, a):
            ls.analyses[uri] = a
            seconds = time.perf_counter() - started
            _settled(ls, uri, version, f"{len(a.diagnostics)} diagnostics in {seconds:.2f} s")
    except asyncio.CancelledError:
        pass


def settled_message(uri: str, version: int | None) -> str:
    """How the log line that ends a version's analysis starts (clients and tests wait for it)."""
    return f"tensorshape: {_path(uri)} version {version}: "


def _settled(ls: TensorshapeServer, uri: str, version: int | None, what: str) -> None:
    """Log (``window/logMessage``, type Log) that the diagnostics of ``version`` are final.

    A newly opened document's first publication may hold only part of its diagnostics (see
    :meth:`IncrementalAnalyser.update`); this line, sent after the last publication of the
    version, is what tells a client (or a test) that no more are coming."""
    message = settled_message(uri, version) + what
    ls.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Log, message=message))


def _publish(ls: TensorshapeServer, uri: str, version: int | None, source: str, a: Analysis) -> bool:
    """Publish an analysis's diagnostics, unless a newer version of the document is on its way."""
    if ls.workspace.get_text_document(uri).version != version:
        return False
    lines = split_lines(source)
    diags = [
        lsp.Diagnostic(
            range=_range(lines, d.span),
            message=d.message + (f"\nhint: {d.hint}" if d.hint else ""),
            severity=_SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Information),
            code=d.code.id,
            source="tensorshape",
        )
        for d in a.diagnostics
    ]
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diags))
    return True
