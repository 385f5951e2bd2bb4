"""Each photo names the smallest WordPress ``-WxH`` copy that covers a thumbnail."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from rk.plugins.theimpression.images import ImagePolicy, harvest
from rk.plugins.theimpression.parse import parse_post_page
from rk.plugins.theimpression.show import post_to_show

File = Callable[[str], str]
PARIS = "street-style-paris-fashion-week-spring-2031-day-1"
COPENHAGEN = "street-style-copenhagen-fashion-week-fall-2031-day-2"
UP = "https://street.test/wp-content/uploads/2031/02"


def looks(site_file: File, slug: str, policy: ImagePolicy) -> list[tuple[str, str | None]]:
    post = parse_post_page(site_file(f"{slug}/index.html"), f"https://street.test/{slug}/")
    return [(look.image.url, look.image.thumb_url) for look in post_to_show(post, policy).looks]


@pytest.mark.parametrize(
    ("slug", "thumb_size", "suffix"),
    [
        (PARIS, 256, "-683x1024.jpg"),
        (PARIS, 128, "-200x300.jpg"),
        (COPENHAGEN, 800, "-1024x1536.jpg"),
    ],
)
def test_the_smallest_covering_copy_of_each_photo(
    site_file: File, policy: ImagePolicy, slug: str, thumb_size: int, suffix: str
) -> None:
    found = looks(site_file, slug, msgspec.structs.replace(policy, thumb_size=thumb_size))
    assert found
    for url, thumb in found:
        assert thumb is not None
        assert thumb.endswith(suffix)
        assert thumb.removesuffix(suffix) == url.rsplit("-", 1)[0]


def test_a_photo_offering_fewer_copies_takes_the_smallest_it_has(
    site_file: File, policy: ImagePolicy
) -> None:
    found = looks(site_file, COPENHAGEN, msgspec.structs.replace(policy, thumb_size=256))
    suffixes = [(thumb or "").rsplit("-", 1)[1] for _, thumb in found]
    # Photos 7-9 lazy-load only their 1024×1536 and 1366×2048 copies.
    assert suffixes == ["683x1024.jpg"] * 6 + ["1024x1536.jpg"] * 3


def test_no_copy_when_none_covers_or_none_is_asked(site_file: File, policy: ImagePolicy) -> None:
    assert all(thumb is None for _, thumb in looks(site_file, PARIS, policy))
    big = msgspec.structs.replace(policy, thumb_size=1400)
    assert all(thumb is None for _, thumb in looks(site_file, COPENHAGEN, big))


def test_square_crops_never_stand_in() -> None:
    body = (
        f'<p><img src="{UP}/a-1365x2048.jpg" srcset="{UP}/a-300x300.jpg 300w, '
        f'{UP}/a-683x1024.jpg 683w, {UP}/a-1365x2048.jpg 1365w"></p>'
    )
    policy = ImagePolicy(upload_hosts=frozenset({"street.test"}), thumb_size=256)
    found = harvest(body, "https://street.test/p/", policy)
    assert found.urls == [f"{UP}/a-1365x2048.jpg"]
    assert found.thumbs == {f"{UP}/a-1365x2048.jpg": f"{UP}/a-683x1024.jpg"}


def test_a_size_attribute_of_other_digits_is_no_furniture_size() -> None:
    # "²" is a digit to str.isdigit but no decimal number: int() would raise on it.
    body = f'<p><img width="²" height="90" src="{UP}/b-683x1024.jpg"></p>'
    policy = ImagePolicy(upload_hosts=frozenset({"street.test"}))
    assert harvest(body, "https://street.test/p/", policy).urls == []
    body = f'<p><img width="²" src="{UP}/b-683x1024.jpg"></p>'
    assert harvest(body, "https://street.test/p/", policy).urls == [f"{UP}/b-683x1024.jpg"]
