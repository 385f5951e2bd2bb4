"""The one Jinja2 environment of rk's web pages, with the filters every page uses.

Templates are looked up in the shared folder first, then in each part's folder
(``TEMPLATE_DIRS``), so ``base.html`` and ``macros.html`` are common and the console's and
the site's templates live in their slices (``console/templates/admin/…``,
``site/templates/public/…``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template.config import TemplateConfig
from markupsafe import Markup, escape

from rk.core.web_urls import safe_href
from rk.server.platform.web.static_files import static_url

SERVER_DIR = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [
    SERVER_DIR / "platform" / "web" / "templates",
    SERVER_DIR / "console" / "templates",
    SERVER_DIR / "site" / "templates",
    SERVER_DIR / "boards" / "templates",
    SERVER_DIR / "trends" / "templates",
]
SOURCE_NAMES = {"vogue": "Vogue Runway", "theimpression": "The Impression"}
"""Sources as they write their own names; a third party's plugin name is shown title-cased."""
UNITS = (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400), ("h", 3600), ("min", 60))


def thousands(value: int | float | None) -> str:
    """``12345`` → ``12,345`` (counts and sizes read at a glance)."""
    if value is None:
        return "—"
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def filesize(value: int | None) -> str:
    """Bytes as ``1.4 MB`` (powers of 1000, as browsers and file managers show them)."""
    if not value:
        return "0 B"
    size = float(value)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1000
    return f"{size:,.1f} TB"


def exact_time(ts: int | None) -> str:
    """A unix time as ``2026-12-01 14:03 UTC``; ``""`` for 0 (never)."""
    if not ts:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def relative(ts: int | None, now: float | None = None) -> str:
    """A unix time as ``3 min ago`` / ``in 5 min``; ``never`` for 0."""
    if not ts:
        return "never"
    delta = int((now if now is not None else time.time()) - ts)
    ahead, delta = delta < 0, abs(delta)
    if delta < 45:
        return "just now"
    for name, seconds in UNITS:
        if delta >= seconds:
            count = round(delta / seconds)
            label = name if name in ("h", "min") else name + ("s" if count != 1 else "")
            return f"in {count} {label}" if ahead else f"{count} {label} ago"
    return "just now"


def timeago(ts: int | None) -> Markup:
    """A ``<time>`` element: relative text, the exact time in ``title`` and ``datetime``."""
    if not ts:
        return Markup('<span class="muted">never</span>')
    iso = datetime.fromtimestamp(ts, UTC).isoformat()
    return Markup('<time datetime="{}" title="{}" data-ts="{}">{}</time>').format(
        iso, exact_time(ts), ts, relative(ts)
    )


def show_date(value: str | None) -> Markup:
    """A source's date (``2025-09-30`` or a full ISO timestamp) as ``30 September 2025``.

    Sources give either form; visitors want the day, not the offset. Text that is not an
    ISO date is shown as it came, so nothing the source said is hidden.
    """
    if not value:
        return Markup("")
    try:
        day = datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    except ValueError:
        return Markup("{}").format(value)
    return Markup('<time datetime="{}">{}</time>').format(day.isoformat(), f"{day.day} {day:%B %Y}")


def source_name(source: str | None) -> str:
    """A source's own name for itself ("The Impression"), never the plugin's id."""
    if not source:
        return ""
    return SOURCE_NAMES.get(source, source.replace("_", " ").title())


def environment() -> Environment:
    """The shared environment: autoescaped, strict about undefined names, rk's filters."""
    env = Environment(
        loader=FileSystemLoader([str(path) for path in TEMPLATE_DIRS]),
        autoescape=select_autoescape(["html", "xml"], default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        thousands=thousands,
        filesize=filesize,
        timeago=timeago,
        exact_time=exact_time,
        show_date=show_date,
        safe_href=safe_href,
        source_name=source_name,
    )
    env.globals.update(static_url=static_url, escape=escape)
    return env


def template_config() -> TemplateConfig[JinjaTemplateEngine]:
    """The ``Litestar(template_config=…)`` of the backend."""
    return TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment()))
