"""Brand uids: short public ids made with sqids, in an alphabet of this instance's own.

sqids is the maintained successor of hashids (same authors; hashids is no longer
developed), pure Python. With its default alphabet a uid is a public function of the row
id, so anyone could list every brand's uid in order; each instance therefore encodes with
its own shuffle of that alphabet (``new_alphabet``, drawn once by migration 0050 and kept
in the database), which reveals neither ids nor their order. The uid is stored in the
brands table when the brand is created and resolved by lookup, never by decoding, so two
backends can never disagree on a brand; a uid made before 0050 stays valid as the brand's
``old_uid``.
"""

from __future__ import annotations

import secrets
from functools import lru_cache

from sqids import Sqids
from sqids.constants import DEFAULT_ALPHABET

MIN_LENGTH = 8


@lru_cache(maxsize=8)
def _sqids(alphabet: str) -> Sqids:
    return Sqids(alphabet=alphabet, min_length=MIN_LENGTH)


def brand_uid(brand_id: int, alphabet: str = DEFAULT_ALPHABET) -> str:
    """The uid of brand ``brand_id`` in ``alphabet`` (the default one: a pre-0050 uid)."""
    return _sqids(alphabet).encode([brand_id])


def new_alphabet() -> str:
    """A random permutation of the default alphabet, drawn from the OS's secure source."""
    letters = list(DEFAULT_ALPHABET)
    secrets.SystemRandom().shuffle(letters)
    return "".join(letters)
