"""The wire's additions for issue 14: detail → look links, model names, seasons, brand ensure.

All additive: a body without them decodes as before (an older spider keeps working).
"""

from __future__ import annotations

import msgspec
import pytest

from rk.core.api.wire import BrandEnsure, CrawlTask, ShowIngest

BASE = {
    "source": "vogue",
    "show_key": "fall-2031-ready-to-wear/veyra-atelier",
    "title": "Veyra Atelier Fall 2031 Ready-to-Wear",
    "looks": [{"number": 2, "image": {"url": "https://img/2.jpg"}}],
    "details": [{"url": "https://img/d1.jpg"}],
}


def decode(body: object) -> ShowIngest:
    return msgspec.json.decode(msgspec.json.encode(body), type=ShowIngest)


def test_links_and_model_names_round_trip_and_are_optional() -> None:
    old = decode(BASE)
    assert (old.details[0].look, old.looks[0].model_name) == (None, "")
    linked = decode(
        {
            **BASE,
            "looks": [{"number": 2, "image": {"url": "https://img/2.jpg"}, "model_name": "Ana"}],
            "details": [{"url": "https://img/d1.jpg", "look": 2}],
        }
    )
    assert (linked.details[0].look, linked.looks[0].model_name) == (2, "Ana")
    assert decode(msgspec.to_builtins(linked)) == linked


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"details": [{"url": "https://img/d1.jpg", "look": 0}]}, ">= 1"),
        ({"details": [{"url": "https://img/d1.jpg", "look": 100_001}]}, "<= 100000"),
        ({"details": [{"url": "https://img/d1.jpg", "look": "2"}]}, "Expected `int | null`"),
        (
            {"looks": [{"number": 1, "image": {"url": "https://i/1"}, "model_name": "x" * 201}]},
            "length <= 200",
        ),
    ],
)
def test_bad_links_and_names_are_refused(change: dict[str, object], words: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=words):
        decode({**BASE, **change})


def test_brand_ensure_accepts_slugs_only_and_crawl_tasks_carry_a_season() -> None:
    ok = {"name": "Veyra Atelier", "source": "vogue", "slug": "veyra-atelier"}
    assert msgspec.json.decode(msgspec.json.encode(ok), type=BrandEnsure).slug == "veyra-atelier"
    for slug in ("Veyra", "-x", "a/b", "a b", ""):
        with pytest.raises(msgspec.ValidationError):
            msgspec.json.decode(msgspec.json.encode({**ok, "slug": slug}), type=BrandEnsure)
    with pytest.raises(msgspec.ValidationError, match="length >= 1"):
        msgspec.json.decode(msgspec.json.encode({**ok, "name": ""}), type=BrandEnsure)
    task = {"id": 1, "brand_id": 2, "brand_uid": "u", "brand_name": "B", "max_shows": 0}
    assert msgspec.convert({**task, "source": "vogue"}, CrawlTask).season == ""
    seasoned = msgspec.convert({**task, "source": "vogue", "season": "resort-2032"}, CrawlTask)
    assert seasoned.season == "resort-2032"
