"""A failed read or write, said in words: what could not be written and why.

`str(OSError)` reads "[Errno 13] Permission denied: '/home/x/ws/memory/.MEMORY.md.dreamdesk-a1b2.tmp'":
a number, a temp file the user never heard of, an absolute path. `describe` names the file the
write was for (the temp file's target), relative to its workspace, and the cause in words.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from .files import TMP_TAG
from ..core.rules import WORKSPACE_MARKERS as _MARKERS   # (not .workspace: the crash dialog imports this before the first paint)

_TEMP = re.compile(r"^\.(?P<name>.+?)" + re.escape(TMP_TAG) + r"[^/]*\.tmp$")


def _target(exc: OSError) -> Path | None:
    """The file the failed call was about: a rename's destination when that is what failed
    (a folder in the way), the real file behind one of our temp files, else the path named."""
    names = [n for n in (exc.filename, exc.filename2) if isinstance(n, (str, os.PathLike))]
    if not names:
        return None
    path = Path(names[-1] if exc.errno == errno.EISDIR else names[0])
    m = _TEMP.match(path.name)
    return path.with_name(m.group("name")) if m else path


def _shown(path: Path) -> str:
    """`path` relative to the workspace that holds it (the nearest folder that looks like one)."""
    for parent in path.parents:
        try:
            if any((parent / m).exists() for m in _MARKERS):
                return path.relative_to(parent).as_posix()
        except OSError:
            break
    return str(path)


def _folder(path: Path) -> str:
    shown = _shown(path.parent / "x")
    return shown[:-1] if shown != "x" else "the workspace folder"


def _reason(exc: OSError, path: Path | None, writing: bool) -> str:
    """Why, in words; names the folder or the file at fault where that is known."""
    code = exc.errno
    if code in (errno.EISDIR, errno.EINVAL) and path is not None and path.is_dir():
        return f"{_shown(path)} is a folder, not a file"
    if code in (errno.EACCES, errno.EPERM):
        if not writing:
            return "permission denied"
        if path is not None and path.parent.is_dir() and not os.access(path.parent, os.W_OK):
            return f"the folder {_folder(path)} is read-only (permission denied)"
        if path is not None and path.exists() and not os.access(path, os.W_OK):
            return f"{_shown(path)} is read-only (permission denied)"
        return "permission denied"
    if code == errno.EROFS:
        where = f"holding {_folder(path)} " if path is not None else ""
        return f"the file system {where}is mounted read-only"
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        where = f" for {_folder(path)}" if path is not None else ""
        return f"no space left on the disk{where}" if code == errno.ENOSPC else f"the disk quota{where} is used up"
    if code == errno.EISDIR:
        return "a folder is in the way"
    if code == errno.ENOTDIR:
        return "a part of its path is a file, not a folder"
    if code == errno.ENOENT:
        return "its folder does not exist"
    why = exc.strerror or type(exc).__name__
    return why[:1].lower() + why[1:]


def describe(exc: OSError, verb: str = "write") -> str:
    """'Could not write memory/MEMORY.md: the folder memory/ is read-only (permission denied).'"""
    path = _target(exc)
    what = f" {_shown(path)}" if path is not None else ""
    return f"Could not {verb}{what}: {_reason(exc, path, verb != 'read')}."


def explain(exc: BaseException, verb: str = "write") -> str:
    """Any failure as one line for a person: an OSError in words, else the message it carries."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return describe(exc, verb)
    return str(exc) or type(exc).__name__
