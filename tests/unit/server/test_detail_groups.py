"""The public show page's details under their looks (``public_show.detail_groups``)."""

from __future__ import annotations

from rk.server.site.pictures import Picture, alt_text
from rk.server.site.show import DetailGroup, detail_groups


def pic(
    image_id: int, role: str, position: int, look: int | None = None, model: str = ""
) -> Picture:
    return Picture(
        image_id=image_id,
        role=role,
        position=position,
        url=f"/media/{image_id}",
        thumb_url="",
        width=0,
        height=0,
        alt="",
        look=look,
        model_name=model,
    )


def test_details_sorted_under_their_looks_in_look_order_unlinked_last() -> None:
    looks = [pic(1, "look", 1, model="Ana"), pic(2, "look", 4)]
    details = [
        pic(10, "detail", 1, look=4),
        pic(11, "detail", 2),
        pic(12, "detail", 3, look=1),
        pic(13, "detail", 4, look=9),  # its look had no image stored
        pic(14, "detail", 5, look=4),
    ]
    assert detail_groups(looks, details) == [
        DetailGroup(look=1, look_image_id=1, model_name="Ana", details=[details[2]]),
        DetailGroup(look=4, look_image_id=2, model_name="", details=[details[0], details[4]]),
        DetailGroup(look=9, details=[details[3]]),
        DetailGroup(look=None, details=[details[1]]),
    ]


def test_no_groups_when_nothing_is_linked() -> None:
    assert detail_groups([pic(1, "look", 1)], [pic(2, "detail", 1), pic(3, "detail", 2)]) == []
    assert detail_groups([pic(1, "look", 1)], []) == []


def test_alt_text_names_a_detail_look() -> None:
    assert (
        alt_text("Veyra", "Fall 2031", "t", "detail", 3, 7)
        == "Veyra, Fall 2031, detail 3 of look 7"
    )
    assert alt_text("Veyra", "Fall 2031", "t", "detail", 3) == "Veyra, Fall 2031, detail 3"
