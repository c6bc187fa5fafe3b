"""Property: in any sequence of Dream-like writes, restores (whole, file, hunk, archived entry),
hand edits and undos, every undo gives back byte-identical files for exactly the files that
restore wrote, and nothing else changes (the archive only grows)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.disk.files import MISSING_HASH, content_hash
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.recovery.restore import plan_undo, recent_restores, restore_archive_entry, restore_snapshot, undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

FILES = ("SOUL.md", "USER.md", "memory/MEMORY.md")
FACTS = ["Lives in Lyon.", "Has a cat.", "Likes tea.", "Works at ACME.", "Plays chess.", "Runs on Sundays."]
EOLS = {"lf": "\n", "crlf": "\r\n"}


@st.composite
def documents(draw) -> bytes:
    facts = draw(st.lists(st.sampled_from(FACTS), min_size=0, max_size=5, unique=True))
    eol = EOLS[draw(st.sampled_from(sorted(EOLS)))]
    lines = ["# Notes", "", "## Facts"] + [f"- {f}" for f in facts]
    if draw(st.booleans()):
        lines += ["", "## Later", "- " + draw(st.sampled_from(FACTS))]
    text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


ops = st.one_of(
    st.tuples(st.just("dream"), st.sampled_from(FILES), documents()),       # written and snapshotted
    st.tuples(st.just("hand"), st.sampled_from(FILES), documents()),        # written, not snapshotted
    st.tuples(st.just("whole"), st.integers(0, 9)),
    st.tuples(st.just("file"), st.integers(0, 9), st.sampled_from(FILES)),
    st.tuples(st.just("hunk"), st.integers(0, 9), st.sampled_from(FILES), st.integers(1, 3)),
    st.tuples(st.just("entry"), st.integers(0, 30)),
    st.tuples(st.just("undo"), st.integers(0, 4), st.booleans()),
)


def memory(ws: Workspace) -> dict[str, bytes | None]:
    out = {}
    for rel in FILES:
        p = ws.root / rel
        out[rel] = p.read_bytes() if p.exists() else None
    return out


def archive_bytes(ws: Workspace) -> bytes:
    d = ws.root / "memory" / "archive"
    return b"".join(p.read_bytes() for p in sorted(d.glob("*.jsonl"))) if d.is_dir() else b""


def apply(ws: Workspace, store: SnapshotStore, snaps: list[str], op: tuple) -> None:
    kind = op[0]
    try:
        if kind in ("dream", "hand"):
            (ws.root / op[1]).write_bytes(op[2])
            if kind == "dream":
                sha = store.snapshot("dream: periodic memory consolidation")
                if sha:
                    snaps.append(sha)
        elif kind == "whole" and snaps:
            restore_snapshot(ws, snaps[op[1] % len(snaps)], store=store)
        elif kind == "file" and snaps:
            restore_snapshot(ws, snaps[op[1] % len(snaps)], path=op[2], store=store)
        elif kind == "hunk" and snaps:
            restore_snapshot(ws, snaps[op[1] % len(snaps)], path=op[2], hunk=op[3], store=store)
        elif kind == "entry":
            recs = read_archive(ws).records
            if recs:
                restore_archive_entry(ws, recs[op[1] % len(recs)].id, store=store)
        elif kind == "undo":
            check_undo(ws, store, op[1], op[2])
    except WorkspaceError as exc:
        # refusals are allowed (no such hunk, nothing to restore…), never a half write: checked
        # by the caller comparing nothing but what a successful operation may change
        assert "stopped" not in str(exc), exc


def check_undo(ws: Workspace, store: SnapshotStore, pick: int, force: bool) -> None:
    live = recent_restores(ws)
    if not live:
        return
    entry = live[pick % len(live)]
    before = memory(ws)
    arc = archive_bytes(ws)
    plan = plan_undo(ws, entry.id, store)
    if plan.changed and not force:
        try:
            undo_restore(ws, entry.id, store=store)
        except WorkspaceError:
            assert memory(ws) == before and archive_bytes(ws) == arc      # refused: nothing written
            return
        raise AssertionError("an undo over later changes went ahead unasked")
    undo_restore(ws, entry.id, force=force, store=store)
    after = memory(ws)
    written = {w.path: w.before for w in entry.files}
    for rel in FILES:
        if rel in written:
            got = MISSING_HASH if after[rel] is None else content_hash(after[rel])
            assert got == written[rel], f"{rel} is not back byte for byte"
        else:
            assert after[rel] == before[rel], f"{rel} changed though the restore never wrote it"
    assert archive_bytes(ws).startswith(arc)                              # append-only


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(first=st.lists(documents(), min_size=3, max_size=3), steps=st.lists(ops, min_size=3, max_size=12))
def test_every_undo_gives_back_exactly_what_its_restore_wrote(first, steps):
    root = Path(tempfile.mkdtemp(prefix="dd-undo-"))
    try:
        (root / "memory").mkdir()
        for rel, data in zip(FILES, first):
            (root / rel).write_bytes(data)
        ws = Workspace.open(root)
        store = SnapshotStore(ws)
        snaps = [store.snapshot("init: test")]
        for op in steps:
            apply(ws, store, snaps, op)
        # and the last restore standing can always be undone over whatever came after, when asked
        check_undo(ws, store, 0, True)
        assert snaps and store.head()
    finally:
        shutil.rmtree(root, ignore_errors=True)
