"""A published show as a IIIF Presentation 3 manifest (level 0: static images).

Museum and library viewers (Mirador, Universal Viewer) open it as a book of canvases: one
per look, then one per detail, in the show's order, each painted with the stored original
at its stored size and offering the thumbnail. Images whose size was never recorded cannot
be a canvas (a canvas needs its width and height); the manifest says how many it left out.
"""

from __future__ import annotations

from typing import Any

from rk.server.platform.web.templating import source_name
from rk.server.site.pictures import Picture, label
from rk.server.site.show import Show

CONTEXT = "http://iiif.io/api/presentation/3/context.json"


def _text(value: str) -> dict[str, list[str]]:
    """A language map with no stated language (``none``): crawled names are in many."""
    return {"none": [value]}


def _label(value: str) -> dict[str, list[str]]:
    """A label rk writes itself, in English."""
    return {"en": [value]}


def _absolute(base: str, url: str) -> str:
    return url if url.startswith(("https://", "http://")) else f"{base}{url}"


def _format(url: str) -> str:
    """The image's media type from its address (content keys end in their extension)."""
    path = url.split("?", 1)[0].lower()
    if path.endswith(".png"):
        return "image/png"
    if path.endswith(".webp"):
        return "image/webp"
    return "image/jpeg"


def canvas(manifest_id: str, base: str, pic: Picture, n: int) -> dict[str, Any]:
    """One picture as a canvas painted with its original."""
    canvas_id = f"{manifest_id.removesuffix('/manifest.json')}/canvas/{n}"
    original = _absolute(base, pic.url)
    body = {
        "id": original,
        "type": "Image",
        "format": _format(original),
        "width": pic.width,
        "height": pic.height,
    }
    made: dict[str, Any] = {
        "id": canvas_id,
        "type": "Canvas",
        "label": _label(label(pic.role, pic.position).capitalize()),
        "width": pic.width,
        "height": pic.height,
        "items": [
            {
                "id": f"{canvas_id}/page",
                "type": "AnnotationPage",
                "items": [
                    {
                        "id": f"{canvas_id}/page/painting",
                        "type": "Annotation",
                        "motivation": "painting",
                        "body": body,
                        "target": canvas_id,
                    }
                ],
            }
        ],
    }
    if pic.thumb_url:
        thumb = _absolute(base, pic.thumb_url)
        made["thumbnail"] = [{"id": thumb, "type": "Image", "format": _format(thumb)}]
    if pic.model_name:
        made["metadata"] = [{"label": _label("Model"), "value": _text(pic.model_name)}]
    return made


def manifest(show: Show, base: str) -> dict[str, Any]:
    """The show's manifest: its facts as metadata, its credit, its pictures as canvases."""
    manifest_id = f"{base}/shows/{show.id}/manifest.json"
    pictures = [*show.looks, *show.details]
    sized = [pic for pic in pictures if pic.width > 0 and pic.height > 0]
    facts = [
        ("Designer", show.designer or (show.brand.name if show.brand else "")),
        ("Season", show.season),
        ("City", show.city),
        ("Date", show.date[:10]),
        ("Source", source_name(show.source)),
    ]
    metadata = [{"label": _label(name), "value": _text(value)} for name, value in facts if value]
    if len(sized) < len(pictures):
        left_out = f"{len(pictures) - len(sized)} of {len(pictures)} (size not recorded)"
        metadata.append({"label": _label("Images left out"), "value": _label(left_out)})
    photographer = show.author if show.kind == "street" else ""
    credit = ", ".join(part for part in (photographer, source_name(show.source)) if part)
    made: dict[str, Any] = {
        "@context": CONTEXT,
        "id": manifest_id,
        "type": "Manifest",
        "label": _text(show.title),
        "metadata": metadata,
        "requiredStatement": {"label": _label("Credit"), "value": _text(credit or "rk archive")},
        "homepage": [
            {
                "id": f"{base}/shows/{show.id}",
                "type": "Text",
                "label": _text(show.title),
                "format": "text/html",
            }
        ],
        "items": [canvas(manifest_id, base, pic, n) for n, pic in enumerate(sized, start=1)],
    }
    if show.url.startswith(("https://", "http://")):
        made["homepage"].append(
            {
                "id": show.url,
                "type": "Text",
                "label": _label("At the source"),
                "format": "text/html",
            }
        )
    return made
