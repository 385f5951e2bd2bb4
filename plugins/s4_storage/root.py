"""Whether a key's path stays under a file store's root, without resolving the whole path.

``Path.resolve`` of ``root/key`` looks up every component of the root again on each call
(7.5 % of the backend's event loop during media PUTs, three calls an object). The root is
resolved once when the store opens, so only the key's own components can lead elsewhere:
a ``..``, an empty or ``.`` part, or a symbolic link. Each part is checked by name, and
each that exists with one ``lstat``; a part that does not exist yet (or sits under a file)
cannot be a link, nor can anything below it. Any link is refused, even one that points
back inside the root: a key names one path, never an alias.
"""

from __future__ import annotations

import os
import stat

NOT_NAMES = frozenset({"", ".", ".."})


def stays_under(root: str, key: str) -> bool:
    """True when ``root/key`` names a path inside ``root`` (a resolved directory)."""
    parts = key.split("/")
    if NOT_NAMES.intersection(parts):
        return False
    path = root
    for part in parts:
        path = f"{path}/{part}"
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return True
        if stat.S_ISLNK(mode):
            return False
    return True
