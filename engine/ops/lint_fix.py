"""Apply a lint finding's one-click fix (the Lint tab's Fix): snapshot first, what leaves USER.md
or MEMORY.md archived, undoable as a restore is."""

from __future__ import annotations

from ..home.workspace import Workspace
from ..core.lint_finding import Finding
from ..lint.lint_fixes import fix_finding
from ..recovery.restore import RestoreResult
from .result import OpResult, perform


def fix(ws: Workspace, finding: Finding, initiator: str) -> OpResult[RestoreResult]:
    return perform(ws, f"lint fix {finding.id}", initiator, lambda: fix_finding(ws, finding),
                   lambda r: f"Fixed: {finding.fix_label}" + (f"; {len(r.archived)} archived" if r.archived else "")
                   + ".")
