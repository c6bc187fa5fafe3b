"""The paths a git index holds, read from the file itself (saves a snapshot one `git ls-files`).

The index (gitformat-index): "DIRC", a version (2, 3 or 4), an entry count, the entries sorted
by path, extensions, and a SHA-1 of everything before it. An entry is 62 bytes of stat data,
object id and flags (64 when version 3+ sets the extended flag), then its path: NUL-padded to a
multiple of 8 bytes in versions 2 and 3, prefix-compressed against the previous path in version
4. Only what can be told for certain is answered: a file whose trailing SHA-1 does not check out
(a SHA-256 repository, index.skipHash), a split index ("link") or a sparse one ("sdir"), or any
shape not expected gives None, and the caller asks git instead.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

_HASH = 20                      # SHA-1: a SHA-256 index fails the trailer check and is left to git
_FIXED = 40 + _HASH + 2         # stat fields, object id, flags
_EXTENDED = 0x4000
_NAME_MASK = 0xFFF
_UNKNOWABLE = (b"link", b"sdir")     # the paths are not all in this file


def index_paths(git_dir: Path) -> list[str] | None:
    """Every path in `git_dir`'s index ([] when there is no index yet); None when the file is
    not one this reader can vouch for."""
    try:
        data = (git_dir / "index").read_bytes()
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) < 12 + _HASH or data[:4] != b"DIRC" or hashlib.sha1(data[:-_HASH]).digest() != data[-_HASH:]:
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    try:
        paths, end = _entries(data, version, count)
    except (ValueError, IndexError, struct.error):
        return None
    return paths if _extensions_known(data, end) else None


def _entries(data: bytes, version: int, count: int) -> tuple[list[str], int]:
    paths: list[str] = []
    pos, prev = 12, b""
    for _ in range(count):
        start = pos
        (flags,) = struct.unpack_from(">H", data, pos + _FIXED - 2)
        pos += _FIXED + (2 if version >= 3 and flags & _EXTENDED else 0)
        if version == 4:
            strip, pos = _varint(data, pos)
            if strip > len(prev):
                raise ValueError("prefix longer than the previous path")
            nul = data.index(b"\0", pos)
            name = prev[:len(prev) - strip] + data[pos:nul]
            pos = nul + 1
        else:
            length = flags & _NAME_MASK
            nul = data.index(b"\0", pos) if length == _NAME_MASK else pos + length
            if data[nul] != 0:
                raise ValueError("path not NUL-terminated")
            name = data[pos:nul]
            pos = start + (nul - start + 8) // 8 * 8       # 1 to 8 NULs end the entry
        paths.append(name.decode("utf-8", "surrogateescape"))
        prev = name
    return list(dict.fromkeys(paths)), pos     # a conflicted path has one entry per stage


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (as OFS_DELTA): each continuation adds one before shifting."""
    byte = data[pos]
    value = byte & 0x7F
    while byte & 0x80:
        pos += 1
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, pos + 1


def _extensions_known(data: bytes, pos: int) -> bool:
    """The extensions fill the rest exactly, and none says paths live elsewhere."""
    end = len(data) - _HASH
    while pos < end:
        if pos + 8 > end:
            return False
        sig, size = data[pos:pos + 4], struct.unpack_from(">I", data, pos + 4)[0]
        if sig in _UNKNOWABLE:
            return False
        pos += 8 + size
    return pos == end
