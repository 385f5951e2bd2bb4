"""Which published images an export takes: a season, a brand, a kind, or all of them."""

from __future__ import annotations

from msgspec import Struct

from rk.core.api.errors import RkError

KINDS = ("runway", "street")
MAX_NAME = 200


class BadExport(RkError):
    """An export that cannot be made as asked (a filter, a format, an output folder)."""


class ExportFilters(Struct, frozen=True, kw_only=True):
    """Checked filters: a season's name, a brand's uid or name, a kind ("" = any)."""

    season: str = ""
    brand: str = ""
    kind: str = ""

    def check(self) -> ExportFilters:
        """The same filters, or BadExport naming the one that cannot be used."""
        if self.kind and self.kind not in KINDS:
            raise BadExport(f"--kind must be runway or street, not {self.kind[:40]!r}")
        for name, value in (("season", self.season), ("brand", self.brand)):
            if len(value) > MAX_NAME or any(ord(c) < 32 for c in value):
                raise BadExport(f"--{name} is not a {name} name: {value[:40]!r}")
        return ExportFilters(season=self.season.strip(), brand=self.brand.strip(), kind=self.kind)

    def described(self) -> str:
        """``season 'Spring 2025', kind runway`` or ``the whole published archive``."""
        named = (("season", self.season), ("brand", self.brand), ("kind", self.kind))
        parts = [f"{name} {value!r}" for name, value in named if value]
        return ", ".join(parts) or "the whole published archive"
