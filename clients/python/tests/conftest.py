"""Fixtures: the built binary on a fresh embedded data directory (one per test session), a fresh
API key per test (each key has its own rate limit of 120 requests a minute), and a scripted HTTP
server for what the real one will not do on demand (503s, cut connections, slow answers).

The binary is MEMORYD_BINARY, else the repository's dist/memoryd (`bun run build`).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent
sys.path.insert(0, str(PACKAGE_ROOT / "src"))  # the package as it is in the tree, not an installed copy

BINARY = Path(os.environ.get("MEMORYD_BINARY") or REPO_ROOT / "dist" / "memoryd")
LISTENING = re.compile(r"memoryd listening on (http://\S+)")
API_KEY = re.compile(r"API key \(shown once[^)]*\)[^:]*:\s*(ak_(?:test|live)_[0-9A-Za-z]+)")
ADMIN_TOKEN = re.compile(r"Admin token[^:]*:\s*(adm_[0-9A-Za-z]+)")


@dataclass
class Server:
    url: str
    api_key: str
    admin_token: str
    output: list[str]

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"authorization": f"Bearer {self.admin_token}", "content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["data"]

    def new_key(self, **options: Any) -> str:
        """A fresh key of the default workspace (every scope unless told), with its own rate limit."""
        body = {"name": f"py-{uuid.uuid4().hex[:8]}", "scopes": ["memory.read", "memory.write", "answers.write"], **options}
        return str(self.admin("POST", "/v1/admin/workspaces/default/keys", body)["secret"])

    def new_agent(self) -> str:
        slug = f"agent-{uuid.uuid4().hex[:8]}"
        self.admin("POST", "/v1/admin/workspaces/default/agents", {"slug": slug, "display_name": slug})
        return slug


def child_env() -> dict[str, str]:
    """Ours minus every setting memoryd reads, so a developer's configuration cannot leak in."""
    return {k: v for k, v in os.environ.items() if not re.match(r"^(DATABASE_URL|PORT|HOST|MEMORYD_.*|ANTHROPIC_.*|OPENAI_.*)$", k)}


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    if not BINARY.exists():
        pytest.fail(f"{BINARY} does not exist: run `bun run build` in the repository (or set MEMORYD_BINARY)")
    with tempfile.TemporaryDirectory(prefix="memoryd-python-") as tmp:
        proc = subprocess.Popen(
            [str(BINARY), "serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(Path(tmp) / "data")],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=tmp,
            env=child_env(),
            text=True,
        )
        output: list[str] = []
        ready = threading.Event()

        def drain() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                output.append(line)
                if LISTENING.search(line):
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        try:
            if not ready.wait(60) or proc.poll() is not None:
                pytest.fail("memoryd serve did not start:\n" + "".join(output))
            text = "".join(output)
            url, key, admin = LISTENING.search(text), API_KEY.search(text), ADMIN_TOKEN.search(text)
            assert url and key and admin, text
            yield Server(url.group(1), key.group(1), admin.group(1), output)
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def key(server: Server) -> str:
    return server.new_key()


# -- a scripted server ---------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer: a status and JSON body, or ``close`` (drop the connection without a
    response), after ``delay`` seconds. ``raw`` is sent as the body as it is; with ``hold`` the
    body has no length and the connection stays open that many seconds after it (a stalled stream)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    close: bool = False
    raw: bytes | None = None
    hold: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Scripted:
    """A local HTTP server that answers requests with the replies given, in order (the last one
    repeats), and records every request it got."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def handle_any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with scripted.lock:
                    scripted.seen.append(Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = scripted.replies[min(len(scripted.seen), len(scripted.replies)) - 1]
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.close:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                headers = {"content-type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                if reply.hold:
                    self.send_header("connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("content-length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                    self.wfile.flush()
                    time.sleep(reply.hold)
                except OSError:
                    pass

            do_GET = do_POST = do_DELETE = handle_any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[Callable[..., Scripted]]:
    servers: list[Scripted] = []

    def make(*replies: Reply) -> Scripted:
        server = Scripted(list(replies))
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()
