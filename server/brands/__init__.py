"""rk.server.brands: brands and their uids: lookups for the spider API, an
instance's uid alphabet, and the operator's brand management (add, list, import).
"""

from __future__ import annotations

from rk.server.brands.lookup import BrandIds, brand_info, slugs_of
from rk.server.brands.management import (
    BrandInputError,
    BrandNameClash,
    BrandRefused,
    add_brand,
    brand_named,
    check_slugs,
    clean_name,
    find_brand,
    new_brand,
)
from rk.server.brands.repository import UID_MATCH

__all__ = [
    "UID_MATCH",
    "BrandIds",
    "BrandInputError",
    "BrandNameClash",
    "BrandRefused",
    "add_brand",
    "brand_info",
    "brand_named",
    "check_slugs",
    "clean_name",
    "find_brand",
    "new_brand",
    "slugs_of",
]
