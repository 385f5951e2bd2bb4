"""Network failures name the host and the setting to check (issue 32: a DNS failure ended
with a bare ``ConnectError [Errno -2]``)."""

from __future__ import annotations

import httpx
import pytest

from rk.core.api.errors import SourceError
from rk.core.runtime.unreachable import unreachable_hint
from tests.support.net import free_port


def failure(url: str) -> httpx.HTTPError:
    """The error a real request to ``url`` ends with."""
    with httpx.Client(timeout=5) as client, pytest.raises(httpx.HTTPError) as err:
        client.get(url)
    return err.value


def test_a_refused_connection_names_the_host_and_the_setting() -> None:
    port = free_port()  # nothing listens there
    exc = failure(f"http://127.0.0.1:{port}/x")
    assert unreachable_hint(exc, "ingest.endpoint") == (
        f" (cannot connect to 127.0.0.1:{port}: check ingest.endpoint, that it is up,"
        " and the network)"
    )


def test_a_name_that_does_not_resolve_says_so_through_the_error_chain() -> None:
    request = httpx.Request("GET", "https://www.voguee.com/fashion-shows/designers")
    dns = httpx.ConnectError("[Errno -2] Name or service not known", request=request)
    try:
        raise SourceError("vogue: GET … failed") from dns
    except SourceError as exc:
        hint = unreachable_hint(exc, "sources.vogue.base_url")
    assert (
        hint
        == " (the name www.voguee.com does not resolve: check sources.vogue.base_url and the DNS)"
    )


def test_other_errors_get_no_hint() -> None:
    assert unreachable_hint(SourceError("vogue: a page without state"), "x") == ""
    request = httpx.Request("GET", "http://h/")
    assert unreachable_hint(httpx.ReadTimeout("slow", request=request), "x") == ""
