"""The one place that decides what Dream may read and write.

Writable: SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md. Everything else —
history.jsonl, cursors, config, archive, `..`, absolute paths, symlinks out — is refused with
an error the model sees. Budgets bind these tools only: a write that would leave a file over
its budget and larger than before is refused; shrinking is always allowed; an absolute cap of
64,000 characters holds whatever the budget. A write that would remove or rewrite an entry the
user pinned (engine/recovery/pins.py) is refused whatever pass makes it. Every write that removes entries from USER.md or
MEMORY.md is archived first (the backend goes through archive.write_memory).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..recovery.archive import ArchiveRecord, write_memory
from ..text.entries import insert_entry, removed_entries, split_entries
from ..disk.files import UnsafePathError, current_hash, resolve_inside
from .write_scope import Scope
from ..recovery.pins import is_present, pinned_texts
from ..core.problems import ConflictError, WorkspaceError
from ..core.rules import ABSOLUTE_CAP, ARCHIVED_FILES, CORE_FILES, OVER, budget_state, is_memory_path
from ..home.workspace import Workspace
from ..text.textform import normalise

CORE = CORE_FILES
_ALIASES = {"MEMORY.md": "memory/MEMORY.md", "memory/USER.md": "USER.md", "memory/SOUL.md": "SOUL.md"}
MAX_ARG_CHARS = 200_000     # arguments longer than this are not even parsed


class ToolError(Exception):
    """Refused or failed: the message goes back to the model as the tool result."""


def confidence_for(count: int) -> str:
    """Induction confidence by the number of supporting entries (Honcho)."""
    return "high" if count >= 5 else "medium" if count >= 3 else "low"


def normalise_path(path: Any) -> str:
    if not isinstance(path, str) or not path.strip():
        raise ToolError("path must be a non-empty string")
    p = path.strip().replace("\\", "/")
    if p.startswith("/") or re.match(r"^[A-Za-z]:", p) or p.startswith("~"):
        raise ToolError(f"refused: {path} is an absolute path; use a workspace path such as USER.md")
    while p.startswith("./"):
        p = p[2:]
    if p.startswith("workspace/"):
        p = p[len("workspace/"):]
    if any(part == ".." for part in p.split("/")):
        raise ToolError(f"refused: {path} leaves the workspace")
    p = _ALIASES.get(p, p)
    if not is_memory_path(p):
        raise ToolError(f"refused: {path} is not a memory file. Dream may read and write only SOUL.md, USER.md, "
                        "memory/MEMORY.md and skills/<name>/SKILL.md")
    return p


@dataclass
class Write:
    file: str
    before: int
    after: int
    pass_name: str
    tool: str
    archived: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"file": self.file, "before": self.before, "size": self.after, "pass": self.pass_name,
                "tool": self.tool, "archived": self.archived}


@dataclass
class Refusal:
    file: str
    size: int                 # the size it would have had
    budget: int
    before: int
    pass_name: str
    reason: str
    kind: str = "budget"      # budget | cap (a size limit) | shrink-only (the review pass's rule) | pin | scope

    @property
    def by_size(self) -> bool:
        """Refused by a size budget or the absolute cap (what the notes and counters report)."""
        return self.kind in ("budget", "cap")

    def to_json(self) -> dict:
        return {"file": self.file, "size": self.size, "budget": self.budget, "before": self.before,
                "pass": self.pass_name, "reason": self.reason, "kind": self.kind}


@dataclass
class CreatedFact:
    file: str
    text: str
    kind: str                 # explicit | deductive | inductive
    confidence: str | None
    sources: list[int]
    pass_name: str
    heading: str | None = None

    def to_json(self) -> dict:
        return {"file": self.file, "text": self.text, "kind": self.kind, "confidence": self.confidence,
                "sources": self.sources, "pass": self.pass_name, "heading": self.heading}


@dataclass
class RemovedFact:
    file: str
    text: str
    archive_id: str | None
    replaced_by: str | None
    pass_name: str

    def to_json(self) -> dict:
        return {"file": self.file, "text": self.text, "archive_id": self.archive_id,
                "replaced_by": self.replaced_by, "pass": self.pass_name}


class Backend(Protocol):
    """Where the sandbox's reads and writes go: the disk, or a dry run's overlay."""

    def read(self, rel: str) -> str | None: ...

    def write(self, rel: str, text: str, reason: str,
              replacements: dict[str, str] | None = None) -> list[ArchiveRecord]: ...


class DiskBackend:
    """The real files: hash-checked against what Dream last read, archived before shrinking."""

    def __init__(self, ws: Workspace, run_id: str | None):
        self.ws = ws
        self.run_id = run_id
        self.seen: dict[str, str] = {}

    def read(self, rel: str) -> str | None:
        target = resolve_inside(self.ws.root, rel)
        self.seen[rel] = current_hash(target)
        state, _ = self.ws.read_file(rel)
        # the model sees and edits \n text; write_memory puts the file's endings and BOM back
        return normalise(state.text) if state.exists else None

    def write(self, rel: str, text: str, reason: str,
              replacements: dict[str, str] | None = None) -> list[ArchiveRecord]:
        resolve_inside(self.ws.root, rel)
        expected = self.seen.get(rel)
        if expected is None:
            self.read(rel)
            expected = self.seen[rel]
        new_hash, records = write_memory(self.ws, rel, text, expected, reason, self.run_id, replacements)
        self.seen[rel] = new_hash
        return records


class OverlayBackend:
    """A dry run: reads the real files once, keeps every write in memory, touches nothing."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.base: dict[str, str | None] = {}
        self.base_hash: dict[str, str] = {}
        self.files: dict[str, str | None] = {}
        self._n = 0

    def read(self, rel: str) -> str | None:
        if rel not in self.files:
            target = resolve_inside(self.ws.root, rel)
            self.base_hash[rel] = current_hash(target)
            state, _ = self.ws.read_file(rel)
            self.base[rel] = self.files[rel] = normalise(state.text) if state.exists else None
        return self.files[rel]

    def write(self, rel: str, text: str, reason: str,
              replacements: dict[str, str] | None = None) -> list[ArchiveRecord]:
        resolve_inside(self.ws.root, rel)
        old = self.read(rel)
        self.files[rel] = text
        recs = []
        if rel in ARCHIVED_FILES:
            for r in removed_entries(old or "", text):
                self._n += 1
                recs.append(ArchiveRecord(f"dry-{self._n}", "", rel, r.entry.text, reason, None,
                                          (replacements or {}).get(r.entry.text, r.replaced_by), r.entry.heading))
        return recs

    def changed(self) -> dict[str, tuple[str | None, str]]:
        return {rel: (self.base[rel], text) for rel, text in self.files.items()
                if text is not None and text != self.base[rel]}


TOOL_SCHEMAS = {
    "read_file": {"description": "Read a memory file (SOUL.md, USER.md, memory/MEMORY.md, skills/<name>/SKILL.md).",
                  "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    "edit_file": {"description": "Replace one exact occurrence of old_text with new_text in a memory file. "
                                 "old_text must occur exactly once; a no-op edit is refused.",
                  "parameters": {"type": "object", "properties": {
                      "path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}},
                      "required": ["path", "old_text", "new_text"]}},
    "write_file": {"description": "Replace the whole content of a memory file (or create a skill file).",
                   "parameters": {"type": "object", "properties": {
                       "path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
    "add_fact": {"description": "Add one fact as a list item under a section heading of a memory file, with the "
                                "cursors of the history entries it comes from.",
                 "parameters": {"type": "object", "properties": {
                     "path": {"type": "string"}, "text": {"type": "string"},
                     "section": {"type": "string", "description": "heading text, e.g. 'Preferences'"},
                     "sources": {"type": "array", "items": {"type": "integer"}}},
                     "required": ["path", "text", "sources"]}},
    "remove_fact": {"description": "Remove one entry (list item or paragraph, exact text) from a memory file; "
                                   "with replacement, put the updated fact in its place.",
                    "parameters": {"type": "object", "properties": {
                        "path": {"type": "string"}, "text": {"type": "string"},
                        "replacement": {"type": "string"},
                        "sources": {"type": "array", "items": {"type": "integer"}}},
                        "required": ["path", "text"]}},
}


def tool_specs(names: list[str]) -> list[dict]:
    return [{"type": "function", "function": {"name": n, **TOOL_SCHEMAS[n]}} for n in names]


def _bare(text: str) -> str:
    return " ".join(text.strip().lstrip("-*+ ").split()).casefold()


def _added_texts(old: str, new: str) -> list[str]:
    """The entries `new` has that `old` has not (what a write adds)."""
    before = Counter(e.text for e in split_entries(old))
    out = []
    for e in split_entries(new):
        if before[e.text]:
            before[e.text] -= 1
        else:
            out.append(e.text)
    return out


class Sandbox:
    def __init__(self, ws: Workspace, budgets: dict[str, int], backend: Backend, batch_cursors: list[int],
                 scope: Scope = Scope()):
        self.ws = ws
        self.scope = scope          # the memory files the person lets Dreamdesk's Dream write
        self.budgets = budgets
        self.backend = backend
        self.batch = set(batch_cursors)
        self.batch_list = list(batch_cursors)
        self.pass_name = ""
        self.kind = "explicit"
        self.shrink_only = False
        self.writes: list[Write] = []
        self.refused: list[Refusal] = []
        self.io_errors: list[str] = []      # writes the file system refused, in words (said in the outcome)
        self.created: list[CreatedFact] = []
        self.removed: list[RemovedFact] = []
        self.archived: list[ArchiveRecord] = []
        self._failures: set[tuple[str, str]] = set()
        self.repeated_failure: str | None = None
        self.calls = 0
        self.allowed: set[str] = set(TOOL_SCHEMAS)
        self._last_event: dict[str, str] = {}     # file -> "write" | "refused" (size) | "moved", in call order
        self._refused_texts: dict[str, set[str]] = {}   # file -> what its refused writes tried to add
        self.on_write: Callable[[], None] = lambda: None    # the run saves its record after each write
        self._pins: dict[str, list[str]] = {}    # file -> its pinned entries, read once a run

    def outstanding_refusals(self) -> list[str]:
        """Files whose last word in this run was a size refusal: the write the model wanted
        never landed and nothing replaced it (the seed's "a refusal is outstanding")."""
        return sorted(f for f, ev in self._last_event.items() if ev == "refused")

    def begin_pass(self, name: str, kind: str, shrink_only: bool = False, tools: list[str] | None = None) -> None:
        self.pass_name, self.kind, self.shrink_only = name, kind, shrink_only
        self.allowed = set(tools) if tools is not None else set(TOOL_SCHEMAS)
        self._failures.clear()
        self.repeated_failure = None

    # -- dispatch -------------------------------------------------------------------------
    def call(self, name: str, arguments: str) -> tuple[str, bool]:
        """Run one tool call; (result text for the model, succeeded)."""
        self.calls += 1
        key = (name, arguments if len(arguments) <= 4096 else f"{len(arguments)}:{hash(arguments)}")
        try:
            if name not in TOOL_SCHEMAS:
                raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_SCHEMAS)}")
            if name not in self.allowed:
                # offered tools are the pass's contract (the review pass cannot add facts, induction
                # adds patterns only through add_fact): a call outside them is refused
                raise ToolError(f"refused: {name} is not one of the {self.pass_name} pass's tools "
                                f"({', '.join(sorted(self.allowed))})")
            if len(arguments) > MAX_ARG_CHARS:
                raise ToolError(f"refused: the arguments are {len(arguments):,} characters; no memory file may "
                                f"exceed the absolute cap of {ABSOLUTE_CAP:,} characters")
            try:
                args = json.loads(arguments or "{}")
            except (ValueError, RecursionError) as exc:   # RecursionError: absurdly deep nesting
                raise ToolError(f"the arguments are not valid JSON ({exc})") from None
            if not isinstance(args, dict):
                raise ToolError("the arguments must be a JSON object")
            result = getattr(self, "_" + name)(args)
            return result, True
        except UnsafePathError as exc:
            msg = f"refused: {exc}"
        except ToolError as exc:
            msg = str(exc)
        except ConflictError as exc:
            msg = f"{exc}; read_file it again"
        except WorkspaceError as exc:
            msg = f"refused: {exc}"
        except OSError as exc:
            from ..disk.oserrors import describe
            msg = describe(exc)
            if msg not in self.io_errors:
                self.io_errors.append(msg)
        except TypeError as exc:   # wrong argument names or types
            msg = f"bad arguments for {name}: {exc}"
        if key in self._failures:
            self.repeated_failure = f"{name} failed twice with the same arguments: {msg}"
        self._failures.add(key)
        return "Error: " + msg, False

    @staticmethod
    def _str(args: dict, name: str, required: bool = True) -> str | None:
        v = args.get(name)
        if v is None and not required:
            return None
        if not isinstance(v, str):
            raise ToolError(f"{name} must be a string")
        return v

    def _sources(self, args: dict) -> list[int]:
        raw = args.get("sources", [])
        if not isinstance(raw, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in raw):
            raise ToolError("sources must be a list of history cursors (integers)")
        unknown = [x for x in raw if x not in self.batch]
        if unknown:
            raise ToolError(f"sources {unknown} are not in this batch (cursors {self.batch_list[0]}–{self.batch_list[-1]})"
                            if self.batch_list else f"sources {unknown} are not in this batch")
        return sorted(set(raw))

    # -- tools ----------------------------------------------------------------------------
    def _read_file(self, args: dict) -> str:
        rel = normalise_path(args.get("path"))
        self._check_real(rel)
        text = self.backend.read(rel)
        if text is None:
            return f"{rel} does not exist yet (0 characters)."
        return f"{rel} ({len(text):,} characters{self._budget_note(rel)}):\n{text}"

    def _edit_file(self, args: dict) -> str:
        rel = normalise_path(args.get("path"))
        old, new = self._str(args, "old_text"), self._str(args, "new_text")
        if old == new:
            raise ToolError("refused: old_text and new_text are the same (a no-op edit)")
        if not old:
            raise ToolError("old_text must not be empty; use write_file or add_fact to add content")
        current = self._current(rel)
        count = current.count(old)
        if count == 0:
            raise ToolError(f"old_text was not found in {rel}; read_file it and copy the text exactly")
        if count > 1:
            raise ToolError(f"old_text occurs {count} times in {rel}; include more surrounding text")
        return self._commit(rel, current, current.replace(old, new, 1), "edit_file")

    def _write_file(self, args: dict) -> str:
        rel = normalise_path(args.get("path"))
        content = self._str(args, "content")
        current = self._current(rel, allow_missing=rel.startswith("skills/"))
        if content == current:
            raise ToolError(f"refused: {rel} already has exactly this content (a no-op write)")
        return self._commit(rel, current, content, "write_file")

    def _add_fact(self, args: dict) -> str:
        rel = normalise_path(args.get("path"))
        text = self._str(args, "text").strip()
        if not text:
            raise ToolError("text must not be empty")
        sources = self._sources(args)
        if self.kind == "inductive" and len(sources) < 2:
            raise ToolError("refused: an inductive pattern needs at least 2 source entries")
        section = self._str(args, "section", required=False)
        heading = None
        if section and section.strip():
            heading = section.strip() if section.strip().startswith("#") else "## " + section.strip()
        item = text if re.match(r"^([-*+]|\d+[.)])\s", text) else "- " + text
        current = self._current(rel, allow_missing=rel.startswith("skills/"))
        if any(e.text == item for e in split_entries(current)):
            raise ToolError(f"refused: {rel} already has this fact")
        confidence = confidence_for(len(sources)) if self.kind == "inductive" else None
        result = self._commit(rel, current, insert_entry(current, item, heading), "add_fact",
                              facts=[CreatedFact(rel, item, self.kind, confidence, sources, self.pass_name, heading)])
        return result + (f" Confidence: {confidence} ({len(sources)} sources)." if confidence else "")

    def _remove_fact(self, args: dict) -> str:
        rel = normalise_path(args.get("path"))
        text = self._str(args, "text").strip()
        replacement = self._str(args, "replacement", required=False)
        current = self._current(rel)
        entries = split_entries(current)

        def bare(t: str) -> str:
            return t.strip().lstrip("-*+ ").strip()
        matches = [e for e in entries if e.text.strip() == text or bare(e.text) == bare(text)]
        by_first_line = False
        if not matches:
            # an item with nested lines may be named by its first line (the model sees lines)
            matches = [e for e in entries if e.kind == "item" and "\n" in e.text
                       and bare(e.text.split("\n")[0]) == bare(text)]
            by_first_line = bool(matches)
        if not matches:
            parent = next((e for e in entries if any(bare(line) == bare(text) for line in e.text.split("\n")[1:])),
                          None)
            if parent is not None:
                raise ToolError(f"{text[:80]!r} is a nested line of the entry {parent.text.split(chr(10))[0]!r} in "
                                f"{rel} (nested items belong to their parent); use edit_file to change that entry")
            raise ToolError(f"no entry in {rel} reads exactly {text[:80]!r}; read_file it and copy the entry")
        if len(matches) > 1:
            hint = "use edit_file with more context" if "edit_file" in self.allowed else "quote more of the entry"
            raise ToolError(f"{len(matches)} entries in {rel} read {text[:80]!r}; {hint}")
        e = matches[0]
        lines = current.split("\n")
        facts = []
        inductive = self.kind == "inductive"
        if inductive and not (replacement and replacement.strip()):
            raise ToolError("refused: the induction pass replaces a pattern (with its sources and a new "
                            "confidence); it does not delete")
        if replacement and replacement.strip():
            rep = replacement.strip()
            if e.kind == "item" and not re.match(r"^\s*([-*+]|\d+[.)])\s", rep):
                rep = re.match(r"^\s*", lines[e.start]).group(0) + "- " + rep
            # named by its first line: that line is replaced, the nested items under it stay
            kept = lines[e.start + 1:e.end] if by_first_line else []
            new_lines = lines[:e.start] + rep.split("\n") + kept + lines[e.end:]
            sources = self._sources(args) if args.get("sources") or inductive else self._default_sources()
            if inductive and len(sources) < 2:
                raise ToolError("refused: an inductive pattern needs at least 2 source entries")
            new_text = "\n".join(line.rstrip() for line in rep.split("\n") + kept).strip("\n")
            facts.append(CreatedFact(rel, new_text.strip(), self.kind, confidence_for(len(sources)) if inductive else None,
                                     sources, self.pass_name, e.heading))
        else:
            end = e.end + 1 if (e.end < len(lines) and not lines[e.end].strip() and e.kind != "item") else e.end
            new_lines = lines[:e.start] + lines[end:]
        replaced = {e.text: facts[0].text} if facts else None
        result = self._commit(rel, current, "\n".join(new_lines), "remove_fact", facts=facts, replacements=replaced)
        if by_first_line and not facts:
            result += f" The entry's {e.end - e.start - 1} nested line(s) went with it (archived)."
        return result

    # -- the write path ---------------------------------------------------------------------
    def _check_real(self, rel: str) -> None:
        """A memory path that is a symlink must lead to a memory file too (SOUL.md -> config.json
        would hand the keys to the model)."""
        target = resolve_inside(self.ws.root, rel)
        real = os.path.realpath(target)   # a new file too: its existing folders are resolved
        root = os.path.realpath(self.ws.root)
        rel_real = os.path.relpath(real, root).replace(os.sep, "/")
        if rel_real != rel and not is_memory_path(rel_real):
            raise ToolError(f"refused: {rel} is a link to {rel_real}, which is not a memory file")

    def prompt_view(self, rel: str) -> str | None:
        """A file's text for the pass prompt, through the same checks as read_file: a memory path
        that links elsewhere, or a file that cannot be read, is described, never shown."""
        try:
            self._check_real(rel)
            return self.backend.read(rel)
        except (ToolError, UnsafePathError, OSError, WorkspaceError) as exc:
            return f"(not shown: {exc})"

    def _current(self, rel: str, allow_missing: bool = True) -> str:
        self._check_real(rel)
        text = self.backend.read(rel)
        if text is None and not allow_missing:
            raise ToolError(f"{rel} does not exist")
        return text or ""

    def _default_sources(self) -> list[int]:
        # An edit without named sources comes from the batch as a whole; the review pass never
        # sees the history, so what it writes has no history sources (it only moves or trims).
        return [] if self.shrink_only else list(self.batch_list)

    def _budget_note(self, rel: str) -> str:
        b = self.budgets.get(rel, 0)
        return f" of a {b:,} budget" if b else ""

    def _unpinned(self, rel: str, old: str, new: str) -> str | None:
        """The first pinned entry of `rel` that `old` holds and `new` would not: removed or rewritten.
        A pinned entry already gone before this write (another writer's) is not Dream's to keep."""
        if rel not in self._pins:
            self._pins[rel] = pinned_texts(self.ws, rel)
        return next((t for t in self._pins[rel] if is_present(old, t) and not is_present(new, t)), None)

    def _commit(self, rel: str, old: str, new: str, tool: str, facts: list[CreatedFact] | None = None,
                replacements: dict[str, str] | None = None) -> str:
        before, after = len(old), len(new)
        budget = self.budgets.get(rel, 0)
        reason, kind = None, "budget"
        if not self.scope.allows(rel):
            # the person's word on the whole file, before any rule about its content or size
            reason = (f"{rel} is closed to Dream in this workspace (the person chose: "
                      f"{self.scope.describe()}); leave it as it is")
            kind = "scope"
        elif (pinned := self._unpinned(rel, old, new)) is not None:
            # the user's pin outranks every pass's rule: said first, and never a size matter
            one = " ".join(pinned.split())
            reason = (f"the entry {one[:120]!r} in {rel} is pinned by the user; leave it as it is "
                      "(do not remove or reword it)")
            kind = "pin"
        elif self.shrink_only and rel in CORE and after > before:
            # the review pass's own rule comes first: growth there is never a size-budget matter
            reason = f"the review pass only makes files smaller; {rel} would grow from {before:,} to {after:,}"
            kind = "shrink-only"
        elif after > ABSOLUTE_CAP and after > before:
            reason, kind = f"{rel} would be {after:,} characters, over the absolute cap of {ABSOLUTE_CAP:,}", "cap"
        elif budget_state(after, budget) == OVER and after > before:
            reason = (f"{rel} would be {after:,} characters, over its budget of {budget:,} (now {before:,}). "
                      "Make room first: shorten or remove stale, duplicated or resolved entries, or move content "
                      "where it belongs")
        if reason:
            refusal = Refusal(rel, after, budget, before, self.pass_name, reason, kind)
            self.refused.append(refusal)
            if refusal.by_size:
                self._last_event[rel] = "refused"
                # what it wanted to add, so a later write can show it was put somewhere else
                self._refused_texts.setdefault(rel, set()).update(_bare(t) for t in _added_texts(old, new))
            raise ToolError("refused: " + reason)
        records = self.backend.write(rel, new, "review" if self.shrink_only else "dream", replacements)
        self._last_event[rel] = "write"
        self._refused_texts.pop(rel, None)
        added = {_bare(t) for t in _added_texts(old, new)}
        for f, ev in list(self._last_event.items()):
            # a refused fact that this write put somewhere else ("move content where it belongs")
            if ev == "refused" and added & self._refused_texts.get(f, set()):
                self._last_event[f] = "moved"
        self.archived.extend(records)
        self.writes.append(Write(rel, before, after, self.pass_name, tool, [r.id for r in records]))
        by_text = {r.text: r for r in records}
        for r in removed_entries(old, new):
            rec = by_text.get(r.entry.text)
            self.removed.append(RemovedFact(rel, r.entry.text, rec.id if rec else None,
                                            (replacements or {}).get(r.entry.text, r.replaced_by), self.pass_name))
        if facts is None:
            removed_texts = {r.entry.text for r in removed_entries(old, new)}
            facts = []
            old_texts = [e.text for e in split_entries(old)]
            for e in split_entries(new):
                if e.text in old_texts:
                    old_texts.remove(e.text)
                elif e.text not in removed_texts:
                    facts.append(CreatedFact(rel, e.text, self.kind, None, self._default_sources(), self.pass_name,
                                             e.heading))
        self.created.extend(facts)
        self.on_write()
        note = self._budget_note(rel)
        return f"OK: {rel} is now {after:,} characters{note} (was {before:,})."
