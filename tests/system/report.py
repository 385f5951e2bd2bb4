"""The run's table: faults injected, expected vs archived, duplicates, orphans, missing,
time to settle, and every invariant with its evidence (printed, and in docs/reliability.md).
"""

from __future__ import annotations

import re
from collections import Counter

from tests.system.harness import Outcome


def table(run: Outcome) -> str:
    """Markdown tables of one run."""
    snap = run.snap
    shows = run.truth.archivable()
    served = sum(len(s.served()) for s in shows)
    archived = {a["show_key"] for a in snap.articles if not a["deleted_at"]}
    statuses = Counter(e.status // 100 for e in run.requests)
    outcomes = Counter(j["outcome"] or j["status"] for j in snap.jobs)
    faults = sorted(run.faults, key=lambda f: f.at)
    fives = Counter(e.status for e in run.requests if e.status >= 500)
    by_5xx = ", ".join(f"{k}: {v}" for k, v in sorted(fives.items())) or "none"
    by_outcome = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    settle = (
        f"settled {run.settle_s:.0f} s after the last fault"
        if run.settle_s is not None
        else f"did not settle (left: {run.last_progress})"
    )
    named = sum(
        len(re.findall(r"look \d+ \(", j["note"] or ""))
        for j in snap.jobs
        if j["outcome"] == "created"
    )
    missing = sum(len(s.missing_looks) for s in shows)
    attempts = sum(t["attempts"] for t in snap.tasks)
    lines = [
        f"seed {run.seed}: {run.rounds} round(s), {run.run_s:.0f} s in all, {settle}",
        "",
        "| t (s) | fault | lasted (s) | outcome |",
        "|---:|---|---:|---|",
        *(f"| {f.at:.0f} | {f.name} | {f.lasted:.0f} | {f.outcome or '—'} |" for f in faults),
        "",
        "| the site and the traffic | figure |",
        "|---|---:|",
        f"| shows on the site (1 subscriber-only) | {len(run.truth.shows)} |",
        f"| images served by the site | {served} |",
        f"| looks answering 404 | {missing} |",
        f"| ingest jobs by outcome | {by_outcome} |",
        f"| worker requests (2xx/3xx/4xx/5xx) | "
        f"{statuses[2]}/{statuses[3]}/{statuses[4]}/{statuses[5]} |",
        f"| 5xx by status (502: the balancer, a backend died mid-request) | {by_5xx} |",
        "",
        "| figure | expected | found |",
        "|---|---:|---:|",
        f"| shows archived | {len(shows)} | {len(archived)} |",
        f"| article rows | {len(shows)} | {sum(1 for a in snap.articles if not a['deleted_at'])} |",
        f"| image rows | {served} | {len(snap.images)} |",
        f"| looks answering 404, named in the job notes | {missing} | {named} |",
        f"| objects in the bucket | {2 * len({i['key'] for i in snap.images})} | "
        f"{len(snap.objects)} |",
        f"| vectors / failures at the cap | {len(snap.images)} / 0 | "
        f"{len(snap.embedded)} / {len(snap.failed_at_cap)} |",
        f"| crawl tasks done (attempts) | {len(snap.tasks)} | "
        f"{sum(t['status'] == 'done' for t in snap.tasks)} ({attempts}) |",
        f"| exits nobody asked for | 0 | {len(run.unplanned)} |",
        "",
        "| invariant | held | evidence |",
        "|---|---|---|",
        *(f"| {c.name} | {'yes' if c.ok else '**NO**'} | {c.detail} |" for c in run.checks),
    ]
    if run.unplanned:
        lines += ["", "Exits nobody asked for:", *(f"- {u}" for u in run.unplanned)]
    return "\n".join(lines)
