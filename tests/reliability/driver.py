"""Runs one Dreamdesk operation in its own process for the kill trials: prints "ready" once
everything is imported, waits for a line on stdin, then runs the operation to completion and
prints what it did as JSON (the CLI's own output for dream and compact)."""

import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[2]))     # this checkout's engine, not an installed one


def main() -> None:
    op, home = sys.argv[1], Path(sys.argv[2])
    from dreamdesk.engine.cli import main as cli
    from dreamdesk.engine.recovery.restore import restore_archive_entry, restore_snapshot
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(home)
    target = sys.argv[3] if len(sys.argv) > 3 else ""
    print("ready", flush=True)
    sys.stdin.readline()
    if op == "dream":
        sys.exit(cli(["dream", str(home), "--replay", str(home / "dream-replay.jsonl"), "--review", "--json"]))
    if op == "compact":
        sys.exit(cli(["compact", str(home), "--json"]))
    if op == "restore-whole":
        done = [restore_snapshot(ws, target, move_cursor=True)]
    elif op == "restore-file":
        done = [restore_snapshot(ws, target, path="USER.md")]
    elif op == "restore-hunk":
        done = [restore_snapshot(ws, target, path="memory/MEMORY.md", hunk=1)]
    elif op == "archive-restore":
        done = [restore_archive_entry(ws, rid, SnapshotStore(ws)) for rid in target.split(",")]
    print(json.dumps({"restores": [r.to_json() for r in done]}))


if __name__ == "__main__":
    from dreamdesk.engine.core.problems import WorkspaceError
    try:
        main()
    except WorkspaceError as exc:        # a refusal, said as the CLI says it
        print(f"dreamdesk: {exc}", file=sys.stderr)
        sys.exit(2)
