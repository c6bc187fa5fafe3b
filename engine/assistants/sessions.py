"""sessions/*.jsonl: the live conversations the Consolidator reads (read-only here).

Two layouts: Jenny's `sessions/<key>.jsonl` in the home, and nanobot's
`sessions/<workspace-id>/<base64url key>.jsonl`. nanobot 0.3.5 binds a workspace to its folder
through `<workspace>/.nanobot/workspace-id` (32 hex digits); the folder's `.workspace` marker
names the workspace path it last ran at. First line metadata (`_type: metadata`, key,
`last_archived` and the older `last_consolidated`, ...), optionally a `_type: provider_state`
line, then one message a line.
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import msgspec

from ..core import jsonl
from ..disk.files import read_bytes
from ..core.problems import INFO, WARNING, Problem

# Sessions the assistant keeps for itself and never compacts into memory history: nanobot's
# Dream transcripts (`dream:<YYYYmmdd-HHMMSS>`, AutoCompact._INTERNAL_SESSION_PREFIXES).
INTERNAL_PREFIXES = ("dream:",)
# The archived offset, newest field name first (nanobot 0.3.5 reads them in this order and
# writes both, so older releases still read what it wrote).
OFFSET_KEYS = ("last_archived", "last_consolidated")
WORKSPACE_ID_FILE = ".nanobot/workspace-id"
_WORKSPACE_ID = re.compile(r"[0-9a-f]{32}")
# nanobot's own records that are not messages, and messages it never archives
PROVIDER_STATE = "provider_state"
HIDDEN = "_hidden_history"
CHECKPOINT_TEXT = "Continue the active task from the working-memory checkpoint above."


def assistant_session_lock(path: Path) -> Path | None:
    """The lock nanobot holds while it loads or saves sessions in this folder (None for Jenny's
    flat layout, which has none)."""
    d = Path(path).parent
    return d / ".session-files.lock" if _WORKSPACE_ID.fullmatch(d.name) else None


def _an_object(obj) -> tuple[object, str | None]:
    """jsonl.read's convert: every line of a session is a JSON object."""
    return (obj, None) if isinstance(obj, dict) else (None, "not a JSON object")


def _whole(value) -> int | None:
    """A whole number as the assistant takes one (msgspec's int: never a bool or a float)."""
    try:
        return msgspec.convert(value, int)
    except msgspec.ValidationError:
        return None


def archived_offset(meta: dict) -> tuple[int, object]:
    """The offset as the assistant reads it: the first of OFFSET_KEYS that is a whole number
    (never a bool); 0 when none is. Also returns the raw value found, for reporting."""
    for key in OFFSET_KEYS:
        v = _whole(meta.get(key))
        if v is not None:
            return v, v
    raw = next((meta[k] for k in OFFSET_KEYS if k in meta), 0)
    return 0, raw


def archivable(m: dict) -> bool:
    """Does the assistant put this message into memory history? Not its slash-command turns nor
    the hidden continuation marker of a summary checkpoint."""
    # other hidden messages (a subagent's result) are memory to nanobot: only the checkpoint is not
    return not m.get("_command") and not (m.get(HIDDEN) and m.get("content") == CHECKPOINT_TEXT)


@dataclass
class Session:
    key: str
    path: Path
    display: str
    metadata: dict = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)   # each has "_line" (1-based)
    last_consolidated: int = 0
    problems: list[Problem] = field(default_factory=list)
    meta_line: int | None = None      # 1-based line of the metadata object

    @property
    def is_project(self) -> bool:
        """Project conversations never feed personal memory."""
        meta = self.metadata.get("metadata")
        return self.key.startswith("project:") or (isinstance(meta, dict) and "project" in meta)

    @property
    def is_internal(self) -> bool:
        """The assistant's own bookkeeping (its Dream transcripts): never compacted."""
        return self.key.startswith(INTERNAL_PREFIXES)

    @property
    def unconsolidated(self) -> int:
        return max(0, len(self.messages) - self.last_consolidated)

    def to_json(self) -> dict:
        return {"key": self.key, "path": self.display, "messages": len(self.messages),
                "last_consolidated": self.last_consolidated, "unconsolidated": self.unconsolidated,
                "project": self.is_project, "internal": self.is_internal, "problems": [p.to_json() for p in self.problems]}


def _key_from_filename(path: Path, nanobot: bool) -> str:
    stem = path.stem
    if nanobot:
        try:
            return base64.urlsafe_b64decode(stem + "=" * (-len(stem) % 4)).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return stem
    return stem


def read_session(path: Path, display: str, nanobot: bool = False) -> Session:
    s = Session(_key_from_filename(path, nanobot), path, display)
    try:
        data = read_bytes(path)
    except OSError as exc:
        s.problems.append(Problem(display, f"cannot be read ({exc.strerror or exc})"))
        return s

    def skip(bad: jsonl.Bad) -> str:
        s.problems.append(Problem(display, f"{bad.reason}; skipped", line=bad.line))
        return jsonl.SKIP

    for lineno, _at, obj, _term in jsonl.read(data, skip, _an_object):
        if obj.get("_type") == "metadata":
            s.metadata = obj
            s.meta_line = lineno
            if isinstance(obj.get("key"), str):
                s.key = obj["key"]
            lc, found = archived_offset(obj)
            if lc < 0 or (lc == 0 and found != 0):
                s.problems.append(Problem(display, f"last_archived must be a whole number ≥ 0, got {found!r}; "
                                                   "reading it as 0", line=lineno, severity=WARNING))
                lc = 0
            s.last_consolidated = lc
            continue
        if obj.get("_type") == PROVIDER_STATE:
            continue     # the provider's private conversation state, not a message
        if not isinstance(obj.get("role"), str):
            # still a message to the assistant (its offsets count it), so it keeps its place
            s.problems.append(Problem(display, "message without a role; kept in place, compacted as '?'",
                                      line=lineno, severity=WARNING))
        obj["_line"] = lineno
        s.messages.append(obj)
    if s.last_consolidated > len(s.messages):
        s.problems.append(Problem(display, f"last_archived {s.last_consolidated} is past the "
                                           f"{len(s.messages)} messages", severity=WARNING))
    return s


def _bound_folder(home_sessions: Path, workspace_root: Path) -> tuple[Path | None, list[Problem]]:
    """The nanobot sessions folder this workspace is bound to, found as nanobot finds it (read
    only: nanobot would also rewrite markers; we never do)."""
    problems: list[Problem] = []
    ws_real = os.path.realpath(workspace_root)
    id_file = workspace_root / WORKSPACE_ID_FILE
    try:
        wid = id_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        wid = None
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(WORKSPACE_ID_FILE, f"cannot be read ({exc}); its sessions cannot be found")]
    if wid is not None:
        if not _WORKSPACE_ID.fullmatch(wid):
            return None, [Problem(WORKSPACE_ID_FILE, "is not a 32-digit workspace id; the assistant refuses "
                                                     "to start until it is restored, and its sessions cannot be found")]
        d = home_sessions / wid
        if not d.is_dir():
            return None, problems
        named = _marker(d)
        if named and os.path.realpath(named) != ws_real and os.path.exists(named) \
                and not os.path.samefile(named, workspace_root):
            # nanobot treats this as a copy of a workspace that still lives at `named`: it starts
            # a new, empty set of sessions here. Say so rather than compact someone else's chats.
            problems.append(Problem(f"sessions/{wid}", f"belongs to the workspace at {named}, which still "
                                    "exists: the assistant treats this one as a copy and starts new sessions "
                                    "for it, so these are not compacted from here", severity=WARNING))
            return None, problems
        return d, problems
    for d in sorted(q for q in home_sessions.iterdir() if q.is_dir() and _WORKSPACE_ID.fullmatch(q.name)):
        named = _marker(d)
        if named and (os.path.realpath(named) == ws_real
                      or (os.path.exists(named) and os.path.samefile(named, workspace_root))):
            return d, problems
    return None, problems


def _marker(d: Path) -> str | None:
    try:
        named = (d / ".workspace").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not named or "\0" in named:
        return None
    return os.path.expanduser(named)


def scan_sessions(home: Path | None, workspace_root: Path,
                  want: Callable[[str], bool] | None = None) -> tuple[list[Session], list[Problem]]:
    """The sessions that feed this workspace's memory, and what stood in the way of finding
    them (sessions that exist but none bound to this workspace is said, never silent).
    `want` picks sessions by the key their file name gives, before any is read."""
    if home is None:
        return [], []
    sdir = home / "sessions"
    if not sdir.is_dir():
        return [], []
    found: list[Session] = []
    for p in sorted(sdir.glob("*.jsonl")):
        if want is None or want(_key_from_filename(p, False)):
            found.append(read_session(p, f"sessions/{p.name}"))
    bound, problems = _bound_folder(sdir, workspace_root)
    if bound is not None:
        for p in sorted(bound.glob("*.jsonl")):
            if want is None or want(_key_from_filename(p, True)):
                found.append(read_session(p, f"sessions/{bound.name}/{p.name}", nanobot=True))
    elif not found and not problems:
        others = [d.name for d in sdir.iterdir() if d.is_dir() and any(d.glob("*.jsonl"))]
        if others:
            problems.append(Problem("sessions/", f"holds {len(others)} session folder(s), none bound to this "
                                    f"workspace (no {WORKSPACE_ID_FILE} naming one, no .workspace marker "
                                    "naming this path); nothing can be compacted", severity=INFO))
    return found, problems


def find_sessions(home: Path | None, workspace_root: Path) -> list[Session]:
    return scan_sessions(home, workspace_root)[0]
