"""The one-click fixes of memory lint (engine/lint/memory_lint.py), through the normal edit path: a snapshot
first (a failing one writes nothing), what leaves USER.md / MEMORY.md archived (reason edit), the
file's own line endings, BOM and final newline kept, an `edit:` commit, and a line in the restore
log, so `dreamdesk restore PATH --undo ID` (or the Snapshots tab) puts the bytes back exactly.

A fix acts on the entries the lint saw: when its file no longer holds one there (or at all), nothing
is written and the caller is told to lint again. A removal must take exactly those entries out
(the target with what is attached to it: an assistant's marker comments; every other entry kept,
word for word); a move writes the addition before the removal, so a failure in between leaves a
copy, never a loss. Which files a fix may write, and which are archived, is the home's layout's
(an OpenClaw home's MEMORY.md is at its top), asked as an edit asks it."""

from __future__ import annotations

from collections import Counter

from ..recovery.archive import write_memory
from ..text.entries import contains_entry, dedent_entry, has_heading, insert_entry, split_entries
from ..disk.files import MISSING_HASH, resolve_inside
from .memory_lint import MOVE, REMOVE, REVIEW, REWRITE, Finding, Place
from ..core.problems import WorkspaceError
from ..recovery.job_lock import job_lock
from ..recovery.restore import RestoreResult, log_restore
from ..recovery.restore_log import FileWrite
from ..core.rules import USER
from ..versions.snapshots import SnapshotError, SnapshotStore
from ..text.textform import KEEP_FORM, fit, normalise
from ..home.workspace import Workspace


def fix_finding(ws: Workspace, finding: Finding, store: SnapshotStore | None = None) -> RestoreResult:
    """Apply the finding's fix; returns the record a restore returns (its id undoes it)."""
    if finding.fix not in (REMOVE, MOVE, REWRITE):
        raise WorkspaceError(f"{finding.kind} in {finding.target.file} has no automatic fix; edit it in the Files tab")
    if finding.action == REVIEW:
        raise WorkspaceError(f"not a one-click fix: {finding.review_note}; nothing was written")
    ws.check_writable(finding.target.file)         # (before any snapshot is taken)
    store = store or SnapshotStore(ws)
    with job_lock(ws):
        plan = _plan(ws, finding)
        what = f"lint fix: {finding.fix_label[0].lower()}{finding.fix_label[1:]}"
        result = RestoreResult(finding.id, None, None)
        try:
            result.undo = store.snapshot(f"snapshot: before {what}") or store.head()
        except SnapshotError as exc:
            raise WorkspaceError(f"not fixed: the snapshot taken before every fix failed ({exc})") from None
        result.warnings += store.notes
        # what goes with the entry (its markers) is no fact to archive on its own
        attached = {p.text for p, to in finding.edits if to is None and p != finding.target}
        for rel, (expected, text) in plan:
            after = _write(ws, rel, text, expected, result, attached)
            result.files.append(rel)
            result.writes.append(FileWrite(rel, expected, after))
        try:
            result.commit = store.snapshot(f"edit: {', '.join(result.files)} ({what})", with_summary=True)
        except SnapshotError as exc:
            result.warnings.append(f"the fix was not committed to snapshots: {exc}")
        log_restore(ws, result, what, "lint", [])
        return result


def _plan(ws: Workspace, finding: Finding) -> list[tuple[str, tuple[str, str]]]:
    """(file, (hash it was read with, new normalised text)) for each write, in order."""
    t = finding.target
    for rel in {t.file, finding.move_to or t.file}:
        if not ws.layout.writable(rel):
            raise WorkspaceError(f"{rel}: not a memory file Dreamdesk edits")
    if len(finding.places) > 1:
        kept = finding.places[0]
        if not contains_entry(_read(ws, kept.file)[1], kept.text):
            raise WorkspaceError(f"the copy to keep is no longer in {kept.file}; nothing was removed (lint again)")
    state_hash, text = _read(ws, t.file)
    plan = []
    if finding.fix == MOVE:
        plan.append((finding.move_to, _added(ws, finding.move_to, t)))
    plan.append((t.file, (state_hash, _edited(text, t.file, finding.edits))))
    return plan


def _read(ws: Workspace, rel: str) -> tuple[str, str]:
    resolve_inside(ws.root, rel)
    state, _ = ws.read_file(rel)
    if state.exists and state.decode_error:
        raise WorkspaceError(f"{rel} is {state.decode_error}; fix it by hand first (nothing was written)")
    return (state.hash if state.exists else MISSING_HASH), (normalise(state.text) if state.exists else "")


def _edited(text: str, rel: str, edits: tuple[tuple[Place, str | None], ...]) -> str:
    """`text` with each entry of `edits` removed (None) or replaced, and no blank line left
    doubled where one went; every other entry kept word for word."""
    lines = text.split("\n")
    spans = [(*_locate(text, p), to) for p, to in edits]
    steps: list[tuple[int, int, list[str] | None]] = [(s, e, to.split("\n")) for s, e, to in spans if to is not None]
    runs = _runs(lines, [(s, e) for s, e, to in spans if to is None])
    if len(runs) > 1:       # an entry and what belongs to it (its markers) are no longer together
        raise WorkspaceError(f"{rel} changed since the lint: what belongs to the entry is no longer right above it; "
                             "nothing was written (lint again)")
    steps += [(s, e, None) for s, e in runs]
    for start, end, instead in sorted(steps, key=lambda s: s[0], reverse=True):     # last first: indexes stay right
        lines[start:end] = instead or []
        if instead is None and 0 < start < len(lines) and not lines[start - 1].strip() and not lines[start].strip():
            del lines[start]
    new = "\n".join(lines)
    want = Counter(e.text for e in split_entries(text))
    for p, to in edits:
        if p.kind != "heading":
            want[p.text] -= 1
            if to is not None:
                want[to] += 1
    if Counter(e.text for e in split_entries(new)) != +want:
        raise WorkspaceError(f"taking that entry out of {rel} would change the entries around it; "
                             "nothing was written (edit it in the Files tab)")
    return new


def _runs(lines: list[str], gone: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The removed spans joined where only blank lines lie between them (an entry, the blank line
    and the comment above it go as one)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(gone):
        if out and all(not line.strip() for line in lines[out[-1][1]:start]):
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _locate(text: str, place: Place) -> tuple[int, int]:
    """Where the entry is now: where the lint saw it, else the one entry with its text (a heading:
    its line, where the lint saw it)."""
    if place.kind == "heading":
        if text.split("\n")[place.start:place.end] == place.text.split("\n"):
            return place.start, place.end
        raise WorkspaceError(f"{place.file} changed since the lint: the heading at {place.lines} is not there as "
                             "it was; nothing was written (lint again)")
    found = [e for e in split_entries(text) if e.text == place.text]
    at = [(e.start, e.end) for e in found if (e.start, e.end) == (place.start, place.end)]
    if at:
        return at[0]
    if len(found) == 1:
        return found[0].start, found[0].end
    raise WorkspaceError(f"{place.file} changed since the lint: the entry at {place.lines} is not there as it was; "
                         "nothing was written (lint again)")


def _added(ws: Workspace, rel: str, place: Place) -> tuple[str, str]:
    """The file `rel` with the entry added: under "## Preferences" in USER.md when it has one, at
    the end of a skill, and a new skill made with the header nanobot reads."""
    state_hash, text = _read(ws, rel)
    entry = dedent_entry(place.text)
    if state_hash == MISSING_HASH and rel.startswith("skills/"):
        name = rel.split("/")[1]
        title = (place.heading or "").lstrip("#").strip() or name.replace("-", " ").capitalize()
        return state_hash, (f"---\nname: {name}\ndescription: {title} (moved from {place.file} by Dreamdesk's lint)\n"
                            f"---\n\n# {title}\n\n{entry}\n")
    heading = "## Preferences" if rel == USER and has_heading(text, "## Preferences") else None
    if rel == USER and heading is None:
        heading = place.heading
    new = insert_entry(text, entry, heading)
    if not contains_entry(new, entry):
        raise WorkspaceError(f"the entry could not be added to {rel} as it is; nothing was written")
    return state_hash, new


def _write(ws: Workspace, rel: str, text: str, expected: str, result: RestoreResult, attached: set[str]) -> str:
    if rel in ws.layout.archived:
        after, records = write_memory(ws, rel, text, expected, "edit", form=KEEP_FORM, unarchived=attached)
        result.archived.extend(records)
        return after
    old = ws.read_file(rel)[0]
    return ws.write_file(rel, fit(old.text if old.exists else None, text, KEEP_FORM), expected)
