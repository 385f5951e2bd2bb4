"""Wire types round-trip; bad input gives one-line errors."""

from __future__ import annotations

from urllib.parse import urlsplit

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.api.wire import (
    BrandRef,
    CrawlResult,
    EmbeddingSubmit,
    EmbeddingVector,
    ImageRef,
    Look,
    ShowIngest,
    UploadUrlRequest,
    decode_error_line,
    printable,
    url_problem,
)
from rk.core.web_urls import browser_form

SHA1 = "0123456789abcdef0123456789abcdef01234567"
PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))


def show(**changes: object) -> ShowIngest:
    base = ShowIngest(
        source="vogue",
        kind="runway",
        show_key="fall-2031-ready-to-wear/kestrel-vine",
        title="Fall 2031 Ready-to-Wear",
        brand=BrandRef(uid="AbCdEfGh", name="Kestrel & Vine"),
        season="Fall 2031 Ready-to-Wear",
        city="Copenhagen",
        date="2031-02-03",
        looks=[
            Look(number=1, image=ImageRef(url="https://img/1.jpg")),
            Look(
                number=2,
                image=ImageRef(
                    url="https://img/2.jpg", key=f"runway/{SHA1}.jpg", size=10, sha1=SHA1
                ),
            ),
        ],
        details=[ImageRef(url="https://img/d1.jpg")],
    )
    return msgspec.structs.replace(base, **changes)


def roundtrip(value: object) -> object:
    return msgspec.json.decode(msgspec.json.encode(value), type=type(value))


def test_show_roundtrip() -> None:
    original = show()
    assert roundtrip(original) == original
    assert [ref.url for ref in original.images()][-1] == "https://img/d1.jpg"


@given(
    st.builds(
        UploadUrlRequest,
        key=st.just(f"runway/{SHA1}.jpg"),
        size=st.integers(1, 2**40),
        sha1=st.just(SHA1),
    ),
    st.builds(
        CrawlResult,
        worker=st.text(PRINTABLE, min_size=1, max_size=20),
        status=st.sampled_from(["done", "failed"]),
        shows_submitted=st.integers(0, 1000),
        error=st.text(PRINTABLE | st.sampled_from("\t\n\r"), max_size=50),
    ),
)
def test_other_types_roundtrip(request: UploadUrlRequest, result: CrawlResult) -> None:
    assert roundtrip(request) == request
    assert roundtrip(result) == result


def _decode_error(raw: bytes, typ: type = ShowIngest) -> str:
    with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)) as err:
        msgspec.json.decode(raw, type=typ)
    line = decode_error_line(err.value)
    assert "\n" not in line
    return line


def _payload(**changes: object) -> bytes:
    data = msgspec.to_builtins(show())
    data.update(changes)
    return msgspec.json.encode({k: v for k, v in data.items() if v is not ...})


def test_unknown_field_is_rejected() -> None:
    assert "unknown field `colour`" in _decode_error(_payload(colour="red"))


def test_unknown_nested_field_is_rejected() -> None:
    looks = [{"number": 1, "image": {"url": "u", "thumb": "t"}}]
    assert "unknown field `thumb`" in _decode_error(_payload(looks=looks))


def test_wrong_type() -> None:
    assert "Expected `str`, got `int` - at `$.title`" in _decode_error(_payload(title=5))


def test_missing_field() -> None:
    assert "missing required field `show_key`" in _decode_error(_payload(show_key=...))


def test_no_images() -> None:
    assert "at least one look or detail" in _decode_error(_payload(looks=[], details=[]))


def test_too_many_looks() -> None:
    looks = [{"number": i + 1, "image": {"url": "u"}} for i in range(10_000)]
    assert "length <= 2000" in _decode_error(_payload(looks=looks))


def test_huge_string() -> None:
    assert "length <= 200" in _decode_error(_payload(title="x" * 100_000))


def test_bad_sha1_and_bad_source() -> None:
    assert "$.sha1" in _decode_error(
        msgspec.json.encode({"key": "k", "size": 1, "sha1": "XYZ"}), UploadUrlRequest
    )
    assert "$.source" in _decode_error(_payload(source="Vogue Runway!"))


def test_not_json_and_not_utf8() -> None:
    assert _decode_error(b"{not json")
    assert _decode_error(b'{"title": "\xff\xfe"}')


def test_duplicate_look_numbers() -> None:
    looks = [{"number": 1, "image": {"url": "a"}}, {"number": 1, "image": {"url": "b"}}]
    assert "unique" in _decode_error(_payload(looks=looks))


def test_embedding_submit_limits() -> None:
    item = EmbeddingVector(kind="runway", image_id=1, vector=[0.1, 0.2])
    assert roundtrip(EmbeddingSubmit(items=[item])) == EmbeddingSubmit(items=[item])
    bad = msgspec.json.encode({"items": [{"kind": "runway", "image_id": 0, "vector": [1.0]}]})
    assert "$.items[0].image_id" in _decode_error(bad, EmbeddingSubmit)


@given(st.text(max_size=80))
def test_printable_text_always_passes_the_wire(raw: str) -> None:
    """What spiders report (crawl and embedding errors) is made fit for the wire first."""
    result = CrawlResult(worker="w", status="failed", error=printable(raw))
    assert roundtrip(result) == result


@pytest.mark.parametrize("field", ["title", "show_key", "season", "city", "designer", "author"])
@pytest.mark.parametrize("char", ["\x00", "\x1b", "\n", "\x7f"])
def test_control_characters_are_refused_naming_the_field(field: str, char: str) -> None:
    raw = msgspec.json.encode(show(**{field: f"a{char}b"}))
    message = _decode_error(raw)
    assert "control characters" in message
    assert f"$.{field}" in message


@pytest.mark.parametrize("char", ["\x00", "\n", "\t", "\x1b", "\x7f"])
@pytest.mark.parametrize("where", ["looks", "details"])
def test_control_characters_in_an_image_url_are_refused(char: str, where: str) -> None:
    data = msgspec.to_builtins(show())
    refs = data[where]
    (refs[0]["image"] if where == "looks" else refs[0])["url"] = f"https://img/a{char}b.jpg"
    message = _decode_error(msgspec.json.encode(data))
    label = "look 1" if where == "looks" else "detail 1"
    assert f"{label}: bad image URL (control characters)" in message


def _split_problem(url: str) -> bool:
    """The full check ``url_problem`` makes for any URL its plain-URL shortcut does not take,
    on the URL as a browser reads it (spaces and C0 controls off both ends: ``"http:// "``
    has no host)."""
    try:
        parts = urlsplit(browser_form(url))
        host, _ = parts.hostname, parts.port
    except ValueError:
        return True
    return parts.scheme not in ("http", "https") or not host


URL_PARTS = st.sampled_from(
    [
        *("http://", "https://", "HTTP://", ":80", ":99999", "a", "Z", "0", ".", "-", "_", "~"),
        *":/?#@[]% \\é",
        *("\x00", "\n", "\x7f", "\u200b"),
    ]
)


@given(st.lists(URL_PARTS, max_size=10).map("".join))
def test_the_plain_url_shortcut_agrees_with_the_full_check(url: str) -> None:
    control = any(ord(c) < 0x20 or ord(c) == 0x7F for c in url)
    assert (url_problem(url) is None) == (not control and not _split_problem(url))


@pytest.mark.parametrize(
    ("thumb_url", "problem"),
    [("ftp://img/a.jpg", "scheme 'ftp'"), ("https://img/a\nb.jpg", "control characters")],
)
@pytest.mark.parametrize("where", ["looks", "details"])
def test_a_thumbnail_url_is_checked_like_the_url(where: str, thumb_url: str, problem: str) -> None:
    data = msgspec.to_builtins(show())
    refs = data[where]
    (refs[0]["image"] if where == "looks" else refs[0])["thumb_url"] = thumb_url
    message = _decode_error(msgspec.json.encode(data))
    label = "look 1" if where == "looks" else "detail 1"
    assert f"{label}: bad thumbnail URL ({problem}" in message
    good = msgspec.to_builtins(show())
    (good[where][0]["image"] if where == "looks" else good[where][0])["thumb_url"] = (
        "https://img/a-200x300.jpg"
    )
    decoded = msgspec.json.decode(msgspec.json.encode(good), type=ShowIngest)
    ref = decoded.looks[0].image if where == "looks" else decoded.details[0]
    assert ref.thumb_url == "https://img/a-200x300.jpg"
