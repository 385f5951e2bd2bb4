"""The signed internal API over a real socket: auth, every kind of bad body, upload-url, brands.

Every error must be a 4xx JSON ``{"error": "<one line>"}`` and must queue nothing.
"""

from __future__ import annotations

import hashlib
import json
import time

import httpx
import msgspec
import pytest

from rk.core.api.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER
from rk.core.api.wire import BrandRef
from rk.core.uids import brand_uid
from rk.server.platform.db.tables import IngestJob
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import (
    INGEST,
    UPLOAD_URL,
    Backend,
    add_brand,
    job_count,
    show,
)
from tests.integration.server.images import jpeg

GOOD = msgspec.json.encode(show("ss25/good", ["https://img.example/1.jpg"]))


def good_dict() -> dict:
    return json.loads(GOOD)


def assert_error(response: httpx.Response, status: int, *words: str) -> str:
    """The response is ``status`` with a one-line JSON error mentioning ``words``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["error"]
    message = body["error"]
    assert message
    assert "\n" not in message
    assert len(message) <= 300
    for word in words:
        assert word.lower() in message.lower(), message
    return message


@pytest.fixture
async def backend(start_backend: StartBackend) -> Backend:
    return await start_backend(workers=0)


async def test_unsigned_and_badly_signed_requests_are_401(backend: Backend) -> None:
    plain = await backend.client.post(INGEST, content=GOOD)
    assert_error(plain, 401, "missing")
    wrong_secret = await backend.signed("POST", INGEST, GOOD, secret="not-the-secret")
    assert_error(wrong_secret, 401, "signature does not match")
    stale = await backend.signed("POST", INGEST, GOOD, now=int(time.time()) - 301)
    assert_error(stale, 401, "timestamp")
    future = await backend.signed("POST", INGEST, GOOD, now=int(time.time()) + 400)
    assert_error(future, 401, "timestamp")
    garbled = await backend.client.post(
        INGEST, content=GOOD, headers={TIMESTAMP_HEADER: "yesterday", SIGNATURE_HEADER: "ab"}
    )
    assert_error(garbled, 401, "unix seconds")
    assert await job_count() == 0


async def test_replayed_request_with_an_old_timestamp_is_401(backend: Backend) -> None:
    first = await backend.signed("POST", INGEST, GOOD, now=int(time.time()) - 200)
    assert first.status_code == 202
    replay = first.request
    headers = {k: replay.headers[k] for k in (TIMESTAMP_HEADER, SIGNATURE_HEADER)}
    old = {TIMESTAMP_HEADER: str(int(time.time()) - 3600)}
    old[SIGNATURE_HEADER] = headers[SIGNATURE_HEADER]
    assert_error(await backend.client.post(INGEST, content=GOOD, headers=old), 401, "timestamp")
    assert await job_count() == 1


async def test_signature_covers_body_and_path(backend: Backend) -> None:
    signed = await backend.signed("POST", INGEST, b"{}")
    tampered = signed.request.headers
    keep = {k: tampered[k] for k in (TIMESTAMP_HEADER, SIGNATURE_HEADER)}
    response = await backend.client.post(INGEST, content=GOOD, headers=keep)
    assert_error(response, 401, "signature")
    other_path = await backend.client.post(UPLOAD_URL, content=b"{}", headers=keep)
    assert_error(other_path, 401, "signature")
    assert await job_count() == 0


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b'{"source": "vogue", "show_key": ', 400, ["not valid JSON"]),
        (b"", 400, []),
        (
            b'{"source":"vogue","show_key":"a","title":"\xff\xfe","details":[{"url":"u"}]}',
            400,
            ["UTF-8"],
        ),
        (b"[1, 2, 3]", 422, ["object"]),
        (b"null", 422, []),
    ],
)
async def test_malformed_bodies(backend: Backend, body: bytes, status: int, words: list) -> None:
    assert_error(await backend.ingest(body), status, *words)
    assert await job_count() == 0


def _mutated(path: list, value: object) -> bytes:
    data = good_dict()
    node = data
    for step in path[:-1]:
        node = node[step]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (["looks", 0, "number"], "1", ["Expected `int`", "number"]),
        (["title"], 123, ["Expected `str`", "title"]),
        (["looks"], "many", ["Expected `array`"]),
        (["looks", 0, "image", "url"], None, ["url"]),
        (["looks", 0, "number"], 0, [">= 1"]),
        (["source"], "Vogue Runway", ["source"]),
        (["colour"], "red", ["unknown field `colour`"]),
        (["looks", 0, "image", "width"], 3, ["unknown field `width`"]),
        (["title"], KeyError, ["missing required field `title`"]),
        (["source"], KeyError, ["missing required field `source`"]),
        (["looks", 0, "image"], KeyError, ["missing required field `image`"]),
        (["looks"], [], ["at least one look"]),
        (["title"], "x" * 100_000, ["length"]),
        (["show_key"], "", ["length"]),
        (["looks", 0, "image", "sha1"], "XYZ", ["sha1"]),
        (["brand"], {"uid": "abc"}, ["missing required field `name`"]),
        (["title"], "Spring\u0000", ["control characters", "$.title"]),
        (["show_key"], "ss25/\u0000a", ["control characters", "$.show_key"]),
        (["season"], "\u0000", ["control characters", "$.season"]),
        (["show_key"], "ss25/a\n", ["control characters", "$.show_key"]),
        (["brand"], {"uid": "a\u0000", "name": "X"}, ["control characters", "$.brand.uid"]),
        (["looks", 0, "image", "url"], "http://a/\u0000.jpg", ["look 1: bad image URL (control"]),
        (["looks", 0, "image", "url"], "http://[::1/x.jpg", ["look 1: bad image URL"]),
        (["looks", 0, "image", "url"], "ftp://a/x.jpg", ["look 1: bad image URL", "ftp"]),
        (["looks", 0, "image", "url"], "/x.jpg", ["look 1: bad image URL"]),
        (["kind"], "catwalk", ["kind"]),
        (["kind"], "street", ["kind 'street' is not the kind of source 'vogue'"]),
    ],
)
async def test_invalid_shows_are_422_and_queue_nothing(
    backend: Backend, path: list, value: object, words: list
) -> None:
    assert_error(await backend.ingest(_mutated(path, value)), 422, *words)
    assert await job_count() == 0


async def test_look_counts_and_duplicates(backend: Backend) -> None:
    many = show("ss25/many", [f"https://img.example/{n}.jpg" for n in range(10_000)])
    assert_error(await backend.ingest(msgspec.json.encode(many)), 422, "length")
    data = good_dict()
    data["looks"].append(dict(data["looks"][0]))
    assert_error(await backend.ingest(json.dumps(data).encode()), 422, "unique")
    assert await job_count() == 0


async def test_body_over_the_limit_is_413(backend: Backend) -> None:
    huge = _mutated(["title"], "x" * (3 * 1024 * 1024))
    assert_error(await backend.ingest(huge), 413)
    assert await job_count() == 0


async def test_brand_is_resolved_at_submission(backend: Backend) -> None:
    brand = await add_brand("Maison Aurele")
    accepted = await backend.ingest(show("ss25/aurele", ["https://i.example/1.jpg"], brand=brand))
    assert accepted.status_code == 202
    job_id = accepted.json()["job_id"]
    row = await IngestJob.select().where(IngestJob.id == job_id).first()
    assert row["brand_id"] > 0
    assert row["status"] == "pending"
    assert row["kind"] == "crawl"
    unknown = BrandRef(uid="nosuchuid", name="Nobody")
    rejected = await backend.ingest(show("ss25/nobody", ["https://i.example/1.jpg"], brand=unknown))
    assert_error(rejected, 422, "unknown brand", "nosuchuid")
    street = await backend.ingest(
        show("post/1", ["https://i.example/2.jpg"], source="theimpression", kind="street")
    )
    assert street.status_code == 202
    assert await job_count() == 2


async def test_the_queued_show_carries_its_sources_kind(backend: Backend) -> None:
    """An older spider's body without ``kind`` is queued with the kind of its source."""
    data = good_dict()
    del data["kind"]
    accepted = await backend.ingest(json.dumps(data).encode())
    assert accepted.status_code == 202, accepted.text
    row = await IngestJob.select().where(IngestJob.id == accepted.json()["job_id"]).first()
    assert json.loads(row["payload"])["kind"] == "runway"
    street = show("post/9", ["https://i.example/9.jpg"], source="theimpression", kind="street")
    accepted = await backend.ingest(msgspec.json.encode(street))
    row = await IngestJob.select().where(IngestJob.id == accepted.json()["job_id"]).first()
    assert json.loads(row["payload"])["kind"] == "street"


async def test_a_source_without_a_plugin_here_must_say_its_kind(backend: Backend) -> None:
    """The spider may hold a source's plugin alone; the backend never guesses its kind."""
    data = good_dict()
    data["source"] = "nosuchsite"
    del data["kind"]
    refused = await backend.ingest(json.dumps(data).encode())
    assert_error(refused, 422, "unknown source 'nosuchsite'", "no kind", "vogue")
    assert await job_count() == 0
    data["kind"] = "street"
    accepted = await backend.ingest(json.dumps(data).encode())
    assert accepted.status_code == 202, accepted.text
    row = await IngestJob.select().where(IngestJob.id == accepted.json()["job_id"]).first()
    assert json.loads(row["payload"])["kind"] == "street"


async def test_wrong_method_and_unknown_route_are_json(backend: Backend) -> None:
    assert_error(await backend.signed("GET", INGEST), 405)
    assert_error(await backend.signed("POST", "/admin/internal/nothing-here", b"{}"), 404)


async def test_openapi_schema_is_served(backend: Backend) -> None:
    schema = (await backend.client.get("/schema/openapi.json")).json()
    assert "/admin/internal/ingest" in schema["paths"]
    assert "/admin/internal/upload-url" in schema["paths"]
    schemes = schema["components"]["securitySchemes"]
    assert schemes["rkSignature"] == {**schemes["rkSignature"], "in": "header", "type": "apiKey"}
    assert schemes["rkTimestamp"]["name"] == "X-RK-Timestamp"
    ingest = schema["paths"]["/admin/internal/ingest"]["post"]
    assert ingest["security"] == [{"rkTimestamp": [], "rkSignature": []}]
    assert {"202", "400", "401", "409", "413", "422", "503"} <= set(ingest["responses"])
    error = {"$ref": "#/components/schemas/ErrorBody"}
    assert ingest["responses"]["409"]["content"]["application/json"]["schema"] == error
    assert "Retry-After" in ingest["responses"]["503"]["headers"]
    assert schema["components"]["schemas"]["ShowIngest"]["additionalProperties"] is False
    upload = schema["paths"]["/media/upload/{key}"]["put"]
    assert {"size", "sha1", "expires", "sig"} <= {p["name"] for p in upload["parameters"]}
    public = schema["paths"]["/api/shows"]["get"]
    assert "security" not in public
    assert public["responses"]["400"]["content"]["application/json"]["schema"] == error


def _upload_body(key: str, data: bytes, sha1: str | None = None) -> bytes:
    return json.dumps(
        {"key": key, "size": len(data), "sha1": sha1 or hashlib.sha1(data).hexdigest()}
    ).encode()


async def test_upload_url_presigns_a_content_key(backend: Backend) -> None:
    data = jpeg(1)
    sha1 = hashlib.sha1(data).hexdigest()
    key = f"runway/{sha1}.jpg"
    asked_at = int(time.time())
    response = await backend.signed("POST", UPLOAD_URL, _upload_body(key, data))
    answered_at = int(time.time())
    assert response.status_code == 200, response.text
    grant = response.json()
    assert grant["method"] == "PUT"
    # media.upload_url_ttl_s (900) from the moment the backend signed, within the round trip
    assert asked_at + 900 <= grant["expires_at"] <= answered_at + 900
    put = await backend.client.put(grant["url"], content=data, headers=grant["headers"])
    assert put.status_code == 201, put.text
    info = await backend.storage.head(key)
    assert info is not None
    assert info.size == len(data)


@pytest.mark.parametrize(
    ("key", "word"),
    [
        ("../runway/{sha1}.jpg", "content-addressed"),
        ("runway/../../{sha1}.jpg", "content-addressed"),
        ("runway/{sha1}.png", "content-addressed"),
        ("thumb/{sha1}.jpg", "thumb_of"),
        ("runway/{upper}.jpg", "content-addressed"),
        ("catwalk/{sha1}.jpg", "content-addressed"),
        ("/runway/{sha1}.jpg", "content-addressed"),
        ("runway/{sha1}.jpg/..", "content-addressed"),
    ],
)
async def test_upload_url_refuses_keys_that_are_not_content_addressed(
    backend: Backend, key: str, word: str
) -> None:
    data = jpeg(2)
    sha1 = hashlib.sha1(data).hexdigest()
    bad = key.format(sha1=sha1, upper=sha1.upper())
    response = await backend.signed("POST", UPLOAD_URL, _upload_body(bad, data, sha1))
    assert_error(response, 422, word)


async def test_upload_url_for_a_thumbnail_and_for_a_stored_key(backend: Backend) -> None:
    data, thumb = jpeg(4), jpeg(5, (64, 96))
    original_sha1 = hashlib.sha1(data).hexdigest()
    body = json.loads(_upload_body(f"thumb/{original_sha1}.jpg", thumb))
    body["thumb_of"] = original_sha1
    response = await backend.signed("POST", UPLOAD_URL, json.dumps(body).encode())
    assert response.status_code == 200, response.text
    grant = response.json()
    assert grant["exists"] is False
    put = await backend.client.put(grant["url"], content=thumb, headers=grant["headers"])
    assert put.status_code == 201, put.text
    again = await backend.signed("POST", UPLOAD_URL, json.dumps(body).encode())
    assert again.json()["exists"] is True
    wrong = dict(body, thumb_of=hashlib.sha1(b"x").hexdigest())
    assert_error(await backend.signed("POST", UPLOAD_URL, json.dumps(wrong).encode()), 422)


async def test_upload_url_checks_sha1_and_size(backend: Backend) -> None:
    data = jpeg(3)
    sha1 = hashlib.sha1(data).hexdigest()
    other = hashlib.sha1(b"other").hexdigest()
    mismatch = _upload_body(f"runway/{sha1}.jpg", data, other)
    assert_error(await backend.signed("POST", UPLOAD_URL, mismatch), 422, "does not match")
    too_big = json.dumps({"key": f"street/{sha1}.jpg", "size": 31 * 1024 * 1024, "sha1": sha1})
    assert_error(await backend.signed("POST", UPLOAD_URL, too_big.encode()), 422, "limit")
    unsigned = await backend.client.post(
        UPLOAD_URL, content=_upload_body(f"runway/{sha1}.jpg", data)
    )
    assert_error(unsigned, 401)


async def test_brand_lookup_by_uid_and_id(backend: Backend) -> None:
    brand = await add_brand("Ottavia Rinaldi")
    by_uid = await backend.signed("GET", f"/admin/internal/brands/{brand.uid}")
    assert by_uid.status_code == 200, by_uid.text
    info = by_uid.json()
    assert info["uid"] == brand.uid
    assert info["name"] == "Ottavia Rinaldi"
    by_id = await backend.signed("GET", f"/admin/internal/brands/{info['id']}")
    assert by_id.json() == info
    assert_error(await backend.signed("GET", "/admin/internal/brands/zzzzzzzz"), 404, "no brand")
    assert_error(await backend.client.get(f"/admin/internal/brands/{brand.uid}"), 401)


async def test_a_brand_added_after_a_miss_is_found(backend: Backend) -> None:
    future_uid = brand_uid(1)
    early = show(
        "ss25/early", ["https://i.example/1.jpg"], brand=BrandRef(uid=future_uid, name="B")
    )
    assert_error(await backend.ingest(early), 422, "unknown brand")
    assert (await add_brand("Brand Later")).uid == future_uid
    assert (await backend.ingest(early)).status_code == 202
    assert (await backend.ingest(early)).status_code == 202
    assert await job_count() == 2
