"""URLs a browser may follow: http(s) with a host, judged as a browser reads them.

Crawled pages choose these strings, and rk renders them as ``href`` and ``src``. A browser
strips C0 controls and spaces off both ends of a URL, drops tabs and newlines inside it
and reads its scheme case-blind (WHATWG URL), so ``"  JavaScript:alert(1)"`` runs a
script. Both the wire check and the templates' filter read a URL that way first.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_C0_OR_SPACE = "".join(chr(code) for code in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")
_WEB_SCHEMES = ("http:", "https:")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}")


def browser_form(url: str) -> str:
    """``url`` as a browser parses it: C0 controls and spaces off both ends, no tab or newline."""
    return url.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)


def web_url_problem(url: str) -> str | None:
    """Why a browser given ``url`` would not open an http(s) URL with a host, or None."""
    form = browser_form(url)
    if not form[:6].lower().startswith(_WEB_SCHEMES):
        scheme, colon, _ = form.partition(":")
        named = scheme.lower() if colon and _SCHEME.fullmatch(scheme) else "(none)"
        return f"scheme {named!r} is not http or https"
    try:
        parts = urlsplit(form)
        host, _ = parts.hostname, parts.port
    except ValueError as exc:
        return str(exc)
    return None if host else "no host"


def safe_href(url: object) -> str:
    """``url`` in its browser form when it is an http(s) URL or a path on this site; else "".

    Templates link a stored URL only through this, so a value stored before the wire
    checked it (or by any other road) renders as text, never as a ``javascript:`` link.
    """
    if not isinstance(url, str):
        return ""
    form = browser_form(url)
    if form.startswith("/") and not form.startswith(("//", "/\\")):
        return form
    return form if web_url_problem(form) is None else ""
