"""Rendering a page, the one-shot messages a form leaves for the page it redirects to, and
a form field's bad input.

Forms post, then redirect (POST–redirect–GET) to a page that says what happened:
``redirect_with(url, "Approved 12 articles")`` puts the message in a short-lived cookie,
and the next ``page(…)`` shows it once and clears it. A form that cannot be used comes
back instead: a handler checks its fields inside ``with field("name", SomeError):`` blocks,
and one ``except FieldError`` renders the page again with the message beside that field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal
from urllib.parse import quote, unquote

from litestar import Request
from litestar.datastructures import Cookie
from litestar.response import Redirect, Template

FLASH_COOKIE = "rk_flash"
FLASH_MAX_AGE_S = 60
FlashKind = Literal["success", "error", "info"]


class Flash(dict[str, str]):
    """One message: ``{"kind": "success", "text": "Approved 12 articles"}``."""


def _read_flashes(request: Request[Any, Any, Any]) -> list[Flash]:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return []
    try:
        items = json.loads(unquote(raw))
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    return [
        Flash(kind=str(item.get("kind", "info")), text=str(item.get("text", ""))[:500])
        for item in items[:5]
        if isinstance(item, dict) and item.get("text")
    ]


def page(
    request: Request[Any, Any, Any],
    template: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
    headers: dict[str, str] | None = None,
) -> Template:
    """The template rendered with the pending flash messages (which it then clears)."""
    flashes = _read_flashes(request)
    cookies = [Cookie(key=FLASH_COOKIE, value="", max_age=0, path="/")] if flashes else []
    return Template(
        template_name=template,
        context={"flashes": flashes, **(context or {})},
        status_code=status_code,
        headers=headers,
        cookies=cookies,
    )


def redirect_with(
    url: str, text: str, kind: FlashKind = "success", *, secure: bool = False
) -> Redirect:
    """A 303 to ``url`` that leaves ``text`` for the next page to show."""
    value = quote(json.dumps([{"kind": kind, "text": text}], separators=(",", ":")))
    cookie = Cookie(
        key=FLASH_COOKIE,
        value=value,
        max_age=FLASH_MAX_AGE_S,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    return Redirect(path=url, status_code=303, cookies=[cookie])


class FieldError(Exception):
    """Bad input in one form field: the page comes back with ``message`` beside ``field``.

    ``problem`` reads as a clause ("brand name is empty"); the message is that sentence
    with its first letter raised and a full stop, names in it kept as they are.
    """

    def __init__(self, name: str, problem: str | Exception, status_code: int = 422) -> None:
        clause = str(problem)
        self.field = name
        self.message = f"{clause[:1].upper()}{clause[1:]}."
        self.status_code = status_code
        super().__init__(self.message)


@contextmanager
def field(name: str, *errors: type[Exception]) -> Iterator[None]:
    """Turn one of ``errors`` raised in the block into a FieldError of the field ``name``."""
    try:
        yield
    except errors as exc:
        raise FieldError(name, exc) from exc
