"""``ingest.secret_file``: a config names the file holding the ingest secret, not the secret."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from rk.core.api.errors import ConfigError
from rk.core.config import load_settings, masked


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spider.yml"
    path.write_text(text)
    return path


def test_the_secret_is_read_from_the_file_at_load_time(tmp_path: Path) -> None:
    (tmp_path / "rk-data").mkdir()
    (tmp_path / "rk-data" / "ingest.secret").write_text("ab" * 32 + "\n")
    path = config(tmp_path, "ingest: {enabled: true, secret_file: rk-data/ingest.secret}\n")
    settings = load_settings(path, environ={})
    assert settings.ingest.secret == "ab" * 32
    shown = masked(settings)
    assert shown["ingest"] == {
        "enabled": True,
        "endpoint": "",
        "secret": "***",
        "secret_file": "rk-data/ingest.secret",
    }


def test_the_environment_can_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "s").write_text("from-env\n")
    settings = load_settings(environ={"RK_INGEST_SECRET_FILE": str(tmp_path / "s")})
    assert settings.ingest.secret == "from-env"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "spider.yml: ingest.secret_file: {f}: file not found"),
        ("empty", "spider.yml: ingest.secret_file: {f}: the file is empty"),
        ("blank", "spider.yml: ingest.secret_file: {f}: the file is empty"),
        ("directory", "spider.yml: ingest.secret_file: {f}: cannot read (Is a directory)"),
        ("binary", "spider.yml: ingest.secret_file: {f}: cannot read ("),
    ],
)
def test_a_file_that_gives_no_secret_is_a_one_line_error(
    tmp_path: Path, setup: str, message: str
) -> None:
    secret = tmp_path / "ingest.secret"
    if setup == "empty":
        secret.write_text("")
    elif setup == "blank":
        secret.write_text(" \n\n")
    elif setup == "directory":
        secret.mkdir()
    elif setup == "binary":
        secret.write_bytes(b"\xff\xfe\x00")
    path = config(tmp_path, f"ingest: {{secret_file: {secret}}}\n")
    with pytest.raises(ConfigError) as err:
        load_settings(path, environ={})
    assert message.format(f=secret) in str(err.value)
    assert "\n" not in str(err.value)


NOBODY = 65534
"""The unprivileged user a root test run reads as: root reads a file whatever its mode."""


def load_error(path: Path) -> str:
    """The ``ConfigError`` that loading ``path`` raises, read as this user, or as ``nobody``
    in a forked child when this is root (the child only drops its ids and loads)."""
    if os.geteuid() != 0:
        with pytest.raises(ConfigError) as err:
            load_settings(path, environ={})
        return str(err.value)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        message = "no ConfigError"
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            load_settings(path, environ={})
        except ConfigError as exc:
            message = str(exc)
        finally:
            os.write(write, message.encode())
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        message = answer.read().decode()
    os.waitpid(pid, 0)
    return message


def test_an_unreadable_file_is_a_one_line_error() -> None:
    folder = Path(tempfile.mkdtemp(prefix="rk-unreadable-"))  # /tmp: nobody may look in
    try:
        folder.chmod(0o755)
        secret = folder / "ingest.secret"
        secret.write_text("x" * 64)
        secret.chmod(0)
        path = config(folder, f"ingest: {{secret_file: {secret}}}\n")
        path.chmod(0o644)
        message = load_error(path)
    finally:
        shutil.rmtree(folder)
    assert re.search(r"secret_file: .*: cannot read \(Permission denied\)$", message), message
    assert "\n" not in message


@pytest.mark.parametrize(
    "environ",
    [{}, {"RK_INGEST_SECRET": "from-env"}],
    ids=["both in the file", "secret from the environment"],
)
def test_secret_and_secret_file_are_mutually_exclusive(
    tmp_path: Path, environ: dict[str, str]
) -> None:
    (tmp_path / "s").write_text("from-file\n")
    both = "secret: inline, " if not environ else ""
    path = config(tmp_path, f"ingest: {{{both}secret_file: {tmp_path / 's'}}}\n")
    with pytest.raises(ConfigError, match=r"ingest: set secret or secret_file, not both$"):
        load_settings(path, environ=environ)
