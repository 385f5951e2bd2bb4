"""A citation in the three formats researchers paste: plain text, BibTeX and CSL-JSON.

Plain text follows a museum-catalogue order (who, what, where, whose photograph, source,
archive, accessed). BibTeX is an ``@misc`` entry with every special character escaped, so a
hostile title cannot close a brace or start a command. CSL-JSON is an array of one
``graphic`` item, the type citation processors (Zotero, citeproc) use for photographs.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from rk.server.site.citing.cited import Cited, work_label

FORMATS = {
    "text": "text/plain; charset=utf-8",
    "bibtex": "application/x-bibtex; charset=utf-8",
    "csl-json": "application/vnd.citationstyles.csl+json",
}
"""Each format's name in ``?format=`` and the media type it is sent as."""

_BIBTEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "#": r"\#",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIBTEX_PATTERN = re.compile("|".join(re.escape(c) for c in _BIBTEX_SPECIAL))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _clean(value: str) -> str:
    """One line: control characters (newlines included) become single spaces."""
    return _CONTROL.sub(" ", value).strip()


def _web(url: str) -> str:
    """``url`` when it is an http(s) address, else "" (never cite another scheme)."""
    return url if url.startswith(("https://", "http://")) else ""


def plain_text(cited: Cited) -> str:
    """``Jonny Johansson. Acne Studios, Spring 2025 Ready-to-Wear, Look 12. Paris, 2 October
    2024. Vogue Runway, <source URL>. rk archive, <archive URL>. Accessed 6 December 2026.``"""
    when = ""
    if len(cited.published_parts) == 3:
        year, month, day = cited.published_parts
        when = f"{day} {_MONTHS[month - 1]} {year}"
    elif cited.published_parts:
        when = str(cited.published_parts[0])
    place = ", ".join(part for part in (cited.city, when) if part)
    source = ", ".join(part for part in (cited.source, _web(cited.source_url)) if part)
    parts = [
        cited.creator,
        work_label(cited),
        place,
        f"Photograph: {cited.credit}" if cited.credit and cited.kind == "image" else "",
        f"Credit: {cited.credit}" if cited.credit and cited.kind == "show" else "",
        source,
        f"rk archive, {cited.archive_url}",
        f"Accessed {cited.accessed.day} {_MONTHS[cited.accessed.month - 1]} {cited.accessed.year}",
    ]
    return " ".join(f"{_clean(part)}." for part in parts if _clean(part))


_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def _bibtex_value(value: str) -> str:
    """``value`` escaped for a braced BibTeX field."""
    return _BIBTEX_PATTERN.sub(lambda m: _BIBTEX_SPECIAL[m.group(0)], _clean(value))


def bibtex(cited: Cited) -> str:
    """An ``@misc`` entry: the designer as a corporate author (double braces keep it whole)."""
    fields = {
        "author": "{" + _bibtex_value(cited.creator) + "}",
        "title": _bibtex_value(work_label(cited)),
        "howpublished": _bibtex_value(cited.source),
        "year": str(cited.published_parts[0]) if cited.published_parts else "",
        "url": _bibtex_value(cited.archive_url),
        "urldate": cited.accessed.isoformat(),
        "note": _bibtex_value(
            "; ".join(
                part
                for part in (
                    f"Photograph: {cited.credit}" if cited.credit else "",
                    cited.city,
                    f"Source: {_web(cited.source_url)}" if _web(cited.source_url) else "",
                )
                if part
            )
        ),
    }
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items() if value)
    return f"@misc{{{cited.key},\n{body}\n}}\n"


def csl_item(cited: Cited) -> dict[str, Any]:
    """The CSL-JSON item (a ``graphic``) of one citation."""
    day = cited.accessed
    item: dict[str, Any] = {
        "id": cited.key,
        "type": "graphic",
        "title": _clean(work_label(cited)),
        "author": [{"literal": _clean(cited.creator)}],
        "container-title": _clean(cited.title),
        "publisher": _clean(cited.source),
        "source": _clean(cited.source),
        "publisher-place": _clean(cited.city),
        "URL": cited.archive_url,
        "accessed": {"date-parts": [[day.year, day.month, day.day]]},
    }
    if cited.published_parts:
        item["issued"] = {"date-parts": [cited.published_parts]}
    notes = (
        f"Photograph: {cited.credit}" if cited.credit else "",
        f"Source: {_web(cited.source_url)}" if _web(cited.source_url) else "",
    )
    item["note"] = _clean("; ".join(note for note in notes if note))
    return {name: value for name, value in item.items() if value}


def csl_json(cited: Cited) -> str:
    """CSL-JSON: an array holding the one item."""
    return msgspec.json.format(msgspec.json.encode([csl_item(cited)]), indent=2).decode()


def render(cited: Cited, name: str) -> str:
    """The citation in format ``name`` (one of ``FORMATS``)."""
    if name == "bibtex":
        return bibtex(cited)
    if name == "csl-json":
        return csl_json(cited)
    return plain_text(cited) + "\n"
