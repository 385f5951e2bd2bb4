"""Text taken from Vogue's HTML fragments: tags stripped, entities unescaped, anchors read.

The real ``sectionHeader`` holds anchors (``<a href="/fashion-shows/designer/x">Kestrel
&amp; Vine</a>``), captions may hold markup, and JSON-LD strings may hold entities: every
text rk stores goes through ``clean`` first.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from rk.core.api.wire import printable

_TAGS = re.compile(r"<[^>]*>")
_ANCHOR = re.compile(
    r"""<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>(.*?)</a\s*>""",
    re.IGNORECASE | re.DOTALL,
)


def clean(value: str) -> str:
    """Text with HTML tags removed, entities unescaped, whitespace and control chars collapsed."""
    return " ".join(printable(html.unescape(_TAGS.sub(" ", value)), None).split())


def anchor(value: str) -> tuple[str, str] | None:
    """``(href, text)`` of the first ``<a href=…>`` in ``value``, both cleaned; None if none."""
    found = _ANCHOR.search(value)
    if found is None:
        return None
    href = html.unescape(next(g for g in found.groups()[:3] if g is not None)).strip()
    return href, clean(found.group(4))


def path_slugs(href: str) -> list[str]:
    """The path segments after ``fashion-shows`` in a link (``/fashion-shows/designer/x``)."""
    try:
        parts = [part for part in urlsplit(href).path.split("/") if part]
    except ValueError:
        return []
    if "fashion-shows" not in parts:
        return []
    return parts[parts.index("fashion-shows") + 1 :]
