"""A decision on the ticked rows of an articles tab, and what its confirmation shows.

A batch is read from the tab's form: approve or reject, the ticked ids (each once, in the
order ticked, at most ``MAX_BATCH``), every one an article that exists. Its confirmation
names how many and the first few titles before anything changes.
"""

from __future__ import annotations

from litestar.datastructures import FormMultiDict
from msgspec import Struct

from rk.server.console.articles import titles_of
from rk.server.console.params import BadInput, ids
from rk.server.console.render import text
from rk.server.moderation import MAX_BATCH
from rk.server.platform.web.pages import FieldError

SHOWN = 5
"""How many titles the confirmation names."""
VERBS = {"publish": "Approve", "reject": "Reject"}


class Batch(Struct, frozen=True, kw_only=True):
    """What a batch would do: the action, every id, and the first titles."""

    action: str
    ids: list[int]
    titles: list[tuple[int, str]]

    @property
    def verb(self) -> str:
        """``Approve`` or ``Reject``, as the buttons say it."""
        return VERBS[self.action]

    @property
    def more(self) -> int:
        """How many articles the confirmation does not name."""
        return len(self.ids) - len(self.titles)


async def read_batch(form: FormMultiDict) -> Batch:
    """The batch a tab's form asks for; FieldError (400, 404 for an id that is no article)."""
    action = text(form, "action")
    if action not in VERBS:
        raise FieldError("form", "choose approve or reject for the selected rows", 400)
    try:
        chosen = list(dict.fromkeys(ids([str(value) for value in form.getall("id", [])])))
    except BadInput as exc:
        raise FieldError("form", exc, 400) from None
    if not chosen:
        raise FieldError("form", "select at least one article first", 400)
    if len(chosen) > MAX_BATCH:
        raise FieldError("form", f"at most {MAX_BATCH} articles at once", 400)
    named = await titles_of(chosen)
    missing = [number for number in chosen if number not in named]
    if missing:
        raise FieldError("form", f"nothing was changed: article {missing[0]} does not exist", 404)
    return Batch(action=action, ids=chosen, titles=[(n, named[n]) for n in chosen[:SHOWN]])
