"""Permanently refused images never retry the whole job; transient failures do (issue 9 §2)."""

from __future__ import annotations

from pathlib import Path

from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, backend_settings, show
from tests.integration.server.images import Answer, ImageServer, jpeg


async def test_a_show_of_only_refused_images_fails_at_once(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=any_dsn, allow=images.allow))
    urls = [
        images.url("/gone.jpg"),
        images.add("/page.jpg", Answer(body=b"<html>no</html>", content_type="text/html")),
        "http://10.20.30.40/a.jpg",
    ]
    payload = show("ss25/refused", urls)
    job = await backend.ingest_and_wait(payload)
    assert job["status"] == "failed"
    assert job["attempts"] == 1
    assert job["last_error"] == (
        "no image could be stored: look 1 (HTTP 404), look 2 (not an image (text/html)), "
        "look 3 (refused: 10.20.30.40 resolves to 10.20.30.40, a private address)"
    )
    assert images.hits == {"/gone.jpg": 1, "/page.jpg": 1}
    assert await article_of(payload) is None


async def test_a_transient_failure_among_refused_ones_retries(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    backend = await start_backend(backend_settings(tmp_path, database=any_dsn, allow=images.allow))
    urls = [images.url("/gone.jpg"), images.add("/flaky.jpg", Answer(body=jpeg(5), fail_first=1))]
    job = await backend.ingest_and_wait(show("ss25/flaky", urls))
    assert job["status"] == "done"
    assert job["attempts"] == 2
    assert job["note"] == "created, 1 image, 1 missing: look 1 (HTTP 404)"
    assert images.hits == {"/gone.jpg": 2, "/flaky.jpg": 2}
