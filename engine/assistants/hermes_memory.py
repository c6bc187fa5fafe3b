"""Hermes Agent's two memory files (memories/MEMORY.md, memories/USER.md) exactly as Hermes
reads, counts, guards and injects them, read from hermes-agent 0.19.0's tools/memory_tool.py
(MemoryStore: _read_file, _write_file, _char_count, _detect_external_drift, _render_block,
load_from_disk) and tools/threat_patterns.py (INVISIBLE_CHARS), and checked against the
fixture homes Hermes built (tests/fixtures/hermes). Pure: bytes and text in, values out.

A file is entries joined by DELIMITER ("\\n§\\n"), no trailing newline; an entry may span lines
and may hold a `§` anywhere but alone on a line. Hermes reads the file as UTF-8 text with
Python's universal newlines (CRLF and a lone CR read as LF; a BOM stays, as a character), splits
on the delimiter, strips each piece and drops the empty ones; a session start also drops
repeated entries (the first stays). Sizes are characters (code points) of the entries joined."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

DELIMITER = "\n§\n"
TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
DEFAULT_LIMITS = {"memory": 2200, "user": 1375}          # MemoryStore's and config.yaml's defaults
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
RULE = "═" * 46
# the characters Hermes's threat scan calls invisible (tools/threat_patterns.py): it refuses to
# add or replace with them, and hides a stored entry holding one from the prompt
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
                      "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_PREVIEW = 40


def decode(data: bytes) -> str:
    """The text Hermes reads from the file's bytes (Path.read_text(encoding="utf-8")): UTF-8,
    CRLF and lone CR as LF. Bytes that are not UTF-8 raise UnicodeDecodeError, as they make
    Hermes's memory store fail to load."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def blocks(text: str) -> list[str]:
    """Every entry as Hermes's parser splits it, repeats kept (what its write guard checks)."""
    return [piece.strip() for piece in text.split(DELIMITER) if piece.strip()]


def entries(text: str) -> list[str]:
    """The entries a Hermes session holds: blocks(), each repeat after its first dropped."""
    return list(dict.fromkeys(blocks(text)))


def serialize(items: list[str] | tuple[str, ...]) -> bytes:
    """The file Hermes writes for these entries (_write_file): joined, UTF-8, nothing after."""
    return DELIMITER.join(items).encode("utf-8")


def char_count(items: list[str] | tuple[str, ...]) -> int:
    """The size Hermes counts against the limit: characters of the entries joined."""
    return len(DELIMITER.join(items))


def room(items: list[str] | tuple[str, ...], limit: int) -> int:
    """The longest entry an add still fits (Hermes adds the delimiter before it); may be < 0."""
    return limit - char_count(items) - (len(DELIMITER) if items else 0)


def round_trips(text: str) -> bool:
    """Hermes's first drift signal: the text, stripped, is exactly its entries joined again."""
    return text.strip() == DELIMITER.join(blocks(text))


def preview(entry: str) -> str:
    line = " ".join(entry.split())
    return line if len(line) <= _PREVIEW else line[:_PREVIEW - 1] + "…"


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """One of the two files as Hermes sees it. `text` is what Hermes decodes from the bytes."""
    target: str                   # "memory" (MEMORY.md) or "user" (USER.md)
    text: str

    @classmethod
    def from_bytes(cls, target: str, data: bytes) -> "MemoryFile":
        return cls(target, decode(data))

    @property
    def name(self) -> str:
        return FILE_NAMES[self.target]

    @property
    def blocks(self) -> list[str]:
        return blocks(self.text)

    @property
    def entries(self) -> list[str]:
        return entries(self.text)

    @property
    def chars(self) -> int:
        return char_count(self.entries)

    def canonical(self) -> bytes:
        """The bytes Hermes's next write of these same entries leaves (LF, no trailing
        newline, repeats dropped): equal to the file's bytes for every file Hermes wrote."""
        return serialize(self.entries)


# -- the write guard ---------------------------------------------------------------------------------
ROUND_TRIP, ENTRY_OVER_LIMIT, INVISIBLE_CHARACTER, REPEAT, OVER_LIMIT = (
    "round-trip", "entry-over-limit", "invisible", "repeat", "over-limit")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str                     # one of the five above
    entry: int | None             # the entry it is about, counted from 1 as blocks() lists them
    words: str
    refuses_rewrite: bool         # while it holds, Hermes refuses every replace and remove


@dataclass(frozen=True, slots=True)
class Verdict:
    findings: tuple[Finding, ...]

    @property
    def refuses_rewrite(self) -> bool:
        """Hermes's memory tool would refuse to replace or remove anything in the file (it
        saves a copy as <file>.bak.<seconds> at each refusal); adds still go through."""
        return any(f.refuses_rewrite for f in self.findings)


def _refusal(name: str) -> str:
    return (f"Hermes refuses to replace or remove anything in {name} until it is fixed (and saves a "
            f"copy as {name}.bak.<time> each time it refuses)")


def _piece_finding(name: str, piece: str, i: int, last: int, n: int) -> Finding | None:
    """What in one piece between delimiters keeps the file from round-tripping, if anything:
    an empty piece, or blank lines or spaces at an inner edge (Hermes strips them)."""
    if not piece.strip():
        where = ("starts with a § line" if i == 0 else "ends with a § line" if i == last
                 else f"has two § lines with nothing between them, after entry {n}")
        return Finding(ROUND_TRIP, n or None, f"{name} {where}: {_refusal(name)}", True)
    edges = [side for side, cut, inner in (("before", piece.lstrip(), i > 0), ("after", piece.rstrip(), i < last))
             if inner and cut != piece]
    if not edges:
        return None
    return Finding(ROUND_TRIP, n + 1, f"{name}: entry {n + 1} ({preview(piece)}) has blank lines or spaces "
                   f"{' and '.join(edges)} it next to a § line, which Hermes's parser drops: {_refusal(name)}", True)


def _round_trip_findings(f: MemoryFile) -> list[Finding]:
    if not f.text.strip() or round_trips(f.text):
        return []
    pieces = f.text.split(DELIMITER)
    out, n = [], 0
    for i, piece in enumerate(pieces):
        found = _piece_finding(f.name, piece, i, len(pieces) - 1, n)
        if found is not None:
            out.append(found)
        n += bool(piece.strip())
    return out


def _invisible_words(entry: str) -> str:
    chars = sorted({c for c in entry if c in INVISIBLE})
    return ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'format character').lower()}" for c in chars)


def _entry_findings(f: MemoryFile, limit: int) -> list[Finding]:
    out: list[Finding] = []
    first: dict[str, int] = {}
    for n, entry in enumerate(f.blocks, 1):
        if len(entry) > limit:
            out.append(Finding(ENTRY_OVER_LIMIT, n, f"{f.name}: entry {n} ({preview(entry)}) is {len(entry):,} "
                               f"characters, more than the whole file's limit of {limit:,}, so Hermes takes it for a "
                               f"hand edit: {_refusal(f.name)}", True))
        if INVISIBLE.intersection(entry):
            out.append(Finding(INVISIBLE_CHARACTER, n, f"{f.name}: entry {n} ({preview(entry)}) holds an invisible "
                               f"character ({_invisible_words(entry)}): Hermes leaves the entry out of the prompt, "
                               "with a [BLOCKED: …] note in its place, and refuses to add or write such text", False))
        if entry in first:
            out.append(Finding(REPEAT, n, f"{f.name}: entry {n} repeats entry {first[entry]} ({preview(entry)}): "
                               "Hermes reads it once, and its next replace or remove leaves it out of the file", False))
        first.setdefault(entry, n)
    return out


def verdict(f: MemoryFile, limit: int) -> Verdict:
    """What Hermes's memory tool makes of the file at this limit, in words naming the entry:
    whether its write guard (_detect_external_drift) refuses to rewrite it — the file does not
    round-trip through its parser, or one entry is over the whole file's limit — and what else
    it does unasked (hides entries with invisible characters, drops repeats, refuses adds)."""
    found = _round_trip_findings(f) + _entry_findings(f, limit)
    if f.chars > limit:
        found.append(Finding(OVER_LIMIT, None, f"{f.name} holds {f.chars:,} characters, over its limit of "
                             f"{limit:,}: Hermes refuses every add, and every replace that leaves it over; "
                             "removing entries still works", False))
    return Verdict(tuple(found))


# -- the prompt ----------------------------------------------------------------------------------------
_SCAN_CAP = 65_536                # Hermes scans only the start of an entry


def shown(target: str, items: list[str] | tuple[str, ...]) -> list[str]:
    """The entries as the prompt shows them: one holding an invisible character replaced by
    Hermes's placeholder (load_from_disk's _sanitize_entries_for_snapshot). Hermes lists the
    characters in a set's order, which varies between its runs when there are several; here
    they are sorted. Entries its threat patterns match (phrases, not characters) are
    placeholdered by Hermes too; those patterns are not modelled here."""
    out = []
    for entry in items:
        hits = sorted(INVISIBLE.intersection(entry[:_SCAN_CAP]))
        if not hits or entry.startswith("[BLOCKED:"):
            out.append(entry)
            continue
        found = ", ".join(f"invisible_unicode_U+{ord(c):04X}" for c in hits)
        out.append(f"[BLOCKED: {FILE_NAMES[target]} entry contained threat pattern(s): {found}. "
                   "Removed from system prompt; use memory(action=remove) to delete the original.]")
    return out


def render_block(target: str, items: list[str] | tuple[str, ...], limit: int) -> str:
    """One file's block in the system prompt (_render_block), "" when it has no entries: a rule
    of 46 '═', the header with the percentage truncated and capped at 100 and the characters
    of what is shown, another rule, the entries joined."""
    if not items:
        return ""
    content = DELIMITER.join(shown(target, items))
    pct = min(100, int((len(content) / limit) * 100)) if limit > 0 else 0
    return f"{RULE}\n{HEADERS[target]} [{pct}% — {len(content):,}/{limit:,} chars]\n{RULE}\n{content}"


def prompt_block(memory: list[str] | tuple[str, ...], user: list[str] | tuple[str, ...],
                 limits: dict[str, int], enabled: dict[str, bool] | None = None) -> str:
    """What a Hermes session start injects for the two files (agent/system_prompt.py): the
    memory block, then the user block, a blank line between, each left out when empty or
    switched off (memory.memory_enabled, memory.user_profile_enabled)."""
    on = {"memory": True, "user": True, **(enabled or {})}
    parts = [render_block(t, items, limits[t]) for t, items in (("memory", memory), ("user", user)) if on[t]]
    return "\n\n".join(p for p in parts if p)
