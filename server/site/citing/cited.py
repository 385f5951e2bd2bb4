"""What a citation names, taken from a published show or image view."""

from __future__ import annotations

from datetime import date

from msgspec import Struct

from rk.server.platform.web.templating import source_name
from rk.server.site.image import ImagePage, ShowRef
from rk.server.site.show import Show


class Cited(Struct, frozen=True, kw_only=True):
    """One cited work: a show, or one look (or street photo) of it.

    ``creator`` is the designer of a runway show (else its brand, else its title) and the
    photographer of street style (else its title); ``credit`` the photographer the source
    names (street style only: a runway show's author wrote its review, not the pictures);
    ``brand`` the label that showed it ("" for street style);
    ``published`` the show's date as the source gave it (ISO, "" when unknown).
    """

    key: str
    kind: str
    creator: str
    brand: str
    title: str
    season: str
    city: str
    look: str
    credit: str
    source: str
    source_url: str
    archive_url: str
    published: str
    accessed: date

    @property
    def published_parts(self) -> list[int]:
        """``[year, month, day]`` of ``published`` (as many parts as it has; [] unknown)."""
        head = self.published[:10]
        try:
            day = date.fromisoformat(head)
        except ValueError:
            return [int(head[:4])] if head[:4].isdigit() else []
        return [day.year, day.month, day.day]


def _of(
    show: Show | ShowRef, kind: str, ident: int, look: str, archive_url: str, accessed: date
) -> Cited:
    """The citation of ``show`` (or of one of its pictures, ``look`` naming it)."""
    brand = show.brand.name if show.brand else ""
    street = show.kind == "street"
    return Cited(
        key=f"rk-{kind}-{ident}",
        kind=kind,
        creator=(show.author or show.title) if street else (show.designer or brand or show.title),
        brand=brand,
        title=show.title,
        season=show.season,
        city=show.city,
        look=look,
        credit=show.author if street else "",
        source=source_name(show.source),
        source_url=show.url,
        archive_url=archive_url,
        published=show.date,
        accessed=accessed,
    )


def cited_show(show: Show, base: str, accessed: date) -> Cited:
    """The citation of a whole published show."""
    return _of(show, "show", show.id, "", f"{base}/shows/{show.id}", accessed)


def cited_image(page: ImagePage, base: str, accessed: date) -> Cited:
    """The citation of one published image: its look (or photo, or detail) number too."""
    counter, image_id = page.counter, page.image.image_id
    what = f"{counter.what.capitalize()} {counter.number}" if counter else ""
    return _of(page.show, "image", image_id, what, f"{base}/images/{image_id}", accessed)


def work_label(cited: Cited) -> str:
    """``Acne Studios, Spring 2025 Ready-to-Wear, Look 12``: the label (unless it is already
    the creator), the season (else the show's title) and the look."""
    brand = cited.brand if cited.brand != cited.creator else ""
    return ", ".join(part for part in (brand, cited.season or cited.title, cited.look) if part)
