"""``/schema`` that works offline: rk's own page of the OpenAPI document, plus JSON and YAML.

Litestar's default schema UIs load their scripts from a CDN and show a blank page on a
closed network. This page is rendered on the server from the same OpenAPI document, in
rk's layout, with nothing to fetch from elsewhere: every operation with its parameters,
and every schema with its fields. The document itself is at ``/schema/openapi.json`` and
``/schema/openapi.yaml``.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, YamlRenderPlugin

METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    """A short type name of a JSON schema: ``integer``, ``ShowCard``, ``array of Picture``…"""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "oneOf" in schema or "anyOf" in schema:
        options = schema.get("oneOf") or schema.get("anyOf") or []
        return " | ".join(_type(option) for option in options)
    kind = str(schema.get("type", "any"))
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    return kind


def _body_schema(answer: dict[str, Any]) -> dict[str, Any]:
    """The schema of a response's first content type ({} when it has none)."""
    for media in answer.get("content", {}).values():
        schema: dict[str, Any] = media.get("schema", {})
        return schema
    return {}


def operations(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operation of the document, flattened for the template, grouped order by tag."""
    out = []
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            params = [
                {
                    "name": p.get("name", ""),
                    "where": p.get("in", ""),
                    "required": bool(p.get("required")),
                    "type": _type(p.get("schema", {})),
                    "description": p.get("description", ""),
                }
                for p in op.get("parameters", [])
            ]
            responses = [
                {
                    "status": status,
                    "description": answer.get("description", ""),
                    "type": _type(_body_schema(answer)) if answer.get("content") else "",
                }
                for status, answer in op.get("responses", {}).items()
            ]
            out.append(
                {
                    "tag": (op.get("tags") or ["other"])[0],
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "params": params,
                    "responses": responses,
                    "anchor": f"{method}-{path}".replace("/", "-")
                    .replace("{", "")
                    .replace("}", ""),
                }
            )
    return sorted(out, key=lambda o: (o["tag"], o["path"], METHODS.index(o["method"].lower())))


def schemas(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every named schema with its fields (name, type, required)."""
    out = []
    for name, schema in sorted(document.get("components", {}).get("schemas", {}).items()):
        required = set(schema.get("required", []))
        fields = [
            {"name": field, "type": _type(spec), "required": field in required}
            for field, spec in schema.get("properties", {}).items()
        ]
        out.append({"name": name, "description": schema.get("description", ""), "fields": fields})
    return out


class SchemaPage(OpenAPIRenderPlugin):
    """The OpenAPI document as an HTML page in rk's layout."""

    def __init__(self) -> None:
        super().__init__(path=["/", "/rk"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        """The page, rendered in the shared template environment."""
        engine: Any = request.app.template_engine
        page = engine.get_template("public/schema.html").render(
            request=request,
            flashes=[],
            info=openapi_schema.get("info", {}),
            operations=operations(openapi_schema),
            schemas=schemas(openapi_schema),
        )
        return page.encode()


def openapi_config(title: str, version: str) -> OpenAPIConfig:
    """The backend's OpenAPI config: this page at ``/schema``, JSON and YAML beside it."""
    return OpenAPIConfig(
        title=title,
        version=version,
        path="/schema",
        render_plugins=[SchemaPage(), JsonRenderPlugin(), YamlRenderPlugin()],
    )
