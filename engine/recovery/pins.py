"""Pins: entries the user asked to keep exactly as they are.

A pin names an entry of SOUL.md, USER.md, memory/MEMORY.md or a skill's SKILL.md by its file,
its text as entries.split_entries reads it, its heading and when it was pinned. Pins live in
Dreamdesk's own per-workspace state (`<state>/workspaces/<key>/pins.json`), never in the files
the assistant reads: nanobot would otherwise carry them into its prompt and its own Dream.

Dreamdesk's own Dream may not remove or rewrite a pinned entry (dream/tools.py asks
`pinned_texts`). Any other writer can: an alert is then derived from the pins and the files as
they are now, so it survives restarts and lasts until the entry is back or the pin is gone.
Nothing here ever puts an entry back on its own; `restore_pin` is the user's one click.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..text.entries import Entry, contains_entry, dedent_entry, removed_entries, split_entries
from ..disk.files import FileLock, atomic_write_text, read_bytes
from ..core.problems import WorkspaceError
from ..core.rules import is_memory_path
from ..versions.snapshots import SnapshotError, SnapshotStore
from ..core.state import lock_path, workspace_state_dir
from ..text.textform import normalise
from ..home.workspace import Workspace

PINS_NAME = "pins.json"
_ALIASES = {"MEMORY.md": "memory/MEMORY.md"}
HISTORY_DEPTH = 50       # commits looked through for the version a missing pin was last in


@dataclass(frozen=True, slots=True)
class Pin:
    file: str
    text: str
    heading: str | None
    pinned_at: str
    section: tuple[str, ...] = ()    # the other entries under its heading when pinned (to tell a rewrite)

    @property
    def id(self) -> str:
        """Stable for the same file and text (a pin is those two)."""
        digest = hashlib.sha256(f"{self.file}\0{self.text}".encode("utf-8", "surrogateescape")).hexdigest()
        return "p-" + digest[:12]

    def to_json(self) -> dict:
        return {"id": self.id, "file": self.file, "heading": self.heading, "text": self.text,
                "pinned_at": self.pinned_at}

    def to_store(self) -> dict:
        return {k: v for k, v in self.to_json().items() if k != "id"} | {"section": list(self.section)}


@dataclass(frozen=True, slots=True)
class PinState:
    pin: Pin
    present: bool                 # the entry is in its file now
    replaced_by: str | None = None   # missing: the entry that took its place, where it can be told
    file_exists: bool = True

    def to_json(self) -> dict:
        return self.pin.to_json() | {"state": "present" if self.present else "missing",
                                     "replaced_by": self.replaced_by}

    @property
    def message(self) -> str:
        """What the alert says, in one line."""
        where = self.pin.file if self.file_exists else f"{self.pin.file}, which no longer exists"
        if self.replaced_by:
            return f"A pinned entry was changed in {where}: it now reads {_short(self.replaced_by)}"
        return f"A pinned entry is gone from {where}"


def _short(text: str, limit: int = 80) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= limit else one[:limit - 1] + "…")


# -- the pins file -------------------------------------------------------------------------------
def pins_path(root: Path, create: bool = False) -> Path:
    return workspace_state_dir(root, create=create) / PINS_NAME


def list_pins(ws: Workspace) -> list[Pin]:
    """The workspace's pins, oldest first. A pins file that cannot be read is said in words
    (and never written over, so the pins in it are not lost)."""
    path = pins_path(ws.root)
    try:
        data = json.loads(read_bytes(path).decode("utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WorkspaceError(f"Dreamdesk's pins file {path} cannot be read ({exc}); fix or remove it "
                             "(nothing was changed)") from None
    items = data.get("pins") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise WorkspaceError(f"Dreamdesk's pins file {path} holds no list of pins; fix or remove it "
                             "(nothing was changed)")
    out = []
    for p in items:
        if isinstance(p, dict) and isinstance(p.get("file"), str) and isinstance(p.get("text"), str):
            heading = p.get("heading") if isinstance(p.get("heading"), str) else None
            section = p.get("section") if isinstance(p.get("section"), list) else []
            out.append(Pin(p["file"], p["text"], heading, str(p.get("pinned_at") or ""),
                           tuple(x for x in section if isinstance(x, str))))
    return out


def _save(ws: Workspace, pins: list[Pin]) -> None:
    body = {"version": 1, "pins": [p.to_store() for p in pins]}
    atomic_write_text(pins_path(ws.root, create=True), json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def _lock(ws: Workspace) -> FileLock:
    workspace_state_dir(ws.root, create=True)
    return FileLock(lock_path(ws.root, "pins"), timeout=10, what="the pins lock")


def pinned_texts(ws: Workspace, rel: str) -> list[str]:
    """The pinned entries of one file (what Dream's sandbox keeps)."""
    return [p.text for p in list_pins(ws) if p.file == rel]


# -- naming an entry -------------------------------------------------------------------------------
def pin_file(file: str, ws: Workspace | None = None) -> str:
    """The workspace path of a file a pin may name, or a one-line refusal (`ws`: a home whose
    layout names its own memory files, OpenClaw's top-level MEMORY.md)."""
    rel = file.strip().replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    if ws is not None and ws.layout.writable(rel):
        return rel
    rel = _ALIASES.get(rel, rel)
    if not is_memory_path(rel):
        raise WorkspaceError(f"{file} is not a memory file; a pin names an entry of SOUL.md, USER.md, "
                             "memory/MEMORY.md or skills/<name>/SKILL.md")
    return rel


def _file_text(ws: Workspace, rel: str) -> str | None:
    state, _ = ws.read_file(rel)
    return normalise(state.text) if state.exists else None


def _bare(text: str) -> str:
    return " ".join(text.strip().lstrip("-*+ ").split()).casefold()


def _one(candidates: list, text: str, rel: str, what: str):
    if len(candidates) > 1:
        raise WorkspaceError(f"{len(candidates)} {what} in {rel} read {_short(text)}; name it with --line N")
    return candidates[0] if candidates else None


def entry_at(ws: Workspace, rel: str, text: str | None = None, line: int | None = None) -> Entry:
    """The entry of `rel` named by its text (exactly, or without its list marker and spacing)
    or by a 1-based line inside it; a name that fits no entry is said in words."""
    if (text is None) == (line is None):
        raise WorkspaceError("name the entry by its text or by --line N (one of the two)")
    current = _file_text(ws, rel)
    if current is None:
        raise WorkspaceError(f"{rel} does not exist in this workspace")
    entries = split_entries(current)
    if line is not None:
        hit = next((e for e in entries if e.start < line <= e.end), None)
        if hit is None:
            total = len(current.split("\n"))
            where = f"past the end of {rel} ({total} lines)" if line > total or line < 1 else \
                "a heading, a blank line or a rule, not an entry"
            raise WorkspaceError(f"line {line} of {rel} is {where}")
        return hit
    exact = [e for e in entries if e.text.strip() == text.strip()]
    hit = _one(exact, text, rel, "entries") or _one([e for e in entries if _bare(e.text) == _bare(text)],
                                                    text, rel, "entries")
    if hit is None:
        raise WorkspaceError(f"no entry of {rel} reads {_short(text)}; copy the entry's text as "
                             "`dreamdesk pins` or the Files tab shows it, or use --line N")
    return hit


# -- pin, unpin ------------------------------------------------------------------------------------
def pin(ws: Workspace, file: str, text: str | None = None, line: int | None = None,
        now: datetime | None = None) -> tuple[Pin, bool]:
    """Pin the entry named by text or line; (the pin, whether it is new). Pinning an entry
    that is already pinned changes nothing."""
    rel = pin_file(file, ws)
    entry = entry_at(ws, rel, text, line)
    section = tuple(e.text for e in split_entries(_file_text(ws, rel) or "")
                    if e.heading == entry.heading and e.text != entry.text)
    with _lock(ws):
        pins = list_pins(ws)
        old = next((p for p in pins if p.file == rel and p.text == entry.text), None)
        if old is not None:
            return old, False
        stamp = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
        new = Pin(rel, entry.text, entry.heading, stamp, section)
        _save(ws, pins + [new])
        return new, True


def find_pin(ws: Workspace, file: str, text: str | None = None, line: int | None = None) -> Pin:
    """The pin named by its text (or by a line of the entry now in the file); a pin whose entry
    is gone from the file is named by its text."""
    rel = pin_file(file, ws)
    pins = [p for p in list_pins(ws) if p.file == rel]
    if line is not None:
        want = entry_at(ws, rel, line=line).text
        hit = next((p for p in pins if p.text == want), None)
    else:
        if text is None:
            raise WorkspaceError("name the entry by its text or by --line N (one of the two)")
        hit = _one([p for p in pins if p.text.strip() == text.strip()], text, rel, "pins") or \
            _one([p for p in pins if _bare(p.text) == _bare(text)], text, rel, "pins")
        want = text
    if hit is None:
        raise WorkspaceError(f"no pinned entry of {rel} reads {_short(want)} (see: dreamdesk pins PATH)")
    return hit


def unpin(ws: Workspace, file: str, text: str | None = None, line: int | None = None) -> Pin:
    target = find_pin(ws, file, text, line)
    return unpin_id(ws, target.id)


def unpin_id(ws: Workspace, pin_id: str) -> Pin:
    with _lock(ws):
        pins = list_pins(ws)
        hit = next((p for p in pins if p.id == pin_id), None)
        if hit is None:
            raise WorkspaceError(f"no pin with id {pin_id} (it may have been unpinned already)")
        _save(ws, [p for p in pins if p.id != pin_id])
        return hit


# -- present or missing ------------------------------------------------------------------------------
def is_present(current: str, text: str) -> bool:
    """The same test a restore makes before it puts an entry back, so an alert never offers a
    restore that would find the entry already there."""
    return contains_entry(current, text) or contains_entry(current, dedent_entry(text))


def pin_states(ws: Workspace) -> list[PinState]:
    """Every pin with its state now (present / missing, and what replaced a missing one)."""
    texts: dict[str, str | None] = {}
    out = []
    store = None
    for p in list_pins(ws):
        if p.file not in texts:
            texts[p.file] = _file_text(ws, p.file)
        current = texts[p.file]
        if current is not None and is_present(current, p.text):
            out.append(PinState(p, True))
            continue
        store = store or SnapshotStore(ws)
        out.append(PinState(p, False, _replacement(store, p, current or ""), current is not None))
    return out


def pin_alerts(ws: Workspace) -> list[PinState]:
    """Pinned entries no longer in their file, removed or changed by any writer."""
    return [s for s in pin_states(ws) if not s.present]


def _replacement(store: SnapshotStore, p: Pin, current: str) -> str | None:
    """What took a missing pin's place: removed_entries between the newest snapshot of its file
    that still holds it (the last snapshot, or one of the commits before it) and the file now;
    without one, between its section as it was pinned and that section now."""
    base = _last_version_with(store, p)
    if base is None:
        base, current = _section_text(p.heading, (p.text,) + p.section), _section_text(p.heading, tuple(
            e.text for e in split_entries(current) if e.heading == p.heading))
    return next((r.replaced_by for r in removed_entries(base, current) if r.entry.text == p.text), None)


def _section_text(heading: str | None, entries: tuple[str, ...]) -> str:
    """A section made of these entries under this heading, for removed_entries to compare."""
    return "\n\n".join(((heading,) if heading else ()) + entries) + "\n"


def _last_version_with(store: SnapshotStore, p: Pin) -> str | None:
    try:
        store.check()
        if not store.exists() or store.head() is None:
            return None
        # one log call names the file's blob in each commit, one cat-file reads them all
        out = store._git("log", f"-n{HISTORY_DEPTH}", "--format=", "--raw", "--no-abbrev", "--no-renames",
                         "--", p.file)
        blobs = [row.split()[3] for row in out.splitlines() if row.startswith(":") and len(row.split()) >= 5]
        blobs = [b for b in blobs if set(b) != {"0"}]
        texts = store.blob_texts(blobs)
    except (SnapshotError, OSError):
        return None      # no snapshots to tell from: the alert still stands, without a replacement
    return next((normalise(texts[b]) for b in blobs if is_present(normalise(texts[b]), p.text)), None)


def restore_pin(ws: Workspace, pin_id: str):
    """Put a missing pinned entry back under its heading (the user's click): restore_record's
    rules, snapshot first, the file's own form, undoable. Returns the RestoreResult."""
    from .archive import ArchiveRecord
    from .restore import restore_record
    p = next((x for x in list_pins(ws) if x.id == pin_id), None)
    if p is None:
        raise WorkspaceError(f"no pin with id {pin_id} (it may have been unpinned)")
    rec = ArchiveRecord(p.id, p.pinned_at, p.file, p.text, "restore", heading=p.heading)
    return restore_record(ws, rec, f"pinned entry {_short(p.text, 40)}", any_memory_file=True)
