"""Structured diffs without Qt: files, hunks and lines, the unified text, intraline changes,
and reverting one hunk. Lines split on \\n only (like history.jsonl, memory files may hold
U+2028 and friends, which are not line breaks here)."""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass, field


def split_keepends(text: str) -> list[str]:
    if not text:
        return []
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str               # " " context, "-" removed, "+" added
    text: str               # with its newline, if it had one
    old_no: int | None      # 1-based line number in the old text
    new_no: int | None


@dataclass(slots=True)
class Hunk:
    index: int              # 1-based within its file
    old_start: int          # 0-based first old line
    old_count: int
    new_start: int
    new_count: int
    lines: list[DiffLine] = field(default_factory=list)

    @property
    def header(self) -> str:
        def rng(start: int, count: int) -> str:
            first = start + 1 if count else start
            return f"{first}" if count == 1 else f"{first},{count}"
        return f"@@ -{rng(self.old_start, self.old_count)} +{rng(self.new_start, self.new_count)} @@"

    @property
    def added(self) -> int:
        return sum(1 for x in self.lines if x.kind == "+")

    @property
    def removed(self) -> int:
        return sum(1 for x in self.lines if x.kind == "-")

    @property
    def id(self) -> str:
        """What the hunk changes, as 12 hex digits: the same lines give the same id wherever they
        sit, so a hunk restore can check it still restores the change the person saw."""
        h = hashlib.sha256()
        for x in self.lines:
            h.update(x.kind.encode() + x.text.encode("utf-8", "surrogatepass") + b"\0")
        return h.hexdigest()[:12]

    def to_json(self) -> dict:
        return {"index": self.index, "id": self.id, "header": self.header, "added": self.added,
                "removed": self.removed, "lines": [[x.kind, x.text, x.old_no, x.new_no] for x in self.lines]}


@dataclass(slots=True)
class FileDiff:
    path: str
    old_exists: bool
    new_exists: bool
    hunks: list[Hunk]

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def removed(self) -> int:
        return sum(h.removed for h in self.hunks)

    @property
    def changed(self) -> bool:
        return bool(self.hunks) or self.old_exists != self.new_exists

    def unified(self, old_label: str = "a", new_label: str = "b") -> str:
        if not self.changed:
            return ""
        out = [f"--- {old_label + '/' + self.path if self.old_exists else '/dev/null'}\n",
               f"+++ {new_label + '/' + self.path if self.new_exists else '/dev/null'}\n"]
        for h in self.hunks:
            out.append(h.header + "\n")
            for x in h.lines:
                out.append(x.kind + x.text)
                if not x.text.endswith("\n"):
                    out.append("\n\\ No newline at end of file\n")
        return "".join(out)

    def to_json(self) -> dict:
        return {"path": self.path, "old_exists": self.old_exists, "new_exists": self.new_exists,
                "added": self.added, "removed": self.removed, "hunks": [h.to_json() for h in self.hunks]}


def diff_texts(old: str | None, new: str | None, path: str, context: int = 3) -> FileDiff:
    """Diff two versions of a file; None means the file does not exist on that side."""
    a = split_keepends(old or "")
    b = split_keepends(new or "")
    hunks: list[Hunk] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, j1 = group[0][1], group[0][3]
        i2, j2 = group[-1][2], group[-1][4]
        h = Hunk(len(hunks) + 1, i1, i2 - i1, j1, j2 - j1)
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for k in range(a2 - a1):
                    h.lines.append(DiffLine(" ", a[a1 + k], a1 + k + 1, b1 + k + 1))
                continue
            for k in range(a1, a2):
                h.lines.append(DiffLine("-", a[k], k + 1, None))
            for k in range(b1, b2):
                h.lines.append(DiffLine("+", b[k], None, k + 1))
        hunks.append(h)
    return FileDiff(path, old is not None, new is not None, hunks)


def revert_hunk(new_text: str, hunk: Hunk) -> str:
    """`new_text` with one hunk undone: its new-side lines replaced by its old-side lines.

    `hunk` must come from diff_texts(old, new_text, ...) on exactly this `new_text`.
    """
    b = split_keepends(new_text)
    old_side = [x.text for x in hunk.lines if x.kind != "+"]
    return "".join(b[:hunk.new_start] + old_side + b[hunk.new_start + hunk.new_count:])


def intraline(old_line: str, new_line: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Word-level changes between two lines, as (kind, text) segments for each side:
    kind is "=" unchanged or "-"/"+" changed."""
    import re

    ta = re.findall(r"\w+|\s+|[^\w\s]", old_line)
    tb = re.findall(r"\w+|\s+|[^\w\s]", new_line)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        if tag == "equal":
            left.append(("=", "".join(ta[a1:a2])))
            right.append(("=", "".join(tb[b1:b2])))
            continue
        if a2 > a1:
            left.append(("-", "".join(ta[a1:a2])))
        if b2 > b1:
            right.append(("+", "".join(tb[b1:b2])))
    return left, right
