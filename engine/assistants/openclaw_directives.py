"""USER.md's directives as OpenClaw's user model writes them (issue 28 item 4): each with the day
it was observed, its status, its text and lines, and for a superseded one the directive that
replaced it when that can be told.

For the caller: the OpenClaw adapter reads the shared USER.md and each person's
users/<profileId>/USER.md with read_directives(path) (parse_directives(text) for a text from
elsewhere, such as a pre-image) and shows each directive with its date and status, a superseded
one beside its replacement. Nothing here writes; a metadata line that does not read is kept as
text and said in words.

From OpenClaw 2026.9.6: no code of its reads or writes these lines. They are a convention the
agent follows, set out in the USER.md template it seeds (docs/reference/templates/USER.md,
docs/concepts/user-model.md, AGENTS.md's "Precede each directive with
`<!-- observed: YYYY-MM-DD | status: active -->`"):

    <!-- observed: 2026-05-10 | status: superseded -->

    - Prefer detailed explanations for every code change.

    <!-- observed: 2026-07-27 | status: active -->

    - Prefer concise implementation summaries unless more detail is requested.

"Use only `active` or `superseded` for status"; "Supersede in place: when a preference changes,
update its existing section … Keep the superseded entry next to its replacement." Nothing names
the replacement, so it is read from that rule: the directive right after a superseded one, in the
same section, observed no earlier. When there is none (the last of its section, or the next was
observed before it), the replacement cannot be known, and `replacement_why` says so."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..disk.files import read_bytes
from ..text.entries import Entry, split_entries

ACTIVE, SUPERSEDED = "active", "superseded"
METADATA = re.compile(r"^[ \t]*<!--[ \t]*observed:[ \t]*(?P<observed>[^|\n]*?)[ \t]*\|[ \t]*status:[ \t]*"
                      r"(?P<status>[^\n]*?)[ \t]*-->[ \t]*$", re.I)
_MENTIONS = re.compile(r"<!--.*\bobserved\s*:", re.I | re.S)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PLACEHOLDER_DAY = "YYYY-MM-DD"
BY_POSITION = ("the directive right after it: OpenClaw's user model keeps a superseded directive next to "
               "its replacement (\"Supersede in place\"); the file itself names none")


@dataclass(frozen=True, slots=True)
class Directive:
    observed: str                     # the day as written ("2026-12-04"; the template's "YYYY-MM-DD")
    status: str                       # as written, lower-cased: active | superseded | anything else
    text: str                         # its entries (engine/text/entries.py), a blank line between; "" if none
    heading: str | None               # the nearest heading above, as written
    start: int                        # 0-based line of its metadata comment
    end: int                          # exclusive: after its last entry
    replaced_by: int | None = None    # a superseded one: index of its replacement in Directives.directives
    replaces: int | None = None       # the one it replaced
    replacement_why: str = ""         # a superseded one: how its replacement was found, or why it cannot be
    problems: tuple[str, ...] = field(default=())

    @property
    def date(self) -> dt.date | None:
        try:
            return dt.date.fromisoformat(self.observed) if _DAY.match(self.observed) else None
        except ValueError:
            return None

    @property
    def known_status(self) -> bool:
        return self.status in (ACTIVE, SUPERSEDED)

    def to_json(self) -> dict:
        date = self.date
        return {"observed": self.observed, "date": date.isoformat() if date else None, "status": self.status,
                "known_status": self.known_status, "text": self.text, "heading": self.heading,
                "start_line": self.start + 1, "end_line": self.end, "replaced_by": self.replaced_by,
                "replaces": self.replaces, "replacement_why": self.replacement_why, "problems": list(self.problems)}


@dataclass(frozen=True, slots=True)
class Directives:
    name: str                                # the file's name or path, for the words
    directives: tuple[Directive, ...]        # in file order
    unmarked: tuple[Entry, ...]              # entries under no metadata line (the template's prose, plain notes)
    problems: tuple[str, ...] = field(default=())   # the file's and every directive's, in words

    def to_json(self) -> dict:
        return {"name": self.name, "directives": [d.to_json() for d in self.directives],
                "unmarked": [{"text": e.text, "heading": e.heading, "kind": e.kind, "start_line": e.start + 1,
                              "end_line": e.end} for e in self.unmarked],
                "problems": list(self.problems)}


def read_directives(path: Path) -> Directives:
    """The directives of a USER.md on disk (decoded as OpenClaw does: UTF-8, bad bytes replaced);
    an absent or unreadable file has none and says why."""
    try:
        text = read_bytes(path).decode("utf-8", "replace")
    except FileNotFoundError:
        return Directives(path.name, (), (), ())
    except OSError as e:
        return Directives(path.name, (), (), (f"{path.name} could not be read ({e.strerror or e})",))
    return parse_directives(text, path.name)


def parse_directives(text: str, name: str = "USER.md") -> Directives:
    """The directives of a USER.md's text: each metadata comment with the entries after it, up to
    the next metadata comment or heading. CRLF and a leading byte-order mark read like LF and none;
    a comment inside a code block is an example, not a directive."""
    text = text.removeprefix("\ufeff")
    found: list[tuple[Entry, list[Entry]]] = []        # each metadata comment and the entries after it
    unmarked: list[Entry] = []
    problems: list[str] = []
    body: list[Entry] | None = None          # the entries of the directive being read
    for e in split_entries(text):
        if e.kind == "html" and METADATA.match(e.text):
            body = []
            found.append((e, body))
        elif e.kind == "html" and _MENTIONS.search(e.text):
            problems.append(f"{name} {_lines(e)}: {_malformed(e.text)}; kept as text, not read as a directive")
            unmarked.append(e)
            body = None                     # what follows belongs to no directive
        elif body is not None and e.heading == found[-1][0].heading:
            body.append(e)
        else:
            unmarked.append(e)
            body = None
    directives = _linked([_directive(name, meta, entries) for meta, entries in found])
    problems += [p for d in directives for p in d.problems]
    return Directives(name, tuple(directives), tuple(unmarked), tuple(problems))


def _lines(e: Entry) -> str:
    return f"line {e.start + 1}" if e.end - e.start <= 1 else f"lines {e.start + 1}–{e.end}"


def _malformed(comment: str) -> str:
    if "\n" in comment.strip():
        return "a metadata comment split over lines (OpenClaw's form is one line)"
    return "a metadata comment that does not read as <!-- observed: YYYY-MM-DD | status: active|superseded -->"


def _directive(name: str, meta: Entry, body: list[Entry]) -> Directive:
    m = METADATA.match(meta.text)
    assert m is not None
    observed, status = m.group("observed").strip(), m.group("status").strip().lower()
    end = body[-1].end if body else meta.end
    d = Directive(observed, status, "\n\n".join(e.text for e in body), meta.heading, meta.start, end)
    where = f"{name} line {meta.start + 1}"
    problems = []
    if observed == PLACEHOLDER_DAY:
        problems.append(f"{where}: the template's placeholder date" +
                        (", still active (the template says never to leave one active)" if status == ACTIVE else ""))
    elif d.date is None:
        problems.append(f"{where}: observed {observed!r} is no date (YYYY-MM-DD)")
    if not d.known_status:
        problems.append(f"{where}: unknown status {m.group('status').strip()!r} (OpenClaw's user model uses only "
                        "active and superseded)")
    if not body:
        problems.append(f"{where}: a metadata comment with no directive after it")
    elif len(body) > 1:
        problems.append(f"{where}: {len(body)} entries under one metadata comment (the convention is one directive each)")
    return replace(d, problems=tuple(problems))


def _linked(directives: list[Directive]) -> list[Directive]:
    """Each superseded directive with its replacement: the next directive of its section, unless
    that one was observed before it."""
    out = list(directives)
    for i, d in enumerate(directives):
        if d.status != SUPERSEDED:
            continue
        nxt = directives[i + 1] if i + 1 < len(directives) else None
        if nxt is None or nxt.heading != d.heading:
            out[i] = replace(out[i], replacement_why="unknown: no directive follows it in its section, and the "
                                                     "file names no replacement")
        elif d.date is not None and nxt.date is not None and nxt.date < d.date:
            out[i] = replace(out[i], replacement_why=f"unknown: the directive after it (line {nxt.start + 1}) was "
                                                     f"observed earlier ({nxt.observed}), and the file names no "
                                                     "replacement")
        else:
            out[i] = replace(out[i], replaced_by=i + 1, replacement_why=BY_POSITION)
            out[i + 1] = replace(out[i + 1], replaces=i)
    return out
