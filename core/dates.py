"""Dates as sites write them → ISO ``YYYY-MM-DD``, shared by every source plugin."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y/%m/%d", "%m/%d/%Y")


def normalise_date(value: object) -> str:
    """An ISO ``YYYY-MM-DD`` when ``value`` is a parseable date, else the text as given (or "")."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if abs(value) > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return ""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if not text:
        return ""
    try:
        return datetime.fromisoformat(text).date().isoformat()
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return text[:40]
