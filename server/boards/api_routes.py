"""``/api/boards``: share a board (POST), read it by its view token, replace it with its key.

The edit key travels in the ``X-Edit-Key`` header, never in the URL, so it stays out of
access logs. Answers are never cached (a board changes when its editor says) and carry
``X-Robots-Tag: noindex``: a board is private to whoever holds its link.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post, put
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import HeaderParameter, JSONBody, Parameter

from rk.core.api.storage import Storage
from rk.server.boards import service
from rk.server.boards.wire import BoardCreated, BoardOut, BoardWrite
from rk.server.platform.http.proxies import client_address
from rk.server.platform.http.requests import StrictRequest

PRIVATE = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex, nofollow"}
MAX_BODY_BYTES = 4 * 1024 * 1024
"""Room for ``boards.max_items`` items with long notes; a larger body is a 413."""
ViewToken = Annotated[str, Parameter(description="the board's view token", max_length=64)]
EditKey = Annotated[
    str | None,
    HeaderParameter(name="X-Edit-Key", description="the board's edit key", max_length=64),
]


def storage_of(request: Request[Any, Any, Any]) -> Storage:
    """The public storage, as the site's pages link images."""
    storage: Storage = request.app.state.public_storage
    return storage


class BoardApi(Controller):
    """Shared boards as JSON: create, read, replace."""

    path = "/api/boards"
    tags = ("boards",)
    request_class = StrictRequest

    @post("/", status_code=201, request_max_body_size=MAX_BODY_BYTES, name="api:board-create")
    async def create(
        self,
        request: Request[Any, Any, Any],
        state: State,
        secret: NamedDependency[str],
        data: JSONBody[BoardWrite],
    ) -> Response[BoardCreated]:
        """Share a board: its title and items (published images, with notes) in order; the
        answer holds the view link and the edit link (shown this once)."""
        created = await service.create(
            state.settings.boards, data, client_address(request), secret, storage_of(request)
        )
        return Response(created, status_code=201, headers=PRIVATE)

    @get("/{view_token:str}", name="api:board")
    async def read(
        self, request: Request[Any, Any, Any], view_token: ViewToken
    ) -> Response[BoardOut]:
        """A shared board; an item whose image is no longer published has no image URL."""
        row = await service.board(view_token)
        return Response(await service.board_out(storage_of(request), row), headers=PRIVATE)

    @put("/{view_token:str}", request_max_body_size=MAX_BODY_BYTES, name="api:board-replace")
    async def replace(
        self,
        request: Request[Any, Any, Any],
        state: State,
        view_token: ViewToken,
        data: JSONBody[BoardWrite],
        key: EditKey = None,
    ) -> Response[BoardOut]:
        """Replace a board's title and items (rename, notes, reorder, add, remove), with its
        edit key in ``X-Edit-Key``."""
        row = await service.board(view_token)
        service.check_key(row, key)
        await service.replace(state.settings.boards, row, data)
        fresh = await service.board(view_token)
        return Response(await service.board_out(storage_of(request), fresh), headers=PRIVATE)
