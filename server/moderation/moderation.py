"""Moderation: publish, reject or (soft-)delete articles, each change audited and announced.

The web console and ``rk articles`` both come here. For each article the status change
and its audit row commit in one transaction; a delete also queues, in that transaction,
the media cleanup job that removes objects no other live article uses. After the commit
``rk_article_status_changed`` is fired (a delete reports ``new="deleted"``), and when a
published article was rejected or deleted, ``rk_media_withdrawn`` with the keys that no
published article uses any more (``/media`` answers 404 for them from then on), so an
operator's CDN can be purged.

A form may say which status it saw (``expected``): when the article changed meanwhile
the change is refused (``StaleArticle``, 409) and nothing is written. A decision's reason
and the audit row it undoes go into its own audit row, in the same transaction; ``restore``
returns a decided article to the status it had before (the console's undo), audited and
announced the same way.
"""

from __future__ import annotations

import time
from typing import Literal, cast, get_args

import msgspec
import pluggy
from msgspec import Struct

from rk.core.api.plugins import notify
from rk.core.media_urls import media_url
from rk.server.media import KIND as MEDIA_CLEANUP
from rk.server.media import MediaCleanup, published_key
from rk.server.moderation.repository import (
    article_image_keys,
    article_state,
    record_moderation,
    set_article_status,
    soft_delete_article,
)
from rk.server.platform.db.recent import Recent
from rk.server.platform.db.write_transactions import write_transaction
from rk.server.platform.http.errors import ApiError, Conflict, NotFound

Action = Literal["publish", "reject", "delete"]
ACTIONS: tuple[str, ...] = get_args(Action)
TARGET = {"publish": "published", "reject": "rejected", "delete": "deleted"}
MAX_BATCH = 500
DECIDED = ("published", "rejected")
"""The statuses a decision leaves that ``restore`` can undo."""
TAB_COUNTS: Recent[int, dict[str, int]] = Recent(ttl_s=5.0)
"""The console's recent tab counts per brand id (``console.articles.tab_counts``), kept five
seconds per process. A decision here forgets them."""


class Actor(Struct, frozen=True, kw_only=True):
    """Who acts: an account (id 0 for the operator's shell) and through what."""

    user_id: int = 0
    name: str
    via: Literal["web", "cli"]


class UnknownArticle(NotFound):
    """No article has this id."""


class StaleArticle(Conflict):
    """The article changed since the form was shown, or is deleted; nothing was written."""


class Change(Struct, frozen=True, kw_only=True):
    """One article's change: from ``old`` to ``new`` (equal when nothing was to do)."""

    article_id: int
    old: str
    new: str

    @property
    def changed(self) -> bool:
        """False when the article already had the asked-for status."""
        return self.old != self.new


def visible_status(status: str, deleted_at: int) -> str:
    """``deleted`` for a soft-deleted article, else its status."""
    return "deleted" if deleted_at else status


def check_action(action: str) -> Action:
    """``action`` if it is one of ACTIONS, else ApiError."""
    if action not in ACTIONS:
        raise ApiError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
    return cast(Action, action)


class Record(Struct, frozen=True, kw_only=True):
    """What a decision's audit row says beside the change: its reason, the row it undoes."""

    reason: str = ""
    undoes: int = 0


PLAIN = Record()
"""A decision with no reason that undoes nothing."""


async def _apply(
    article_id: int, new: str, actor: Actor, expected: str | None, record: Record
) -> Change:
    now = int(time.time())
    async with write_transaction():
        state = await article_state(article_id)
        if state is None:
            raise UnknownArticle(f"article {article_id} does not exist")
        old = visible_status(*state)
        if expected is not None and expected != old:
            raise StaleArticle(
                f"article {article_id} is {old} now (it was {expected} when the page was shown)"
            )
        if old == "deleted":
            if new == "deleted":
                return Change(article_id=article_id, old=old, new=old)
            raise StaleArticle(f"article {article_id} is deleted; a deleted article stays deleted")
        if old == new:
            return Change(article_id=article_id, old=old, new=new)
        if new == "deleted":
            payload = msgspec.json.encode(MediaCleanup(article_id=article_id)).decode()
            await soft_delete_article(article_id, now, MEDIA_CLEANUP, payload)
        else:
            await set_article_status(article_id, new, now)
        await record_moderation(
            article_id,
            actor.user_id,
            actor.name,
            (old, new),
            actor.via,
            now,
            (record.reason, record.undoes),
        )
    return Change(article_id=article_id, old=old, new=new)


async def withdrawn_keys(article_id: int) -> list[str]:
    """The article's media keys (originals, then thumbnails) no published article uses."""
    images = await article_image_keys(article_id)
    keys = [key for key, _ in images] + [thumb for _, thumb in images]
    return [key for key in dict.fromkeys(keys) if key and not await published_key(key)]


async def _announce(pm: pluggy.PluginManager, change: Change, backend_url: str) -> None:
    """Fire ``rk_article_status_changed`` for a change, and ``rk_media_withdrawn`` when it
    took a published article's media down."""
    TAB_COUNTS.clear()
    if not change.changed:
        return
    notify(
        pm,
        "rk_article_status_changed",
        article_id=change.article_id,
        old=change.old,
        new=change.new,
    )
    if change.old != "published" or change.new == "published":
        return
    keys = await withdrawn_keys(change.article_id)
    if keys:
        urls = [media_url(backend_url, key) for key in keys]
        notify(pm, "rk_media_withdrawn", article_id=change.article_id, keys=keys, urls=urls)


async def moderate(
    pm: pluggy.PluginManager,
    article_ids: list[int],
    action: str,
    actor: Actor,
    expected: str | None = None,
    *,
    backend_url: str = "",
    record: Record = PLAIN,
) -> list[Change]:
    """Apply ``action`` to each article in order; the changes (unchanged ones included).

    Each article commits on its own; an unknown id or a stale article stops the batch
    there (earlier articles stay changed, and the error says which one stopped it).
    ``backend_url`` (``server.public_url``, else the listen address) makes the URLs that
    ``rk_media_withdrawn`` reports; ``record`` goes on each change's audit row.
    """
    checked = check_action(action)
    if not article_ids:
        raise ApiError("no article selected")
    if len(article_ids) > MAX_BATCH:
        raise ApiError(f"at most {MAX_BATCH} articles at once, not {len(article_ids)}")
    changes: list[Change] = []
    for article_id in dict.fromkeys(article_ids):
        change = await _apply(article_id, TARGET[checked], actor, expected, record)
        changes.append(change)
        await _announce(pm, change, backend_url)
    return changes


async def restore(
    pm: pluggy.PluginManager,
    article_id: int,
    status: str,
    actor: Actor,
    expected: str,
    *,
    undoes: int,
    backend_url: str = "",
) -> Change:
    """Return a published or rejected article to ``status`` (pending, published or rejected),
    undoing the decision of audit row ``undoes``: audited and announced like a decision;
    StaleArticle when it is not ``expected`` any more."""
    if expected not in DECIDED or status not in ("pending", *DECIDED):
        raise ApiError(f"only a published or rejected article goes back, not {expected}")
    change = await _apply(article_id, status, actor, expected, Record(undoes=undoes))
    await _announce(pm, change, backend_url)
    return change


def summary(action: str, changes: list[Change]) -> str:
    """``Published 3 articles (1 already published)`` for the page or the shell."""
    done = sum(1 for change in changes if change.changed)
    verb = {"publish": "Published", "reject": "Rejected", "delete": "Deleted"}[action]
    noun = "article" if done == 1 else "articles"
    text = f"{verb} {done} {noun}"
    same = len(changes) - done
    return text + (f" ({same} already {TARGET[action]})" if same else "")
