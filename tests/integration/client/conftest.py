"""A stand-in backend on 127.0.0.1 that verifies signatures and answers as docs/api.md says.

It lets the client's tests run without the real backend (built separately in
``rk.server``): every ``/admin/internal/*`` request is checked with ``rk.core.api.signing.verify``
against the raw request target (path plus query), bodies are decoded strictly with the
wire Structs, and answers are wire Structs. ``/put/<key>?size=&sha1=`` plays a presigned
storage URL (it stores only the granted bytes), and ``site`` maps paths to images served
unsigned, as a source website would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import msgspec
import pytest

from rk.core.api.errors import SignatureError
from rk.core.api.keys import CONTENT_KEY, sha1_hex
from rk.core.api.signing import NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify
from rk.core.api.wire import (
    BrandInfo,
    CrawlClaim,
    CrawlHeartbeat,
    CrawlResult,
    CrawlTask,
    EmbeddingSubmit,
    EmbeddingSubmitted,
    ErrorBody,
    IngestAccepted,
    PendingEmbeddings,
    PendingImage,
    ShowIngest,
    UploadUrl,
    UploadUrlRequest,
    decode_error_line,
)

SECRET = "stand-in-secret"
PREFIX = "/admin/internal/"


@dataclass(frozen=True)
class Seen:
    """One request as the stand-in received it (``target`` is path plus query)."""

    method: str
    target: str
    body: bytes


@dataclass
class StandInBackend:
    """State the tests script and inspect."""

    port: int = 0
    tasks: list[CrawlTask] = field(default_factory=list)
    held: dict[int, str] = field(default_factory=dict)
    results: dict[int, CrawlResult] = field(default_factory=dict)
    shows: list[ShowIngest] = field(default_factory=list)
    objects: dict[str, bytes] = field(default_factory=dict)
    brands: dict[int, BrandInfo] = field(default_factory=dict)
    forced: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    site: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    failing_puts: set[str] = field(default_factory=set)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}ingest"

    def put(self, key: str, grant: dict[str, list[str]], body: bytes) -> tuple[int, Any]:
        """A presigned PUT: only the granted bytes are stored (or a scripted failure)."""
        with self.lock:
            if key in self.failing_puts:
                return 503, ErrorBody(error="storage unavailable")
            if [str(len(body))] != grant["size"] or [sha1_hex(body)] != grant["sha1"]:
                return 400, ErrorBody(error="body does not match the signed size and sha1")
            self.objects[key] = body
        return 200, None

    def force(self, name: str, *answers: tuple[int, bytes]) -> None:
        """Answer the next requests to endpoint ``name`` with ``answers``, then normally."""
        self.forced[PREFIX + name] = list(answers)

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes) -> Any:
        """``(status, Struct | None)`` for a verified request."""
        forced = self.forced.get(path)
        if forced:
            return forced.pop(0)
        name = path.removeprefix(PREFIX)
        parts = name.split("/")
        if (method, name) == ("POST", "ingest"):
            self.shows.append(msgspec.json.decode(body, type=ShowIngest))
            return 202, IngestAccepted(job_id=len(self.shows))
        if (method, name) == ("POST", "upload-url"):
            req = msgspec.json.decode(body, type=UploadUrlRequest)
            match = CONTENT_KEY.match(req.key)
            if not (match and match.group(2) == req.sha1) and req.thumb_of is None:
                return 422, ErrorBody(error=f"{req.key} is not the content key of {req.sha1}")
            expires = int(time.time()) + 900
            if len(self.objects.get(req.key, b"")) == req.size:
                return 200, UploadUrl(url="", expires_at=expires, exists=True)
            query = urlencode({"size": req.size, "sha1": req.sha1})
            return 200, UploadUrl(
                url=f"http://127.0.0.1:{self.port}/put/{req.key}?{query}",
                headers={"Content-Type": req.content_type},
                expires_at=expires,
            )
        if (method, name) == ("POST", "crawl/tasks"):
            claim = msgspec.json.decode(body, type=CrawlClaim)
            for task in self.tasks:
                if task.source == claim.source:
                    self.tasks.remove(task)
                    self.held[task.id] = claim.worker
                    return 200, task
            return 204, None
        if method == "POST" and parts[:2] == ["crawl", "tasks"] and len(parts) == 4:
            task_id = int(parts[2])
            kind = {"heartbeat": CrawlHeartbeat, "result": CrawlResult}[parts[3]]
            msg = msgspec.json.decode(body, type=kind)
            if self.held.get(task_id) != msg.worker:
                return 409, ErrorBody(error=f"task {task_id} is not held by {msg.worker}")
            if isinstance(msg, CrawlResult):
                self.results[task_id] = msg
            return 200, None
        if (method, name) == ("GET", "embeddings/pending"):
            limit = int(query["limit"][0])
            items = [PendingImage(image_id=i, url=f"http://img/{i}.jpg") for i in range(1, 6)]
            return 200, PendingEmbeddings(items=items[:limit], remaining=max(0, 5 - limit))
        if (method, name) == ("POST", "embeddings"):
            submit = msgspec.json.decode(body, type=EmbeddingSubmit)
            return 200, EmbeddingSubmitted(saved=len(submit.items), failed=len(submit.failures))
        if method == "GET" and parts[0] == "brands" and len(parts) == 2:
            brand = self.brands.get(int(parts[1]))
            if brand is None:
                return 404, ErrorBody(error=f"brand {parts[1]} does not exist")
            return 200, brand
        return 404, ErrorBody(error=f"no route {method} {path}")


def _handler(state: StandInBackend) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self, status: int, payload: Any) -> None:
            if isinstance(payload, bytes):
                body = payload
            else:
                body = b"" if payload is None else msgspec.json.encode(payload)
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with state.lock:
                state.seen.append(Seen(self.command, self.path, body))
            url = urlsplit(self.path)
            if self.command == "PUT" and url.path.startswith("/put/"):
                self._reply(*state.put(url.path.removeprefix("/put/"), parse_qs(url.query), body))
                return
            if self.command == "GET" and url.path in state.site:
                self._reply(*state.site[url.path])
                return
            try:
                verify(
                    SECRET,
                    self.command,
                    self.path,
                    self.headers.get(TIMESTAMP_HEADER),
                    self.headers.get(SIGNATURE_HEADER),
                    body,
                    nonce=self.headers.get(NONCE_HEADER),
                )
            except SignatureError as exc:
                self._reply(401, ErrorBody(error=str(exc)))
                return
            try:
                with state.lock:
                    status, payload = state.answer(
                        self.command, url.path, parse_qs(url.query), body
                    )
            except (msgspec.DecodeError, msgspec.ValidationError) as err:
                status, payload = 422, ErrorBody(error=decode_error_line(err))
            self._reply(status, payload)

        do_GET = do_POST = do_PUT = _serve

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: tests read ``state.seen`` instead."""

    return Handler


@pytest.fixture
def backend() -> Iterator[StandInBackend]:
    """A signature-verifying stand-in backend on an ephemeral 127.0.0.1 port."""
    state = StandInBackend()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
