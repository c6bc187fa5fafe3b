"""An assistant's own settings that Dreamdesk sets in the assistant's own config file, where the
contract's Dream settings do not apply (OpenClaw's bootstrap caps and dreaming in openclaw.json):
what Settings → Memory and `dreamdesk config` show and write for such a home. Each adapter that has
some answers `Assistant.own_settings`; the views and the CLI never ask which assistant it is.

A setting's kind, range, label, unit and doc are a `Setting` row (engine/home/config.py), so the
form builds its fields as for config.json; what the assistant accepts beyond that row is the
adapter's `refusal`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.problems import WorkspaceError
from ..home.config import Setting


@dataclass(frozen=True, slots=True)
class OwnSetting:
    key: str                  # what a person calls it ("bootstrapMaxChars", "dreaming.frequency")
    where: str                # the config path it is read from and written to for this home
    rule: Setting             # kind, range, label, unit, doc
    value: Any                # in effect now
    written: bool             # the file sets it at `where` (else `value` is inherited or the default)
    note: str = ""            # where the value comes from and what it does, in words
    refused: str = ""         # why Dreamdesk does not write it here ("": it does)

    def to_json(self) -> dict:
        return {"key": self.key, "where": self.where, "value": self.value, "default": self.rule.default,
                "written": self.written, "range": self.rule.describe_range(), "doc": self.rule.doc,
                "note": self.note, "refused": self.refused or None}


@dataclass(frozen=True, slots=True)
class WhatIf:
    """What the values typed (not applied) would change, before anything is written."""
    lines: tuple[str, ...]                 # one line in words per file, limit or schedule that changes
    details: tuple[str, ...] = ()          # longer: the entries that would fall into the cut
    detail: dict = field(default_factory=dict)      # the same as JSON

    def to_json(self) -> dict:
        return {"lines": list(self.lines), **self.detail}


@dataclass(frozen=True, slots=True)
class OwnWrite:
    """What one apply wrote: (key, where, before, after) for each value that changed."""
    path: Path | None
    changed: tuple[tuple[str, str, Any, Any], ...] = ()

    def said(self) -> str:
        if not self.changed:
            return "Nothing changed: every value was already in effect; nothing written"
        what = ", ".join(f"{where} = {json.dumps(new, ensure_ascii=False)}" for _k, where, _b, new in self.changed)
        return f"{what} written to {self.path}"

    def to_json(self) -> dict:
        return {"path": str(self.path) if self.path else None, "written": bool(self.changed),
                "changed": [{"key": k, "where": w, "before": b, "after": a} for k, w, b, a in self.changed]}


class OwnSettings:
    """The assistant's own settings for one home: its adapter fills them and says what a value
    would change (`what_if`) and whether the assistant takes it (`refusal`)."""

    title = ""                             # "OpenClaw's memory settings (openclaw.json)"
    file: Path | None = None
    settings: tuple[OwnSetting, ...] = ()
    refused = ""                           # why nothing can be written here now, in words ("": it can)

    def find(self, key: str) -> OwnSetting:
        """A setting by its key or its config path; WorkspaceError naming the keys otherwise."""
        k = key.strip()
        for s in self.settings:
            if k in (s.key, s.where):
                return s
        raise WorkspaceError(f"{key!r} is not one of the settings Dreamdesk writes here: "
                             + ", ".join(s.key for s in self.settings))

    def parse(self, key: str, text: str) -> Any:
        """A typed string (the CLI's) as the setting's type; ValueError in words."""
        return self.find(key).rule.parse(text)

    def refusal(self, key: str, value: Any) -> str | None:
        """None when the assistant takes `value` for `key` and Dreamdesk may write it; else why not."""
        s = self.find(key)
        if self.refused or s.refused:
            return self.refused or s.refused
        why = s.rule.check_write(value)
        return f"{s.where} {why}, got {json.dumps(value, ensure_ascii=False)}" if why else None

    def what_if(self, values: dict[str, Any]) -> WhatIf:
        return WhatIf(())

    def prepare(self) -> OwnSettings:
        """Read now what `what_if` needs (the window does it off its GUI thread); returns itself."""
        return self

    def to_json(self) -> dict:
        return {"title": self.title, "file": str(self.file) if self.file else None, "refused": self.refused or None,
                "settings": [s.to_json() for s in self.settings]}
