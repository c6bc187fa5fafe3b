"""sessions/*.jsonl: the live conversations the Consolidator reads (read-only here).

Two layouts: Jenny's `sessions/<key>.jsonl` in the home, and nanobot's
`sessions/<workspace-id>/<base64url key>.jsonl` beside a `.workspace` marker naming the
workspace path. First line metadata (`_type: metadata`, key, last_consolidated, ...), then one
message a line.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .files import read_bytes
from .problems import WARNING, Problem


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
    def unconsolidated(self) -> int:
        return max(0, len(self.messages) - self.last_consolidated)

    def to_json(self) -> dict:
        return {"key": self.key, "path": self.display, "messages": len(self.messages),
                "last_consolidated": self.last_consolidated, "unconsolidated": self.unconsolidated,
                "project": self.is_project, "problems": [p.to_json() for p in self.problems]}


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
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            s.problems.append(Problem(display, f"not a valid JSON line ({type(exc).__name__}); skipped", line=lineno))
            continue
        if not isinstance(obj, dict):
            s.problems.append(Problem(display, "not a JSON object; skipped", line=lineno))
            continue
        if obj.get("_type") == "metadata":
            s.metadata = obj
            s.meta_line = lineno
            if isinstance(obj.get("key"), str):
                s.key = obj["key"]
            lc = obj.get("last_consolidated", 0)
            if isinstance(lc, bool) or not isinstance(lc, int) or lc < 0:
                s.problems.append(Problem(display, f"last_consolidated must be a whole number ≥ 0, got {lc!r}; "
                                                   "reading it as 0", line=lineno, severity=WARNING))
                lc = 0
            s.last_consolidated = lc
            continue
        if not isinstance(obj.get("role"), str):
            s.problems.append(Problem(display, "message without a role; skipped", line=lineno))
            continue
        obj["_line"] = lineno
        s.messages.append(obj)
    if s.last_consolidated > len(s.messages):
        s.problems.append(Problem(display, f"last_consolidated {s.last_consolidated} is past the "
                                           f"{len(s.messages)} messages", severity=WARNING))
    return s


def find_sessions(home: Path | None, workspace_root: Path) -> list[Session]:
    if home is None:
        return []
    sdir = home / "sessions"
    if not sdir.is_dir():
        return []
    found: list[Session] = []
    for p in sorted(sdir.glob("*.jsonl")):
        found.append(read_session(p, f"sessions/{p.name}"))
    ws_real = os.path.realpath(workspace_root)
    for d in sorted(q for q in sdir.iterdir() if q.is_dir()):
        marker = d / ".workspace"
        try:
            named = marker.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if named and os.path.realpath(os.path.expanduser(named)) == ws_real:
            for p in sorted(d.glob("*.jsonl")):
                found.append(read_session(p, f"sessions/{d.name}/{p.name}", nanobot=True))
    return found
