"""Why a moderator rejects an article: one of a short list, then their own words.

The reason is stored on the rejection's audit row (``moderation_audit.reason``) and shown on
the article and in the audit log, so whoever looks later knows what was wrong. "Other"
needs the moderator's words; the others may add some.
"""

from __future__ import annotations

from rk.server.platform.web.pages import FieldError

REASONS = {
    "duplicate": "Duplicate of another article",
    "not-fashion": "Not a runway or street-style gallery",
    "wrong-brand": "Wrong brand or season",
    "images": "Broken, missing or wrong images",
    "other": "Other",
}
"""The choices of the reject form, by the value it posts."""
MAX_NOTE = 300


def rejection_reason(choice: str, note: str) -> str:
    """The reason a rejection is recorded with: the chosen one, then the moderator's words.

    FieldError (422, beside ``reason`` or ``note``) when none is chosen, when "Other" comes
    without words, or when the words are too long.
    """
    if choice not in REASONS:
        raise FieldError("reason", "choose why this article is rejected")
    words = " ".join(note.split())
    if len(words) > MAX_NOTE:
        raise FieldError("note", f"say it in at most {MAX_NOTE} characters")
    if choice == "other":
        if not words:
            raise FieldError("note", "say in a few words why it is rejected")
        return words
    return f"{REASONS[choice]}: {words}" if words else REASONS[choice]
