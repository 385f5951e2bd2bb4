"""URLs are judged as a browser reads them: the wire check and the templates' filter agree."""

from __future__ import annotations

import msgspec
import pytest

from rk.core.api.wire import ShowIngest
from rk.core.web_urls import browser_form, safe_href, web_url_problem
from tests.unit.core.test_wire import show

SCRIPTING = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "JaVaScRiPt:alert(1)",
    "  javascript:alert(1)",
    "\x01\x1f javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "javascript:alert(1)//https://ok.example/",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "https:no-host",
    "http:\\\\evil.example",
    "",
    "relative/page",
]


@pytest.mark.parametrize("url", SCRIPTING)
def test_scripting_and_hostless_urls_are_refused(url: str) -> None:
    assert web_url_problem(url) is not None
    assert safe_href(url) == ""


@pytest.mark.parametrize(
    ("url", "form"),
    [
        ("https://www.vogue.com/fashion-shows/x", "https://www.vogue.com/fashion-shows/x"),
        ("HTTPS://Shop.example/a?b=1#c", "HTTPS://Shop.example/a?b=1#c"),
        ("  http://img.example/1.jpg\x00 ", "http://img.example/1.jpg"),
        ("http://img.exa\tmple/1.jpg", "http://img.example/1.jpg"),
    ],
)
def test_web_urls_pass_in_their_browser_form(url: str, form: str) -> None:
    assert browser_form(url) == form
    assert web_url_problem(url) is None
    assert safe_href(url) == form


@pytest.mark.parametrize("path", ["/media/runway/a.jpg", "/images/7?x=1"])
def test_paths_on_this_site_are_linked(path: str) -> None:
    assert safe_href(path) == path


@pytest.mark.parametrize("value", ["//evil.example/x", "/\\evil.example/x", None, 7])
def test_other_origins_without_a_scheme_and_non_strings_are_not(value: object) -> None:
    assert safe_href(value) == ""


def test_the_scheme_is_named() -> None:
    assert web_url_problem(" vbscript:x") == "scheme 'vbscript' is not http or https"
    assert web_url_problem("relative") == "scheme '(none)' is not http or https"


@pytest.mark.parametrize("url", [u for u in SCRIPTING if u])
def test_a_show_url_that_is_not_http_is_refused_naming_the_field(url: str) -> None:
    body = msgspec.to_builtins(show())
    body["url"] = url
    with pytest.raises(msgspec.ValidationError) as refused:
        msgspec.json.decode(msgspec.json.encode(body), type=ShowIngest)
    assert "$.url" in str(refused.value)


@pytest.mark.parametrize("field", ["url", "thumb_url"])
@pytest.mark.parametrize("url", ["  javascript:alert(1)", "DATA:image/png;base64,AAAA"])
def test_image_and_thumbnail_urls_follow_the_same_rule(field: str, url: str) -> None:
    body = msgspec.to_builtins(show())
    body["looks"][0]["image"][field] = url
    with pytest.raises(msgspec.ValidationError) as refused:
        msgspec.json.decode(msgspec.json.encode(body), type=ShowIngest)
    label = "image" if field == "url" else "thumbnail"
    assert f"look 1: bad {label} URL (scheme" in str(refused.value)
