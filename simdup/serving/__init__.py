"""``simdup serve``: a local web page and an HTTP API in front of the duplicate check.

Nothing here imports the web framework when ``simdup`` is imported: ``require_serve`` checks
that the ``simdup[serve]`` extra is installed, then ``app`` (which imports Starlette) is loaded.
The parts:

* ``uploads``: a request's files streamed into a private temporary folder under generated
  names, within the request's limits (bytes, files, a ZIP's members);
* ``run``: the check of the uploaded files, their paths replaced by the names the client gave,
  and the results kept for a while for the page's links;
* ``page``: the single self-contained page (Chinese or English);
* ``app``: the Starlette application (routes, the token, the language, the 413 answers).
"""

from __future__ import annotations

from ..errors import MissingExtraError

EXTRA = "serve"


def require_serve(feature: str = "simdup serve") -> None:
    """Raise ``MissingExtraError`` (with the ``pip install "simdup[serve]"`` line) unless
    Starlette, uvicorn and python-multipart can be imported."""
    try:
        import python_multipart  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(feature, EXTRA) from exc
