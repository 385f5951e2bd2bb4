"""The board pages: a shared board (``/boards/<view>``), its edit page with forms that work
without JavaScript, and ``/boards``, the board kept in this browser (``boards.js``).

Every board page is ``noindex`` and never cached. The edit page carries the edit key in its
URL and forms; a wrong key gets a 403 page, an unknown board a 404 page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.params import Parameter
from litestar.response import Redirect, Stream, Template

from rk.server.boards import service
from rk.server.boards.api_routes import PRIVATE, ViewToken, storage_of
from rk.server.boards.forms import edited
from rk.server.platform.web.pages import page, redirect_with
from rk.server.site import ExportPaper, ExportRendition, export_sheet, export_zip

FORM_BYTES = 64 * 1024
Key = Annotated[str | None, Parameter(description="the board's edit key", max_length=64)]
Holdings = Callable[[], Awaitable[tuple[list[int], str]]]
"""Reads a board's image ids in order and its title, when an export asks."""
Found = NamedDependency[Holdings]
"""Both export routes' ``found``, as ``_found`` provides it from the path's view token."""


def _found(view_token: ViewToken) -> Holdings:
    """What a board's export holds (the ``found`` of both export routes): its image ids in
    order (the export keeps the published ones only) and its title."""

    async def found() -> tuple[list[int], str]:
        board = await service.current(await service.board(view_token))
        return [item.image_id for item in board.items], board.title or "A board"

    return found


class BoardPages(Controller):
    """Server-rendered board pages."""

    path = "/boards"
    tags = ("boards",)
    include_in_schema = False
    dependencies = {"found": Provide(_found, sync_to_thread=False)}

    @get("/", name="public:board-local")
    async def local(self, request: Request[Any, Any, Any]) -> Template:
        """The board kept in this browser, drawn by ``boards.js``, with its Share button."""
        return page(request, "boards/local.html", headers=PRIVATE)

    @get("/{view_token:str}", name="public:board")
    async def view(self, request: Request[Any, Any, Any], view_token: ViewToken) -> Template:
        """A shared board: title, items in order with notes, unavailable ones marked."""
        board = await service.board_out(storage_of(request), await service.board(view_token))
        return page(request, "boards/board.html", {"board": board}, headers=PRIVATE)

    @get("/{view_token:str}/edit", name="public:board-edit")
    async def edit(
        self, request: Request[Any, Any, Any], view_token: ViewToken, key: Key = None
    ) -> Template:
        """The edit page: rename, notes, move up and down, remove, add; forms without JS."""
        row = await service.board(view_token)
        service.check_key(row, key)
        board = await service.board_out(storage_of(request), row)
        context = {"board": board, "key": key, "edit_url": service.edit_path(view_token, key or "")}
        return page(request, "boards/edit.html", context, headers=PRIVATE)

    @post("/{view_token:str}/edit", request_max_body_size=FORM_BYTES, name="public:board-edit-post")
    async def edit_post(
        self, request: Request[Any, Any, Any], state: State, view_token: ViewToken
    ) -> Redirect | Response[Any]:
        """Apply one form action with the key posted beside it, then back to the edit page."""
        form = await request.form()
        row = await service.board(view_token)
        key = str(form.get("key", ""))[:64]
        service.check_key(row, key)
        board, said = edited(await service.current(row), form)
        await service.replace(state.settings.boards, row, board)
        return redirect_with(service.edit_path(view_token, key), said)

    @get("/{view_token:str}/export.zip", name="public:board-export")
    async def export_zip(
        self, request: Request[Any, Any, Any], found: Found, rendition: ExportRendition = "640"
    ) -> Stream:
        """The board's available images, in its order, as a ZIP with their credits."""
        return await export_zip(request, storage_of(request), found, rendition)

    @get("/{view_token:str}/contact-sheet", name="public:board-sheet")
    async def contact_sheet(
        self, request: Request[Any, Any, Any], found: Found, paper: ExportPaper = "a4"
    ) -> Response[bytes]:
        """The board's available images, in its order, as a printable contact sheet."""
        return await export_sheet(request, storage_of(request), found, paper)
