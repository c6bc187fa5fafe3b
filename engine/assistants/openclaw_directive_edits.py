"""USER.md's directives changed the way OpenClaw's user model changes them (issue 29 item 1):
add one, supersede one in place (the old one stays, marked superseded, with its own observed day;
its replacement follows it, observed today) and retire one (marked superseded, no replacement).

For the caller: each function takes USER.md's text as the editor shows it (\\n endings, no BOM)
and returns the new text; the write goes through the normal edit path (engine/recovery/edits:
hash-checked, a snapshot first, undoable), which puts the file's own endings back. Nothing here
writes. The form is the one openclaw_directives reads (a one-line metadata comment, a blank line,
the directive), so what Dreamdesk writes reads back as what it meant.
"""

from __future__ import annotations

import datetime as dt

from ..core.problems import WorkspaceError
from .openclaw_directives import ACTIVE, METADATA, SUPERSEDED, Directive, parse_directives


ACTIONS = ("add directive", "supersede directive", "retire directive")


def apply(text: str, action: str, args: dict) -> str:
    """One of ACTIONS: args "text" (a directive's), "n" (which directive, from 1), "day" (a
    date, today when absent)."""
    day = args.get("day") or dt.date.today()
    if action == ACTIONS[0]:
        return add(text, str(args.get("text") or ""), day)
    n = args.get("n")
    if not isinstance(n, int):
        raise WorkspaceError("name the directive by its number (from 1, in file order)")
    if action == ACTIONS[1]:
        return supersede(text, n, str(args.get("text") or ""), day)
    return retire(text, n)


def metadata(observed: str, status: str) -> str:
    return f"<!-- observed: {observed} | status: {status} -->"


def block(text: str, day: dt.date) -> list[str]:
    """A new active directive: its metadata line, a blank line, the directive (a list item)."""
    body = text.strip()
    if not body:
        raise WorkspaceError("a directive needs its text")
    if "\n\n" in body:
        raise WorkspaceError("a directive is one entry: its text has no blank line")
    if not body.startswith(("- ", "* ", "+ ")):
        body = "- " + body
    return [metadata(day.isoformat(), ACTIVE), "", *body.split("\n")]


def add(text: str, directive: str, day: dt.date) -> str:
    """`directive` added at the end of the file as an active one, observed `day`."""
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join([*lines, *([""] if lines else []), *block(directive, day)]) + "\n"


def _nth(text: str, n: int) -> Directive:
    found = parse_directives(text).directives
    if not 1 <= n <= len(found):
        raise WorkspaceError(f"USER.md has {len(found)} directive(s); there is no directive {n}")
    return found[n - 1]


def _mark(lines: list[str], d: Directive, status: str) -> None:
    m = METADATA.match(lines[d.start])
    if m is None:                 # (parse_directives found it by this very pattern)
        raise WorkspaceError(f"USER.md line {d.start + 1} is no directive's metadata line")
    indent = lines[d.start][:len(lines[d.start]) - len(lines[d.start].lstrip())]
    lines[d.start] = indent + metadata(m.group("observed").strip(), status)


def supersede(text: str, n: int, directive: str, day: dt.date) -> str:
    """Directive n (from 1, in file order) marked superseded where it is, its replacement right
    after it (OpenClaw's "supersede in place": kept next to each other)."""
    old = _nth(text, n)
    if old.status != ACTIVE:
        raise WorkspaceError(f"directive {n} is {old.status}, not active: only an active directive is superseded")
    lines = text.split("\n")
    _mark(lines, old, SUPERSEDED)
    return "\n".join(lines[:old.end] + ["", *block(directive, day)] + lines[old.end:])


def retire(text: str, n: int) -> str:
    """Directive n marked superseded, with no replacement: it no longer applies."""
    old = _nth(text, n)
    if old.status != ACTIVE:
        raise WorkspaceError(f"directive {n} is {old.status}, not active: only an active directive is retired")
    lines = text.split("\n")
    _mark(lines, old, SUPERSEDED)
    return "\n".join(lines)
