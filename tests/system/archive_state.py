"""What the system holds once it settled, read straight from PostgreSQL and the bucket."""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
from PIL import Image

from rk.core.media_urls import read_url

S3 = "{http://s3.amazonaws.com/doc/2006-03-01/}"


@dataclass
class Snapshot:
    """Rows and objects, as plain dicts and sets."""

    articles: list[dict[str, Any]]
    images: list[dict[str, Any]]
    jobs: list[dict[str, Any]]
    tasks: list[dict[str, Any]]
    embedded: dict[int, int]
    failed_at_cap: set[int]
    neighbours: dict[int, int]
    leased: set[int]
    objects: set[str]


async def progress(dsn: str, model_cap: int) -> dict[str, int]:
    """Counts that must all reach 0 for the system to have settled."""
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        row = await conn.fetchrow(
            "SELECT"
            " (SELECT COUNT(*) FROM crawl_tasks WHERE status IN ('queued','running')) AS tasks,"
            " (SELECT COUNT(*) FROM ingest_jobs WHERE status IN ('pending','processing')) AS jobs,"
            " (SELECT COUNT(*) FROM images i WHERE i.key <> ''"
            "   AND NOT EXISTS (SELECT 1 FROM image_embeddings e WHERE e.image_id = i.id)"
            "   AND NOT EXISTS (SELECT 1 FROM image_embedding_failures f"
            "                   WHERE f.image_id = i.id AND f.failures >= $1)) AS unembedded,"
            " (SELECT COUNT(*) FROM image_embeddings WHERE neighbours_at = 0) AS unplaced",
            model_cap,
        )
        return dict(row)
    finally:
        await conn.close()


async def snapshot(dsn: str, s3: str, bucket: str, prefix: str, cap: int) -> Snapshot:
    """Every row the checks need and every object key in the bucket (without ``prefix``)."""
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        articles = [dict(r) for r in await conn.fetch("SELECT * FROM articles ORDER BY id")]
        images = [dict(r) for r in await conn.fetch("SELECT * FROM images ORDER BY id")]
        jobs = [dict(r) for r in await conn.fetch("SELECT * FROM ingest_jobs ORDER BY id")]
        tasks = [dict(r) for r in await conn.fetch("SELECT * FROM crawl_tasks ORDER BY id")]
        embedded = {
            r["image_id"]: r["neighbours_at"]
            for r in await conn.fetch("SELECT image_id, neighbours_at FROM image_embeddings")
        }
        failed = {
            r["image_id"]
            for r in await conn.fetch(
                "SELECT image_id FROM image_embedding_failures WHERE failures >= $1", cap
            )
        }
        neighbours = {
            r["image_id"]: r["n"]
            for r in await conn.fetch(
                "SELECT image_id, COUNT(*) AS n FROM image_neighbors GROUP BY image_id"
            )
        }
        now = int(time.time())
        leased = {
            r["id"]
            for r in await conn.fetch(
                "SELECT id FROM images i WHERE embed_leased_until > $1 AND NOT EXISTS"
                " (SELECT 1 FROM image_embeddings e WHERE e.image_id = i.id)",
                now,
            )
        }
    finally:
        await conn.close()
    objects = await list_bucket(s3, bucket, prefix)
    return Snapshot(articles, images, jobs, tasks, embedded, failed, neighbours, leased, objects)


async def list_bucket(s3: str, bucket: str, prefix: str) -> set[str]:
    """Every key under ``prefix/`` (ListObjectsV2, all pages), without the prefix."""
    keys: set[str] = set()
    token = ""
    async with httpx.AsyncClient(timeout=30) as http:
        while True:
            params = {"list-type": "2", "prefix": f"{prefix}/"}
            if token:
                params["continuation-token"] = token
            answer = await http.get(f"{s3}/{bucket}", params=params)
            answer.raise_for_status()
            root = ET.fromstring(answer.content)
            keys |= {(el.text or "")[len(prefix) + 1 :] for el in root.iter(f"{S3}Key")}
            token = root.findtext(f"{S3}NextContinuationToken") or ""
            if not token:
                return keys


KEY = re.compile(r"^(runway|street|thumb)/([0-9a-f]{40})\.jpg$")


async def unreadable(backend: str, secret: str, images: list[dict[str, Any]]) -> list[str]:
    """Why each stored image or thumbnail cannot be read back, through a backend's signed
    ``/media/<key>`` read (any key: public reads serve published ones only), as what its
    key promises."""
    problems: list[str] = []
    expires = int(time.time()) + 3600
    async with httpx.AsyncClient(timeout=30) as http:
        for row in images:
            if not row["key"]:
                continue
            for key, thumb in ((row["key"], False), (row["thumb_key"], True)):
                if not key:
                    problems.append(f"image {row['id']}: no thumbnail key")
                    continue
                answer = await http.get(read_url(backend, secret, key, expires))
                if answer.status_code != 200:
                    problems.append(f"image {row['id']}: {key}: HTTP {answer.status_code}")
                    continue
                problem = _content_problem(key, answer.content, thumb)
                if problem:
                    problems.append(f"image {row['id']}: {key}: {problem}")
    return problems


def _content_problem(key: str, data: bytes, thumb: bool) -> str:
    match = KEY.match(key)
    if match is None:
        return "not a content key"
    if not thumb and hashlib.sha1(data).hexdigest() != match.group(2):
        return "bytes do not hash to the key"
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except Exception as exc:
        return f"does not decode: {type(exc).__name__}"
    return ""


def show_key_of(job: dict[str, Any]) -> str:
    """The show key an ingest job's payload carries ('' for other kinds)."""
    try:
        return str(json.loads(job["payload"] or "{}").get("show_key", ""))
    except ValueError:
        return ""
