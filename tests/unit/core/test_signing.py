"""Signed requests verify; any change of method, path, body, timestamp or secret fails."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rk.core.api.errors import SignatureError
from rk.core.api.signing import (
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    signed_headers,
    verify,
)

NOW = 1_900_000_000
methods = st.sampled_from(["GET", "POST", "PUT", "DELETE"])
paths = st.text(min_size=1, max_size=80).map(lambda s: "/" + s)
secrets = st.text(min_size=1, max_size=40)
bodies = st.binary(max_size=512)


def _verify(secret: str, method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
    verify(
        secret,
        method,
        path,
        headers[TIMESTAMP_HEADER],
        headers[SIGNATURE_HEADER],
        body,
        nonce=headers.get(NONCE_HEADER),
        now=NOW,
    )


@given(secrets, methods, paths, bodies)
def test_signed_request_verifies(secret: str, method: str, path: str, body: bytes) -> None:
    headers = signed_headers(secret, method, path, body, now=NOW)
    _verify(secret, method, path, body, headers)


@given(secrets, methods, paths, bodies, st.data())
def test_any_change_fails(secret: str, method: str, path: str, body: bytes, data) -> None:
    headers = signed_headers(secret, method, path, body, now=NOW)
    what = data.draw(st.sampled_from(["method", "path", "body", "timestamp", "secret"]))
    args = {"secret": secret, "method": method, "path": path, "body": body}
    if what == "method":
        args["method"] = data.draw(methods.filter(lambda m: m != method))
    elif what == "path":
        args["path"] = data.draw(paths.filter(lambda p: p != path))
    elif what == "body":
        args["body"] = data.draw(bodies.filter(lambda b: b != body))
    elif what == "secret":
        args["secret"] = data.draw(secrets.filter(lambda s: s != secret))
    else:
        shift = data.draw(st.integers(min_value=-300, max_value=300).filter(bool))
        headers = {**headers, TIMESTAMP_HEADER: str(NOW + shift)}
    with pytest.raises(SignatureError):
        _verify(args["secret"], args["method"], args["path"], args["body"], headers)


@given(st.integers(min_value=301, max_value=10**6), st.sampled_from([-1, 1]))
def test_skew_outside_window_fails(offset: int, sign: int) -> None:
    headers = signed_headers("s", "POST", "/p", b"", now=NOW + sign * offset)
    with pytest.raises(SignatureError, match="off the server clock"):
        _verify("s", "POST", "/p", b"", headers)


@pytest.mark.parametrize("offset", [-300, 0, 300])
def test_skew_inside_window_passes(offset: int) -> None:
    _verify("s", "POST", "/p", b"x", signed_headers("s", "POST", "/p", b"x", now=NOW + offset))


def test_skew_window_is_configurable() -> None:
    headers = signed_headers("s", "POST", "/p", b"", now=NOW - 20)
    with pytest.raises(SignatureError):
        verify(
            "s",
            "POST",
            "/p",
            headers[TIMESTAMP_HEADER],
            headers[SIGNATURE_HEADER],
            b"",
            now=NOW,
            skew_s=10,
        )


@pytest.mark.parametrize(
    ("timestamp", "sig", "message"),
    [
        (None, "ab", "missing"),
        ("123", None, "missing"),
        ("soon", "ab", "not unix seconds"),
        (str(NOW), "00" * 32, "does not match"),
    ],
)
def test_malformed_headers_give_one_line(timestamp, sig, message: str) -> None:
    with pytest.raises(SignatureError, match=message) as err:
        verify("s", "POST", "/p", timestamp, sig, b"", now=NOW)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "spelling", [f" {NOW} ", f"+{NOW}", f"0{NOW}", f"{NOW:_}", f"{NOW}\n", "١٩٠٠٠٠٠٠٠٠"]
)
def test_timestamp_has_one_spelling(spelling: str) -> None:
    """Only plain digits sign: a space, sign, leading zero or underscore cannot vary it."""
    body = b"{}"
    headers = signed_headers("s3cret", "POST", "/x", body, now=NOW)
    with pytest.raises(SignatureError, match="plain decimal digits"):
        verify("s3cret", "POST", "/x", spelling, headers[SIGNATURE_HEADER], body, now=NOW)


def test_the_nonce_is_signed() -> None:
    headers = signed_headers("s3cret", "GET", "/x", b"", now=NOW)
    assert len(headers[NONCE_HEADER]) >= 16
    args = ("s3cret", "GET", "/x", headers[TIMESTAMP_HEADER], headers[SIGNATURE_HEADER], b"")
    assert verify(*args, nonce=headers[NONCE_HEADER], now=NOW) == NOW
    with pytest.raises(SignatureError, match="does not match"):
        verify(*args, nonce="another-nonce", now=NOW)
    with pytest.raises(SignatureError, match="does not match"):
        verify(*args, now=NOW)
    with pytest.raises(SignatureError, match="8-64 characters"):
        verify(*args, nonce="a b", now=NOW)
