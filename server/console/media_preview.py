"""``/admin/media/<key>``: the console's preview of any stored image, pending ones included.

Public ``/media`` serves only keys of published articles, so a moderator reviewing a
pending or rejected article sees its images here instead. The router's guard admits a
signed-in session only (a signed-out browser is sent to sign in); answers are ``private,
no-store``, so no shared cache ever holds an image the public may not see.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency

from rk.core.api.keys import is_media_key
from rk.core.api.storage import Storage
from rk.server.media import PRIVATE, KeyParam, error_answer, serve_object


class ConsoleMedia(Controller):
    """Stored images as the signed-in console previews them."""

    path = "/media"
    include_in_schema = False

    @get("/{key:path}", name="admin:media")
    async def preview(
        self, request: Request[Any, Any, Any], key: KeyParam, storage: NamedDependency[Storage]
    ) -> Response[Any]:
        """The stored bytes of ``key`` whatever its article's status, never cached."""
        key = key.lstrip("/")
        if not is_media_key(key):
            return error_answer(404, f"no media at {key[:80]!r}")
        return await serve_object(request, storage, key, PRIVATE)
