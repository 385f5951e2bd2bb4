"""Settings: one Struct loaded from config.yml, with ``RK_<SECTION>_<KEY>`` env overrides.

Lookup order for every command: ``--config FILE``, else ``$RK_CONFIG``, else
``./config.yml`` when present, else the embedded default (SQLite + local files under
``data_dir``).
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import msgspec
import yaml
from msgspec import Meta, Struct

from rk import __version__
from rk.core.api.errors import ConfigError

MiB = 1024 * 1024


HOST_PORT = r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):[0-9]{1,5}$"
HostPort = Annotated[str, Meta(pattern=HOST_PORT)]
"""``host:port`` (``[v6]:port``): an SSRF exception names the one service it lets through."""


class Section(Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every settings section: unknown keys are errors, not silently ignored."""


LOOPBACK = ("127.0.0.1/32", "::1/128")
"""``server.ops_allow``'s default: this machine only."""
OPS_TOKEN_MIN = 16
"""The shortest ``server.ops_token`` accepted: a bearer token is only as good as its length."""
OPS_TOKEN = re.compile(rf"[!-~]{{{OPS_TOKEN_MIN},}}")
"""Printable ASCII without spaces: what fits in an ``Authorization`` header as it is."""


class ServerSettings(Section):
    """The backend HTTP server. Slow clients are bounded: a request head must arrive within
    ``header_timeout_s`` of the connection opening (or of the previous answer), its body
    within ``body_timeout_s`` of the head; at most ``max_connections`` at once (more get 503)."""

    host: str = "127.0.0.1"
    port: int = 8092
    workers: int = 1
    public_url: str = ""
    max_body_bytes: int = 2 * MiB
    secret: str = ""
    shutdown_grace_s: float = 20.0
    db_pool_size: int = 0
    db_readers: int = 0
    header_timeout_s: Annotated[float, Meta(gt=0)] = 10.0
    body_timeout_s: Annotated[float, Meta(gt=0)] = 60.0
    keep_alive_s: Annotated[int, Meta(ge=1)] = 5
    max_connections: Annotated[int, Meta(ge=1)] = 1000
    trusted_proxies: list[str] = []
    """Peers whose ``X-Forwarded-For`` names the client (empty: none, the peer is the client)."""
    ops_allow: list[str] = msgspec.field(default_factory=lambda: list(LOOPBACK))
    """Clients (IPs or CIDR networks) that may read ``/metrics`` and ``/readyz``'s detail."""
    ops_token: str = ""
    """A bearer token that opens ``/metrics`` and ``/readyz``'s detail from any address."""

    def __post_init__(self) -> None:
        """Refuse an address that is not an IP or CIDR network, and a guessable ops token."""
        _check_networks("trusted_proxies", self.trusted_proxies)
        _check_networks("ops_allow", self.ops_allow)
        if self.ops_token and not OPS_TOKEN.fullmatch(self.ops_token):
            raise ValueError(
                f"ops_token: at least {OPS_TOKEN_MIN} printable ASCII characters without spaces"
                " (openssl rand -hex 32)"
            )


def _check_networks(key: str, entries: list[str]) -> None:
    """Refuse an entry of ``key`` that is not an IP address or CIDR network."""
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(
                f"{key}: {entry!r} is not an IP address or CIDR network (10.0.0.5, 10.0.0.0/8, ::1)"
            ) from None


class IngestSettings(Section):
    """How a spider reaches the backend: ``endpoint`` ends in ``/admin/internal/ingest``.
    ``secret_file`` names a file holding the secret (read at load time into ``secret``), so a
    config file need not carry it; set ``secret`` or ``secret_file``, not both."""

    enabled: bool = False
    endpoint: str = ""
    secret: str = ""
    secret_file: str = ""


class MediaSettings(Section):
    """Image handling on both sides: direct upload by spiders, size caps, thumbnails."""

    upload: bool = False
    concurrency: int = 6
    max_image_bytes: int = 30 * MiB
    thumb_size: int = 256
    upload_url_ttl_s: int = 900
    gc_grace_s: int = 86400
    gc_interval_s: int = 3600
    public_max_age_s: int = 300


class VisionSettings(Section):
    """The CLIP model: a directory of ONNX files, or a remote ``endpoint`` to call."""

    model: str = ""
    embedder: str = "clip"
    providers: list[str] = []
    batch: int = 32
    concurrency: int = 8
    endpoint: str = ""


class EmbedSettings(Section):
    """Embedding backfill and neighbours."""

    inline: bool = False
    failure_cap: int = 3
    neighbours_k: int = 20
    pending_lease_s: int = 120


class VectorSettings(Section):
    """Where vectors are searched: ``index`` is ``auto`` (pgvector on PostgreSQL when the
    extension is there, else exact), or a registered index name. ``build_memory_mb`` is the
    ``maintenance_work_mem`` of an HNSW build; 0 sizes it to the table so the graph is built
    in memory (1M × 512-d: about 6 GiB asked, 8 GiB at most; less still works, slower).
    ``ef_search`` 100: recall@20 0.995 at 1M clustered vectors and placement of 100 in
    0.35–0.38 s, where 200 took 1.19–1.24 s for recall 1.000 (README, bench.vectors)."""

    index: str = "auto"
    ef_search: int = 100
    reindex_batch: int = 2000
    build_memory_mb: int = 0
    scope_exact_rows: Annotated[int, Meta(ge=0)] = 20_000
    """pgvector: a scoped search whose scope has at most this many images scans them
    exactly (no HNSW); larger scopes use an iterative or over-fetching HNSW scan."""
    iterative_scan: bool = True
    """pgvector 0.8+: use iterative index scans for large scopes (false: over-fetch)."""


CONTACT_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def is_contact(value: str) -> bool:
    """Whether ``value`` is an http(s) URL or an e-mail address, fit for a User-Agent header."""
    if not re.fullmatch(r"[!-~]+", value):
        return False
    parts = urlsplit(value)
    return bool(parts.scheme in ("http", "https") and parts.hostname) or bool(
        CONTACT_EMAIL.fullmatch(value)
    )


class SpiderSettings(Section):
    """HTTP politeness for every source request. An empty ``user_agent`` sends
    ``rk/<version> (+<contact>)``; ``robots: ignore`` is only for a site that gave permission."""

    user_agent: str = ""
    contact: str = ""
    """Where a site reaches whoever runs this spider: an http(s) URL or an e-mail address."""
    robots: Literal["obey", "ignore"] = "obey"
    per_host_concurrency: int = 4
    """Requests in flight at once per host, counted in this spider process."""
    min_interval_s: float = 0.5
    """Seconds between request starts on one host, across every spider of the archive."""
    fleet_batch: Annotated[int, Meta(ge=0, le=16)] = 4
    """Request starts per host taken from the backend in one round trip (issue 32); 0 keeps
    ``min_interval_s`` local to this spider process."""
    timeout_s: float = 30.0
    retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0

    def __post_init__(self) -> None:
        """Refuse a contact that is not a URL or an address: sites could not reach anyone."""
        if self.contact and not is_contact(self.contact):
            raise ValueError(
                f"contact: {self.contact!r} is not an http(s) URL or an e-mail address"
                " (https://example.org/crawler, crawler@example.org)"
            )

    @property
    def effective_user_agent(self) -> str:
        """The User-Agent sent: ``user_agent``, else ``rk/<version> (+<contact>)``."""
        contact = f" (+{self.contact})" if self.contact else ""
        return self.user_agent or f"rk/{__version__}{contact}"


class SecuritySettings(Section):
    """Request signing and SSRF protection."""

    clock_skew_s: int = 300
    allow_private_hosts: list[HostPort] = []


class QueueSettings(Section):
    """Every queue timeout, so tests can shrink them."""

    ingest_max_attempts: int = 3
    ingest_stuck_s: int = 60
    backoff_base_s: int = 30
    backoff_cap_s: int = 600
    crawl_lease_s: int = 900
    crawl_max_attempts: int = 3
    poll_interval_s: float = 1.0


class AdminSettings(Section):
    """The moderation console: sessions, sign-in rate limits, duplicate detection.

    A session ends ``session_ttl_s`` after sign-in, or once unused for ``session_idle_s``.
    """

    session_ttl_s: int = 12 * 3600
    sign_in_max_failures: int = 5
    sign_in_max_failures_per_address: int = 20
    sign_in_window_s: int = 900
    sign_in_delay_s: int = 30
    session_idle_s: Annotated[int, Meta(ge=60)] = 3600
    duplicate_score: float = 0.97
    page_size: int = 50


class SearchSettings(Section):
    """Bounds on search by photo, which anyone may call: decoded size, concurrency, rate.

    ``photo_max_pixels`` caps a picture without a reduced decode (PNG, WebP, GIF…), read from
    its header before any pixel is decoded; a JPEG is decoded at a reduced scale and only its
    reduced size counts. ``photo_concurrency`` uploads are read and decoded at once per
    backend process, others get 503 with ``Retry-After``; each client address may send
    ``photo_uploads_per_minute`` (0: no limit), then gets 429 with ``Retry-After``.
    """

    photo_max_pixels: Annotated[int, Meta(ge=1)] = 8_000_000
    photo_concurrency: Annotated[int, Meta(ge=1)] = 2
    photo_uploads_per_minute: Annotated[int, Meta(ge=0)] = 20


class LogSettings(Section):
    """Log output: ``text`` for people, ``json`` (one object per line) for machines."""

    format: Literal["text", "json"] = "text"
    level: Literal["debug", "info", "warning", "error"] = "info"


class Settings(Struct, kw_only=True, forbid_unknown_fields=True):
    """All of rk's settings. Empty ``database``/``storage`` mean the embedded default."""

    data_dir: str = "./rk-data"
    database: str = ""
    storage: str = ""
    server: ServerSettings = msgspec.field(default_factory=ServerSettings)
    ingest: IngestSettings = msgspec.field(default_factory=IngestSettings)
    media: MediaSettings = msgspec.field(default_factory=MediaSettings)
    vision: VisionSettings = msgspec.field(default_factory=VisionSettings)
    embed: EmbedSettings = msgspec.field(default_factory=EmbedSettings)
    vectors: VectorSettings = msgspec.field(default_factory=VectorSettings)
    spider: SpiderSettings = msgspec.field(default_factory=SpiderSettings)
    security: SecuritySettings = msgspec.field(default_factory=SecuritySettings)
    queues: QueueSettings = msgspec.field(default_factory=QueueSettings)
    log: LogSettings = msgspec.field(default_factory=LogSettings)
    admin: AdminSettings = msgspec.field(default_factory=AdminSettings)
    search: SearchSettings = msgspec.field(default_factory=SearchSettings)
    sources: dict[str, dict[str, Any]] = {}

    @property
    def data_path(self) -> Path:
        """``data_dir`` as an absolute path."""
        return Path(self.data_dir).expanduser().resolve()

    @property
    def database_url(self) -> str:
        """The database DSN: the setting, else ``sqlite:///<data_dir>/rk.sqlite3``."""
        return self.database or f"sqlite:///{self.data_path / 'rk.sqlite3'}"

    @property
    def storage_url(self) -> str:
        """The storage URL: the setting, else ``file://<data_dir>/media``."""
        return self.storage or f"file://{self.data_path / 'media'}"

    def source_options(self, name: str) -> dict[str, Any]:
        """The options a source plugin is built with: ``sources.<name>``, and ``thumb_size``
        (``media.thumb_size`` unless the section sets its own), so it can name renditions."""
        return {"thumb_size": self.media.thumb_size, **self.sources.get(name, {})}


SECTIONS = {
    name
    for name, typ in Settings.__annotations__.items()
    if isinstance(typ, str) and typ.endswith("Settings")
}
SECRET_KEYS = {"secret", "password", "ops_token"}
ConfigSource = Literal["--config", "RK_CONFIG", "./config.yml", "embedded default"]


def find_config(explicit: str | Path | None) -> tuple[Path | None, ConfigSource]:
    """Which config file a command uses, and why."""
    if explicit:
        return Path(explicit), "--config"
    env = os.environ.get("RK_CONFIG")
    if env:
        return Path(env), "RK_CONFIG"
    local = Path("config.yml")
    if local.is_file():
        return local, "./config.yml"
    return None, "embedded default"


def _not_a_setting(section: str, name: str) -> str:
    """What to say of an unknown key ``name`` in ``section`` ("" = the top level): the
    closest known key, so a typo reads as one."""
    struct: Any = Settings
    if section:
        struct = next((f.type for f in msgspec.structs.fields(Settings) if f.name == section), None)
    known = [f.name for f in msgspec.structs.fields(struct)] if struct else []
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f"not a setting (did you mean {close[0]}?)" if close else "not a setting"


def _describe(err: msgspec.ValidationError) -> tuple[str, str]:
    """``(dotted key, what was expected)`` from a msgspec validation error."""
    text = str(err)
    match = re.search(r" - at `\$(.*)`$", text)
    where = match.group(1) if match else ""
    key = re.sub(r"\[['\"]?([^\]'\"]+)['\"]?\]", r".\1", where).lstrip(".")
    message = text[: match.start()] if match else text
    unknown = re.match(r"Object contains unknown field `(.+)`", message)
    if unknown:
        message = _not_a_setting(key, unknown.group(1))
        key = f"{key}.{unknown.group(1)}".lstrip(".")
    message = message.replace(f"`str` matching regex {HOST_PORT!r}", "host:port (127.0.0.1:8000)")
    return key or "(top level)", message[0].lower() + message[1:]


def env_overrides(environ: dict[str, str] | os._Environ[str]) -> dict[str, Any]:
    """``RK_SERVER_PORT=9000`` → ``{"server": {"port": 9000}}``; values parsed as YAML."""
    top = {name for name in Settings.__struct_fields__ if name not in SECTIONS}
    out: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith("RK_"):
            continue
        key = name[3:].lower()
        value = yaml.safe_load(raw) if raw.strip() else ""
        if key in top:
            out[key] = raw if key in {"data_dir", "database", "storage"} else value
            continue
        for section in SECTIONS:
            prefix = section + "_"
            if key.startswith(prefix) and key[len(prefix) :]:
                field = key[len(prefix) :]
                keep_text = isinstance(value, int | float) and field in SECRET_KEYS
                out.setdefault(section, {})[field] = raw if keep_text else value
    return out


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(
    config: str | Path | None = None,
    *,
    data_dir: str | None = None,
    environ: dict[str, str] | os._Environ[str] | None = None,
) -> Settings:
    """Settings from the config file found by ``find_config``, env overrides and ``data_dir``."""
    path, _ = find_config(config)
    label = str(path) if path else "embedded default"
    data: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{label}: file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{label}: cannot read ({exc})") from None
        except yaml.YAMLError as exc:
            line = getattr(getattr(exc, "problem_mark", None), "line", None)
            at = f" at line {line + 1}" if line is not None else ""
            raise ConfigError(f"{label}: not valid YAML{at}") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise ConfigError(f"{label}: expected a mapping of settings at the top level")
        data = loaded or {}
    overrides = env_overrides(os.environ if environ is None else environ)
    if overrides:
        label = f"{label} (with RK_* environment overrides)"
    data = _merge(data, overrides)
    if data_dir:
        data["data_dir"] = data_dir
    try:
        settings = msgspec.convert(data, Settings, strict=False)
    except msgspec.ValidationError as err:
        key, expected = _describe(err)
        raise ConfigError(f"{label}: {key}: {expected}") from None
    if settings.ingest.secret_file:
        settings.ingest.secret = read_secret_file(settings.ingest, label)
    return settings


def read_secret_file(ingest: IngestSettings, label: str) -> str:
    """The secret held in ``ingest.secret_file`` (relative to the working directory), or a
    one-line error: the file missing, unreadable or empty, or ``ingest.secret`` set as well."""
    where = f"{label}: ingest.secret_file: {ingest.secret_file}"
    if ingest.secret:
        raise ConfigError(f"{label}: ingest: set secret or secret_file, not both")
    try:
        value = Path(ingest.secret_file).expanduser().read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise ConfigError(f"{where}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{where}: cannot read ({reason})") from None
    if not value:
        raise ConfigError(f"{where}: the file is empty")
    return value


URL_SECRETS = re.compile(
    r"(?i)((?:secret_access_key|session_token|password|token)=)[^&]+|(://[^:/@]+:)[^@]+(@)"
)


def _mask_url(value: str) -> str:
    """A URL or DSN with its password and secret query parameters replaced by ``***``."""

    def hide(match: re.Match[str]) -> str:
        return f"{match.group(1)}***" if match.group(1) else f"{match.group(2)}***@"

    return URL_SECRETS.sub(hide, value)


def masked(settings: Settings) -> dict[str, Any]:
    """The settings as plain data with every secret (keys, URL passwords) replaced by ``***``."""

    def mask(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: ("***" if k in SECRET_KEYS and v else mask(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [mask(v) for v in node]
        if isinstance(node, str) and "://" in node:
            return _mask_url(node)
        return node

    data: dict[str, Any] = mask(msgspec.to_builtins(settings))
    return data
