"""The ingest half of the wire protocol: a show with its looks and images as a spider
submits it, and the presigned uploads it asks for first. Import them from ``rk.core.api.wire``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from rk.core.api.wire_base import (
    LINE,
    Inbound,
    Kind,
    LookNumber,
    ObjectKey,
    Outbound,
    Sha1Hex,
    ShortText,
    ShowKey,
    Size,
    SourceName,
    Url,
    url_problem,
)
from rk.core.web_urls import web_url_problem

MAX_LOOKS = 2000


MAX_DETAILS = 2000


class ImageRef(Inbound, kw_only=True):
    """One image: always its source URL, plus the storage key when the spider uploaded it.

    ``look`` is for detail shots: the number of the look the detail belongs to (None: not
    linked); the backend ignores it on a look's own image. ``thumb_url`` is a smaller
    rendition the site serves of the same photo: whoever makes the thumbnail may make it
    from that instead of decoding the original (``rk.core.runtime.renditions``).
    """

    url: Url
    key: ObjectKey | None = None
    size: Size | None = None
    sha1: Sha1Hex | None = None
    look: LookNumber | None = None
    thumb_url: Url | None = None


def ref_problem(ref: ImageRef) -> str | None:
    """Why an image's ``url`` or ``thumb_url`` cannot be fetched, or None."""
    if problem := url_problem(ref.url):
        return f"bad image URL ({problem})"
    if ref.thumb_url is not None and (problem := url_problem(ref.thumb_url)):
        return f"bad thumbnail URL ({problem})"
    return None


class Look(Inbound, kw_only=True):
    """One runway look: its number in the show, its main image and the model wearing it."""

    number: LookNumber
    image: ImageRef
    model_name: ShortText = ""


class BrandRef(Inbound, kw_only=True):
    """The brand a show belongs to, as the backend handed it to the spider."""

    uid: Annotated[str, Meta(min_length=1, max_length=64, pattern=LINE)]
    name: ShortText


class ShowIngest(Inbound, kw_only=True):
    """One show (runway) or post (street style) submitted for ingest.

    ``kind`` is the source's kind (its storage prefix). The backend checks it against the
    source's plugin and fills it in when an older spider leaves it out; a source the
    backend has no plugin for is refused, so a kind is never guessed.
    """

    source: SourceName
    kind: Kind | None = None
    show_key: ShowKey
    title: ShortText
    brand: BrandRef | None = None
    season: ShortText = ""
    city: ShortText = ""
    date: Annotated[str, Meta(max_length=40, pattern=LINE)] = ""
    url: Annotated[str, Meta(max_length=4096, pattern=LINE)] = ""
    designer: ShortText = ""
    author: ShortText = ""
    looks: Annotated[list[Look], Meta(max_length=MAX_LOOKS)] = []
    details: Annotated[list[ImageRef], Meta(max_length=MAX_DETAILS)] = []

    def __post_init__(self) -> None:
        if self.url and (problem := web_url_problem(self.url)):
            raise ValueError(f"bad show URL ({problem}) - at `$.url`")
        if not self.looks and not self.details:
            raise ValueError("a show needs at least one look or detail image")
        numbers = [look.number for look in self.looks]
        if len(set(numbers)) != len(numbers):
            raise ValueError("look numbers must be unique within a show")
        for look in self.looks:  # labels are made only for the error: most shows have none
            if problem := ref_problem(look.image):
                raise ValueError(f"look {look.number}: {problem}")
        for n, ref in enumerate(self.details, start=1):
            if problem := ref_problem(ref):
                raise ValueError(f"detail {n}: {problem}")

    def images(self) -> list[ImageRef]:
        """Every image of the show: looks in order, then details in order."""
        return [look.image for look in self.looks] + list(self.details)


class IngestAccepted(Outbound, kw_only=True):
    """Answer to ``POST ingest``: the queued job."""

    job_id: int


class UploadUrlRequest(Inbound, kw_only=True):
    """Ask for a presigned PUT for one content-addressed key.

    ``size`` and ``sha1`` always describe the bytes about to be PUT. For a thumbnail,
    ``thumb_of`` is the SHA-1 of the original it was made from, and ``key`` must be
    ``thumb/<thumb_of>.jpg`` (a thumbnail is keyed by its original, not its own bytes).
    """

    key: ObjectKey
    size: Annotated[int, Meta(ge=1, le=2**40)]
    sha1: Sha1Hex
    content_type: Annotated[str, Meta(pattern=r"^image/[a-z0-9.+-]{1,40}$")] = "image/jpeg"
    thumb_of: Sha1Hex | None = None

    def __post_init__(self) -> None:
        if self.thumb_of is not None and self.key != f"thumb/{self.thumb_of}.jpg":
            raise ValueError("a thumbnail's key must be thumb/<thumb_of>.jpg")
        if self.key.startswith("thumb/") and self.thumb_of is None:
            raise ValueError("a thumb/ key needs thumb_of, the SHA-1 of its original")


class UploadUrl(Outbound, kw_only=True):
    """A presigned PUT: send the bytes to ``url`` with ``method`` and ``headers`` before expiry.

    ``exists`` true means storage already holds this key (objects are never replaced; a
    content key's bytes are its sha1's): the spider skips the PUT, and ``url`` may be empty.
    """

    url: str
    method: Literal["PUT"] = "PUT"
    headers: dict[str, str] = {}
    expires_at: int
    exists: bool = False


MAX_UPLOADS_PER_REQUEST = 500


class UploadUrlsRequest(Inbound, kw_only=True):
    """Presigned PUTs for many keys in one signed request: a show's originals, or thumbnails."""

    uploads: Annotated[
        list[UploadUrlRequest], Meta(min_length=1, max_length=MAX_UPLOADS_PER_REQUEST)
    ]


class UploadUrls(Outbound, kw_only=True):
    """One ``UploadUrl`` per requested upload, in the request's order."""

    uploads: list[UploadUrl]
