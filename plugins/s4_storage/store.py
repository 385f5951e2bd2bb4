"""ObjectStoreStorage: rk's Storage on obstore for ``s3://``, ``file://`` and ``memory://``.

Every key must be a media key (``runway|street/<sha1>.jpg``, ``thumb/<sha1>.jpg``), and
a content key's bytes must hash to its sha1, so the store can never hold a key that
lies about its content. Missing objects raise ``FileNotFoundError``; any other failure
(store down, denied, timed out) raises ``OSError`` with one line, never swallowed, so
the caller can retry.

Upload URLs:
- ``s3://``: a SigV4 URL from ``sigv4.presign`` that signs ``x-amz-checksum-sha1``
  (base64 of the body's SHA-1) and ``content-type``. S3 verifies the body against the
  signed checksum, so a leaked URL cannot write other bytes. ``If-None-Match: *`` is
  signed too: a PUT to a key that exists answers 412 and writes nothing, so no upload
  URL ever replaces an object (a thumbnail key does not name its own bytes). The
  spider's client takes a 412 as "already stored".
- ``file://`` and ``memory://``: the backend's signed ``/media/upload`` route
  (``rk.core.media_urls``), which checks size and sha1 and then creates the object
  exclusively (never replacing one).

``file://`` writes go through obstore's LocalStore, which writes a temporary file next
to the target and renames it into place (atomic) and creates directories as needed.
``memory://`` is one in-process store per instance: for tests and single-process demos.
"""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, Literal
from urllib.parse import unquote, urlsplit

from rk.core.api.errors import ConfigError, InvalidKey
from rk.core.api.keys import CONTENT_KEY, is_media_key, sha1_hex
from rk.core.api.storage import ObjectInfo, StorageContext
from rk.core.api.wire import UploadUrl
from rk.core.media_urls import check_upload_target, read_url, upload_url
from rk.plugins.s4_storage.root import stays_under
from rk.plugins.s4_storage.s3_url import S3Location, parse_s3_url
from rk.plugins.s4_storage.sigv4 import presign

CONTENT_TYPE = "image/jpeg"


def _one_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


class ObjectStoreStorage:
    """Put, get, head, delete and presign media keys in one obstore store."""

    schemes: ClassVar[tuple[str, ...]] = ("s3", "file", "memory")

    def __init__(self, url: str, context: StorageContext) -> None:
        self.url = url.split("?")[0]
        self.context = context
        self.scheme = urlsplit(url).scheme
        self._root: Path | None = None
        self._s3: S3Location | None = None
        self._store: Any = self._open(url)

    def _open(self, url: str) -> Any:
        from obstore.store import LocalStore, MemoryStore, S3Store

        if self.scheme == "memory":
            return MemoryStore()
        if self.scheme == "file":
            parts = urlsplit(url)
            if parts.netloc not in {"", "localhost"} or not parts.path.startswith("/"):
                raise ConfigError(f"storage URL {url!r} must be file:///absolute/path")
            self._root = Path(unquote(parts.path)).resolve()
            try:
                return LocalStore(self._root, mkdir=True)
            except Exception as exc:
                raise ConfigError(f"cannot use {self._root} for storage: {_one_line(exc)}") from exc
        if self.scheme == "s3":
            s3 = self._s3 = parse_s3_url(url)
            auth: dict[str, Any] = {"skip_signature": True}
            if s3.credentials is not None:
                auth = {
                    "access_key_id": s3.credentials.access_key_id,
                    "secret_access_key": s3.credentials.secret_access_key,
                }
                if s3.credentials.session_token:
                    auth["session_token"] = s3.credentials.session_token
            return S3Store(
                s3.bucket,
                prefix=s3.prefix or None,
                endpoint=s3.endpoint,
                region=s3.region,
                client_options={
                    "allow_http": s3.endpoint.startswith("http://"),
                    "connect_timeout": timedelta(seconds=5),
                    "timeout": timedelta(seconds=60),
                },
                retry_config={
                    "max_retries": s3.max_retries,
                    "retry_timeout": timedelta(seconds=30),
                },
                **auth,
            )
        raise ConfigError(f"s4_storage cannot open {self.scheme!r} URLs; use s3, file or memory")

    def _media_key(self, key: str) -> str:
        """``key`` itself once it is known to be a media key (its shape only; no file looked at)."""
        if not is_media_key(key):
            raise InvalidKey(
                f"key {key[:80]!r} is not a media key (runway/<sha1>.jpg, street/<sha1>.jpg "
                "or thumb/<sha1>.jpg)"
            )
        return key

    def _checked(self, key: str) -> str:
        """``key`` itself once it is known to be a media key that stays under the root."""
        self._media_key(key)
        if self._root is not None and not stays_under(str(self._root), key):
            raise InvalidKey(f"key {key!r} resolves outside the storage root")
        return key

    def _failed(self, action: str, key: str, exc: Exception) -> OSError:
        return OSError(f"storage {self.url} could not {action} {key}: {_one_line(exc)}")

    def _attributes(
        self, key: str, data: bytes, content_type: str, sha1: str | None
    ) -> dict[str, str] | None:
        """The object's attributes, once ``key`` is checked and names ``data``'s sha1 if any.

        ``sha1`` is the caller's digest of exactly ``data``; without it the bytes are hashed
        here (once), so a content key is checked against its bytes exactly once either way.
        """
        match = CONTENT_KEY.match(self._checked(key))
        if match:
            digest = sha1_hex(data) if sha1 is None else sha1
            if digest != match.group(2):
                raise InvalidKey(f"bytes with sha1 {digest} cannot be stored under {key}")
        return None if self.scheme == "file" else {"Content-Type": content_type}

    async def put(
        self, key: str, data: bytes, content_type: str = CONTENT_TYPE, *, sha1: str | None = None
    ) -> None:
        """Store ``data`` under ``key``, replacing what is there (atomically)."""
        await self._write("overwrite", key, data, content_type, sha1)

    async def create(
        self, key: str, data: bytes, content_type: str = CONTENT_TYPE, *, sha1: str | None = None
    ) -> bool:
        """Store ``data`` under ``key`` unless it exists (exclusive); False when it did."""
        return await self._write("create", key, data, content_type, sha1)

    async def _write(
        self,
        mode: Literal["overwrite", "create"],
        key: str,
        data: bytes,
        content_type: str,
        sha1: str | None,
    ) -> bool:
        """One ``put_async`` of ``data``: ``overwrite`` replaces, ``create`` answers False
        where an object exists."""
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        attributes = self._attributes(key, data, content_type, sha1)
        action = "create" if mode == "create" else "put"
        try:
            await obstore.put_async(
                self._store, key, data, attributes=attributes, use_multipart=False, mode=mode
            )
        except (AlreadyExistsError, PreconditionError) as exc:
            if mode == "create":
                return False
            raise self._failed(action, key, exc) from exc
        except Exception as exc:
            raise self._failed(action, key, exc) from exc
        return True

    async def list_objects(self, prefix: str = "") -> AsyncIterator[ObjectInfo]:
        """Every object under ``prefix``, with its size and last-modified time."""
        import obstore

        try:
            async for batch in obstore.list(self._store, prefix or None):
                for meta in batch:
                    yield ObjectInfo(
                        key=str(meta["path"]),
                        size=int(meta["size"]),
                        modified=int(meta["last_modified"].timestamp()),
                    )
        except Exception as exc:
            raise self._failed("list", prefix or "/", exc) from exc

    async def get(self, key: str) -> bytes:
        """The object's bytes; ``FileNotFoundError`` when it does not exist."""
        import obstore

        self._checked(key)
        try:
            result = await obstore.get_async(self._store, key)
            return bytes(await result.bytes_async())
        except FileNotFoundError:
            raise FileNotFoundError(f"no object {key} in {self.url}") from None
        except Exception as exc:
            raise self._failed("get", key, exc) from exc

    async def head(self, key: str) -> ObjectInfo | None:
        """The object's size, or None when it does not exist."""
        import obstore

        self._checked(key)
        try:
            meta = await obstore.head_async(self._store, key)
        except FileNotFoundError:
            return None
        except Exception as exc:
            raise self._failed("head", key, exc) from exc
        return ObjectInfo(
            key=key, size=int(meta["size"]), modified=int(meta["last_modified"].timestamp())
        )

    async def delete(self, key: str) -> None:
        """Delete the object; a missing key is not an error."""
        import obstore

        self._checked(key)
        try:
            await obstore.delete_async(self._store, key)
        except FileNotFoundError:
            return
        except Exception as exc:
            raise self._failed("delete", key, exc) from exc

    async def presign_put(self, key: str, size: int, sha1: str, expires_s: int) -> UploadUrl:
        """A URL that accepts exactly these bytes under ``key`` for ``expires_s`` seconds."""
        check_upload_target(self._checked(key), size, sha1)
        expires_at = int(time.time()) + expires_s
        if self._s3 is None:
            url = upload_url(
                self.context.backend_url, self.context.secret, key, size, sha1, expires_at
            )
            return UploadUrl(url=url, headers={"content-type": CONTENT_TYPE}, expires_at=expires_at)
        headers = {
            "content-type": CONTENT_TYPE,
            "if-none-match": "*",
            "x-amz-checksum-sha1": base64.b64encode(bytes.fromhex(sha1)).decode(),
        }
        url = self._s3.object_url(key)
        if self._s3.credentials is not None:
            url = presign(
                "PUT",
                url,
                credentials=self._s3.credentials,
                region=self._s3.region,
                expires_s=expires_s,
                headers=headers,
            )
        return UploadUrl(url=url, headers=headers, expires_at=expires_at)

    async def url_for(self, key: str, expires_s: int) -> str:
        """A GET URL: the backend's signed ``/media`` read, the public base URL, or a presigned GET.

        The backend's read is signed (``read_url``) because its unsigned ``/media`` serves
        only keys of published articles, and this URL is for whoever the backend hands it
        to, such as the embed worker reading pending images.
        """
        import obstore

        self._media_key(key)  # a URL touches no file; whoever serves it checks the root
        if self._s3 is None:
            expires = int(time.time()) + expires_s
            return read_url(self.context.backend_url, self.context.secret, key, expires)
        if self._s3.public_base_url:
            return f"{self._s3.public_base_url}/{key}"
        if self._s3.credentials is None:
            return self._s3.object_url(key)
        return await obstore.sign_async(self._store, "GET", key, timedelta(seconds=expires_s))
