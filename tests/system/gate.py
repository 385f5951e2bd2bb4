"""A TCP gate in front of moto's S3 server: ``down()`` is an outage, ``up()`` the recovery.

moto keeps its objects in memory, so stopping its process would lose the bucket; the
outage is made here instead. While down, the gate's port refuses connections and every
open connection is reset, as when an S3 endpoint goes away.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.system.netloop import NetLoop


class TcpGate:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``target``; can be taken down and up."""

    def __init__(self, net: NetLoop, port: int, target: int) -> None:
        self.net = net
        self.port = port
        self.target = target
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()

    def up(self) -> None:
        """Listen and forward again."""
        self.net.call(self._up())

    def down(self) -> None:
        """Refuse new connections and reset the open ones."""
        self.net.call(self._down())

    async def _up(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(
                self._serve, "127.0.0.1", self.port, reuse_address=True
            )

    async def _down(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._open):
            transport = writer.transport
            if isinstance(transport, asyncio.Transport):
                transport.abort()
        self._open.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._open.update((writer, up_writer))
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                self._open.discard(w)
                w.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(OSError):
        writer.write_eof()
