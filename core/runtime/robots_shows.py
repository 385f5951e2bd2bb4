"""What robots.txt refuses of a show: refused images are left out before anyone downloads them.

A show goes to the backend with image URLs; whoever stores an image without a key (the
backend's ingest, when the spider does not upload) downloads it from that URL. So an image
robots.txt refuses is not sent at all, and a rendition it refuses is no longer offered.
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from rk.core.api.wire import ImageRef, ShowIngest


class RobotsCheck(Protocol):
    """Whether robots.txt lets rk fetch a URL (``rk.core.runtime.robots.RobotsGate``)."""

    async def allows(self, url: str) -> bool:
        """True when ``url`` may be fetched."""
        ...


async def without_refused(show: ShowIngest, robots: RobotsCheck) -> tuple[ShowIngest | None, int]:
    """The show without the images robots.txt refuses, and how many it left out (None: all)."""
    refs = show.images()
    urls = dict.fromkeys(
        [ref.url for ref in refs] + [ref.thumb_url for ref in refs if ref.thumb_url]
    )
    allowed = {url: await robots.allows(url) for url in urls}

    def kept(ref: ImageRef) -> ImageRef | None:
        if not allowed[ref.url]:
            return None
        if ref.thumb_url and not allowed[ref.thumb_url]:
            return msgspec.structs.replace(ref, thumb_url=None)
        return ref

    if all(allowed.values()):
        return show, 0
    looks = [
        msgspec.structs.replace(look, image=image)
        for look in show.looks
        if (image := kept(look.image)) is not None
    ]
    details = [image for ref in show.details if (image := kept(ref)) is not None]
    refused = len(refs) - len(looks) - len(details)
    if not looks and not details:
        return None, refused
    return msgspec.structs.replace(show, looks=looks, details=details), refused
