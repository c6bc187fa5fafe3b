"""Apply a lint finding's fix (the Lint tab's Fix), through engine/ops/lint_fix.py."""

from __future__ import annotations

from typing import Any

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.core.lint_finding import Finding
from dreamdesk.engine.ops.lint_fix import fix

from ..context.worker import Job
from .run import Initiator, run_op


def fix_finding(by: Initiator, ws: Workspace, finding: Finding, **on: Any) -> Job:
    return run_op(by, f"lint fix {finding.id}", lambda ctx, who: fix(ws, finding, who), failure="Not fixed",
                  hint=lambda r: " Undo it with Ctrl+Alt+Z (Edit → Undo Last Restore).", **on)
