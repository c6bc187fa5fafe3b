"""Problems found while reading a workspace: reported, never fatal, never silently fixed."""

from __future__ import annotations

from dataclasses import dataclass, asdict

ERROR = "error"      # the thing is skipped or refused
WARNING = "warning"  # the thing is used, but something about it is off
INFO = "info"        # worth knowing (a missing optional file)


@dataclass(frozen=True, slots=True)
class Problem:
    file: str                 # path relative to the workspace (or the home for config/sessions)
    message: str
    line: int | None = None   # 1-based, where known
    severity: str = ERROR

    def to_json(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


class WorkspaceError(Exception):
    """The action cannot go on (bad path, bad input). The message is meant for the user."""


class ConflictError(WorkspaceError):
    """A file changed on disk after the caller read it; nothing was written."""

    def __init__(self, path: str, expected: str, actual: str | None):
        super().__init__(f"{path} changed on disk since it was read; nothing was written")
        self.path = path
        self.expected = expected
        self.actual = actual


class UnsafePathError(WorkspaceError):
    """A path leads outside the workspace (traversal, absolute, or a symlink out)."""
