"""The bootstrap files OpenClaw 2026.9.6 injects for a session, each against the cap that really
applies to it, and the entries its cut hides (issue 28 item 2). Read from OpenClaw's code:
loadWorkspaceBootstrapFiles and filterBootstrapFilesForSession (dist/workspace-*.mjs), the run's
filters (dist/bootstrap-files-*.mjs), buildBootstrapContextFiles (dist/bootstrap-*.mjs);
docs/decisions.md, "OpenClaw 2026.9.6: bootstrap and Project Context", lists the rules.

Reading only: the files are read, never written, and nothing else is touched."""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from ..disk.files import read_bytes
from ..text.entries import Entry, split_entries
from .openclaw_home import has_roster, normalize_agent_id, roster_entries, section
from .openclaw_context import ContextFile, project_context
from .openclaw_jsstr import trim_end, u16len
from .openclaw_prelude import applies as prelude_applies
from .openclaw_prelude import startup_prelude
from .openclaw_trim import Trimmed, clamp_to_budget, trim_bootstrap

FILE_NAMES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md")
MEMORY, USER, BOOTSTRAP = "MEMORY.md", "USER.md", "BOOTSTRAP.md"
DEFAULT_MAX_CHARS, DEFAULT_TOTAL_MAX_CHARS, USER_MAX_CHARS = 20_000, 60_000, 4_000
MIN_FILE_BUDGET_CHARS = 64
MAX_FILE_BYTES = 2_097_152          # a bigger file is injected as "[UNREADABLE: …]"
PRIVATE, GROUP, CRON, SUBAGENT = "private", "group", "cron", "subagent"
SESSION_KINDS = (PRIVATE, GROUP, CRON, SUBAGENT)
_CRON_FILES = {"AGENTS.md", "SOUL.md", "IDENTITY.md", USER}
_PROFILE_ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A bootstrap file as OpenClaw loads it: its text, or missing (injected as "[MISSING] …")."""
    name: str
    path: Path
    content: str | None               # None: missing
    personal: bool = False            # users/<profile>/USER.md
    symlink: bool = False


@dataclass(frozen=True, slots=True)
class CutEntry:
    """An entry of the file that the cut hides, wholly or in part; ranges in UTF-16 units of the
    file with its trailing whitespace trimmed, as OpenClaw counts."""
    entry: Entry
    start: int
    end: int
    hidden: tuple[tuple[int, int], ...]    # the parts of [start, end) the model never sees

    @property
    def whole(self) -> bool:
        return sum(b - a for a, b in self.hidden) == self.end - self.start


@dataclass(frozen=True, slots=True)
class Injected:
    """One bootstrap file against its limits: what OpenClaw injects of it, and why."""
    source: SourceFile
    cap: int                # the cap its cut uses: min(per-file cap, budget left), at least 1
    file_cap: int           # the per-file cap (USER.md: min(bootstrapMaxChars, 4000))
    budget_left: int        # of the total, before this file
    length: int             # its length as OpenClaw counts it (trimEnd, UTF-16 units)
    content: str | None     # the text injected; None: left out (see `note`)
    trimmed: Trimmed | None = None
    note: str = ""

    @property
    def is_cut(self) -> bool:
        return self.trimmed is not None and self.trimmed.truncated

    @property
    def cut(self) -> tuple[CutEntry, ...]:
        """The entries the cut hides: asked for, not computed with the preview (parsing a long
        file's entries costs more than the rest of the preview; the parse is cached by text)."""
        if not self.is_cut or self.source.content is None or self.trimmed is None:
            return ()
        return cut_entries(self.source.content, self.trimmed)


@dataclass(frozen=True, slots=True)
class Limits:
    max_chars: int = DEFAULT_MAX_CHARS
    total_max_chars: int = DEFAULT_TOTAL_MAX_CHARS
    injection: str = "always"          # contextInjection: always | continuation-skip | never


def _char_limit(config: dict, agent_id: str | None, key: str, fallback: int) -> int:
    """resolveBootstrapCharLimit: the agent's own value if it has one (even an invalid one, which
    then falls back to the default, not to agents.defaults), else agents.defaults'."""
    defaults = section(config, "agents", "defaults")
    entry = agent_entry(config, agent_id) if agent_id else None
    raw = entry.get(key) if entry is not None and entry.get(key) is not None else defaults.get(key)
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw == raw and raw > 0 \
            and raw != float("inf"):
        return int(raw // 1)
    return fallback


def agent_entry(config: dict, agent_id: str) -> dict | None:
    """The agent's roster entry (agents.entries.<id> or agents.list[{id}]); the implicit `main`
    of a config without a roster is an empty entry."""
    want = normalize_agent_id(agent_id)
    for entry_id, entry in roster_entries(config):
        if normalize_agent_id(entry_id) == want:
            return entry
    return {} if want == "main" and not has_roster(config) else None


def limits_for(config: dict, agent_id: str | None) -> Limits:
    entry = agent_entry(config, agent_id) if agent_id else None
    mode = entry.get("contextInjection") if entry else None
    if mode not in ("always", "continuation-skip", "never"):
        mode = section(config, "agents", "defaults").get("contextInjection") or "always"
    return Limits(_char_limit(config, agent_id, "bootstrapMaxChars", DEFAULT_MAX_CHARS),
                  _char_limit(config, agent_id, "bootstrapTotalMaxChars", DEFAULT_TOTAL_MAX_CHARS), mode)


# -- loading ----------------------------------------------------------------------------------------
def _unreadable(reason: str) -> str:
    return f"[UNREADABLE: {reason}]"


def read_source(name: str, path: Path, personal: bool = False) -> SourceFile | None:
    """The file as OpenClaw's guarded read gives it: a symlink, a folder or a file over 2 MiB
    comes as an "[UNREADABLE: …]" text with OpenClaw's own reason; a missing one as missing."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return SourceFile(name, path, None, personal)
    except OSError as e:
        return SourceFile(name, path, _unreadable(e.strerror or str(e)), personal)
    if stat.S_ISLNK(st.st_mode):
        return SourceFile(name, path, _unreadable("symlink path component not allowed"), personal, symlink=True)
    if not stat.S_ISREG(st.st_mode):
        return SourceFile(name, path, _unreadable("path does not have the required file type"), personal)
    if st.st_size > MAX_FILE_BYTES:
        return SourceFile(name, path, _unreadable(f"File exceeds {MAX_FILE_BYTES} bytes"), personal)
    try:
        data = read_bytes(path, limit=MAX_FILE_BYTES)
    except OSError as e:
        return SourceFile(name, path, _unreadable(e.strerror or str(e)), personal)
    return SourceFile(name, path, data.decode("utf-8", "replace"), personal)


def load_sources(workspace: Path, person: str | None = None) -> list[SourceFile]:
    """loadWorkspaceBootstrapFiles, with the session's person's users/<id>/USER.md right after
    the shared USER.md: MEMORY.md and USER.md only when the folder lists that exact name."""
    try:
        listed = set(os.listdir(workspace))
    except OSError:
        listed = set()
    out: list[SourceFile] = []
    for name in FILE_NAMES:
        if name in (MEMORY, USER) and name not in listed:
            continue
        src = read_source(name, workspace / name)
        if src is not None:
            out.append(src)
    personal = _personal_user(workspace, person)
    if personal is not None:
        at = next((i + 1 for i, s in enumerate(out) if s.name == USER), len(out))
        out.insert(at, personal)
    return out


def _personal_user(workspace: Path, person: str | None) -> SourceFile | None:
    """users/<profile>/USER.md, read as OpenClaw reads it (no symlink; absent or unreadable:
    the shared USER.md alone)."""
    if not person or not (0 < len(person) <= 128) or not set(person) <= _PROFILE_ID_CHARS \
            or person[0] in "_-":
        return None
    src = read_source(USER, workspace / "users" / person / USER, personal=True)
    if src is None or src.content is None or src.content.startswith("[UNREADABLE: "):
        return None
    return src


def for_session(sources: list[SourceFile], kind: str, setup_completed: bool) -> list[SourceFile]:
    """filterBootstrapFilesForSession and the run's filters: MEMORY.md only in a private session
    (a cron job also gets AGENTS, SOUL, IDENTITY and USER only, a subagent AGENTS.md only);
    BOOTSTRAP.md dropped once setup is completed; MEMORY.md and USER.md that are symlinks are not
    trusted as automatic memory and left out."""
    if kind not in SESSION_KINDS:
        raise ValueError(f"unknown session kind {kind!r}")
    out = [s for s in sources if not (s.name in (MEMORY, USER) and s.symlink)]
    if kind != PRIVATE:
        out = [s for s in out if s.name != MEMORY]
    if kind == SUBAGENT:
        out = [s for s in out if s.name == "AGENTS.md"]
    elif kind == CRON:
        out = [s for s in out if s.name in _CRON_FILES]
    if setup_completed:
        out = [s for s in out if s.name != BOOTSTRAP]
    return out


# -- the budget --------------------------------------------------------------------------------------
def inject(sources: list[SourceFile], limits: Limits) -> list[Injected]:
    """buildBootstrapContextFiles: each file in order against min(its cap, what is left of the
    total); a file's cut or clamp never makes its text longer than what is left."""
    if limits.injection == "never":
        return [Injected(s, 0, 0, 0, _length(s), None, note="contextInjection is \"never\": nothing is injected")
                for s in sources]
    left = max(1, int(limits.total_max_chars))
    out: list[Injected] = []
    for i, src in enumerate(sources):
        if left <= 0:
            out.extend(_skipped(sources[i:], "the total budget is used up"))
            break
        if src.content is None:
            text = clamp_to_budget(f"[MISSING] Expected at: {src.path}", left)
            if not text:
                out.extend(_skipped(sources[i:], "the total budget is used up"))
                break
            out.append(Injected(src, 0, 0, left, 0, text, note="missing: its expected path is injected"))
            left = max(0, left - u16len(text))
            continue
        if left < MIN_FILE_BUDGET_CHARS:
            out.extend(_skipped(sources[i:], f"only {left} characters of the total budget were left "
                                             f"(under {MIN_FILE_BUDGET_CHARS}): this file and the ones after it are skipped"))
            break
        item = _one(src, limits, left)
        out.append(item)
        if item.content is not None:
            left = max(0, left - u16len(item.content))
    return out


def _length(src: SourceFile) -> int:
    return u16len(trim_end(src.content)) if src.content is not None else 0


def _skipped(rest: list[SourceFile], why: str) -> list[Injected]:
    return [Injected(s, 0, 0, 0, _length(s), None, note=why) for s in rest]


def _one(src: SourceFile, limits: Limits, left: int) -> Injected:
    assert src.content is not None
    file_cap = min(limits.max_chars, USER_MAX_CHARS) if src.name.lower() == "user.md" else limits.max_chars
    cap = max(1, min(file_cap, left))
    length = _length(src)
    if src.personal and length > cap:
        return Injected(src, cap, file_cap, left, length, None,
                        note=f"personal USER.md is {length} characters, over its cap of {cap}: left out whole "
                             "(the shared USER.md stands alone)")
    trimmed = trim_bootstrap(src.content, src.name, cap)
    content = clamp_to_budget(trimmed.content, left)
    if not content:
        return Injected(src, cap, file_cap, left, length, None, trimmed, note="empty: not injected")
    note = _cut_note(trimmed, file_cap, cap) if trimmed.truncated else ""
    return Injected(src, cap, file_cap, left, length, content, trimmed, note)


def _cut_note(trimmed: Trimmed, file_cap: int, cap: int) -> str:
    kept = sum(b - a for a, b in trimmed.kept)
    why = f"its cap of {file_cap}" if cap == file_cap else f"the {cap} characters left of the total budget"
    return f"{trimmed.length} characters, over {why}: {kept} kept, {trimmed.length - kept} cut"


def cut_entries(text: str, trimmed: Trimmed) -> tuple[CutEntry, ...]:
    """The entries (engine/text/entries.py) of `text` that the cut hides wholly or in part, with
    their ranges and the hidden parts, in UTF-16 units of the trimmed text."""
    dropped = trimmed.dropped
    if not dropped:
        return ()
    starts, ends, at = [], [], 0
    for line in text.split("\n"):
        starts.append(at)
        at += u16len(line)
        ends.append(at)
        at += 1
    out = []
    for e in split_entries(text):
        start, end = starts[e.start], min(ends[e.end - 1], trimmed.length)
        hidden = tuple((max(a, start), min(b, end)) for a, b in dropped if a < end and b > start)
        if hidden and end > start:
            out.append(CutEntry(e, start, end, hidden))
    return tuple(out)


# -- the preview -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Preview:
    """What OpenClaw sends of a workspace at the start of a session: each bootstrap file against
    its limits, the Project Context of the system prompt, and on /new the prelude of recent daily
    notes that leads the first user message."""
    kind: str
    limits: Limits
    files: tuple[Injected, ...]
    project_context: str
    prelude: str | None = None

    @property
    def injected_chars(self) -> int:
        return sum(u16len(f.content) for f in self.files if f.content is not None)


def preview(workspace: Path, config: dict | None = None, agent_id: str | None = None, *, kind: str = PRIVATE,
            new_session: bool = False, setup_completed: bool = True, person: str | None = None,
            active_projects: tuple[str, ...] = (), now_ms: float | None = None) -> Preview:
    """The preview for a session of `kind` (private, group, cron, subagent); `new_session`: opened
    with a bare /new. `setup_completed` is OpenClaw's workspace setup state (state/openclaw.sqlite;
    a home past its first turn has it), `person` the session's profile id for users/<id>/USER.md,
    `active_projects` the repository keys of the session (none outside a repository)."""
    config = config or {}
    workspace = Path(os.path.abspath(workspace))
    limits = limits_for(config, agent_id)
    files = inject(for_session(load_sources(workspace, person), kind, setup_completed), limits)
    context = project_context([ContextFile(str(f.source.path), f.content, f.source.personal)
                               for f in files if f.content is not None], active_projects)
    prelude = None
    pending = not setup_completed and (workspace / BOOTSTRAP).exists()
    if new_session and not pending and prelude_applies(config, "new"):
        prelude = startup_prelude(workspace, config, time.time() * 1000 if now_ms is None else now_ms)
    return Preview(kind, limits, tuple(files), context, prelude)
