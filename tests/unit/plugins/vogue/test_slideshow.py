"""Slideshow pages: runwaymoment slides found anywhere, details linked to looks, models named."""

from __future__ import annotations

import json
from collections.abc import Callable

import msgspec
import pytest

from rk.core.api.wire import ImageRef, Look, ShowIngest
from rk.plugins.vogue.parse import VogueParseError, parse_show
from rk.plugins.vogue.slideshow import Slide, link_details, parse_slideshow

Page = Callable[[str], tuple[str, str]]
AURELE = "fashion-shows/fall-2031-ready-to-wear/maison-aurele"
VEYRA = "fashion-shows/fall-2031-ready-to-wear/veyra-atelier"
MODELS = ["Ines Calder", "Marit Solberg", "Adaeze Okafor", "Lucía Ferrer"]
MODELS += ["Yuna Sato", "Freya Lund", "Amara Diallo", "Clio Bertrand"]
PID = "0123456789abcdef0123456{}"
DETAIL = "ffffffffffffffffffffff01"


def linked(vogue_page: Page, path: str, original: bool = False) -> ShowIngest:
    show = parse_show(*vogue_page(path), original=original).show
    slides = parse_slideshow(*vogue_page(f"{path}/slideshow/collection"))
    return link_details(show, slides).show


def test_details_linked_two_by_two_and_the_unnamed_ones_stay_unlinked(vogue_page: Page) -> None:
    slides = parse_slideshow(*vogue_page(f"{AURELE}/slideshow/collection"))
    assert [slide.number for slide in slides] == list(range(1, 61))
    show = linked(vogue_page, AURELE)
    expected = [look for look in range(1, 32, 3) for _ in range(2)] + [None, None]
    assert [detail.look for detail in show.details] == expected
    assert [look.model_name for look in show.looks] == [MODELS[n % 8] for n in range(60)]
    assert [look.number for look in show.looks] == list(range(1, 61))
    assert all(look.image.look is None for look in show.looks)
    assert msgspec.json.decode(msgspec.json.encode(show), type=ShowIngest) == show


def test_slides_at_another_place_with_the_model_on_the_image(vogue_page: Page) -> None:
    show = linked(vogue_page, VEYRA)
    assert [detail.look for detail in show.details] == [2, 2, 5, 7]
    assert [look.model_name for look in show.looks] == [MODELS[-n] for n in range(1, 9)]


def test_links_hold_when_image_urls_point_at_originals(vogue_page: Page) -> None:
    show = linked(vogue_page, VEYRA, original=True)
    assert all("/pass/" in image.url for image in show.images())
    assert [detail.look for detail in show.details] == [2, 2, 5, 7]


def moment(look: int, details: list[str], **extra: object) -> dict[str, object]:
    image = {"id": PID.format(look), "sources": {"sm": {"url": "/x.jpg"}}}
    return {"contentType": "runwaymoment", "image": image, "details": details, **extra}


def page(state: object) -> tuple[str, str]:
    html = f"<script>window.__PRELOADED_STATE__ = {json.dumps(state)};</script>"
    return html, "https://runway.test/fashion-shows/s/d/slideshow/collection"


def test_slides_are_found_wherever_they_sit_in_page_order() -> None:
    detail = {"id": DETAIL, "contentType": "photo"}
    state = {
        "a": [{"deep": {"deeper": [moment(1, [], caption="Look 1")]}}],
        "b": {"contentType": "photo", "details": [detail]},
        "c": {"x": [moment(2, [detail], url="/s/d/slideshow/collection#2", modelName="Ana")]},
        "d": {"slide": moment(3, [], model={"name": "Bo &amp; Co"})},
    }
    slides = parse_slideshow(*page(state))
    assert slides == [
        Slide(number=1, photo=PID.format(1)),
        Slide(number=2, photo=PID.format(2), model_name="Ana", details=[detail["id"]]),
        Slide(number=3, photo=PID.format(3), model_name="Bo & Co"),
    ]


@pytest.mark.parametrize(
    ("on_slide", "on_image"),
    [
        ({"model": "Ana Reyes"}, {}),
        ({"model": {"name": "Ana Reyes"}}, {}),
        ({"modelName": "Ana Reyes"}, {}),
        ({}, {"model": "Ana Reyes"}),
        ({}, {"model": {"name": "Ana Reyes"}}),
        ({}, {"modelName": "Ana Reyes"}),
        ({"model": "  "}, {"model": "Ana Reyes"}),
    ],
)
def test_the_model_is_named_in_each_shape_on_the_slide_or_its_image(
    on_slide: dict[str, object], on_image: dict[str, object]
) -> None:
    image = {"id": PID.format(1), "sources": {"sm": {"url": "/x.jpg"}}, **on_image}
    slide = {"contentType": "runwaymoment", "image": image, "details": [], **on_slide}
    [found] = parse_slideshow(*page({"slides": [slide]}))
    assert found.model_name == "Ana Reyes"


def test_a_slide_is_matched_by_its_photo_before_its_own_number() -> None:
    look_url = "https://cdn.test/photos/{}/master/w_1,c_limit/x.jpg"
    show = ShowIngest(
        source="vogue",
        kind="runway",
        show_key="s/d",
        title="t",
        looks=[Look(number=n, image=ImageRef(url=look_url.format(PID.format(n)))) for n in (1, 2)],
        details=[
            ImageRef(url=f"https://cdn.test/photos/{DETAIL}/master/pass/d.jpg"),
            ImageRef(url="https://cdn.test/other/d.jpg"),
        ],
    )
    slides = [
        Slide(
            number=1, photo=PID.format(2), model_name="Ana", details=["ffffffffffffffffffffff01"]
        ),
        Slide(number=2, photo="", model_name="Bo"),
    ]
    result = link_details(show, slides)
    assert [d.look for d in result.show.details] == [2, None]
    assert [look.model_name for look in result.show.looks] == ["", "Ana"]
    assert (result.details_linked, result.models_named) == (1, 1)
    assert link_details(show, []).show == show


def test_unreadable_or_empty_slideshow_pages(vogue_page: Page) -> None:
    with pytest.raises(VogueParseError, match="not valid JSON"):
        parse_slideshow(
            *vogue_page("fashion-shows/spring-2031-menswear/kestrel-vine/slideshow/collection")
        )
    with pytest.raises(VogueParseError, match="no window.__PRELOADED_STATE__"):
        parse_slideshow("<html></html>", "https://runway.test/x")
    assert parse_slideshow(*page({"transformed": {"slides": []}})) == []
