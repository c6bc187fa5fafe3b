"""One read of everything the dashboard and `dreamdesk status` show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..assistants import Assistant, assistant_of
from ..core import clock
from ..home.budgets import FileSize, Sizes, Total
from ..disk.changes import EVERYTHING, Changes
from ..home.config import Config, LostSetting, lost_problem, lost_settings, noted_problems
from ..home.history import History
from ..jobs.consolidator import compacted_through, read_ledger
from ..core.problems import INFO, WARNING, Problem
from ..assistants.sessions import Session, scan_sessions
from ..home.workspace import Workspace


@dataclass
class Status:
    workspace: str
    home: str | None
    config_path: str | None
    files: list[FileSize]
    cursor: int
    dream_cursor: int
    history: History
    config: Config
    sessions: list[Session]
    problems: list[Problem] = field(default_factory=list)
    assistant: Assistant | None = None     # which assistant wrote the home, and why we think so
    lost_settings: list[LostSetting] = field(default_factory=list)   # Dreamdesk wrote them; config.json lost them
    totals: list[Total] = field(default_factory=list)   # several files against one limit (OpenClaw's total)
    keeps_history: bool = True             # False: the home has no history.jsonl (nor cursors) to show
    whats_next: dict | None = None         # the assistant's own dreaming: its candidates and next run
    parts: dict = field(default_factory=dict, repr=False, compare=False)   # what read_status reuses

    @property
    def pending(self) -> int:
        return self.history.pending_count(self.dream_cursor)

    def to_json(self) -> dict:
        return {
            "workspace": self.workspace,
            "home": self.home,
            "assistant": self.assistant.to_json() if self.assistant else None,
            "config": self.config_path,
            "files": [f.to_json() for f in self.files],
            "cursor": self.cursor,
            "dream_cursor": self.dream_cursor,
            "pending": self.pending,
            "history_entries": len(self.history.entries),
            "history_bad_lines": len(self.history.bad_lines),
            "dream": self.config.dream,
            "sessions": [s.to_json() for s in self.sessions],
            "lost_settings": [x.to_json() for x in self.lost_settings],
            "problems": [p.to_json() for p in self.problems],
        } | ({"totals": [t.to_json() for t in self.totals]} if self.totals else {}) \
          | ({"whats_next": self.whats_next} if self.whats_next is not None else {})


def next_words(n: dict, top: int = 3) -> str:
    """What the assistant's own dreaming does next, in words (the Dashboard's Dream box, `status`):
    the next sweep, then the leading candidates with their recalls, queries and score against the
    thresholds."""
    sweep, t = n.get("next_sweep") or {}, n.get("thresholds") or {}
    if not sweep.get("enabled"):
        first = sweep.get("how") or "no sweep is planned"
    else:
        at = sweep.get("planned_at") or sweep.get("at")
        first = (f"Next sweep {clock.show_iso(at)}" if at else "Next sweep not known") + f" ({sweep.get('expr')})"
    if n.get("busy"):
        first = n["busy"] + ".\n" + first
    cands = n.get("candidates") or []
    ready = sum(1 for c in cands if c.get("eligible"))
    lines = [first + f"; {ready} of {len(cands)} recalled candidate(s) meet the thresholds (score ≥ "
             f"{t.get('min_score')}, signals ≥ {t.get('min_recall_count')}, queries ≥ {t.get('min_unique_queries')})."]
    for c in cands[:top]:
        state = "ready" if c.get("eligible") else "short: " + ", ".join(c.get("short") or [])
        lines.append(f"• {c.get('path')}:{c.get('start_line')}-{c.get('end_line')}  score {c.get('score', 0):.2f}, "
                     f"{c.get('recall_count')} recalls, {c.get('unique_queries')} queries — {state}")
    return "\n".join(lines)


def read_status(ws: Workspace, previous: Status | None = None, changes: Changes = EVERYTHING) -> Status:
    """One read of the workspace; with `previous`, only the parts `changes` names are read
    again and the rest are taken from it (history.jsonl not even when its stat is unchanged)."""
    old = previous.parts if previous is not None else {}
    parts: dict[str, Any] = {}
    for name, needed, read in _PARTS:
        parts[name] = read(ws, parts, old.get(name)) if name not in old or needed(changes) else old[name]
    cfg, lost, lost_problems = parts["config"]
    # the config's problems with what the home's assistant says of a value it would refuse
    cfg_problems = [*noted_problems(cfg, parts["assistant"].config_note), *lost_problems]
    sizes: Sizes = parts["files"]
    files, file_problems = sizes.files, sizes.problems
    hist = parts["history"][1]
    cur, dream, cursor_problems = parts["cursors"]
    sessions, session_problems = parts["sessions"]
    problems = [*cfg_problems, *file_problems, *hist.problems, *cursor_problems,
                *_cursor_checks(hist, cur, dream), *parts["skills"], *session_problems]
    return Status(str(ws.root), str(ws.home) if ws.home else None,
                  str(ws.config_path) if ws.config_path else None,
                  files, cur, dream, hist, cfg, sessions, problems, parts["assistant"], lost, sizes.totals,
                  ws.layout.history, parts["next"], parts)


def _config_part(ws: Workspace, _parts: dict, _old):
    cfg = ws.config()
    lost = lost_settings(ws.root, cfg)
    return cfg, lost, [lost_problem(x, cfg.display) for x in lost]


def _history_part(ws: Workspace, _parts: dict, old):
    """(the reader's version, History): when the Workspace's reader has parsed nothing since the
    last read (racy writes included: see HistoryReader), the History already read, the same
    object, so the views know there is nothing new to show. The version, not this call's own
    counters: another reader of the same Workspace (the scheduler's tick) may have parsed it."""
    version, hist = ws.history_reader.read_versioned()
    return old if old is not None and old[0] == version else (version, hist)


def _cursor_part(ws: Workspace, _parts: dict, _old):
    return ws.cursors()


def _cursor_checks(hist, cur: int, dream: int) -> list[Problem]:
    problems = []
    if hist.entries and cur < hist.last_cursor:
        problems.append(Problem("memory/.cursor", f"is {cur}, behind the last history cursor "
                                                  f"{hist.last_cursor}; the next append uses {hist.last_cursor + 1}",
                                severity=WARNING))
    if dream > max(cur, hist.last_cursor):
        problems.append(Problem("memory/.dream_cursor", f"is {dream}, past the last history cursor "
                                                        f"{max(cur, hist.last_cursor)}", severity=WARNING))
    return problems


def _skill_part(ws: Workspace, _parts: dict, _old) -> list[Problem]:
    problems = []
    skills = ws.root / "skills"
    if skills.is_dir():
        for d in sorted(skills.iterdir(), key=lambda q: q.name):
            if d.is_dir() and not d.name.startswith(".") and not (d / "SKILL.md").exists():
                # a skill folder the assistant cannot use: say so rather than leave it unexplained
                problems.append(Problem(f"skills/{d.name}", "has no SKILL.md; it is not a skill the assistant "
                                                           "loads, nor a file Dream may write", severity=INFO))
    return problems


def _session_part(ws: Workspace, _parts: dict, _old):
    sessions, problems = scan_sessions(ws.home, ws.root)
    ledger = read_ledger(ws) if sessions else {}
    for s in sessions:
        problems.extend(s.problems)
        ahead = compacted_through(ws, s, ledger)
        if ahead is not None:
            problems.append(Problem(s.display, f"its offset went back from {ahead} to {s.last_consolidated}: the "
                                    "assistant saved an older copy over Dreamdesk's compaction. Dreamdesk will not "
                                    "compact those messages again; the assistant may archive them a second time",
                                    severity=WARNING))
    return sessions, problems


def _assistant_part(ws: Workspace, parts: dict, _old) -> Assistant:
    return assistant_of(ws, parts["config"][0].raw)


def _files_part(ws: Workspace, parts: dict, _old) -> Sizes:
    """Each memory file against the limit that really applies, as the home's assistant counts."""
    return parts["assistant"].sizes(ws, parts["config"][0])


# (name, which changes make it read again, how it is read); in order: a part may use those before it
_PARTS = (
    ("config", lambda c: c.config or c.state, _config_part),
    ("assistant", lambda c: c.config or c.all_files, _assistant_part),
    ("files", lambda c: c.touches_files(), _files_part),
    ("history", lambda c: c.history, _history_part),
    ("cursors", lambda c: c.cursors, _cursor_part),
    ("skills", lambda c: c.skills or c.all_files, _skill_part),
    ("sessions", lambda c: c.sessions or c.history or c.state or c.config, _session_part),
    ("next", lambda c: c.config or c.all_files or c.touches_files(), lambda ws, parts, _old: parts["assistant"].whats_next(ws)),
)
