"""One read of everything the dashboard and `dreamdesk status` show."""

from __future__ import annotations

from dataclasses import dataclass, field

from .assistants import Assistant, assistant_of
from .budgets import FileSize, measure
from .config import Config, LostSetting, lost_problem, lost_settings
from .history import History
from .consolidator import compacted_through, read_ledger
from .problems import INFO, WARNING, Problem
from .sessions import Session, scan_sessions
from .workspace import Workspace


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

    @property
    def pending(self) -> int:
        return sum(1 for e in self.history.entries if e.cursor > self.dream_cursor)

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
        }


def read_status(ws: Workspace) -> Status:
    cfg = ws.config()
    problems: list[Problem] = list(cfg.problems)
    lost = lost_settings(ws.root, cfg)
    problems.extend(lost_problem(x, cfg.display) for x in lost)
    files, fprobs = measure(ws, cfg)
    problems.extend(fprobs)
    hist = ws.history()
    problems.extend(hist.problems)
    cur, dream, cprobs = ws.cursors()
    problems.extend(cprobs)
    if hist.entries and cur < hist.last_cursor:
        problems.append(Problem("memory/.cursor", f"is {cur}, behind the last history cursor "
                                                  f"{hist.last_cursor}; the next append uses {hist.last_cursor + 1}",
                                severity=WARNING))
    if dream > max(cur, hist.last_cursor):
        problems.append(Problem("memory/.dream_cursor", f"is {dream}, past the last history cursor "
                                                        f"{max(cur, hist.last_cursor)}", severity=WARNING))
    skills = ws.root / "skills"
    if skills.is_dir():
        for d in sorted(skills.iterdir(), key=lambda q: q.name):
            if d.is_dir() and not d.name.startswith(".") and not (d / "SKILL.md").exists():
                # a skill folder the assistant cannot use: say so rather than leave it unexplained
                problems.append(Problem(f"skills/{d.name}", "has no SKILL.md; it is not a skill the assistant "
                                                           "loads, nor a file Dream may write", severity=INFO))
    sessions, bind_problems = scan_sessions(ws.home, ws.root)
    problems.extend(bind_problems)
    ledger = read_ledger(ws) if sessions else {}
    for s in sessions:
        problems.extend(s.problems)
        ahead = compacted_through(ws, s, ledger)
        if ahead is not None:
            problems.append(Problem(s.display, f"its offset went back from {ahead} to {s.last_consolidated}: the "
                                    "assistant saved an older copy over Dreamdesk's compaction. Dreamdesk will not "
                                    "compact those messages again; the assistant may archive them a second time",
                                    severity=WARNING))
    return Status(str(ws.root), str(ws.home) if ws.home else None,
                  str(ws.config_path) if ws.config_path else None,
                  files, cur, dream, hist, cfg, sessions, problems, assistant_of(ws, cfg.raw), lost)
