"""Exports of what a visitor is looking at: a filtered listing or a search result (and a
board, through ``export_items``) as a ZIP of images at a chosen rendition with a CSV and a
JSON of metadata and credits, or as a printable contact sheet (A4 or Letter)."""

from __future__ import annotations

from rk.server.site.exports.items import ExportItem, export_items
from rk.server.site.exports.routes import Paper, Rendition, sheet_of, zip_of
from rk.server.site.exports.zipped import zip_stream

__all__ = [
    "ExportItem",
    "Paper",
    "Rendition",
    "export_items",
    "sheet_of",
    "zip_of",
    "zip_stream",
]
