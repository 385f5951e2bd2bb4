"""The SSRF-safe downloader against a real local server: address checks, redirects, caps."""

from __future__ import annotations

import msgspec
import pytest

from rk.core.config import SecuritySettings
from rk.server.ingest.fetch import (
    Fetcher,
    FetchError,
    FetchPolicy,
    address_problem,
    allow_list,
)
from tests.integration.server.images import Answer, ImageServer, jpeg, serve_images


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.5.5", "private"),
        ("192.168.0.10", "private"),
        ("fc00::5", "private"),
        ("0.0.0.0", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("100.64.0.1", "not a public address"),
        ("fec0::1", "site-local"),
        ("2002:7f00:1::", "embedded 127.0.0.1"),
        ("2002:a00:1::1", "embedded 10.0.0.1"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "private"),
        ("64:ff9b::7f00:1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "metadata"),
        ("64:ff9b:1::808:808", "reserved"),
        ("::ffff:10.0.0.1", "private"),
        ("::127.0.0.1", "reserved"),
        ("2001:db8::1", "private"),
    ],
)
def test_non_public_addresses_are_refused(address: str, problem: str) -> None:
    reason = address_problem(address)
    assert reason is not None
    assert problem in reason


@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "2606:2800:220:1:248:1893:25c8:1946",
        "2002:5db8:d822::1",
        "64:ff9b::808:808",
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert address_problem(address) is None


async def _fetch(url: str, **policy: object) -> bytes:
    fetcher = Fetcher(FetchPolicy(**policy))  # type: ignore[arg-type]
    try:
        return (await fetcher.fetch(url)).data
    finally:
        await fetcher.close()


async def test_loopback_needs_the_allow_list(images: ImageServer) -> None:
    url = images.add("/a.jpg", jpeg(1))
    with pytest.raises(FetchError, match="loopback") as refused:
        await _fetch(url)
    assert not refused.value.transient
    assert images.hits == {}
    assert await _fetch(url, allow_private_hosts=frozenset({f"127.0.0.1:{images.port}"})) == jpeg(1)


async def test_every_redirect_hop_is_checked(images: ImageServer) -> None:
    images.add("/final.jpg", jpeg(2))
    images.add("/hop", Answer(status=302, headers={"Location": images.url("/final.jpg")}))
    allowed = frozenset({f"localhost:{images.port}"})
    with pytest.raises(FetchError, match="refused: 127.0.0.1"):
        await _fetch(images.url("/hop", host="localhost"), allow_private_hosts=allowed)
    assert "/final.jpg" not in images.hits
    images.add("/meta", Answer(status=307, headers={"Location": "http://169.254.169.254/x"}))
    with pytest.raises(FetchError, match="metadata"):
        await _fetch(images.url("/meta", host="localhost"), allow_private_hosts=allowed)
    local = f"http://localhost:{images.port}/final.jpg"
    images.add("/ok", Answer(status=301, headers={"Location": local}))
    assert await _fetch(images.url("/ok", host="localhost"), allow_private_hosts=allowed) == jpeg(2)


async def test_redirect_loops_and_schemes(images: ImageServer) -> None:
    allowed = frozenset({f"127.0.0.1:{images.port}"})
    images.add("/loop", Answer(status=302, headers={"Location": "/loop"}))
    with pytest.raises(FetchError, match="too many redirects"):
        await _fetch(images.url("/loop"), allow_private_hosts=allowed)
    images.add("/file", Answer(status=302, headers={"Location": "file:///etc/passwd"}))
    with pytest.raises(FetchError, match="scheme 'file'"):
        await _fetch(images.url("/file"), allow_private_hosts=allowed)
    with pytest.raises(FetchError, match="scheme 'ftp'"):
        await _fetch("ftp://example.com/a.jpg")


async def test_size_cap_and_empty_bodies(images: ImageServer) -> None:
    allowed = frozenset({f"127.0.0.1:{images.port}"})
    big = images.add("/big.jpg", b"x" * 5000)
    with pytest.raises(FetchError, match="too large"):
        await _fetch(big, allow_private_hosts=allowed, max_bytes=4096)
    empty = images.add("/empty.jpg", b"")
    with pytest.raises(FetchError, match="0 bytes"):
        await _fetch(empty, allow_private_hosts=allowed)


async def test_status_errors_say_whether_to_retry(images: ImageServer) -> None:
    allowed = frozenset({f"127.0.0.1:{images.port}"})
    with pytest.raises(FetchError, match="HTTP 404") as missing:
        await _fetch(images.url("/nothing.jpg"), allow_private_hosts=allowed)
    assert not missing.value.transient
    flaky = images.add("/flaky.jpg", Answer(body=jpeg(3), fail_first=1))
    with pytest.raises(FetchError, match="HTTP 503") as busy:
        await _fetch(flaky, allow_private_hosts=allowed)
    assert busy.value.transient
    assert await _fetch(flaky, allow_private_hosts=allowed) == jpeg(3)


async def test_allow_list_names_host_and_port_on_every_hop(images: ImageServer) -> None:
    """An allowed ``127.0.0.1:<image port>`` does not open any other port of 127.0.0.1."""
    with serve_images() as other:
        other.add("/secret", jpeg(9))
        images.add("/away", Answer(status=302, headers={"Location": other.url("/secret")}))
        allowed = allow_list([f"127.0.0.1:{images.port}"])
        with pytest.raises(FetchError, match="refused: 127.0.0.1"):
            await _fetch(images.url("/away"), allow_private_hosts=allowed)
        assert other.hits == {}
        assert "/away" in images.hits
        with pytest.raises(FetchError, match="loopback"):
            await _fetch(other.url("/secret"), allow_private_hosts=allowed)


def test_allow_list_entries_need_a_port() -> None:
    assert allow_list(["LocalHost:80", "[::1]:8000"]) == {"localhost:80", "[::1]:8000"}
    with pytest.raises(msgspec.ValidationError, match="allow_private_hosts"):
        msgspec.convert({"allow_private_hosts": ["127.0.0.1"]}, SecuritySettings)


@pytest.mark.parametrize("url", ["http://[::1/x.jpg", "http://a\x00b/x.jpg", "http://h:99999/x"])
async def test_unparseable_urls_fail_alone(url: str) -> None:
    """A URL the wire let through but cannot be fetched is this image's FetchError."""
    with pytest.raises(FetchError, match=r"bad URL|refused") as failed:
        await _fetch(url)
    assert not failed.value.transient


async def test_unparseable_redirect_target_fails_alone(images: ImageServer) -> None:
    images.add("/bad", Answer(status=302, headers={"Location": "http://h:99999/x.jpg"}))
    with pytest.raises(FetchError, match="bad URL"):
        await _fetch(images.url("/bad"), allow_private_hosts=allow_list(images.allow))
