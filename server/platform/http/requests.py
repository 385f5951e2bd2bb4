"""A Request whose JSON body is decoded strictly, straight into the handler's ``data`` type.

Litestar's default decodes to builtins and then converts with ``strict=False``, which
would accept ``"7"`` for an int. The wire contract is strict (``forbid_unknown_fields``,
exact types), so decode once with msgspec into the declared type; a wrong body raises
``msgspec.ValidationError`` / ``DecodeError``, which ``errors.py`` maps to 422 / 400.
The declared type still documents the body in OpenAPI.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.datastructures import State


class StrictRequest(Request[Any, Any, State]):
    """Decode the body with msgspec into the handler's ``data`` annotation, strictly."""

    async def json(self) -> Any:
        """The body decoded into the type of the handler's ``data`` parameter."""
        field = self.route_handler.parsed_data_field
        target: Any = field.annotation if field is not None else Any
        return msgspec.json.decode(await self.body(), type=target)
