"""``/admin/ingest-jobs`` (admins): jobs by status, kind and outcome; one job; retry."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.types import Guard

from rk.server.console.accounts.guards import admin_only
from rk.server.console.dashboard import job_counts
from rk.server.console.jobs import JOB_STATUSES, JobConflict, get_job, list_jobs, retry_job
from rk.server.console.params import Segment, Text, cursor, path_id
from rk.server.console.render import admin_page, form_error
from rk.server.platform.jobs.engine import KINDS, OUTCOMES
from rk.server.platform.web.pages import redirect_with

DAY_S = 86400


class JobPages(Controller):
    """The ingest jobs list and a job's page."""

    path = "/ingest-jobs"
    include_in_schema = False
    guards: Sequence[Guard] | None = (admin_only,)

    @get("/", name="admin:jobs")
    async def jobs(
        self,
        request: Request[Any, Any, Any],
        status: Text = None,
        kind: Text = None,
        outcome: Text = None,
        before: Text = None,
    ) -> Response[Any]:
        """Jobs newest first, filtered."""
        page = await list_jobs(status or "", kind or "", outcome or "", cursor(before))
        counts, _ = await job_counts(int(time.time()) - DAY_S)
        filters = {"status": status or "", "kind": kind or "", "outcome": outcome or ""}
        query = "&".join(f"{k}={v}" for k, v in filters.items() if v)
        context = {
            "jobs": page,
            "filters": filters,
            "query": query,
            "statuses": JOB_STATUSES,
            "kinds": sorted(KINDS),
            "outcomes": sorted(OUTCOMES),
            "counts": counts,
            "first_page": not before,
        }
        return admin_page(request, "admin/jobs.html", context)

    @get("/{job_id:str}", name="admin:job")
    async def job(self, request: Request[Any, Any, Any], job_id: Segment) -> Response[Any]:
        """One job in full: payload summary, outcome, note, error, attempts, timings."""
        found = await get_job(path_id(job_id, "ingest job"))
        return admin_page(request, "admin/job.html", {"job": found, "errors": {}})

    @post("/{job_id:str}/retry", name="admin:job-retry", status_code=303)
    async def retry(self, request: Request[Any, Any, Any], job_id: Segment) -> Response[Any]:
        """Queue a failed job again."""
        number = path_id(job_id, "ingest job")
        try:
            await retry_job(number)
        except JobConflict as exc:
            context = {"job": await get_job(number)}
            return form_error(request, "admin/job.html", context, "form", f"{exc}.", 409)
        return redirect_with(f"/admin/ingest-jobs/{number}", f"Job {number} is queued again.")
