"""Log lines: text and JSON formats, context ids, and secrets masked on the way out."""

from __future__ import annotations

import json
import logging

import pytest

from rk.core.logs import JsonFormatter, TextFormatter, escape_controls, log_ids
from rk.core.redact import public_message, redact, remember_secret


def record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("rk.test", logging.INFO, __file__, 1, message, args, None)


def test_text_line_carries_context_ids() -> None:
    with log_ids(request_id="ab12", job=7):
        line = TextFormatter().format(record("job %d done", 7))
    assert line.endswith("INFO rk.test: job 7 done [request_id=ab12 job=7]")
    assert "[" not in TextFormatter().format(record("outside"))


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a\nb", "a\\nb"),
        ("a\r\nb\tc", "a\\r\\nb\\tc"),
        ("a\x00b\x1b[31m", "a\\x00b\\x1b[31m"),
        ("del\x7f nel\x85 csi\x9b", "del\\x7f nel\\x85 csi\\x9b"),
        ("line\u2028sep\u2029", "line\\u2028sep\\u2029"),
        ("Dries Van Noten — é, 100 %", "Dries Van Noten — é, 100 %"),
    ],
)
def test_escape_controls(text: str, escaped: str) -> None:
    assert escape_controls(text) == escaped


def test_a_message_with_control_characters_stays_on_one_line() -> None:
    forged = "/static/\nFAKE 2026-01-01 00:00:00,000 INFO rk.server: signed in as admin\r\x00"
    with log_ids(request_id="ab12"):
        line = TextFormatter().format(record("GET %s -> 404", forged))
    assert "\n" not in line
    assert "\r" not in line
    assert "\x00" not in line
    assert line.endswith(
        "INFO rk.test: GET /static/\\nFAKE 2026-01-01 00:00:00,000 INFO rk.server: signed in as"
        " admin\\r\\x00 -> 404 [request_id=ab12]"
    )


def test_a_traceback_still_follows_on_its_own_lines() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        rec = logging.LogRecord("rk", logging.ERROR, __file__, 1, "bad\npath", (), sys.exc_info())
    head, _, rest = TextFormatter().format(rec).partition("\n")
    assert head.endswith("ERROR rk: bad\\npath")
    assert rest.startswith("Traceback")
    assert rest.endswith("ValueError: boom")


def test_json_line_is_one_object_with_ids() -> None:
    with log_ids(task=3), log_ids(worker="spider-1"):
        line = JsonFormatter().format(record("claimed %s", "Acne"))
    data = json.loads(line)
    assert data["msg"] == "claimed Acne"
    assert (data["level"], data["logger"], data["task"], data["worker"]) == (
        "info",
        "rk.test",
        3,
        "spider-1",
    )
    assert data["time"].endswith("Z")
    assert "\n" not in line


def test_json_keeps_the_traceback_on_its_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        rec = logging.LogRecord("rk", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    data = json.loads(JsonFormatter().format(rec))
    assert "ValueError: boom" in data["exc"]


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("postgresql://rk:pa55word@db:5432/rk", "pa55word"),
        ("PUT http://s3/b/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=deadbeef99", "deadbeef99"),
        ("PUT http://s3/b/k?X-Amz-Credential=AKIAXYZ%2F1&X-Amz-Date=1", "AKIAXYZ"),
        ("/media/upload/runway/a.jpg?size=1&sha1=ab&expires=9&sig=c0ffee1234", "c0ffee1234"),
        ("s3://b/p?access_key_id=AK&secret_access_key=verysecret", "verysecret"),
    ],
)
def test_redact_masks_passwords_and_signatures(text: str, hidden: str) -> None:
    masked = redact(text)
    assert hidden not in masked
    assert "***" in masked


def test_remembered_secret_masked_anywhere() -> None:
    remember_secret("hunter2-the-ingest-secret")
    remember_secret("abc")  # too short to mask without mangling ordinary words
    line = TextFormatter().format(record("bad key hunter2-the-ingest-secret (abc)"))
    assert "hunter2" not in line
    assert "(abc)" in line


def test_plain_text_untouched() -> None:
    assert redact("ingest job 4: created, 2 images") == "ingest job 4: created, 2 images"


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("[Errno 21] Is a directory: '/srv/rk-data/media/runway/a.jpg'", "/srv/rk-data"),
        ("cannot open SQLite database /home/op/rk/rk.sqlite3: locked", "/home/op"),
        ("database sqlite:////var/lib/rk/rk.sqlite3 is locked", "/var/lib"),
        ("storage file:///mnt/media failed", "/mnt/media"),
        ("postgresql://rk:hunter22@db/rk refused", "hunter22"),
    ],
)
def test_public_messages_show_no_path_dsn_password_or_secret(text: str, hidden: str) -> None:
    assert hidden not in public_message(text)


def test_public_messages_keep_urls_and_keys() -> None:
    text = "look 2 (HTTP 404): https://img.example/a/b.jpg, key runway/ab.jpg"
    assert public_message(text) == text
