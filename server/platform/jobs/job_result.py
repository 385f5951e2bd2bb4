"""What a job handler hands back to the worker: done with an outcome, or not done yet."""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.wire import ShowIngest
from rk.server.platform.jobs.engine import Outcome


class JobDone(Struct, frozen=True, kw_only=True):
    """A finished job: its outcome, a human note, and what events to send."""

    outcome: Outcome
    note: str
    article_id: int = 0
    show: ShowIngest | None = None
    status_change: tuple[str, str] | None = None


class JobNotDone(Exception):
    """The job did not finish this attempt; the message (one line) goes to ``last_error``.

    The worker hands it to the queue, which retries it after the backoff or, after the
    last attempt, marks it failed. ``permanent`` fails it at once: another attempt could
    not end differently (every image refused, 404 or not an image). Nothing the job wrote
    is left behind.
    """

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent
