"""A failing job's rollback never deletes an object another running job is about to use.

Job X stores a shared image, then fails on a 503; job Y reused X's object meanwhile and
is still running. X's rollback must leave the object to Y (issue 9, §3), on both engines.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from pathlib import Path

import msgspec

from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import article_of, backend_settings, images_of, show
from tests.integration.server.images import Answer, ImageServer, jpeg


async def until(check: object, what: str, timeout_s: float = 30) -> None:
    """Poll ``check()`` (sync or async) until it is true."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = check()  # type: ignore[operator]
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_rollback_keeps_an_object_a_running_job_reused(
    start_backend: StartBackend, images: ImageServer, any_dsn: str, tmp_path: Path
) -> None:
    settings = backend_settings(
        tmp_path, database=any_dsn, workers=2, backoff_s=600, allow=images.allow
    )
    media = msgspec.structs.replace(settings.media, concurrency=1)
    backend = await start_backend(msgspec.structs.replace(settings, media=media))
    shared, slow = jpeg(70), jpeg(71)
    slow_key = f"runway/{hashlib.sha1(slow).hexdigest()}.jpg"
    key = f"runway/{hashlib.sha1(shared).hexdigest()}.jpg"
    outage, held = threading.Event(), threading.Event()
    try:
        x_show = show(
            "ss25/x",
            [
                images.add("/shared-x.jpg", shared),
                images.add("/down.jpg", Answer(status=503, body=b"down", gate=outage)),
            ],
        )
        y_show = show(
            "ss25/y",
            [
                images.add("/shared-y.jpg", shared),
                images.add("/slow.jpg", Answer(body=slow, gate=held)),
            ],
        )
        x = await backend.submit(x_show)
        await until(lambda: images.hits.get("/down.jpg"), "X to store the shared image")
        assert await backend.storage.head(key) is not None
        y = await backend.submit(y_show)
        await until(lambda: images.hits.get("/slow.jpg"), "Y to reuse the shared image")
        outage.set()
        failed = await backend.wait_attempt(x, 1)
        assert failed["last_error"].startswith("1 of 2 images failed: look 2 (HTTP 503)")
        held.set()
        done = await backend.wait_job(y)
    finally:
        outage.set()
        held.set()
    assert done["outcome"] == "created"
    article = await article_of(y_show)
    assert [row["key"] for row in await images_of(article["id"])] == [key, slow_key]
    assert await backend.storage.head(key) is not None
    served = await backend.client.get(await backend.storage.url_for(key, 60))
    assert served.status_code == 200
    assert served.content == shared
