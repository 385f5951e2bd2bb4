"""Complete the generated OpenAPI document with what Litestar cannot infer.

Litestar documents each route's success answer and a generic 400. rk's answers are
richer, and the document says so: the signature scheme on every ``/admin/internal``
route, the one error body (``{"error": "..."}``) on every 4xx and 503, every status a
route can answer (401 and 409 for signed routes, 404 where a path addresses something,
413 for bodies, 422 for values, 429 for photo searches over the per-address rate, 503
with ``Retry-After`` when the database or storage is down), and the query parameters of
the signed upload URL, which its handler reads itself.
"""

from __future__ import annotations

from typing import Any, get_args

import msgspec
from litestar import Litestar
from litestar.openapi.spec import (
    Components,
    OpenAPIHeader,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    Reference,
    Schema,
    SecurityScheme,
)
from litestar.openapi.spec.enums import OpenAPIType

from rk.core.api.signing import NONCE_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER
from rk.core.api.wire import Inbound

SIGNED = "/admin/internal/"
PHOTO_SEARCH = "/api/search/image"
ERROR = "ErrorBody"
SECURITY = {
    "rkTimestamp": SecurityScheme(
        type="apiKey",
        name=TIMESTAMP_HEADER,
        security_scheme_in="header",
        description="Unix seconds when the request was signed, plain decimal digits.",
    ),
    "rkSignature": SecurityScheme(
        type="apiKey",
        name=SIGNATURE_HEADER,
        security_scheme_in="header",
        description=(
            "Hex HMAC-SHA256 (ingest secret) of METHOD\\nPATH?QUERY\\nTIMESTAMP\\n"
            f"sha256_hex(BODY), plus \\nNONCE when {NONCE_HEADER} (8-64 of A-Z a-z 0-9 _ -)"
            " is sent. Each signature is accepted once: a replay is a 409. See docs/api.md."
        ),
    ),
    "opsToken": SecurityScheme(
        type="http",
        scheme="bearer",
        description=(
            "server.ops_token: opens /metrics and the checks of /readyz from any address;"
            " clients in server.ops_allow (loopback by default) need none."
        ),
    ),
}
OPS = ("/metrics", "/readyz")
"""Routes whose detail only ``server.ops_allow`` clients or the ops token see."""
WHY_AT = {("/metrics", 403): "The client is outside server.ops_allow and sent no valid ops token"}
"""A status whose reason on this path is not the one in ``WHY``."""
WHY = {
    400: "Malformed request (JSON that does not parse, a parameter of the wrong type)",
    401: "Missing, malformed, stale or wrong signature",
    404: "Nothing at this address",
    409: "A replayed signed request, or a lease this worker no longer holds",
    410: "The signed upload URL has expired",
    403: "The upload URL's signature does not match",
    413: "The body is over the size limit",
    422: "A value the backend cannot accept; the error names it",
    429: "Too many photo searches from one address: retry after Retry-After seconds",
    503: "The database or storage is down: retry after Retry-After seconds",
}
SUCCESSES = {("/admin/internal/crawl/tasks", "post"): {204: "No task of this source is waiting"}}
"""Successes a handler answers with a bare Response, which Litestar cannot see."""
UPLOAD_QUERY = {
    "size": ("The exact byte size the URL allows", Schema(type=OpenAPIType.INTEGER, minimum=1)),
    "sha1": ("The SHA-1 the body must hash to", Schema(type=OpenAPIType.STRING)),
    "expires": ("Unix seconds after which the URL is refused", Schema(type=OpenAPIType.INTEGER)),
    "sig": (
        "The backend's signature of key, size, sha1 and expiry",
        Schema(type=OpenAPIType.STRING),
    ),
}


def _error_schema() -> Schema:
    return Schema(
        type=OpenAPIType.OBJECT,
        properties={"error": Schema(type=OpenAPIType.STRING, description="One line")},
        required=["error"],
        additional_properties=False,
        description="Every error answer: one line saying what is wrong",
    )


def _error(status: int, path: str) -> OpenAPIResponse:
    headers: dict[str, OpenAPIHeader | Reference] | None = None
    if status in (429, 503):
        retry = OpenAPIHeader(schema=Schema(type=OpenAPIType.INTEGER), description="Seconds")
        headers = {"Retry-After": retry}
    media = OpenAPIMediaType(schema=Reference(ref=f"#/components/schemas/{ERROR}"))
    return OpenAPIResponse(
        description=WHY_AT.get((path, status), WHY[status]),
        content={"application/json": media},
        headers=headers,
    )


def statuses(path: str, method: str, op: Operation) -> set[int]:
    """The error statuses this operation can answer, besides its documented successes."""
    found = {503}
    params = op.parameters or []
    if params or op.request_body is not None:
        found |= {400, 422}
    if "{" in path:
        found.add(404)
    if op.request_body is not None or method in ("post", "put"):
        found |= {413, 422}
    if path.startswith(SIGNED):
        found |= {401, 409, 422}
    if path.startswith("/media/upload/"):
        found |= {403, 404, 410, 422}
    if path.startswith("/api/"):
        found |= {400, 404, 422}  # 404 also for a filter naming no brand
    if path == PHOTO_SEARCH:
        found |= {413, 429}
    if path == "/metrics":
        found.add(403)
    return found


def _complete(path: str, method: str, op: Operation) -> None:
    responses = op.responses if op.responses is not None else {}
    for status in statuses(path, method, op):
        responses[str(status)] = _error(status, path)
    for status, why in SUCCESSES.get((path, method), {}).items():
        responses[str(status)] = OpenAPIResponse(description=why)
    op.responses = responses
    if path.startswith(SIGNED):
        op.security = [{"rkTimestamp": [], "rkSignature": []}]
    if path in OPS:
        op.security = [{}, {"opsToken": []}]
    if path.startswith("/media/upload/"):
        names = {p.name for p in op.parameters or [] if isinstance(p, Parameter)}
        extra = [
            Parameter(name=n, param_in="query", required=True, description=d, schema=s)
            for n, (d, s) in UPLOAD_QUERY.items()
            if n not in names
        ]
        op.parameters = [*(op.parameters or []), *extra]


def _inbound_classes() -> list[type]:
    """Every body the backend decodes strictly (unknown fields are a 422)."""
    classes: list[type] = []
    todo: list[type] = [Inbound]
    while todo:
        cls = todo.pop()
        classes.append(cls)
        todo.extend(cls.__subclasses__())
    return classes


def _documented_patterns(cls: type) -> dict[str, str]:
    """Field → pattern the Struct checks in code, not in the decoder (``extra_json_schema``)."""
    found: dict[str, str] = {}
    for field in msgspec.structs.fields(cls):
        for meta in get_args(field.type)[1:]:
            extra = getattr(meta, "extra_json_schema", None) or {}
            if "pattern" in extra:
                found[field.encode_name] = extra["pattern"]
    return found


def complete_openapi(app: Litestar) -> None:
    """Add the security scheme, the error body and every error status to ``app``'s document."""
    document = app.openapi_schema
    components = document.components if isinstance(document.components, Components) else None
    if components is None:
        components = Components()
        document.components = components
    components.schemas = {**(components.schemas or {}), ERROR: _error_schema()}
    for cls in _inbound_classes():
        found = components.schemas.get(cls.__name__)
        if isinstance(found, Schema):
            found.additional_properties = False
            for field, pattern in _documented_patterns(cls).items():
                prop = (found.properties or {}).get(field)
                if isinstance(prop, Schema):
                    prop.pattern = pattern
    components.security_schemes = {**(components.security_schemes or {}), **SECURITY}
    for path, item in (document.paths or {}).items():
        for method in ("get", "post", "put", "patch", "delete"):
            op: Any = getattr(item, method, None)
            if isinstance(op, Operation):
                _complete(path, method, op)
