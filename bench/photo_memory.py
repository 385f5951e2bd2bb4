"""Search by photo under hostile uploads: backend RSS before, after and at peak.

Starts ``rk serve-backend`` (SQLite, the tiny CLIP of tests/models so photo search runs a
model) as its own process, then sends ``--clients`` concurrent ``POST /api/search/image``
uploads of one picture built in memory: by default a 6300×6300 PNG (a flat field with a
gradient band, about 110 KiB, 40 megapixels once decoded), with ``--format jpeg`` the same
picture as a JPEG. Prints each answer's status and the backend's VmRSS before and after,
and its VmHWM (peak RSS), read from ``/proc/<pid>/status``; the figure that matters is
``growth`` (peak minus before). Target: under 300 MB for six PNG uploads.

    .venv/bin/python -m bench.photo_memory [--clients 6] [--side 6300] [--format png|jpeg]
        [--rounds 1] [--slots N]

``--slots`` sets ``search.photo_concurrency`` (leave it out on a backend older than it).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
from PIL import Image

from tests.support.cli import RK
from tests.support.net import free_port, wait_for_port

TINY_CLIP = Path(__file__).resolve().parents[1] / "tests" / "models" / "tiny_clip"
MiB = 1024 * 1024


def picture(side: int, fmt: str) -> bytes:
    """A ``side``×``side`` picture that compresses well: flat grey with a gradient band."""
    image = Image.new("RGB", (side, side), (128, 128, 128))
    band = Image.linear_gradient("L").resize((side, max(1, side // 20))).convert("RGB")
    image.paste(band, (0, side // 2))
    out = io.BytesIO()
    image.save(out, format=fmt.upper(), **({"quality": 85} if fmt == "jpeg" else {}))
    return out.getvalue()


def reset_peak(pid: int) -> None:
    """Start ``pid``'s VmHWM afresh from its current RSS (so startup's peak does not count)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid``, in bytes."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


async def uploads(port: int, data: bytes, clients: int, mime: str) -> Counter[str]:
    """``clients`` concurrent photo searches; how many got each status."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=300) as client:

        async def one() -> str:
            answer = await client.post(
                "/api/search/image", content=data, headers={"content-type": mime}
            )
            return f"{answer.status_code} {answer.text[:90]}"

        return Counter(await asyncio.gather(*(one() for _ in range(clients))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--side", type=int, default=6300)
    parser.add_argument("--format", choices=("png", "jpeg"), default="png")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--slots", type=int, default=0, help="search.photo_concurrency (default: rk's own)"
    )
    args = parser.parse_args()
    data = picture(args.side, args.format)
    print(f"picture: {args.side}x{args.side} {args.format}, {len(data) / 1024:.0f} KiB")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = root / "backend.yml"
        settings: dict[str, dict[str, object]] = {"vision": {"model": str(TINY_CLIP)}}
        if args.slots:
            settings["search"] = {"photo_concurrency": args.slots}
        config.write_text(json.dumps(settings))
        port = free_port()
        command = [RK, "serve-backend", "--port", str(port), "--config", str(config)]
        with (root / "backend.log").open("ab") as log:
            server = subprocess.Popen(
                [*command, "--data-dir", str(root / "data")],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_for_port(port, timeout_s=120)
            httpx.get(f"http://127.0.0.1:{port}/search", timeout=60).raise_for_status()
            time.sleep(1)
            reset_peak(server.pid)
            before = memory(server.pid)
            for round_no in range(1, args.rounds + 1):
                statuses = asyncio.run(uploads(port, data, args.clients, f"image/{args.format}"))
                for status, count in sorted(statuses.items()):
                    print(f"round {round_no}: {count} x {status}")
            time.sleep(1)
            after = memory(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
    growth = (after["VmHWM"] - before["VmRSS"]) / MiB
    print(
        f"RSS before {before['VmRSS'] / MiB:.0f} MiB, after {after['VmRSS'] / MiB:.0f} MiB,"
        f" peak {after['VmHWM'] / MiB:.0f} MiB; growth {growth:.0f} MiB"
        f" ({'under' if growth < 300 else 'OVER'} the 300 MB target)"
    )


if __name__ == "__main__":
    main()
