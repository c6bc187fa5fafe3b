"""The demo workspace's recorded past (resources/demo-history), replayed onto a fresh copy.

A fresh copy of resources/demo has memory files near their budgets but no snapshots, no run
records and no archive, so the Snapshots, Charts, Archive and Dream-runs views would be empty.
`build_demo_history` gives it the month that led there: eight Dream runs between 22 Oct and
20 Nov 2026 that folded history cursors 1-99 into the files (one of them a manual run with a
review pass), each written the way a real run writes it — archive lines before the files, the
files, `.dream_cursor`, the run record, state.json — with the snapshot commits a real run makes
(`snapshot: before dream <run id>`, `dream: periodic memory consolidation` / `dream: manual
run` + `run <id>` + the per-file summary), dated at the run's own start and end.

It ends with the working files exactly as shipped (byte for byte), `.dream_cursor` 99, and never
touches history.jsonl, the other cursors, config.json or sessions. It only ever works on a copy
that has no snapshot repository yet: it refuses (WorkspaceError) when there is one, so it can
never rewrite a user's history. If anything fails half way, the files are put back as they were
and everything it created (the snapshot repository, .gitignore, memory/archive/,
memory/dreams/) is removed again before the error is raised.

Layout of the source folder (see its README.md): manifest.json lists the initial state and the
steps; steps/NN/ holds the files each step changed; memory/dreams/ and memory/archive/ hold
the run records and archive lines those runs produced.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

from ..home.cursors import write_cursor
from ..dream import records
from ..dream.run_state import save_state
from ..disk.files import atomic_write_bytes, resolve_inside
from ..core.problems import WorkspaceError
from ..recovery.job_lock import job_lock
from ..core.rules import is_memory_path
from ..versions.snapshots import SnapshotStore
from ..home.workspace import Workspace

MANIFEST_FORMAT = 1
DREAM_CURSOR = "memory/.dream_cursor"
_RUN_ID = re.compile(r"^r-\d{8}-\d{6}(-\d+)?$")


def snapshot_at(store: SnapshotStore, message: str, date: str | None = None,
                with_summary: bool = False) -> str | None:
    """`store.snapshot(...)` with the commit's author and committer date set to `date` (any
    date git accepts, e.g. ISO 8601 with an offset); None = now. The store strips GIT_* from
    the environment it gives git, so the date goes through its own `_env`."""
    if date is None:
        return store.snapshot(message, with_summary=with_summary)
    own = store.__dict__.get("_env")
    base = store._env

    def dated_env() -> dict[str, str]:
        env = base()
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        return env

    store._env = dated_env  # type: ignore[method-assign]
    try:
        return store.snapshot(message, with_summary=with_summary)
    finally:
        if own is None:
            del store._env
        else:
            store._env = own  # type: ignore[method-assign]


def _allowed(rel: str) -> bool:
    return is_memory_path(rel) or rel == DREAM_CURSOR


def _read_source(source: Path, rel: str) -> bytes:
    path = (source / rel).resolve()
    if source.resolve() not in path.parents:
        raise WorkspaceError(f"demo history: {rel} leads outside {source}")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise WorkspaceError(f"demo history: {rel} cannot be read ({exc.strerror or exc})") from None


def _load_manifest(source: Path) -> dict:
    try:
        manifest = json.loads(_read_source(source, "manifest.json").decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"demo history: manifest.json is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise WorkspaceError(f"demo history: manifest.json is not format {MANIFEST_FORMAT}")
    steps = manifest.get("steps")
    if not isinstance(steps, list) or not steps:
        raise WorkspaceError("demo history: manifest.json lists no steps")
    return manifest


def _archive_lines(source: Path) -> dict[str, list[tuple[str, bytes]]]:
    """run id -> [(archive file name, raw line)] in the order they were written."""
    out: dict[str, list[tuple[str, bytes]]] = {}
    folder = source / "memory" / "archive"
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                raise WorkspaceError(f"demo history: a line of memory/archive/{path.name} is not JSON") from None
            out.setdefault(str(obj.get("run")), []).append((path.name, raw))
    return out


def build_demo_history(home: Path, source: Path) -> None:
    """Write the recorded past of the demo into `home` (a fresh copy of resources/demo, or its
    workspace folder) from `source` (resources/demo-history). See the module docstring."""
    home, source = Path(home), Path(source)
    ws = Workspace.open(home)
    store = SnapshotStore(ws)
    if (ws.root / ".git").exists() or store.exists():
        raise WorkspaceError(f"{ws.root} already has snapshots; the demo history is only written into a "
                             "fresh copy of the demo and never rewrites an existing history")
    for sub in ("archive", "dreams"):
        d = ws.memory_dir / sub
        if d.exists() and any(d.iterdir()):
            raise WorkspaceError(f"{ws.rel(d)} already holds files; the demo history is only written into a "
                                 "fresh copy of the demo")
    manifest = _load_manifest(source)
    final = (manifest.get("final") or {}).get("sha256") or {}
    if not final or not all(_allowed(rel) for rel in final):
        raise WorkspaceError("demo history: manifest.json does not list the final files")
    # The history ends in the files as shipped: check they are the ones it was recorded against.
    shipped: dict[str, bytes] = {}
    for rel, digest in final.items():
        target = resolve_inside(ws.root, rel)
        data = target.read_bytes() if target.is_file() else None
        if data is None or hashlib.sha256(data).hexdigest() != digest:
            raise WorkspaceError(f"{rel} is not the file the demo history was recorded against; "
                                 "nothing was written")
        shipped[rel] = data
    archive = _archive_lines(source)
    gitignore = ws.root / ".gitignore"
    had_gitignore = gitignore.exists()
    fresh_dirs = {d: d.exists() for d in (ws.memory_dir / "archive", ws.dreams_dir)}   # absent or empty
    git_dir = store.git_dir if not store.separate else store.git_dir.parent
    had_git_dir = git_dir.exists()

    with job_lock(ws):
        try:
            _write_steps(ws, store, source, manifest, shipped, archive)
        except BaseException:
            _roll_back(ws, shipped, git_dir if not had_git_dir else None,
                       gitignore if not had_gitignore else None, fresh_dirs)
            raise
    for rel, data in shipped.items():
        if resolve_inside(ws.root, rel).read_bytes() != data:   # pragma: no cover - a broken manifest
            raise WorkspaceError(f"the demo history did not end in the shipped {rel}")


def _put(ws: Workspace, rel: str, data: bytes | None) -> None:
    if not _allowed(rel):
        raise WorkspaceError(f"demo history: refusing to write {rel} (not a memory file)")
    target = resolve_inside(ws.root, rel)
    if data is None:
        target.unlink(missing_ok=True)
        parent = target.parent
        while parent != ws.root and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    else:
        atomic_write_bytes(target, data)


def _write_steps(ws: Workspace, store: SnapshotStore, source: Path, manifest: dict,
                 shipped: dict[str, bytes], archive: dict[str, list[tuple[str, bytes]]]) -> None:
    initial = manifest.get("initial") or {}
    for rel, src in (initial.get("files") or {}).items():
        _put(ws, rel, _read_source(source, src))
    for rel in initial.get("absent") or []:
        _put(ws, rel, None)
    archive_dir = ws.memory_dir / "archive"
    for step in manifest["steps"]:
        run_id = step.get("run")
        if not isinstance(run_id, str) or not _RUN_ID.match(run_id):
            raise WorkspaceError(f"demo history: step {step.get('step')} has no usable run id")
        # 1. the snapshot a run takes first (none when nothing changed since the last commit)
        before = snapshot_at(store, step["snapshot"], step["started"]) or store.head()
        # 2. what leaves USER.md / MEMORY.md is archived before the shrinking write lands
        for name, raw in archive.get(run_id, []):
            archive_dir.mkdir(parents=True, exist_ok=True)
            with open(archive_dir / name, "ab") as fh:
                fh.write(raw + b"\n")
        # 3. the files as the run left them
        files = step.get("files")
        if files == "shipped":
            for rel, data in shipped.items():
                if rel != DREAM_CURSOR:
                    _put(ws, rel, data)
        else:
            for rel, src in (files or {}).items():
                _put(ws, rel, _read_source(source, src))
        # 4. the cursor, the run record, the state
        write_cursor(ws.dream_cursor_path, int(step["dream_cursor"]))
        try:
            record = json.loads(_read_source(source, step["record"]).decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise WorkspaceError(f"demo history: {step['record']} is not valid JSON ({exc})") from None
        if not isinstance(record, dict) or record.get("id") != run_id:
            raise WorkspaceError(f"demo history: {step['record']} is not the record of {run_id}")
        record["snapshot_before"] = before
        records.save_record(ws, record)
        save_state(ws, step["state"])
        # 5. the commit a run ends with
        snapshot_at(store, f"{step['commit']}\n\nrun {run_id}", step["finished"], with_summary=True)
    if (ws.dream_cursor_path.read_bytes() if ws.dream_cursor_path.exists() else None) != shipped.get(DREAM_CURSOR):
        raise WorkspaceError("demo history: the last step does not end at the shipped .dream_cursor")


def _roll_back(ws: Workspace, shipped: dict[str, bytes], git_dir: Path | None, gitignore: Path | None,
               fresh_dirs: dict[Path, bool]) -> None:
    """Best effort: the shipped files back, and nothing of what this build created left over
    (`fresh_dirs`: folders that were absent or empty before -> whether they existed)."""
    for rel, data in shipped.items():
        try:
            _put(ws, rel, data)
        except (OSError, WorkspaceError):
            pass
    for d, existed in fresh_dirs.items():
        shutil.rmtree(d, ignore_errors=True)
        if existed:
            d.mkdir(exist_ok=True)
    if git_dir is not None:
        shutil.rmtree(git_dir, ignore_errors=True)
    if gitignore is not None:
        gitignore.unlink(missing_ok=True)
