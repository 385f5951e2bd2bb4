"""The site's index pages of grouped links (``/brands`` by initial, ``/seasons`` by year):
what their one template, ``public/grouped.html``, draws."""

from __future__ import annotations

from rk.server.site.indexes.grouped import Entry, Group, Grouped, brand_groups, season_groups

__all__ = ["Entry", "Group", "Grouped", "brand_groups", "season_groups"]
