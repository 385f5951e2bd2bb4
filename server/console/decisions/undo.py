"""Undo of the last decision a moderator took in this session, audited like any decision.

The last decision is the account's newest audit row since its session began, when it
published or rejected an article that still has that status and is not itself an undo. A
delete is never undone here: its media cleanup may already have run.

An undo goes through moderation's ``restore``: the status change and its audit row, which
names the row it reversed (``undoes``), commit together and fire the events any decision
fires.
"""

from __future__ import annotations

import pluggy
from msgspec import Struct

from rk.server.console.accounts.users import User
from rk.server.console.articles import shown_title
from rk.server.console.repository.decisions import last_audit_row
from rk.server.moderation import Actor, StaleArticle, UnknownArticle, restore, visible_status
from rk.server.platform.http.errors import Conflict

UNDONE = ("published", "rejected")
"""The statuses whose decision can be undone."""
UNDOABLE = ("pending", *UNDONE)
"""The statuses an undo can return an article to."""


class NothingToUndo(Conflict):
    """The decision is no longer the last one, or its article changed since (nothing done)."""


class LastDecision(Struct, frozen=True, kw_only=True):
    """A decision the moderator may still undo: which article, from what to what, when."""

    audit_id: int
    article_id: int
    title: str
    old_status: str
    new_status: str
    at: int


async def last_decision(user: User) -> LastDecision | None:
    """The session's last decision while it can be undone, else None."""
    row = await last_audit_row(user.id)
    if row is None:
        return None
    current = visible_status(str(row["status"]), int(row["deleted_at"]))
    new, old = str(row["new_status"]), str(row["old_status"])
    if (
        int(row["at"]) < user.session_started
        or int(row["undoes"])
        or row["via"] != "web"
        or new not in UNDONE
        or old not in UNDOABLE
        or current != new
    ):
        return None
    return LastDecision(
        audit_id=int(row["id"]),
        article_id=int(row["article_id"]),
        title=shown_title(str(row["brand"]), str(row["season"]), str(row["title"])),
        old_status=old,
        new_status=new,
        at=int(row["at"]),
    )


async def undo(
    pm: pluggy.PluginManager, user: User, audit_id: int, backend_url: str
) -> LastDecision:
    """Reverse the session's last decision (audit row ``audit_id``); NothingToUndo when that
    is not the last decision any more or its article changed since."""
    last = await last_decision(user)
    if last is None or last.audit_id != audit_id:
        raise NothingToUndo(
            "nothing was undone: that is no longer your last decision, or its article changed"
        )
    actor = Actor(user_id=user.id, name=user.username, via="web")
    try:
        await restore(
            pm,
            last.article_id,
            last.old_status,
            actor,
            last.new_status,
            undoes=last.audit_id,
            backend_url=backend_url,
        )
    except (StaleArticle, UnknownArticle):
        raise NothingToUndo(
            f"nothing was undone: article {last.article_id} changed meanwhile"
        ) from None
    return last
