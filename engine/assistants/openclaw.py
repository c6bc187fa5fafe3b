"""A home OpenClaw 2026.9.x wrote (npm `openclaw`): its adapter. Where the home keeps its parts
(a Layout: MEMORY.md at the top of the agent's workspace, daily notes in memory/, a JSON5
openclaw.json in the state folder, no history.jsonl), which of its agents is shown, and what
OpenClaw does differently from the contract: its own Project Context (openclaw_bootstrap), its
own caps (openclaw_sizes), its own dreaming (so Dreamdesk's jobs never run here), a git
repository it initialises and never commits to (Dreamdesk commits nothing there either).

Reading only: locating, detecting and measuring write nothing, the state database included
(openclaw_setup)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ..core.problems import WorkspaceError
from ..home.layout import JSON5, Layout
from ..home.workspace import Workspace
from . import openclaw_home
from .base import Assistant, AssistantPrunes, AssistantRuns, EntryNote, LintReading, ListedNote
from .openclaw_home import OpenClawHome
from .openclaw_notes import DAILY_NOTE

if TYPE_CHECKING:
    from datetime import date

    from .own_settings import OwnSettings, OwnWrite
    from ..home.budgets import Sizes
    from ..home.config import Config

KIND = "openclaw"
FILES = (("AGENTS.md", "agents"), ("SOUL.md", "soul"), ("IDENTITY.md", "identity"), ("USER.md", "user"),
         ("MEMORY.md", "memory"))
# listed when present: BOOTSTRAP.md until setup completes; TOOLS.md and HEARTBEAT.md, which 2026.9.6
# no longer injects; the dream diary (dreams.md only where DREAMS.md is absent)
OPTIONAL = (("BOOTSTRAP.md", "bootstrap"), ("TOOLS.md", "tools"), ("HEARTBEAT.md", "heartbeat"),
            ("DREAMS.md", "dreams"), ("dreams.md", "dreams"))
CONFIG_WRITES = ("openclaw.json is OpenClaw's own config (JSON5, with its comments): Dreamdesk's own Dream settings "
                 "are never written there; Dreamdesk sets only OpenClaw's memory settings in it (bootstrapMaxChars, "
                 "bootstrapTotalMaxChars, dreaming.enabled, dreaming.frequency: Settings → Memory, `dreamdesk config "
                 "set`)")
JOBS_REFUSED = ("OpenClaw runs its own dreaming (memory-core's sweep promotes recalled notes into MEMORY.md on its "
                "own schedule): Dreamdesk's Dream, Compact and scheduling would race it, so they do not run on an "
                "OpenClaw home (the watch does: it writes only Dreamdesk's own history)")
REGULAR_ONLY = ("OpenClaw reads only regular memory files (it skips a symlinked MEMORY.md), so Dreamdesk never "
                "writes through one; replace the link with the file itself first")
ARCHIVED = ("MEMORY.md", "USER.md")
DIARY = ("the dream diary is OpenClaw's own: its dreaming writes it after every sweep and reads its history back, "
         "so Dreamdesk shows it and never writes it")


def layout(agent: str | None) -> Layout:
    """How an OpenClaw agent's workspace keeps its parts."""
    return Layout(files=FILES, optional=OPTIONAL, notes_dir="memory", notes_name=DAILY_NOTE, skills=False,
                  config_syntax=JSON5,
                  config_writes=CONFIG_WRITES, config_settings=False, history=False, owner=KIND, agent=agent,
                  archived=ARCHIVED, never_written=(("dreams", DIARY),), apart=True, regular_only=REGULAR_ONLY)


@dataclass(frozen=True, slots=True)
class OpenClaw(Assistant):
    agent: str | None = None                   # the agent whose workspace this is
    agents: tuple[str, ...] = ()               # the home's roster
    default_agent: str | None = None           # None: several agents and none is the default
    state_dir: Path | None = None
    config: dict = field(default_factory=dict, compare=False)     # openclaw.json as OpenClaw reads it
    problems: tuple[str, ...] = ()             # what locating the home found, in words

    kind = KIND
    label = "OpenClaw 2026.9.x"
    name = "OpenClaw"

    @property
    def repository_files(self) -> tuple[str, ...] | None:
        # OpenClaw runs `git init` in the workspace and never commits: that repository is its
        # user's, and Dreamdesk's history is kept apart (the layout's `apart`)
        return None

    @property
    def history_in_prompt(self) -> bool:
        return False       # no history.jsonl: daily notes reach a chat only through /new's prelude

    @property
    def runs_dreamdesk_jobs(self) -> bool:
        return False

    @property
    def watches(self) -> bool:
        return True        # its snapshots and archive are kept apart: the workspace is never written

    @property
    def jobs_refused(self) -> str:
        return JOBS_REFUSED

    @property
    def roster(self) -> str:
        if len(self.agents) <= 1:
            return ""
        others = ", ".join(a for a in self.agents if a != self.agent)
        if self.default_agent is None and self.agent == self.agents[0]:
            return (f"agent {self.agent}: the home has {len(self.agents)} agents and none is marked the default, so "
                    f"the first is shown; the others: {others} (dreamdesk … --agent ID opens one)")
        mark = " (the default)" if self.agent == self.default_agent else ""
        return f"agent {self.agent}{mark}; the home's other agents: {others} (dreamdesk … --agent ID opens one)"

    @property
    def agent_choice(self) -> tuple[tuple[str, ...], str | None]:
        return (self.agents, self.agent) if len(self.agents) > 1 else ((), None)

    def assistant_runs(self, ws: Workspace) -> AssistantRuns:
        from . import openclaw_reads
        return openclaw_reads.runs(self, ws)

    def assistant_prunes(self, ws: Workspace) -> AssistantPrunes:
        from . import openclaw_reads
        return openclaw_reads.prunes(self, ws)

    def whats_next(self, ws: Workspace) -> dict:
        from . import openclaw_reads
        return openclaw_reads.next_json(self, ws)

    def entry_notes(self, ws: Workspace, file: str) -> list[EntryNote]:
        from . import openclaw_reads
        return openclaw_reads.entry_notes(self, ws, file)

    def listed_notes(self, ws: Workspace) -> list[ListedNote]:
        from . import openclaw_reads
        return openclaw_reads.listed_notes(self, ws)

    def files_detail(self, ws: Workspace) -> dict:
        from . import openclaw_reads
        return openclaw_reads.files_detail(self, ws)

    def edit_actions(self, file: str) -> tuple[str, ...]:
        from .openclaw_directive_edits import ACTIONS
        return ACTIONS if Path(file).name == "USER.md" else ()

    def apply_edit_action(self, file: str, text: str, action: str, args: dict) -> str:
        from .openclaw_directive_edits import apply
        if action not in self.edit_actions(file):
            return super().apply_edit_action(file, text, action, args)
        return apply(text, action, args)

    def write_refusal(self, ws: Workspace, rel: str) -> str | None:
        from .openclaw_reads import busy
        return busy(self, ws)

    def lint_reading(self, ws: Workspace, today: date) -> LintReading:
        from .openclaw_lint import lint_reading
        return lint_reading(self, ws, today)

    def own_settings(self, ws: Workspace) -> OwnSettings:
        from .openclaw_config_write import settings_of
        return settings_of(self, ws)

    def write_own_settings(self, ws: Workspace, updates: dict) -> OwnWrite:
        from .openclaw_config_write import write
        return write(self, ws, updates)

    def sizes(self, ws: Workspace, cfg: Config) -> Sizes:
        from .openclaw_sizes import sizes
        return sizes(self, ws)

    def build_prompt(self, ws, history, dream_cursor: int, new_session: bool = False):
        from .openclaw_sizes import prompt_preview
        return prompt_preview(self, ws, new_session)

    def to_json(self) -> dict:
        return {**Assistant.to_json(self), "agent": self.agent, "agents": list(self.agents)}

    # -- finding it ------------------------------------------------------------------------------
    @classmethod
    def detect(cls, root: Path, home: Path | None, config: dict) -> "OpenClaw | None":
        """OpenClaw's signs at the workspace `root` (its state folder beside it or the
        environment's home naming it; else the workspace's own files), in words."""
        found = openclaw_home.locate(root)
        return None if found is None else cls.of_home(found, None, root)

    @classmethod
    def of_workspace(cls, ws: Workspace, config: dict) -> "OpenClaw | None":
        """A workspace open_home laid out: its state folder and agent as opened (the workspace
        may lie anywhere the config says); any other: by its signs."""
        if ws.layout.owner == KIND and ws.home is not None:
            found = openclaw_home.locate(ws.home)
            if found is not None:
                return cls.of_home(found, ws.layout.agent, ws.root)
        return cls.detect(ws.root, ws.home, config)

    @classmethod
    def of_home(cls, home: OpenClawHome, agent: str | None, root: Path | None) -> "OpenClaw":
        chosen = _agent(home, agent, root)
        # openclaw.json that does not parse is said by the config's own read (home/config.py)
        problems = tuple(p for p in home.problems if p != home.config_problem or home.config)
        return cls(home.why, chosen.id if chosen else None, tuple(a.id for a in home.agents), home.default_agent,
                   home.state_dir, home.config, problems)

    @classmethod
    def open_home(cls, path: Path, agent: str | None = None,
                  env: Mapping[str, str] | None = None) -> Workspace | None:
        found = openclaw_home.locate(path, env)
        if found is None:
            return None
        if agent is not None and found.agent(agent) is None:
            raise WorkspaceError(f"{path}: no agent {agent!r} in this OpenClaw home; its agents: "
                                 f"{', '.join(a.id for a in found.agents) or 'none'}")
        chosen = _agent(found, agent, found.opened)
        root = chosen.workspace if chosen is not None and (agent is not None or found.opened is None) else found.opened
        if root is None or not root.is_dir():
            how = f" ({chosen.how})" if chosen is not None else ""
            raise WorkspaceError(f"{path}: OpenClaw's workspace {root}{how} does not exist (yet): nothing to show")
        return Workspace(root, found.state_dir, found.config_path, layout(chosen.id if chosen else None))


def _agent(home: OpenClawHome, agent: str | None, root: Path | None) -> openclaw_home.Agent | None:
    """The agent asked for; else the one whose workspace `root` is; else the default; else the
    first (OpenClaw itself asks which when several are configured and none is the default)."""
    if agent is not None:
        return home.agent(agent)
    if root is not None:
        same = next((a for a in home.agents if os.path.realpath(a.workspace) == os.path.realpath(root)), None)
        if same is not None:
            return same
    return home.agent(home.default_agent) if home.default_agent else (home.agents[0] if home.agents else None)
