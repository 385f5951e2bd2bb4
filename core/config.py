"""Settings: one Struct loaded from config.yml, with ``RK_<SECTION>_<KEY>`` env overrides.

Lookup order for every command: ``--config FILE``, else ``$RK_CONFIG``, else
``./config.yml`` when present, else the embedded default (SQLite + local files under
``data_dir``). The sections are declared in ``config_sections`` and the masked view for
operators is ``config_mask``; both are imported from here.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any, Literal

import msgspec
import yaml
from msgspec import Struct

from rk.core.api.errors import ConfigError
from rk.core.config_mask import SECRET_KEYS, masked
from rk.core.config_sections import (
    HOST_PORT,
    AdminSettings,
    BoardSettings,
    EmbedSettings,
    IngestSettings,
    LogSettings,
    MediaSettings,
    QueueSettings,
    SearchSettings,
    SecuritySettings,
    ServerSettings,
    SpiderSettings,
    TagSettings,
    VectorSettings,
    VisionSettings,
)

__all__ = [
    "AdminSettings",
    "BoardSettings",
    "ConfigSource",
    "EmbedSettings",
    "IngestSettings",
    "LogSettings",
    "MediaSettings",
    "QueueSettings",
    "SearchSettings",
    "SecuritySettings",
    "ServerSettings",
    "Settings",
    "SpiderSettings",
    "TagSettings",
    "VectorSettings",
    "VisionSettings",
    "env_overrides",
    "find_config",
    "load_settings",
    "masked",
    "read_secret_file",
]


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
    boards: BoardSettings = msgspec.field(default_factory=BoardSettings)
    tags: TagSettings = msgspec.field(default_factory=TagSettings)
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
