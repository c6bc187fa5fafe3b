"""OpenClaw's memory settings (openclaw_settings) for Settings → Memory and `dreamdesk config`, and
their write to its own openclaw.json (issue 29 item 7). What OpenClaw accepts is its schema's
(openclaw_settings); its config loader checks a dreaming schedule's type, not the expression, so
Dreamdesk reads the expression itself (openclaw_cron, a part of croner's syntax) and takes only
what it reads.

Where: a cap goes to the shown agent's own entry when it has its own value (resolveBootstrapCharLimit
reads that first), else to agents.defaults (every agent without its own); dreaming to
plugins.entries.<memory plugin>.config.dreaming (memory-core unless plugins.slots.memory names
another, whose settings are its own: refused).

How: the text is edited in place (engine/text/json5_edit.py), so the user's comments, trailing
commas, quotes and key order stay byte for byte; the result must read back (as OpenClaw reads
JSON5) as the old config with only those values set, and is written hash-checked and atomically,
keeping the file's mode. A config with `$include`, one that does not parse, a symlinked one and a
value OpenClaw would refuse are refused in words, nothing written; no write when nothing changes."""

from __future__ import annotations

import copy
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import json5

from ..core.problems import WorkspaceError
from ..disk.files import checked_write_bytes, content_hash, read_bytes
from ..home.workspace import Workspace
from ..text.json5_edit import Json5EditError, dotted, set_value
from . import openclaw_bootstrap as ob
from .openclaw_cron import CronError, parse as parse_cron
from .openclaw_home import parse_config
from .openclaw_runs import memory_plugin
from .openclaw_settings import (FREQUENCY, MAX_CHARS, ORDER, RULES, SAFE_INT, TITLE, TOTAL_MAX_CHARS, effective, get,
                                note, put, where_of)
from .openclaw_setup import setup_completed
from .openclaw_what_if import what_if
from .own_settings import OwnSetting, OwnSettings, OwnWrite, WhatIf

if TYPE_CHECKING:
    from .openclaw import OpenClaw


@dataclass(frozen=True, slots=True)
class Read:
    """openclaw.json as it is on disk now: its text and hash, as OpenClaw reads it, or why not."""
    path: Path | None
    text: str = ""
    hash: str = ""
    config: dict | None = None
    refused: str = ""


def read(path: Path | None) -> Read:
    """The file, or why Dreamdesk does not write it, in words."""
    if path is None:
        return Read(None, refused="no OpenClaw state folder was found for this workspace: there is no "
                                  "openclaw.json to write")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return Read(path, refused=f"{path.name} does not exist yet (OpenClaw writes it at setup); nothing written")
    except OSError as e:
        return Read(path, refused=f"{path.name} cannot be read ({e.strerror or e}); nothing written")
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        return Read(path, refused=f"{path.name} is a symlink or no regular file: writing it would replace the link "
                                  "with a file, so Dreamdesk does not; nothing written")
    try:
        data = read_bytes(path)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return Read(path, refused=f"{path.name} cannot be read ({e}); nothing written")
    config, problem = parse_config(text, path.name)
    if problem:
        why = ("has $include directives: OpenClaw merges the files it names, which Dreamdesk does not read, so a "
               "value written here might not be the one in effect" if "$include" in problem else problem)
        return Read(path, text, content_hash(data), config,
                    refused=f"{path.name} {why.removeprefix(path.name + ' ')}; nothing written")
    return Read(path, text, content_hash(data), config)


class OpenClawSettings(OwnSettings):
    """The four settings for the shown agent, as openclaw.json holds them now."""
    title = TITLE

    def __init__(self, oc: OpenClaw, ws: Workspace, file: Read):
        self.oc, self.ws, self.read = oc, ws, file
        self.file, self.refused = file.path, file.refused
        config = file.config if file.config is not None else oc.config
        self.config = config
        plugin = memory_plugin(config)
        other = (f"plugins.slots.memory names {plugin}, not memory-core: its dreaming settings are its own, which "
                 "Dreamdesk does not know") if plugin != "memory-core" else ""
        rows = []
        for key in ORDER:
            path = where_of(config, oc.agent, key)
            written = get(config, path)[0]
            rows.append(OwnSetting(key, dotted(path), RULES[key], effective(config, oc.agent, key), written,
                                   note(config, oc.agent, key, path, written), other if key.startswith("dreaming")
                                   else ""))
        self.settings = tuple(rows)
        self._sources: list[ob.SourceFile] | None = None

    def refusal(self, key: str, value: Any) -> str | None:
        why = super().refusal(key, value)
        if why is None and key in (MAX_CHARS, TOTAL_MAX_CHARS) and value > SAFE_INT:
            return f"{self.find(key).where} must be at most {SAFE_INT:,} (OpenClaw's whole numbers are JavaScript's)"
        if why is None and self.find(key).key == FREQUENCY:
            try:
                parse_cron(value)
            except CronError as e:
                return (f"{self.find(key).where}: {e}; OpenClaw's scheduler would not run it (only 5- or 6-field cron "
                        "expressions and @daily-style names are taken here)")
        return why

    def sources(self) -> list[ob.SourceFile]:
        """The bootstrap files of a private session as OpenClaw loads them, read once (the form's
        what-if then computes on them alone)."""
        if self._sources is None:
            self._sources = ob.for_session(ob.load_sources(self.ws.root), ob.PRIVATE,
                                           setup_completed(self.oc.state_dir, self.ws.root))
        return self._sources

    def prepare(self) -> OpenClawSettings:
        self.sources()
        return self

    def config_with(self, values: dict[str, Any]) -> dict:
        """The config as it would be with `values` at their paths."""
        out = copy.deepcopy(self.config)
        for key, value in values.items():
            s = self.find(key)
            put(out, where_of(self.config, self.oc.agent, s.key), value)
        return out

    def what_if(self, values: dict[str, Any]) -> WhatIf:
        return what_if(self, {self.find(k).key: v for k, v in values.items()})


def settings_of(oc: OpenClaw, ws: Workspace) -> OpenClawSettings:
    return OpenClawSettings(oc, ws, read(ws.config_path))


# -- the write ---------------------------------------------------------------------------------
def write(oc: OpenClaw, ws: Workspace, updates: dict[str, Any]) -> OwnWrite:
    """Each of `updates` (key or config path -> typed value, or the CLI's string) set in
    openclaw.json in one hash-checked write; one refused value writes nothing; values already in
    effect write nothing."""
    now = settings_of(oc, ws)
    if now.refused:
        raise WorkspaceError(now.refused)
    typed: dict[str, Any] = {}
    for key, value in updates.items():
        s = now.find(key)
        v = now.parse(key, value) if isinstance(value, str) and s.rule.kind != "str" else value
        v = int(v) if s.rule.kind == "int" and isinstance(v, float) and v.is_integer() else v
        why = now.refusal(key, v)
        if why:
            raise WorkspaceError(f"{why}; nothing written")
        typed[s.key] = v.strip() if isinstance(v, str) else v
    changed = [(s.key, s.where, s.value, typed[s.key]) for s in now.settings
               if s.key in typed and not _same(s.value, typed[s.key])]
    if not changed:
        return OwnWrite(now.file)
    text = now.read.text
    try:
        for key, _where, _old, new in changed:
            text = set_value(text, where_of(now.config, oc.agent, key), new)
    except Json5EditError as e:
        raise WorkspaceError(f"{now.file.name if now.file else 'openclaw.json'}: {e}; nothing written") from None
    _check_reads_back(text, now.config_with({k: new for k, _w, _o, new in changed}), now.file)
    assert now.file is not None
    checked_write_bytes(now.file, text.encode("utf-8"), now.read.hash, now.file.name)
    return OwnWrite(now.file, tuple(changed))


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def _strict(a: Any) -> Any:
    """A parsed config with bools told from numbers, for an exact comparison."""
    if isinstance(a, dict):
        return {k: _strict(v) for k, v in a.items()}
    if isinstance(a, list):
        return [_strict(v) for v in a]
    return (type(a).__name__ if isinstance(a, bool) else "n" if isinstance(a, (int, float)) else "", a)


def _check_reads_back(text: str, want: dict, path: Path | None) -> None:
    """The edited text must read, as OpenClaw reads JSON5, as the old config with only the new
    values: anything else is a fault of the edit, and nothing is written."""
    try:
        got = _parse(text)
    except ValueError:
        got = None
    if got is None or _strict(got) != _strict(want):
        raise WorkspaceError(f"{path.name if path else 'openclaw.json'}: the edit would not read back as meant "
                             "(a fault of Dreamdesk's); nothing written")


def _parse(text: str) -> Any:
    """parseConfigJson5: JSON first, then JSON5."""
    try:
        return json.loads(text)
    except ValueError:
        return json5.loads(text)
