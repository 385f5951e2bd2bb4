"""Every hookspec is documented and exercised through a plugin registered for the test."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rk.core import hookimpl
from rk.core.api import hookspecs
from rk.core.api.embedders import EmbedResult
from rk.core.api.errors import PluginConflict, UnknownPlugin
from rk.core.api.lookups import (
    get_embedder,
    get_queue_backend,
    get_source,
    get_vector_index,
    open_storage,
)
from rk.core.api.plugins import RkPluginManager, notify
from rk.core.api.sources import BrandTarget, ShowSummary
from rk.core.api.storage import StorageContext
from rk.core.api.wire import ImageRef, Look, ShowIngest

HOOKS = sorted(name for name in dir(hookspecs) if name.startswith("rk_"))
SECTIONS = ("When:", "Returns:", "Results:", "Example::")

Register = Callable[[Any, str], Any]


@pytest.mark.parametrize("name", HOOKS)
def test_hookspec_docstring_follows_template(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    missing = [section for section in SECTIONS if section not in doc]
    assert doc.splitlines()[0].endswith("."), f"{name}: summary line missing"
    assert not missing, f"{name} docstring lacks {missing}"


def test_every_hook_has_a_test() -> None:
    text = Path(__file__).read_text()
    untested = [name for name in HOOKS if f"def test_hook_{name}(" not in text]
    assert not untested, f"hooks without test_hook_<name>: {untested}"


class TinySource:
    name: ClassVar[str] = "tiny"
    kind: ClassVar[str] = "runway"
    needs_brand: ClassVar[bool] = True

    def __init__(self, client: Any, options: Any) -> None:
        self.options = options

    async def list_shows(self, brand: BrandTarget | None, limit: int | None) -> list[ShowSummary]:
        return [ShowSummary(url="http://x/show-1", title="Spring 2031")]

    async def fetch_show(self, show: ShowSummary, brand: BrandTarget | None) -> ShowIngest:
        return ShowIngest(
            source="tiny",
            kind="runway",
            show_key="spring-2031/tiny",
            title=show.title,
            looks=[Look(number=1, image=ImageRef(url="http://x/1.jpg"))],
        )


async def test_hook_rk_register_sources(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Plugin:
        @hookimpl
        def rk_register_sources(self) -> list[type]:
            return [TinySource]

    register_plugin(Plugin(), "tiny-plugin")
    cls = get_source("tiny", plugin_manager)
    source = cls(None, {"base_url": "http://x"})
    shows = await source.list_shows(BrandTarget(name="Tiny"), None)
    show = await source.fetch_show(shows[0], None)
    assert show.looks[0].image.url == "http://x/1.jpg"
    with pytest.raises(UnknownPlugin, match="available: .*tiny"):
        get_source("nope", plugin_manager)


def test_duplicate_source_name_is_a_conflict(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class First:
        @hookimpl
        def rk_register_sources(self) -> list[type]:
            return [TinySource]

    class Second:
        @hookimpl
        def rk_register_sources(self) -> list[type]:
            return [TinySource]

    register_plugin(First(), "first")
    register_plugin(Second(), "second")
    with pytest.raises(PluginConflict, match="'first' and 'second'|'second' and 'first'"):
        get_source("tiny", plugin_manager)


class DictStore:
    schemes: ClassVar[tuple[str, ...]] = ("dict",)

    def __init__(self, url: str, context: StorageContext) -> None:
        self.url = url
        self.objects: dict[str, bytes] = {}

    async def put(self, key: str, data: bytes, content_type: str = "image/jpeg") -> None:
        self.objects[key] = data

    async def get(self, key: str) -> bytes:
        return self.objects[key]


async def test_hook_rk_register_storages(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Plugin:
        @hookimpl
        def rk_register_storages(self) -> list[type]:
            return [DictStore]

    register_plugin(Plugin(), "dict-store")
    store = open_storage("dict://bucket", StorageContext(), plugin_manager)
    await store.put("runway/" + "a" * 40 + ".jpg", b"bytes")
    assert await store.get("runway/" + "a" * 40 + ".jpg") == b"bytes"
    with pytest.raises(UnknownPlugin, match="no storage scheme named 'nope'; available: .*dict"):
        open_storage("nope://x", StorageContext(), plugin_manager)


class ConstantEmbedder:
    name: ClassVar[str] = "constant"

    def __init__(self, options: Any) -> None:
        self.dim = 2
        self.model_id = "constant-2"

    def embed_images(self, images: list[bytes]) -> EmbedResult:
        good = [i for i, data in enumerate(images) if data]
        return EmbedResult(
            dim=2,
            vectors=[[1.0, 0.0] for _ in good],
            indexes=good,
            skipped=[i for i, data in enumerate(images) if not data],
        )


def test_hook_rk_register_embedders(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Plugin:
        @hookimpl
        def rk_register_embedders(self) -> list[type]:
            return [ConstantEmbedder]

    register_plugin(Plugin(), "constant-embedder")
    embedder = get_embedder("constant", plugin_manager)({})
    result = embedder.embed_images([b"x", b"", b"y"])
    assert (result.indexes, result.skipped) == ([0, 2], [1])


class NullQueue:
    schemes: ClassVar[tuple[str, ...]] = ("nullq",)

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn


def test_hook_rk_register_queues(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Plugin:
        @hookimpl
        def rk_register_queues(self) -> list[type]:
            return [NullQueue]

    register_plugin(Plugin(), "null-queue")
    assert get_queue_backend("nullq://somewhere", plugin_manager) is NullQueue
    with pytest.raises(UnknownPlugin, match="available: .*nullq"):
        get_queue_backend("mysql://x", plugin_manager)


class NullIndex:
    name: ClassVar[str] = "null"
    schemes: ClassVar[tuple[str, ...]] = ("sqlite",)


def test_hook_rk_register_vector_indexes(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    class Plugin:
        @hookimpl
        def rk_register_vector_indexes(self) -> list[type]:
            return [NullIndex]

    register_plugin(Plugin(), "null-index")
    assert get_vector_index("null", plugin_manager) is NullIndex
    assert get_vector_index("pgvector", plugin_manager).name == "pgvector"
    with pytest.raises(UnknownPlugin, match="available: exact, null, pgvector"):
        get_vector_index("faiss", plugin_manager)

    class Twin:
        @hookimpl
        def rk_register_vector_indexes(self) -> list[type]:
            return [NullIndex]

    register_plugin(Twin(), "null-twin")
    with pytest.raises(PluginConflict, match="'null' is registered by both"):
        get_vector_index("null", plugin_manager)


class Broken:
    """Raises from every event hook."""

    @hookimpl
    def rk_show_ingested(self, show: ShowIngest, article_id: int, outcome: str) -> None:
        raise RuntimeError("plugin bug")

    @hookimpl
    def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
        raise RuntimeError("plugin bug")

    @hookimpl
    def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
        raise RuntimeError("plugin bug")

    @hookimpl
    def rk_media_withdrawn(self, article_id: int, keys: list[str], urls: list[str]) -> None:
        raise RuntimeError("plugin bug")


class Recorder:
    """Records the arguments of every event it receives."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    @hookimpl
    def rk_show_ingested(self, show: ShowIngest, article_id: int, outcome: str) -> None:
        self.seen.append({"show": show, "article_id": article_id, "outcome": outcome})

    @hookimpl
    def rk_article_status_changed(self, article_id: int, old: str, new: str) -> None:
        self.seen.append({"article_id": article_id, "old": old, "new": new})

    @hookimpl
    def rk_embeddings_saved(self, kind: str, image_ids: list[int], model: str) -> None:
        self.seen.append({"kind": kind, "image_ids": image_ids, "model": model})

    @hookimpl
    def rk_media_withdrawn(self, article_id: int, keys: list[str], urls: list[str]) -> None:
        self.seen.append({"article_id": article_id, "keys": keys, "urls": urls})


def _show() -> ShowIngest:
    return ShowIngest(
        source="tiny",
        kind="runway",
        show_key="k",
        title="t",
        looks=[Look(number=1, image=ImageRef(url="http://x/1.jpg"))],
    )


@pytest.mark.parametrize(
    ("hook", "kwargs"),
    [
        ("rk_show_ingested", {"show": _show(), "article_id": 7, "outcome": "created"}),
        ("rk_article_status_changed", {"article_id": 7, "old": "pending", "new": "published"}),
        ("rk_embeddings_saved", {"kind": "runway", "image_ids": [1, 2], "model": "m"}),
        ("rk_media_withdrawn", {"article_id": 7, "keys": ["thumb/a.jpg"], "urls": ["u"]}),
    ],
)
def test_events_survive_a_failing_plugin(
    plugin_manager: RkPluginManager,
    register_plugin: Register,
    caplog: pytest.LogCaptureFixture,
    hook: str,
    kwargs: dict[str, Any],
) -> None:
    register_plugin(Broken(), "broken")
    record = register_plugin(Recorder(), "record")
    with caplog.at_level(logging.ERROR, logger="rk.plugins"):
        notify(plugin_manager, hook, **kwargs)
    assert record.seen == [kwargs]
    assert f"plugin broken failed in {hook}" in caplog.text


def _fire(plugin_manager: RkPluginManager, register_plugin: Register, hook: str, **kw: Any) -> Any:
    record = register_plugin(Recorder(), "record")
    notify(plugin_manager, hook, **kw)
    return record.seen


def test_hook_rk_show_ingested(plugin_manager: RkPluginManager, register_plugin: Register) -> None:
    seen = _fire(
        plugin_manager,
        register_plugin,
        "rk_show_ingested",
        show=_show(),
        article_id=3,
        outcome="created",
    )
    assert seen[0]["article_id"] == 3
    assert seen[0]["show"].show_key == "k"


def test_hook_rk_article_status_changed(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    seen = _fire(
        plugin_manager,
        register_plugin,
        "rk_article_status_changed",
        article_id=3,
        old="pending",
        new="rejected",
    )
    assert seen == [{"article_id": 3, "old": "pending", "new": "rejected"}]


def test_hook_rk_embeddings_saved(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    seen = _fire(
        plugin_manager,
        register_plugin,
        "rk_embeddings_saved",
        kind="street",
        image_ids=[4],
        model="clip-tiny",
    )
    assert seen == [{"kind": "street", "image_ids": [4], "model": "clip-tiny"}]


def test_hook_rk_media_withdrawn(
    plugin_manager: RkPluginManager, register_plugin: Register
) -> None:
    key = f"runway/{'a' * 40}.jpg"
    url = f"https://rk.example/media/{key}"
    seen = _fire(
        plugin_manager, register_plugin, "rk_media_withdrawn", article_id=3, keys=[key], urls=[url]
    )
    assert seen == [{"article_id": 3, "keys": [key], "urls": [url]}]


def test_misspelled_hookimpl_is_caught(plugin_manager: RkPluginManager) -> None:
    from pluggy import PluginValidationError

    class Typo:
        @hookimpl
        def rk_register_source(self) -> list[type]:
            return []

    plugin_manager.register(Typo(), name="typo")
    with pytest.raises(PluginValidationError):
        plugin_manager.check_pending()
