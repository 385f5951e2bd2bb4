"""``rk doctor``: check this machine's rk setup and say what to fix; exit 0 when all is well.

Which checks run follows the configuration: a backend's (a database, or no
``ingest.endpoint``) checks its database and storage; a spider's (``ingest.endpoint``
set) checks the secret and the clock against that backend, and warns when
``spider.contact`` is unset; ``vision.model`` adds the model check. ``--role`` chooses
explicitly.
"""

from __future__ import annotations

import asyncio
import os
import sys
from enum import StrEnum
from typing import Annotated

import typer

from rk.cli.common import ConfigOption, DataDirOption, LogChoice
from rk.cli.doctor_checks import (
    Finding,
    clock_finding,
    contact_finding,
    database_findings,
    ingest_finding,
    model_finding,
    storage_finding,
)
from rk.core.api.errors import RkError
from rk.core.config import Settings, find_config, load_settings
from rk.core.config_origins import setting_origins
from rk.core.logs import setup_logging


class Role(StrEnum):
    """What this machine is for."""

    auto = "auto"
    backend = "backend"
    spider = "spider"


def roles(settings: Settings, role: Role) -> tuple[bool, bool]:
    """``(backend checks, spider checks)`` for ``role``."""
    if role is Role.backend:
        return True, False
    if role is Role.spider:
        return False, True
    spider = bool(settings.ingest.endpoint)
    return bool(settings.database) or not spider, spider


def config_finding(config: str | None, data_dir: str | None) -> tuple[Finding, Settings | None]:
    """The config file in use and whether it loads; the settings when it does."""
    path, why = find_config(config)
    where = f"{path} ({why})" if path else "none: the embedded default"
    try:
        settings = load_settings(config, data_dir=data_dir)
    except RkError as exc:
        return Finding("config", False, str(exc), "fix the setting named above"), None
    origins = setting_origins(config, data_dir=data_dir)
    said = ", ".join(
        f"{key} from {origins.get(key, 'the embedded default')}" for key in ("database", "storage")
    )
    return Finding("config", True, f"{where}; {said} (rk config show for all)"), settings


async def findings(settings: Settings, backend: bool, spider: bool) -> list[Finding]:
    """Every check that applies, in the order a person would fix them."""
    found: list[Finding] = []
    if backend:
        found += await database_findings(settings)
        found.append(await storage_finding(settings))
    if spider and not settings.ingest.endpoint:
        fix = "set ingest.endpoint (…/admin/internal/ingest) and ingest.secret"
        found.append(Finding("ingest", False, "ingest.endpoint is not set", fix))
    elif spider:
        found.append(await clock_finding(settings))
        found.append(await ingest_finding(settings))
    if spider:
        found.append(contact_finding(settings))
    if settings.vision.model:
        found.append(await asyncio.to_thread(model_finding, settings))
    return found


def line(finding: Finding) -> str:
    """``ok       name: detail``, ``PROBLEM  name: detail -> fix`` or ``warning  …``."""
    mark = "ok     " if finding.ok else "warning" if finding.warning else "PROBLEM"
    fix = f" -> {finding.fix}" if not finding.ok and finding.fix else ""
    return f"{mark}  {finding.name}: {finding.detail}{fix}"


def doctor(
    config: ConfigOption = None,
    data_dir: DataDirOption = None,
    role: Annotated[
        Role, typer.Option("--role", help="Which checks: auto (from the config), backend, spider.")
    ] = Role.auto,
) -> None:
    """Check the config, database, storage, ingest secret, clock and model; exit 1 on a problem."""
    setup_logging("json" if LogChoice.json else "text", "WARNING")  # the report is the output
    first, settings = config_finding(config, data_dir)
    report = [first]
    if settings is not None:
        backend, spider = roles(settings, role)
        report += asyncio.run(findings(settings, backend, spider))
    for finding in report:
        typer.echo(line(finding))
    problems = sum(not finding.ok and not finding.warning for finding in report)
    typer.echo(f"{problems} problem{'s' if problems != 1 else ''}" if problems else "all well")
    # obstore's tokio worker threads can panic while the interpreter finalizes after a failed
    # request (SIGABRT, exit 134, in about half the runs here); everything is closed and
    # printed by now, so leave without finalizing to keep the exit code the report's.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1 if problems else 0)


def register(app: typer.Typer) -> None:
    """Add ``rk doctor`` to the root app."""
    app.command("doctor")(doctor)
