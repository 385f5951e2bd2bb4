"""A ZIP of an export, streamed: each image as storage gives it, then ``metadata.csv`` and
``metadata.json`` with every item's credits, and a ``README.txt`` saying what it is.

Images are stored, not deflated (they are compressed already); the metadata is deflated.
The archive is written to a sink that is emptied after every file, so memory holds one
image at a time. An image storage has lost is left out and listed in the README.
"""

from __future__ import annotations

import csv
import io
import time
import zipfile
from collections.abc import AsyncIterator

import msgspec

from rk.core.api.storage import Storage
from rk.server.site.exports.items import ExportItem

COLUMNS = [f for f in ExportItem.__struct_fields__ if f not in ("key", "thumb_url")]
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


class _Sink:
    """A write-only, unseekable stream whose bytes are taken out as they come."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.position = 0

    def write(self, data: bytes, /) -> int:
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        """Nothing is buffered here."""

    def close(self) -> None:
        """Nothing to release: the parts are drained by the caller."""

    def drain(self) -> bytes:
        out, self.parts = b"".join(self.parts), []
        return out


def cell(value: object) -> str:
    """A CSV cell a spreadsheet will not run: text starting like a formula gets a quote."""
    text = str(value)
    return f"'{text}" if text.startswith(_FORMULA) else text


def metadata_csv(items: list[ExportItem]) -> bytes:
    """One row per item, the credits' columns."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for item in items:
        writer.writerow([cell(getattr(item, name)) for name in COLUMNS])
    return out.getvalue().encode()


def metadata_json(items: list[ExportItem], title: str, url: str) -> bytes:
    """The export's title and address, and each item's credits."""
    rows = [{name: getattr(item, name) for name in COLUMNS} for item in items]
    doc = {"title": title, "exported_from": url, "exported_at": int(time.time()), "items": rows}
    return msgspec.json.format(msgspec.json.encode(doc), indent=2)


def _entry(name: str, compress: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, time.gmtime()[:6])
    info.compress_type = compress
    info.external_attr = 0o644 << 16
    return info


async def zip_stream(
    storage: Storage, items: list[ExportItem], title: str, url: str
) -> AsyncIterator[bytes]:
    """The ZIP's bytes, a file at a time."""
    sink = _Sink()
    kept: list[ExportItem] = []
    missing: list[str] = []
    with zipfile.ZipFile(sink, "w") as archive:
        for item in items:
            try:
                data = await storage.get(item.key)
            except FileNotFoundError:
                missing.append(item.filename)
                continue
            archive.writestr(_entry(f"images/{item.filename}", zipfile.ZIP_STORED), data)
            kept.append(item)
            yield sink.drain()
        readme = [f"{title}", f"Exported from {url}", f"{len(kept)} images in images/"]
        readme += [f"Left out (missing in storage): {name}" for name in missing]
        readme.append("Credits: metadata.csv and metadata.json (designer, photographer, source).")
        for name, data in (
            ("metadata.csv", metadata_csv(kept)),
            ("metadata.json", metadata_json(kept, title, url)),
            ("README.txt", ("\n".join(readme) + "\n").encode()),
        ):
            archive.writestr(_entry(name, zipfile.ZIP_DEFLATED), data)
    yield sink.drain()
