"""Why a memory file is shown but never written, as a value the files view renders: a link out of
the workspace, a folder where a file belongs, a file that cannot be read, bytes that are not
UTF-8 (saving the text shown would replace them), or a home Dreamdesk only reads (yet)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class ReadOnlyKind(Enum):
    LINK_OUTSIDE = "link-outside"     # detail: where the link leads
    FOLDER = "folder"
    UNREADABLE = "unreadable"         # detail: the system's words
    NOT_UTF8 = "not-utf8"             # detail: where the first bad byte is
    HOME = "home"                     # detail: why Dreamdesk writes no file of this home (its layout says)


@dataclass(frozen=True, slots=True)
class ReadOnly:
    kind: ReadOnlyKind
    path: str                         # workspace-relative
    detail: str = ""
