"""The invariants that must hold once the system settled, each as a named check with the
evidence (which shows, images, keys or requests) when it does not hold.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tests.system.archive_state import Snapshot, show_key_of
from tests.system.balancer import Exchange
from tests.system.site import GroundTruth, photo_of

TASK_ROUTE = re.compile(r"/admin/internal/crawl/tasks/(\d+)/(heartbeat|result)$")


@dataclass(frozen=True)
class Check:
    """One invariant: whether it held, and what broke it."""

    name: str
    ok: bool
    detail: str


def sample(items: list[Any], n: int = 6) -> str:
    shown = ", ".join(str(i) for i in items[:n])
    return shown + (f", … ({len(items)} in all)" if len(items) > n else "")


def _check(name: str, problems: list[Any], fine: str) -> Check:
    return Check(name, not problems, fine if not problems else sample(problems))


def live_articles(snap: Snapshot) -> list[dict[str, Any]]:
    return [a for a in snap.articles if not a["deleted_at"]]


def shows_exactly_once(truth: GroundTruth, snap: Snapshot) -> Check:
    counts = Counter(a["show_key"] for a in live_articles(snap))
    expected = {s.key for s in truth.archivable()}
    problems = [f"{k}: missing" for k in sorted(expected - set(counts))]
    problems += [f"{k}: {n} articles" for k, n in sorted(counts.items()) if n > 1]
    problems += [f"{k}: not on the site" for k in sorted(set(counts) - expected)]
    return _check("every show archived exactly once", problems, f"{len(expected)} shows")


def images_as_served(truth: GroundTruth, snap: Snapshot) -> Check:
    by_key = {a["show_key"]: a["id"] for a in live_articles(snap)}
    photos: dict[int, Counter[str | None]] = {}
    for row in snap.images:
        photos.setdefault(row["article_id"], Counter())[photo_of(row["source_url"])] += 1
    problems = []
    for show in truth.archivable():
        if show.key not in by_key:
            continue
        stored = photos.get(by_key[show.key], Counter())
        served = show.served()
        lost = served - set(stored)
        extra = set(stored) - served
        twice = [p for p, n in stored.items() if n > 1]
        for what, found in (("not stored", lost), ("not served", extra), ("twice", twice)):
            if found:
                problems.append(f"{show.key}: {len(found)} {what}")
    served = sum(len(s.served()) for s in truth.archivable())
    return _check("every served image stored, once", problems, f"{served} images")


def missing_named(truth: GroundTruth, snap: Snapshot) -> Check:
    created: dict[str, list[str]] = {}
    for job in snap.jobs:
        if job["outcome"] == "created":
            created.setdefault(show_key_of(job), []).append(job["note"])
    problems = []
    for show in truth.archivable():
        notes = created.get(show.key, [])
        if len(notes) != 1:
            problems.append(f"{show.key}: {len(notes)} 'created' jobs")
            continue
        note = notes[0]
        named = sorted(int(n) for n in re.findall(r"look (\d+) \(", note))
        if named != show.missing_looks or ("missing" in note) != bool(show.missing_looks):
            problems.append(f"{show.key}: note {note!r}, site 404s looks {show.missing_looks}")
    missing = sum(len(s.missing_looks) for s in truth.archivable())
    return _check("exactly the 404s named in the job notes", problems, f"{missing} named")


def no_duplicate_rows(snap: Snapshot) -> Check:
    slots = Counter((r["article_id"], r["role"], r["position"]) for r in snap.images)
    problems = [
        f"article {a} {role} {pos}: {n} rows" for (a, role, pos), n in slots.items() if n > 1
    ]
    return _check("no duplicate image rows", problems, f"{len(snap.images)} rows")


def objects_match_rows(snap: Snapshot) -> tuple[Check, Check]:
    refs = {r["key"] for r in snap.images if r["key"]}
    refs |= {r["thumb_key"] for r in snap.images if r["thumb_key"]}
    orphans = sorted(snap.objects - refs)
    missing = sorted(refs - snap.objects)
    return (
        _check("no object without a row (orphans)", orphans, f"{len(snap.objects)} objects"),
        _check("no row without its object (missing)", missing, f"{len(refs)} keys"),
    )


def vectors(snap: Snapshot) -> tuple[Check, Check]:
    stored = [r["id"] for r in snap.images if r["key"]]
    lacking = [i for i in stored if i not in snap.embedded and i not in snap.failed_at_cap]
    unplaced = [i for i, at in snap.embedded.items() if not at or not snap.neighbours.get(i)]
    return (
        _check(
            "every image has a vector or a counted failure",
            lacking,
            f"{len(snap.embedded)} vectors, {len(snap.failed_at_cap)} failed at the cap",
        ),
        _check("neighbours for every embedded image", unplaced, f"{len(snap.embedded)} placed"),
    )


def nothing_stuck(snap: Snapshot) -> Check:
    """No crawl task queued or running, no job pending or processing, no lease held."""
    problems = [
        f"task {t['id']} {t['status']}" for t in snap.tasks if t["status"] in ("queued", "running")
    ]
    problems += [
        f"job {j['id']} {j['status']}"
        for j in snap.jobs
        if j["status"] in ("pending", "processing")
    ]
    problems += [f"image {i}: embedding lease held" for i in sorted(snap.leased)]
    return _check(
        "no task, job or embedding lease left running or stuck",
        problems,
        f"{len(snap.tasks)} tasks, {len(snap.jobs)} jobs ended",
    )


FAULT_CAUSES = re.compile(
    r"S3|storage|HTTP (429|502|503)|onnect|database|lease|timed? ?out|ReadError|RemoteProtocol"
)


def attempts_explained(snap: Snapshot, interruptions: int) -> Check:
    """Re-claims of crawl tasks: at most two (one per spider worker) per fault that can cut a
    lease. A task or job that failed for good: its last error is one the faults cause (storage
    or site down, database gone, lease lost), and its show is archived all the same."""
    extra = sum(max(0, t["attempts"] - 1) for t in snap.tasks)
    allowed = 2 * interruptions
    failed_jobs = [j for j in snap.jobs if j["status"] == "failed"]
    failed_tasks = [t for t in snap.tasks if t["status"] == "failed"]
    archived = {a["show_key"] for a in live_articles(snap)}
    problems = [f"{extra} task re-claims, the faults explain {allowed}"] if extra > allowed else []
    for job in failed_jobs:
        if not FAULT_CAUSES.search(job["last_error"]):
            problems.append(f"job {job['id']} failed: {job['last_error'][:120]}")
        elif show_key_of(job) not in archived:
            problems.append(f"job {job['id']} failed and its show is lost")
    problems += [
        f"task {t['id']} failed: {t['last_error'][:120]}"
        for t in failed_tasks
        if not FAULT_CAUSES.search(t["last_error"])
    ]
    retried = sum(1 for j in snap.jobs if j["attempts"] > 1)
    detail = (
        f"{extra} task re-claims (faults explain {allowed}); {retried} jobs retried; "
        f"failed for good: {len(failed_tasks)} tasks, {len(failed_jobs)} jobs"
        + "".join(f"; job {j['id']}: {j['last_error'][:90]}" for j in failed_jobs[:3])
    )
    return Check("attempts and outcomes explained by the faults", not problems, detail)


def _worker_pid(body: str) -> int:
    """The pid in a claim's worker id (``<host>-<pid>-<n>``), 0 if none."""
    try:
        return int(str(json.loads(body or "{}").get("worker", "")).rsplit("-", 2)[-2])
    except (ValueError, IndexError):
        return 0


def _resolved(bad: Exchange, later: list[Exchange], snap: Snapshot, killed: set[int]) -> bool:
    """Whether a 5xx was followed by the same work succeeding.

    Shows and uploads are judged by their result (the show archived, every key asked for
    stored with its object), crawl-task calls by the task ending done, a claim by a later
    answered claim of the same worker (or that worker's process being killed by a fault),
    a request for host starts by every crawl task ending done (refused, the spider paces
    itself with its own limits and asks again only when it next needs a start: there is no
    work to retry), anything else by a later answered call of the same method and path.
    """
    ok = [e for e in later if e.status < 300 or e.status == 409]
    if bad.path.endswith("/hosts/tokens"):
        return all(t["status"] == "done" for t in snap.tasks)
    if bad.path.endswith("/ingest"):
        key = json.loads(bad.text or "{}").get("show_key")
        return any(a["show_key"] == key for a in live_articles(snap))
    if bad.path.endswith(("/upload-url", "/upload-urls")):
        asked = json.loads(bad.text or "{}")
        wanted = [u.get("key") for u in asked.get("uploads", [asked])]
        keys = {r["key"] for r in snap.images} | {r["thumb_key"] for r in snap.images}
        return all(key in keys and key in snap.objects for key in wanted)
    task = TASK_ROUTE.search(bad.path.split("?")[0])
    if task:
        tasks = {t["id"]: t["status"] for t in snap.tasks}
        return tasks.get(int(task.group(1))) == "done"
    same = [
        e for e in ok if e.method == bad.method and e.path.split("?")[0] == bad.path.split("?")[0]
    ]
    if bad.path.split("?")[0].endswith("/crawl/tasks"):
        return any(e.body == bad.body for e in same) or _worker_pid(bad.text) in killed
    return bool(same)


def no_unretried_5xx(log: list[Exchange], snap: Snapshot, killed: set[int]) -> Check:
    """Every 5xx a worker got (from a backend or the balancer) was retried to success."""
    bad = [(n, e) for n, e in enumerate(log) if e.status >= 500]
    problems = [
        f"{e.method} {e.path} → {e.status}"
        for n, e in bad
        if not _resolved(e, log[n + 1 :], snap, killed)
    ]
    return _check(
        "every 5xx to a worker retried to success",
        problems,
        f"{len(bad)} 5xx of {len(log)} requests, all retried to success",
    )
