"""``simdup serve`` as a person starts it: the real command in a child process on a free port
of 127.0.0.1, its URL read from stdout, stopped by SIGTERM or Ctrl-C (SIGINT)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

pytest.importorskip("starlette", reason='the serve extra: pip install "simdup[serve]"')
pytest.importorskip("uvicorn", reason='the serve extra: pip install "simdup[serve]"')
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def start(*args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "simdup", "serve", "--port", "0", *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)  # fmt: skip
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    assert url.startswith("http://"), (url, proc.poll())
    return proc, url


@pytest.fixture
def server() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc, url = start()
    yield proc, url
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (Linux's /proc/net/tcp)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


def test_it_listens_on_127_0_0_1_only_and_stops_on_sigterm(
    server: tuple[subprocess.Popen[str], str],
) -> None:
    proc, url = server
    assert url.startswith("http://127.0.0.1:")
    port = int(url.rsplit(":", 1)[1].strip("/"))
    with urllib.request.urlopen(url + "api/health", timeout=30) as answer:
        assert json.loads(answer.read())["settings"]["token"] is False
    if os.path.exists("/proc/net/tcp"):
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, and nothing else
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err and "Traceback" not in err


def test_ctrl_c_stops_it(server: tuple[subprocess.Popen[str], str]) -> None:
    proc, url = server
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert b"<!DOCTYPE html>" in answer.read()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err


def test_another_address_is_warned_about() -> None:
    proc, url = start("--host", "0.0.0.0")
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert url.startswith("http://0.0.0.0:")
    assert "other machines can reach this server; give it a --token" in err


def test_the_token_is_in_the_printed_url() -> None:
    proc, url = start("--token", "abc")
    try:
        assert url.endswith("/?token=abc")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0] + "api/health", timeout=30)
        assert refused.value.code == 401
        with urllib.request.urlopen(url, timeout=30) as answer:
            assert answer.status == 200
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_without_the_extra_it_says_what_to_install() -> None:
    """The serve extra missing: exit 2 with the pip install line (starlette made unimportable)."""
    code = ("import sys; sys.modules['starlette'] = None; sys.argv = ['simdup', 'serve']; "
            "from simdup.cli import main; main()")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert 'pip install "simdup[serve]"' in done.stderr


def test_an_ipv6_loopback_host_is_served_without_a_warning() -> None:
    """``--host ::1``: the URL names it in brackets, the server answers there, and a loopback
    address is not warned about."""
    import socket

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    proc, url = start("--host", "::1")
    try:
        assert url.startswith("http://[::1]:")
        with urllib.request.urlopen(url + "api/health", timeout=30) as answer:
            assert json.load(answer)["version"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert "other machines" not in err
