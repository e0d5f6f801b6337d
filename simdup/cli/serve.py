"""``simdup serve``: the duplicate check as a local web page and an HTTP API (``simdup.serving``).

The URL is printed on stdout (one line, for a script to read); warnings go to stderr. Ctrl-C
and SIGTERM stop the server cleanly (uvicorn finishes the answers under way, then the signal
is raised again and the group's edge exits 130 or 143).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import Any

import click

from ..policy.exitcodes import exit_code_help
from .edge import usage_errors, warning


@click.command(
    "serve",
    epilog=f"""\b
Examples:
  simdup serve
  simdup serve --against refs/ --port 8000
  simdup serve --db corpus.simdup --host 0.0.0.0 --token SECRET

\b
API:
  POST /api/check   multipart: document=@FILE (one or more; a ZIP of a
                    class too), source=@FILE (zero or more); query lang,
                    exact_only, semantic, format=json|html; answers what
                    check -f json (or -f html) writes
  GET  /api/health  the version and the settings

{exit_code_help("stopped by the server's end")}""",
)
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (not 127.0.0.1: give a --token).")  # fmt: skip
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="The port (0: a free one, printed).")  # fmt: skip
@click.option("--against", multiple=True, type=click.Path(exists=True, path_type=str),
              metavar="PATH", help="Sources every check is made against (repeatable).")  # fmt: skip
@click.option("--db", type=click.Path(dir_okay=False, exists=True, path_type=str), metavar="DB",
              help="Also check against the documents of a named index.")  # fmt: skip
@click.option("--self", "own", multiple=True, type=click.Path(exists=True, path_type=str),
              metavar="PATH", help="The author's own earlier work (reported apart).")  # fmt: skip
@click.option("--semantic", is_flag=True,
              help='Check by meaning too, unless a request says semantic=0 '
              '(pip install "simdup[semantic]").')  # fmt: skip
@click.option("--token", envvar="SIMDUP_SERVE_TOKEN", metavar="TOKEN",
              help="Answer only requests with Authorization: Bearer TOKEN or ?token=TOKEN "
              "(or set SIMDUP_SERVE_TOKEN).")  # fmt: skip
@click.option("--max-upload", type=click.IntRange(1, 4096), default=50, show_default=True,
              metavar="MB", help="The largest request; a larger one is answered 413.")  # fmt: skip
@click.option("--max-files", type=click.IntRange(1, 100_000), default=200, show_default=True,
              help="The most files in a request (a ZIP's members counted); more: 413.")  # fmt: skip
def serve_command(**kw: Any) -> None:
    """A local web page where documents (a class, a ZIP of it) are dropped and their
    duplicate-check reports read, and an HTTP API that answers what check -f json does.

    Listens on 127.0.0.1 only unless --host says otherwise. Needs the serve extra:
    pip install "simdup[serve]".
    """
    from ..serving import require_serve

    with usage_errors():
        require_serve()
    import uvicorn

    from ..serving.app import ServeSettings, make_app
    from ..serving.run import ServerSources
    from ..serving.uploads import Limits

    host, token = kw["host"], kw["token"]
    settings = ServeSettings(
        sources=ServerSources(tuple(kw["against"]), tuple(kw["own"]), kw["db"]),
        semantic=kw["semantic"],
        token=token or None,
        limits=Limits(max_bytes=kw["max_upload"] << 20, max_files=kw["max_files"]),
    )
    try:
        sock = _listening_socket(host, kw["port"])
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise click.UsageError(f"cannot listen on {host}:{kw['port']}: {reason}") from None
    if not _loopback(host):
        warning(f"listening on {host}: other machines can reach this server"
                + ("" if token else "; give it a --token"))  # fmt: skip
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    click.echo(url)
    sys.stdout.flush()
    app = make_app(settings)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False,
                            timeout_graceful_shutdown=10)  # fmt: skip
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        app.state.executor.shutdown(wait=False, cancel_futures=True)
        sock.close()


def _listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one) and listening, so the URL printed
    is one that answers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
