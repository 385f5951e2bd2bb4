"""``/metrics`` and ``/readyz``'s detail over real HTTP: open to ``server.ops_allow`` (loopback
by default) and to ``server.ops_token``; others get a 403, or ``/readyz``'s bare status.

Every request here comes from 127.0.0.1, so refusal is exercised with an ``ops_allow`` that
leaves loopback out, and forwarding with ``trusted_proxies`` naming loopback as the proxy.
"""

from __future__ import annotations

from pathlib import Path

from rk.core.config import Settings
from rk.server.platform.db.tables import IngestJob
from tests.integration.server.conftest import StartBackend
from tests.integration.server.helpers import backend_settings
from tests.integration.server.test_operations import samples

TOKEN = "ops-token-0123456789abcdef"
PRIVATE = ["10.0.0.0/8"]
REFUSED = (
    "forbidden: /metrics answers server.ops_allow addresses"
    " or Authorization: Bearer <server.ops_token>"
)


def ops_settings(
    tmp_path: Path, allow: list[str], token: str = "", proxies: list[str] | None = None
):
    settings: Settings = backend_settings(tmp_path)
    settings.server.ops_allow = allow
    settings.server.ops_token = token
    settings.server.trusted_proxies = proxies or []
    return settings


async def test_loopback_sees_metrics_and_readiness_by_default(start_backend: StartBackend) -> None:
    backend = await start_backend()
    assert backend.settings.server.ops_allow == ["127.0.0.1/32", "::1/128"]
    metrics = await backend.client.get("/metrics")
    assert metrics.status_code == 200
    assert any(name == "rk_backend_info" for name, _ in samples(metrics.text))
    ready = await backend.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"database": "ok", "migrations": "ok", "storage": "ok"}


async def test_outside_ops_allow_metrics_403_and_readyz_status_only(
    start_backend: StartBackend, tmp_path: Path
) -> None:
    backend = await start_backend(ops_settings(tmp_path, PRIVATE))
    metrics = await backend.client.get("/metrics")
    assert metrics.status_code == 403
    assert metrics.json() == {"error": REFUSED}
    assert "rk_" not in metrics.text
    ready = await backend.client.get("/readyz")
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    [last] = await IngestJob.raw("SELECT MAX(id) AS id FROM rk_migrations")
    await IngestJob.raw("DELETE FROM rk_migrations WHERE id = {}", last["id"])
    down = await backend.client.get("/readyz")
    assert (down.status_code, down.json()) == (503, {"status": "not ready"})
    assert (await backend.client.get("/healthz")).status_code == 200


async def test_the_ops_token_opens_both_from_anywhere(
    start_backend: StartBackend, tmp_path: Path
) -> None:
    backend = await start_backend(ops_settings(tmp_path, PRIVATE, TOKEN))
    for header in (f"Bearer {TOKEN}", f"bearer {TOKEN}"):
        metrics = await backend.client.get("/metrics", headers={"Authorization": header})
        assert metrics.status_code == 200
        assert "rk_backend_info" in metrics.text
        ready = await backend.client.get("/readyz", headers={"Authorization": header})
        assert ready.json()["checks"]["database"] == "ok"
    for header in (f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", TOKEN, f"Basic {TOKEN}", "Bearer"):
        metrics = await backend.client.get("/metrics", headers={"Authorization": header})
        assert (metrics.status_code, metrics.json()) == (403, {"error": REFUSED}), header
        ready = await backend.client.get("/readyz", headers={"Authorization": header})
        assert ready.json() == {"status": "ready"}, header


async def test_the_address_is_the_one_after_trusted_proxies(
    start_backend: StartBackend, tmp_path: Path
) -> None:
    direct = await start_backend(ops_settings(tmp_path / "direct", PRIVATE))
    forged = {"X-Forwarded-For": "10.0.0.5"}
    assert (await direct.client.get("/metrics", headers=forged)).status_code == 403
    proxied = await start_backend(
        ops_settings(tmp_path / "proxied", PRIVATE, proxies=["127.0.0.1"])
    )
    assert (await proxied.client.get("/metrics", headers=forged)).status_code == 200
    outside = {"X-Forwarded-For": "203.0.113.9"}
    assert (await proxied.client.get("/metrics", headers=outside)).status_code == 403
    loopback_proxy = await start_backend(
        ops_settings(tmp_path / "loopback", ["127.0.0.1/32"], proxies=["127.0.0.1"])
    )
    # Through a trusted local proxy the client is the forwarded address, not the proxy.
    assert (await loopback_proxy.client.get("/metrics", headers=outside)).status_code == 403
    assert (await loopback_proxy.client.get("/metrics")).status_code == 200
