"""rk's log output: one line per event, readable text for people or JSON for machines.

Ids that matter for a line (``request_id`` of the HTTP request being served, or a
``task``/``job`` a worker holds) live in a context variable set with ``log_ids``; every
line written while they are set carries them, in both formats. Every line goes through
``rk.core.redact.redact`` on its way out, so no secret, DSN password or URL signature
reaches the log. The text format escapes control characters in the message
(``escape_controls``), so a value a client chose (a path with ``%0a``) can never start a
line of its own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Literal

from rk.core.redact import redact

LogFormat = Literal["text", "json"]
HANDLER_NAME = "rk-stderr"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""C0, DEL, C1 and the Unicode line and paragraph separators: all break or hide a line."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ids: ContextVar[Mapping[str, str | int] | None] = ContextVar("rk_log_ids", default=None)


@contextlib.contextmanager
def log_ids(**ids: str | int) -> Iterator[None]:
    """Tag every log line written inside the block (in this task) with ``ids``."""
    token = _ids.set({**current_log_ids(), **ids})
    try:
        yield
    finally:
        _ids.reset(token)


def current_log_ids() -> Mapping[str, str | int]:
    """The ids ``log_ids`` set for the running task (empty outside any block)."""
    return _ids.get() or {}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def escape_controls(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``, ``\\x00``)."""
    return CONTROLS.sub(_escaped, text)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message key=value…`` with secrets masked, one line per message
    (a traceback still follows on its own lines)."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The line with control characters in the message escaped."""
        record.message = escape_controls(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        """The classic line plus the context ids, redacted."""
        line = super().format(record)
        ids = current_log_ids()
        if ids:
            tail = " ".join(f"{key}={value}" for key, value in ids.items())
            head, _, rest = line.partition("\n")
            line = f"{head} [{tail}]" + (f"\n{rest}" if rest else "")
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, msg, the context ids, exc when any."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one line of JSON, redacted."""
        out: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            **current_log_ids(),
        }
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(out, ensure_ascii=False, default=str))


def setup_logging(fmt: LogFormat = "text", level: str | int = logging.INFO) -> None:
    """Send every log line to stderr in ``fmt``; replaces the handler a previous call set up.

    Handlers that others installed (pytest's capture, an embedding application's) stay.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.set_name(HANDLER_NAME)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    # httpx logs every request at INFO: that is debug output for rk's commands.
    quiet = logging.WARNING if root.level > logging.DEBUG else logging.NOTSET
    logging.getLogger("httpx").setLevel(quiet)
