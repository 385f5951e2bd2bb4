"""rk.server.boards: boards without accounts, shared behind capability links (issue 33).

A visitor keeps a board in the browser (``static/boards.js``) until sharing it; sharing
stores it here, reached by an unguessable view token and a separate edit token (kept only
as its hash). ``api_routes`` is the JSON API under ``/api/boards``, ``pages`` the board,
edit and local-board pages; ``service`` holds the rules (published images only, limits,
tokens), ``repository`` its SQL, ``templates/boards`` the pages.
"""

from __future__ import annotations

from litestar.types import ControllerRouterHandler


def board_routes() -> list[ControllerRouterHandler]:
    """Every handler of boards, for ``routes.all_routes``."""
    from rk.server.boards.api_routes import BoardApi
    from rk.server.boards.pages import BoardPages

    return [BoardApi, BoardPages]


__all__ = ["board_routes"]
