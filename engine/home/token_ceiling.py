"""An optional token ceiling for each of Dreamdesk's own Dream runs, per workspace: past it a run
stops cleanly (its writes kept, the cursor held, the outcome saying why). Kept in Dreamdesk's
state (`<state>/workspaces/<key>/dream-ceiling.json`), never in the workspace; none by default."""

from __future__ import annotations

import json
from pathlib import Path

from ..disk.files import atomic_write_text, read_bytes, remove
from ..core.problems import WorkspaceError
from ..core.state import workspace_state_dir

CEILING_NAME = "dream-ceiling.json"
LOWEST, HIGHEST = 1_000, 10_000_000     # below a pass's prompt alone; above any run's honest need


def ceiling_path(root: Path, create: bool = False) -> Path:
    return workspace_state_dir(root, create=create) / CEILING_NAME


def check(tokens: int) -> int:
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not LOWEST <= tokens <= HIGHEST:
        raise WorkspaceError(f"a token ceiling is a whole number from {LOWEST:,} to {HIGHEST:,}, not {tokens!r}")
    return tokens


def load(root: Path) -> int | None:
    """The ceiling (None: none). A file that cannot be read is said: a run must not go on
    without the ceiling the person set."""
    path = ceiling_path(root)
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
        return check(data["tokens_per_run"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, TypeError, KeyError, WorkspaceError) as exc:
        raise WorkspaceError(f"Dreamdesk's token ceiling file {path} cannot be read ({exc}); fix or remove it "
                             "(removed, runs have no ceiling)") from None


def save(root: Path, tokens: int | None) -> int | None:
    """Set the ceiling (None: remove it)."""
    path = ceiling_path(root)
    if tokens is None:
        remove(path, missing_ok=True)
        return None
    body = {"version": 1, "tokens_per_run": check(tokens)}
    atomic_write_text(ceiling_path(root, create=True), json.dumps(body, indent=2) + "\n")
    return tokens
