"""The signed-ingest benchmarks' shared parts: the 40-look show they post, and a bare 202.

Not a benchmark: ``bench.ingest_api`` (capacity over sockets) and ``bench.ingest_cpu``
(CPU per request, in process) both post this show to the same path with this secret.
"""

from __future__ import annotations

import msgspec
from litestar import Litestar, post

from rk.core.api.wire import BrandRef, ImageRef, Look, ShowIngest

SECRET = "bench-secret"
PATH = "/admin/internal/ingest"


def payload(brand_uid: str = "", looks: int = 40) -> bytes:
    """A realistic runway show: its brand and 40 looks, each with a URL."""
    show = ShowIngest(
        source="vogue",
        kind="runway",
        brand=BrandRef(uid=brand_uid, name="Maison Aurele") if brand_uid else None,
        show_key="spring-2025-ready-to-wear/maison-aurele",
        title="Maison Aurèle Spring 2025 Ready-to-Wear",
        season="Spring 2025",
        city="Paris",
        url="https://www.vogue.com/fashion-shows/spring-2025-ready-to-wear/maison-aurele",
        looks=[
            Look(
                number=n,
                image=ImageRef(
                    url=f"https://assets.vogue.com/photos/66f0a1b2c3d4e5f6a7b8c9{n:02d}/master/"
                    f"w_2560%2Cc_limit/{n:05d}-maison-aurele-spring-2025.jpg"
                ),
            )
            for n in range(1, looks + 1)
        ],
    )
    return msgspec.json.encode(show)


def bare_app(decode: bool) -> Litestar:
    """A Litestar app whose one route answers 202: reading nothing, or decoding the body."""

    @post(PATH, status_code=202)
    async def accept() -> dict[str, int]:
        return {"job_id": 1}

    @post(PATH, status_code=202)
    async def accept_decoded(data: ShowIngest) -> dict[str, int]:
        return {"job_id": len(data.looks)}

    return Litestar([accept_decoded if decode else accept])
