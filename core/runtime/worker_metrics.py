"""Counters of a spider or embed worker process, served by ``--metrics-port``.

Prometheus derives rates from the counters (``rate(rk_spider_images_total[5m])`` is images
per second); each worker process is its own scrape target. The counters live in this
module's own registry, so nothing else in the process can collide with them.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, ProcessCollector, start_http_server

from rk.core.api.errors import ConfigError

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)


def _counter(name: str, documentation: str, *labels: str) -> Counter:
    """A counter in this module's registry, labelled by ``labels``."""
    return Counter(name, documentation, labels, registry=REGISTRY)


SHOWS = _counter(
    "rk_spider_shows",
    "Shows a spider handled, by outcome (submitted, skipped, failed, refused by robots.txt).",
    "outcome",
)
IMAGES = _counter(
    "rk_spider_images",
    "Images in submitted shows, by outcome (uploaded, already_stored, url_only, failed).",
    "outcome",
)
BYTES = _counter("rk_spider_bytes", "Image bytes a spider downloaded from the sites.")
SPIDER_ERRORS = _counter(
    "rk_spider_errors",
    "Spider errors by kind (show, backend_refused, image_download, image_upload, thumbnail).",
    "kind",
)
ROBOTS_REFUSED = _counter(
    "rk_spider_robots_refused",
    "URLs robots.txt kept a spider from fetching, by what (request: refused unsent by the"
    " polite client; image: left out of its show before anything downloaded it).",
    "what",
)
HOST_BUDGET_LOCAL = _counter(
    "rk_spider_host_budget_local",
    "Times a spider fell back to its own per-host limits because the backend's shared host"
    " budget could not be reached (issue 32); each lasts until a retry reaches it again.",
)
THUMBS = _counter(
    "rk_spider_thumbs",
    "Thumbnails a spider made, by what from (rendition: the site's smaller copy; original;"
    " fallback: the original, the rendition being missing or unfit).",
    "source",
)
EMBEDDED = _counter(
    "rk_embed_images", "Images the embed worker submitted, by outcome (saved, failed).", "outcome"
)
EMBED_BYTES = _counter("rk_embed_bytes", "Image bytes the embed worker downloaded.")
EMBED_ERRORS = _counter(
    "rk_embed_errors", "Embed worker errors by kind (download, undecodable, rejected).", "kind"
)


def serve_metrics(port: int, host: str = "127.0.0.1") -> None:
    """Serve ``/metrics`` for this process on ``host:port`` (a daemon thread)."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"--metrics-port must be between 1 and 65535, got {port}")
    try:
        start_http_server(port, addr=host, registry=REGISTRY)
    except OSError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port}: {exc.strerror}") from None
