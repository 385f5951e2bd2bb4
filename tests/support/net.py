"""Small networking helpers for tests that talk over real sockets on 127.0.0.1."""

from __future__ import annotations

import itertools
import os
import random
import socket
import time

PORTS_PER_WORKER = 1000
FIRST_PORT = 20000  # below Linux's ephemeral range (32768+), so no client socket takes ours


def _worker_index() -> int:
    """0 for a plain pytest run, N for pytest-xdist's worker gwN."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name.removeprefix("gw")) if name.removeprefix("gw").isdigit() else 0


def _candidate_ports() -> itertools.cycle[int]:
    """This worker's own block of ports, walked from a random start."""
    first = FIRST_PORT + (_worker_index() % 12) * PORTS_PER_WORKER
    start = random.randrange(PORTS_PER_WORKER)
    block = [first + (start + i) % PORTS_PER_WORKER for i in range(PORTS_PER_WORKER)]
    return itertools.cycle(block)


_ports = _candidate_ports()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now.

    Each xdist worker takes ports from its own block outside the ephemeral range, so a port
    handed to one test's server cannot be taken meanwhile by another worker or by an
    outgoing connection.
    """
    for port in itertools.islice(_ports, PORTS_PER_WORKER):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port in this worker's block of {PORTS_PER_WORKER}")


def wait_for_port(port: int, timeout_s: float = 60.0) -> None:
    """Block until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout_s} s")
