"""The web application of ``simdup serve`` (Starlette): the page, ``POST /api/check``, the
reports of a result, ``GET /api/health``.

A check is CPU work in this process: requests wait their turn for the one check thread (the
readers' session, which reads Word, PDF and other formats in a contained child process, is
one per process), while the event loop goes on receiving other uploads and answering.
"""

from __future__ import annotations

import asyncio
import hmac
import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..__about__ import __version__
from ..checking import CheckResult
from ..errors import MissingExtraError
from ..params import ALGORITHM_VERSION
from ..report.check import render_check_json
from ..report.check_html import render_check_html
from ..report.check_words import LANGUAGES
from .page import render_page
from .run import ResultStore, ServerSources, one_document, run_check
from .uploads import FormReader, Limits, TooLarge, UploadFolder


@dataclass(frozen=True)
class ServeSettings:
    """What the server was started with."""

    sources: ServerSources = field(default_factory=ServerSources)
    semantic: bool = False
    token: str | None = None
    limits: Limits = field(default_factory=Limits)
    keep_results: int = 32
    keep_seconds: float = 3600.0


def make_app(settings: ServeSettings) -> Starlette:
    """The application answering with ``settings``."""
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="simdup-check")
    store = ResultStore(settings.keep_results, settings.keep_seconds)

    def refused(request: Request) -> Response | None:
        if settings.token is None:
            return None
        given = request.query_params.get("token", "")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            given = header[7:].strip()
        if hmac.compare_digest(given.encode(), settings.token.encode()):
            return None
        return JSONResponse({"error": "a token is needed (Authorization: Bearer TOKEN)"}, 401)

    async def page(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        return HTMLResponse(render_page(page_language(request), settings.limits))

    async def health(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        sources = settings.sources
        return JSONResponse({
            "version": __version__,
            "algorithm": ALGORITHM_VERSION,
            "settings": {
                "against": list(sources.against), "self": list(sources.own), "db": sources.db,
                "semantic": settings.semantic, "token": settings.token is not None,
                "max_bytes": settings.limits.max_bytes, "max_files": settings.limits.max_files,
                "max_unpacked": settings.limits.max_unpacked,
            },
        })  # fmt: skip

    async def api_check(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        query = request.query_params
        fmt = query.get("format", "json")
        lang = query.get("lang") or page_language(request)
        if fmt not in ("json", "html") or lang not in LANGUAGES:
            return JSONResponse({"error": "format is json or html, lang zh or en"}, 400)
        limits = settings.limits
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limits.max_bytes:
            # Answered before a byte of the body is read.
            return too_large(f"the request is over {limits.max_bytes >> 20} MB")
        folder = UploadFolder(limits)
        try:
            reader: FormReader | None = None
            try:
                reader = FormReader(folder, request.headers.get("content-type", ""))
                async for chunk in request.stream():
                    reader.feed(chunk)
                reader.finish()
            except TooLarge as exc:
                return too_large(str(exc))
            except ValueError as exc:  # not multipart, or a malformed body
                return JSONResponse({"error": str(exc)}, 400)
            finally:
                if reader is not None:
                    reader.close()  # the part being written, before the folder goes
            loop = asyncio.get_running_loop()
            try:
                await loop.run_in_executor(executor, folder.unpack_zips)
            except TooLarge as exc:
                return too_large(str(exc))
            if not folder.of("document"):
                return JSONResponse({"error": "no document: send files as document=@FILE"}, 400)
            semantic = flag(query.get("semantic"), settings.semantic)
            exact_only = flag(query.get("exact_only"), False)
            try:
                result = await loop.run_in_executor(
                    executor,
                    lambda: run_check(folder, settings.sources, exact_only=exact_only,
                                      semantic=semantic),  # fmt: skip
                )
            except MissingExtraError as exc:
                return JSONResponse({"error": str(exc)}, 400)
        finally:
            folder.close()
        key = store.add(result)
        headers = {"X-Simdup-Result": key}
        if fmt == "html":
            return HTMLResponse(html_of(result, lang), headers=headers)
        return Response(json_of(result), media_type="application/json", headers=headers)

    async def report(request: Request) -> Response:
        if (no := refused(request)) is not None:
            return no
        result = store.get(request.path_params["key"])
        if result is None:
            return JSONResponse({"error": "no such result (results are kept for a while)"}, 404)
        doc = request.query_params.get("doc")
        if doc is not None:
            if not doc.isdigit() or int(doc) >= len(result.documents):
                return JSONResponse({"error": "no such document"}, 404)
            result = one_document(result, int(doc))
        fmt = request.path_params["fmt"]
        if fmt not in ("html", "json"):
            return JSONResponse({"error": "a report is .html or .json"}, 404)
        lang = request.query_params.get("lang") or page_language(request)
        if lang not in LANGUAGES:
            lang = "en"
        headers = {}
        if request.query_params.get("download"):
            headers["Content-Disposition"] = f'attachment; filename="simdup-report.{fmt}"'
        if fmt == "html":
            return HTMLResponse(html_of(result, lang), headers=headers)
        return Response(json_of(result), media_type="application/json", headers=headers)

    app = Starlette(routes=[
        Route("/", page),
        Route("/api/health", health),
        Route("/api/check", api_check, methods=["POST"]),
        Route("/results/{key}/report.{fmt:str}", report),
    ])  # fmt: skip
    app.state.executor = executor
    return app


def too_large(message: str) -> Response:
    # The connection is closed after the answer: the rest of the body is not read.
    return JSONResponse({"error": message}, 413, headers={"Connection": "close"})


def flag(value: str | None, default: bool) -> bool:
    if value is None:
        return default
    return value.lower() not in ("", "0", "false", "no", "off")


def json_of(result: CheckResult) -> str:
    stream = io.StringIO()
    render_check_json(result, stream)
    return stream.getvalue()


def html_of(result: CheckResult, lang: str) -> str:
    stream = io.StringIO()
    render_check_html(result, stream, lang)
    return stream.getvalue()


def page_language(request: Request) -> str:
    """``?lang=``, else the browser's first language of zh and en (Accept-Language, by q)."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    ranked: list[tuple[float, int, str]] = []
    for n, item in enumerate(request.headers.get("accept-language", "").split(",")):
        tag, _, q = item.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            continue
        base = tag.split("-")[0].lower()
        if base in LANGUAGES:
            ranked.append((-weight, n, base))
    return min(ranked)[2] if ranked else "en"

