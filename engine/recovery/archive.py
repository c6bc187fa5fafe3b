"""memory/archive/<YYYY-MM>.jsonl: every entry that leaves USER.md or memory/MEMORY.md, written
there before the shrinking write lands. Append-only; restore by id puts the text back."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import msgspec

from ..core import clock, jsonl
from .archive_kinds import REASONS
from ..assistants.home_repo import hide_own_files
from ..text.entries import insert_entry, removed_entries
from ..disk.files import FileLock, append_durably, current_hash, make_dirs, read_bytes, resolve_inside
from ..core.problems import ConflictError, Problem, WorkspaceError
from ..disk.stat_memo import MemoShelf
from ..home.workspace import Workspace
from ..core.state import lock_path
from ..text.textform import KEEP_FORM, fit, normalise

_ID_RE = re.compile(r"^a-(\d{8})-(\d+)$")


@dataclass(slots=True)
class ArchiveRecord:
    id: str
    archived_at: str
    file: str
    text: str
    reason: str
    run: str | None = None
    replaced_by: str | None = None
    heading: str | None = None
    source: str = ""            # archive file it was read from ("commit <sha8>": known from a commit)
    line: int = 0
    # the snapshot commit that removed it (a commit's row, engine/recovery/prunes.py), or that recorded an
    # outside change the watch archived (engine/recovery/watch.py)
    commit: str | None = None
    writer: str | None = None   # who made a commit row's commit: "assistant" or "dreamdesk"
    subject: str | None = None  # that commit's subject line (a commit row's only)
    origin: str | None = None   # "assistant": known from the assistant's own records (its saved versions)
    restore_refused: str | None = None    # why it is not put back from here, in words (None: it may be)

    @property
    def known_from(self) -> str:
        """"commit" for a row derived from a commit (id c-<sha12>-<n>), "assistant" for one the
        assistant's own records tell of, else "archive"."""
        return self.origin or ("commit" if self.id.startswith("c-") else "archive")

    def to_json(self) -> dict:
        out = {"id": self.id, "archived_at": self.archived_at, "file": self.file, "heading": self.heading,
               "text": self.text, "reason": self.reason, "run": self.run, "replaced_by": self.replaced_by}
        if self.commit:
            out["commit"] = self.commit
        if self.origin:
            out |= {"origin": self.origin, "source": self.source, "subject": self.subject,
                    "restore_refused": self.restore_refused}
        return out


@dataclass
class Archive:
    records: list[ArchiveRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # the files it was read from, by name and stat signature (engine/disk/stat_memo.py): None when one
    # was too new or unreadable to vouch for what it holds (then nothing derived from it is kept)
    key: tuple | None = None

    def get(self, record_id: str) -> ArchiveRecord | None:
        return next((r for r in self.records if r.id == record_id), None)


def archive_dir(ws: Workspace) -> Path:
    if ws.layout.apart:              # out of the workspace and its user's git
        from ..core.state import workspace_state_dir
        return workspace_state_dir(ws.root) / "archive"
    return ws.memory_dir / "archive"


def read_archive(ws: Workspace) -> Archive:
    """Every archived entry, oldest file and line first. Only archive files new or changed since
    the last read are parsed (engine/disk/stat_memo.py); the records are made fresh for each caller."""
    arc = Archive(key=("absent",))
    d = archive_dir(ws)
    if not d.is_dir():
        return arc
    voided: set[str] = set()
    commits: dict[str, str] = {}
    sigs = []
    for name, sig, got in _FILES.memo(d).read(d, lambda n: n.endswith(".jsonl")):
        display = f"memory/archive/{name}"
        sigs.append((name, sig))
        if isinstance(got, OSError):
            arc.problems.append(Problem(display, f"cannot be read ({got.strerror or got})"))
            continue
        arc.problems.extend(got.problems)
        voided |= got.voided
        commits.update(got.commits)
        arc.records.extend(ArchiveRecord(*row[:8], display, row[8], row[9]) for row in got.records)
    arc.key = tuple(sigs) if all(sig is not None for _, sig in sigs) else None
    if voided:
        arc.records = [r for r in arc.records if r.id not in voided]
    for r in arc.records:
        r.commit = r.commit or commits.get(r.id)
    return arc


@dataclass(frozen=True)
class _ArchiveFile:
    """One archive file as parsed, kept while the file is unchanged: its records (ArchiveRecord's
    fields up to heading, then the line and the commit), the ids voided and the commits noted
    in it, and its unusable lines."""
    records: tuple[tuple, ...]
    voided: frozenset[str]
    commits: tuple[tuple[str, str], ...]
    problems: tuple[Problem, ...]


class _Record(msgspec.Struct):
    """An archived entry's line. Only id, file and text must be strings: the rest is read
    leniently (a line hand-edited to hold a number there still gives its text back)."""
    id: str
    file: str
    text: str
    archived_at: object = ""
    reason: object = ""
    run: object = None
    replaced_by: object = None
    heading: object = None
    commit: object = None


class _Mark(msgspec.Struct):
    """A line about an entry, not an entry: a tombstone (deleted_at), a void (voided_at: the
    write it was archived for did not land) or a commit noted later (noted_at + commit)."""
    id: str
    deleted_at: object = msgspec.UNSET
    voided_at: object = msgspec.UNSET
    noted_at: object = msgspec.UNSET
    commit: object = None


_fast_record = msgspec.json.Decoder(_Record).decode     # an entry's line; a mark takes the slow path
_SHAPE = "archive line without id, file and text; skipped"


def _line_kind(obj) -> tuple[object, str | None]:
    """jsonl.read's convert: a _Record or a _Mark, or the line's problem."""
    try:
        if isinstance(obj, dict) and "text" not in obj:
            mark = msgspec.convert(obj, _Mark)
            if mark.deleted_at is not msgspec.UNSET or mark.voided_at is not msgspec.UNSET \
                    or (mark.noted_at is not msgspec.UNSET and isinstance(mark.commit, str)):
                return mark, None
            return None, _SHAPE
        return msgspec.convert(obj, _Record), None
    except msgspec.ValidationError:
        return None, _SHAPE


def _parse_file(path: Path) -> _ArchiveFile:
    display = f"memory/archive/{path.name}"
    records, voided, commits, problems = [], set(), [], []

    def skip(bad: jsonl.Bad) -> str:
        why = _SHAPE if bad.reason == _SHAPE else "not a valid archive line; skipped"
        problems.append(Problem(display, why, line=bad.line))
        return jsonl.SKIP

    for lineno, _at, got, _term in jsonl.read(read_bytes(path), skip, _line_kind, fast=_fast_record):
        if type(got) is _Mark:
            if got.deleted_at is not msgspec.UNSET:
                continue     # a deleted entry's tombstone: keeps its id from ever being given again
            if got.voided_at is not msgspec.UNSET:
                voided.add(got.id)     # archived for a write that then did not land
            else:
                commits.append((got.id, got.commit))   # the commit of an outside change, found later
            continue
        records.append((got.id, str(got.archived_at), got.file, got.text, str(got.reason),
                        _text_or_none(got.run), _text_or_none(got.replaced_by), _text_or_none(got.heading),
                        lineno, _text_or_none(got.commit)))
    return _ArchiveFile(tuple(records), frozenset(voided), tuple(commits), tuple(problems))


def _text_or_none(value) -> str | None:
    return value if isinstance(value, str) else None


_FILES = MemoShelf(_parse_file)


def archive_files_parsed(ws: Workspace) -> int:
    """How many archive files this process has parsed for ws (structural tests count them)."""
    return _FILES.memo(archive_dir(ws)).parsed


def _next_numbers(d: Path, day: str) -> int:
    """The next free n for ids a-<day>-<n> (ids are unique across the whole archive)."""
    top = 0
    if d.is_dir():
        for path in d.glob("*.jsonl"):
            try:
                data = read_bytes(path)
            except OSError:
                continue
            for m in re.finditer(rb'"id":\s*"a-' + day.encode() + rb'-(\d+)"', data):
                top = max(top, int(m.group(1)))
    return top + 1


def append_records(ws: Workspace, items: list[dict], now: datetime | None = None) -> list[ArchiveRecord]:
    """Append entries ({file, text, reason, run, replaced_by, heading, commit}) and return them with ids.

    One O_APPEND write of whole lines, fsynced, under the archive lock; a torn line from a
    crash mid-append is skipped by the reader and the next append starts on a fresh line.
    """
    if not items:
        return []
    now = now or datetime.now().astimezone()
    day = now.strftime("%Y%m%d")
    d = archive_dir(ws)
    hide_own_files(ws)
    make_dirs(d)
    path = d / f"{now.strftime('%Y-%m')}.jsonl"
    out: list[ArchiveRecord] = []
    with FileLock(lock_path(ws.root, "archive"), timeout=30, what="the archive lock"):
        n = _next_numbers(d, day)
        lines = []
        for i, it in enumerate(items):
            rec = ArchiveRecord(f"a-{day}-{n + i}", now.isoformat(timespec="seconds"), it["file"], it["text"],
                                it["reason"], it.get("run"), it.get("replaced_by"), it.get("heading"),
                                f"memory/archive/{path.name}", commit=it.get("commit"))
            out.append(rec)
            lines.append(json.dumps(rec.to_json(), ensure_ascii=False))
        _append_lines(path, lines)
    return out


def _append_lines(path: Path, lines: list[str]) -> None:
    """Whole lines, after a torn one a crash may have left (which the reader then skips)."""
    data = ("\n".join(lines) + "\n").encode("utf-8")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    if size:
        with open(path, "rb") as fh:
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                data = b"\n" + data
    append_durably(path, data)


def archive_removed(ws: Workspace, old_text: str, new_text: str, file: str, reason: str,
                    run: str | None = None, now: datetime | None = None,
                    replacements: dict[str, str] | None = None,
                    reasons: dict[str, str] | None = None, unarchived: Collection[str] = ()) -> list[ArchiveRecord]:
    """Archive every entry of `old_text` that `new_text` no longer has. Call it before the
    shrinking write lands. Files other than USER.md and memory/MEMORY.md are not archived.
    `reasons` gives some entries (by text) a reason of their own (an applied dry run replays
    removals by the review pass and by Dream in one write); `unarchived` names entries that are no
    fact (an assistant's marker lines that went with their entry: a row of their own would put a
    marker back without its entry; the snapshot before the write keeps them)."""
    reasons = reasons or {}
    if reason not in REASONS or any(r not in REASONS for r in reasons.values()):
        raise ValueError(f"reason must be one of {REASONS}")
    if file not in ws.layout.archived:
        return []
    gone = [r for r in removed_entries(old_text, new_text) if r.entry.text not in unarchived]
    replacements = replacements or {}
    return append_records(ws, [{"file": file, "text": r.entry.text, "reason": reasons.get(r.entry.text, reason),
                                "run": run,
                                "replaced_by": replacements.get(r.entry.text, r.replaced_by),
                                "heading": r.entry.heading} for r in gone], now)


def write_memory(ws: Workspace, rel: str, new_text: str, expected_hash: str, reason: str,
                 run: str | None = None, replacements: dict[str, str] | None = None,
                 reasons: dict[str, str] | None = None, form: str = KEEP_FORM,
                 unarchived: Collection[str] = ()) -> tuple[str, list[ArchiveRecord]]:
    """The one shrinking-write funnel (Dream, review, GUI edit, restore): check the caller's
    hash, archive what leaves, then write atomically. Returns (new hash, archived records).
    `new_text` is normalised text (or the file's own form); the file's line endings, BOM and
    final newline are put back as `form` says (textform)."""
    target = resolve_inside(ws.root, rel)
    if current_hash(target) != expected_hash:
        raise ConflictError(rel, expected_hash, current_hash(target))
    state, _ = ws.read_file(rel)
    if state.exists and state.decode_error:
        raise WorkspaceError(f"{rel} is {state.decode_error}: writing it would replace those bytes; "
                             "fix the file by hand first (nothing was written)")
    old = state.text if state.exists else None
    data = fit(old, new_text, form)
    records = archive_removed(ws, normalise(old or ""), normalise(new_text), rel, reason, run,
                              replacements=replacements, reasons=reasons, unarchived=unarchived)
    try:
        return ws.write_file(rel, data, expected_hash), records
    except (ConflictError, OSError):
        # the removal did not land: the archive must not claim it did
        void_records(ws, records)
        raise


def append_annotations(ws: Workspace, notes: list[dict], now: datetime | None = None) -> None:
    """Lines `{"id", "commit", "noted_at"}` naming the commit of records appended earlier (an
    outside change whose commit landed after it was archived); the reader merges them."""
    now = now or datetime.now().astimezone()
    _append_marks(ws, [{"id": n["id"], "commit": n["commit"], "noted_at": now.isoformat(timespec="seconds")}
                       for n in notes], now)


def _append_marks(ws: Workspace, marks: list[dict], now: datetime) -> None:
    """Lines about records already in the archive (voided, commit noted), under the archive lock."""
    if not marks:
        return
    d = archive_dir(ws)
    hide_own_files(ws)
    make_dirs(d)
    with FileLock(lock_path(ws.root, "archive"), timeout=30, what="the archive lock"):
        _append_lines(d / f"{now.strftime('%Y-%m')}.jsonl", [json.dumps(m) for m in marks])


def void_records(ws: Workspace, records: list[ArchiveRecord], now: datetime | None = None) -> None:
    """Append a line per record saying its write did not land; readers then leave it out (the
    archive stays append-only)."""
    now = now or datetime.now().astimezone()
    _append_marks(ws, [{"id": r.id, "voided_at": now.isoformat(timespec="seconds"),
                        "why": "archived before a write that then did not land"} for r in records], now)


def search(records: list[ArchiveRecord], text: str | None = None, file: str | None = None,
           reason: str | None = None, since: str | None = None, until: str | None = None,
           origin: str | None = None) -> list[ArchiveRecord]:
    """Filter by text (case-insensitive, in text, heading or replaced_by), file, reason, an
    archived_at date range (YYYY-MM-DD, inclusive) and where it is known from (ORIGINS: the
    archive file, any commit, or a commit by that writer)."""
    needle = text.casefold() if text else None
    out = []
    for r in records:
        if needle and needle not in (r.text + "\n" + (r.heading or "") + "\n" + (r.replaced_by or "")).casefold():
            continue
        if file and r.file != file and Path(r.file).name != file:
            continue
        if reason and r.reason != reason:
            continue
        if origin and origin != r.known_from and origin != r.writer:
            continue
        day = clock.show_iso(r.archived_at)[:10] if since or until else ""   # the day on the user's clock
        if since and day < since:
            continue
        if until and day > until:
            continue
        out.append(r)
    return out


@dataclass(frozen=True, slots=True)
class EntryRestore:
    record: ArchiveRecord
    inserted: bool            # False: the text was already in the file
    new_text: str             # in the file's own form (line endings, BOM, final newline)
    base_hash: str = ""       # the bytes the plan was made from (the write checks them)


def plan_entry_restore(ws: Workspace, record_id: str) -> EntryRestore:
    """Where the archived entry would go, without writing (the GUI shows it before restoring)."""
    rec = read_archive(ws).get(record_id)
    if rec is None:
        raise WorkspaceError(f"no archive entry with id {record_id}")
    return plan_record_restore(ws, rec)


def plan_record_restore(ws: Workspace, rec: ArchiveRecord, any_memory_file: bool = False) -> EntryRestore:
    """Where an entry (file, text, heading) would go back, without writing. `rec` may come from
    the archive file or be made by the caller for an entry known elsewhere (a commit that removed
    it, a pin): the same placement rules apply to all."""
    allowed = ws.layout.writable(rec.file) if any_memory_file else rec.file in ws.layout.archived   # a pin: SOUL, skills too
    if not allowed:
        raise WorkspaceError(f"entry {rec.id} names {rec.file}, which is not a memory file")
    state, _ = ws.read_file(rec.file)
    raw = state.text if state.exists else None
    current = normalise(raw or "")      # entries are parsed and inserted in \n text
    base = state.hash or ""
    from ..text.entries import contains_entry, dedent_entry
    if contains_entry(current, rec.text) or contains_entry(current, dedent_entry(rec.text)) or (
            rec.text.startswith("#") and rec.text in current.split("\n")):
        return EntryRestore(rec, False, raw or "", base)
    return EntryRestore(rec, True, fit(raw, insert_entry(current, rec.text, rec.heading), KEEP_FORM), base)


# -- folding: one row per entry, however often it was archived ---------------------------------------

@dataclass(slots=True)
class ArchivedEntry:
    """One entry of the archive as a person sees it: every record of the same text from the same
    file folded together (a restore and its undo archive it again each time), and whether its
    text is back in that file now."""

    records: list[ArchiveRecord]       # archive records oldest first, then the commits that removed it
    back: bool = False                 # the file holds this entry again now
    back_since: str | None = None      # when a restore put it back (None: not known, or not back)
    placeholder: bool = False          # the assistant's untouched onboarding template text, not a fact

    @property
    def latest(self) -> ArchiveRecord:
        """The latest archive record (its id restores it), else the latest commit's."""
        return (self.archived or self.records)[-1]

    @property
    def archived(self) -> list[ArchiveRecord]:
        """The archive file's records of this entry (a commit-only entry has none)."""
        return [r for r in self.records if r.known_from == "archive"]

    @property
    def commits(self) -> list[ArchiveRecord]:
        return [r for r in self.records if r.known_from == "commit"]

    @property
    def first_removed_at(self) -> str:
        """The earliest time any of its records says it left its file."""
        return min((r.archived_at for r in self.records), key=_instant)

    @property
    def removals(self) -> int:
        """How often it left its file: Dreamdesk archives and commits each removal it makes, so one
        removal may be in both; the larger count of the two is the number of times."""
        return max(len(self.archived), len(self.commits))

    @property
    def known_from(self) -> str:
        """"archive", "commit", "archive + commit", or "assistant" (its own records)."""
        return " + ".join(w for w in ("archive", "commit", "assistant") if any(r.known_from == w for r in self.records))

    @property
    def id(self) -> str:
        return self.latest.id

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.records]

    def to_json(self) -> dict:
        out = self.latest.to_json()
        # ids: every id that finds this row (archive ids, then the commit rows'); times_archived:
        # the archive file's records only, as before commit rows existed (the commits are listed)
        out.update({"ids": self.ids, "times_archived": len(self.archived),
                    "first_archived_at": self.first_removed_at, "back": self.back,
                    "back_since": self.back_since, "known_from": self.known_from,
                    "template_placeholder": self.placeholder,
                    "commit": self.commits[-1].commit if self.commits else self.latest.commit,
                    "commits": [{"id": r.id, "commit": r.commit, "writer": r.writer, "at": r.archived_at,
                                 "reason": r.reason, "subject": r.subject} for r in self.commits]})
        return out


def fold_key(rec: ArchiveRecord) -> tuple[str, str]:
    return rec.file, "\n".join(line.rstrip() for line in rec.text.strip("\n").split("\n"))


def fold(records: list[ArchiveRecord], files: dict[str, str], returns: dict[str, str] | None = None
         ) -> list[ArchivedEntry]:
    """Fold records by (file, text), in the order each entry was last archived. `files` holds the
    memory files' text now (a file left out: not known, never "back"); `returns` maps an
    archive id to when a restore put that text back (from the restore log)."""
    from ..text.entries import contains_entry, dedent_entry
    returns = returns or {}
    groups: dict[tuple[str, str], list[ArchiveRecord]] = {}
    for r in records:
        groups.setdefault(fold_key(r), []).append(r)
    out = []
    for (file, text), recs in groups.items():
        e = ArchivedEntry(recs)
        current = files.get(file)
        if current is not None and text.strip():
            e.back = contains_entry(current, text) or contains_entry(current, dedent_entry(text))
        if e.back:
            last_archived = e.latest.archived_at
            times = [returns[i] for i in e.ids if i in returns and returns[i] >= last_archived]
            e.back_since = max(times) if times else None
        out.append(e)
    if any(r.known_from != "archive" for r in records):
        out.sort(key=lambda e: max(_instant(r.archived_at) for r in e.records))   # when it last left
    else:
        out.sort(key=lambda e: (e.latest.source, e.latest.line))     # archive order of the latest record
    return out


def _instant(iso_time: str) -> float:
    t = clock.from_iso(iso_time)
    return t.timestamp() if t is not None else 0.0


def files_now(ws: Workspace, rels) -> dict[str, str]:
    """The memory files' text now, normalised (one unread or undecodable is left out)."""
    files = {}
    for rel in rels:
        state, _ = ws.read_file(rel)
        if state.exists and not state.decode_error:
            files[rel] = normalise(state.text)
    return files


def folded_archive(ws: Workspace, arc: Archive | None = None,
                   extra: list[ArchiveRecord] | None = None) -> list[ArchivedEntry]:
    """The archive folded (with `extra` records known from elsewhere, engine/recovery/prunes.py), with each
    entry's back-in-its-file state read from the files now and the restore log."""
    from .restore_log import read_log
    arc = arc if arc is not None else read_archive(ws)
    files = files_now(ws, ws.layout.archived)
    returns: dict[str, str] = {}
    for entry in read_log(ws.root):
        if entry.undone:
            continue
        for rid in entry.returned:
            returns[rid] = max(returns.get(rid, ""), entry.at)
    return fold(arc.records + list(extra or ()), files, returns)
