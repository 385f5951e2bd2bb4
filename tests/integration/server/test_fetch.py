"""The SSRF-safe downloader against a real local server: address checks, redirects, caps."""

from __future__ import annotations

import pytest
from integration.server.images import Answer, ImageServer, jpeg

from rk.server.services.fetch import Fetcher, FetchError, FetchPolicy, address_problem


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
    ],
)
def test_non_public_addresses_are_refused(address: str, problem: str) -> None:
    reason = address_problem(address)
    assert reason is not None
    assert problem in reason


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"])
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
    assert await _fetch(url, allow_private_hosts=frozenset({"127.0.0.1"})) == jpeg(1)


async def test_every_redirect_hop_is_checked(images: ImageServer) -> None:
    images.add("/final.jpg", jpeg(2))
    images.add("/hop", Answer(status=302, headers={"Location": images.url("/final.jpg")}))
    allowed = frozenset({"localhost"})
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
    allowed = frozenset({"127.0.0.1"})
    images.add("/loop", Answer(status=302, headers={"Location": "/loop"}))
    with pytest.raises(FetchError, match="too many redirects"):
        await _fetch(images.url("/loop"), allow_private_hosts=allowed)
    images.add("/file", Answer(status=302, headers={"Location": "file:///etc/passwd"}))
    with pytest.raises(FetchError, match="scheme 'file'"):
        await _fetch(images.url("/file"), allow_private_hosts=allowed)
    with pytest.raises(FetchError, match="scheme 'ftp'"):
        await _fetch("ftp://example.com/a.jpg")


async def test_size_cap_and_empty_bodies(images: ImageServer) -> None:
    allowed = frozenset({"127.0.0.1"})
    big = images.add("/big.jpg", b"x" * 5000)
    with pytest.raises(FetchError, match="too large"):
        await _fetch(big, allow_private_hosts=allowed, max_bytes=4096)
    empty = images.add("/empty.jpg", b"")
    with pytest.raises(FetchError, match="0 bytes"):
        await _fetch(empty, allow_private_hosts=allowed)


async def test_status_errors_say_whether_to_retry(images: ImageServer) -> None:
    allowed = frozenset({"127.0.0.1"})
    with pytest.raises(FetchError, match="HTTP 404") as missing:
        await _fetch(images.url("/nothing.jpg"), allow_private_hosts=allowed)
    assert not missing.value.transient
    flaky = images.add("/flaky.jpg", Answer(body=jpeg(3), fail_first=1))
    with pytest.raises(FetchError, match="HTTP 503") as busy:
        await _fetch(flaky, allow_private_hosts=allowed)
    assert busy.value.transient
    assert await _fetch(flaky, allow_private_hosts=allowed) == jpeg(3)
