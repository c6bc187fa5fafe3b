"""A memory file's form: its byte-order mark, each line's ending and whether it ends in a newline.

Everything that parses or edits a memory file works on the normalised text (no BOM, every line
ending a bare \\n: what an editor shows). Writers put the form back with `reapply`, so a CRLF or
BOM file stays one and lines nobody changed keep their bytes. Sizes count what the assistant
injects: nanobot 0.3.5 reads with Path.read_text(encoding="utf-8"), whose universal newlines
turn \\r\\n and \\r into \\n and which keeps a BOM as a character (utf-8, not utf-8-sig).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

BOM = "\ufeff"
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n)")

# how a writer treats the file's form (write_memory's `form`)
KEEP_FORM = "file"        # endings, BOM and final-newline state are the file's (programmatic writes)
KEEP_ENDINGS = "endings"  # endings and BOM are the file's; the final newline is the text's (a person's edit)
AS_GIVEN = "exact"        # written as given (a snapshot's bytes going back)


def split_lines(text: str) -> list[tuple[str, str]]:
    """(content, ending) for each line; the last line's ending is "" when the text does not end
    in one. An empty text has no lines."""
    out, pos = [], 0
    for m in _LINE.finditer(text):
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], ""))
    return out


@dataclass(frozen=True, slots=True)
class TextForm:
    bom: bool
    lines: tuple[str, ...]      # normalised content of each line
    endings: tuple[str, ...]    # each line's own ending: "\r\n", "\n", "\r", or "" (last line, none)

    @property
    def dominant(self) -> str:
        """The ending new lines take: the most common one (the first seen on a tie), else \\n."""
        counts = Counter(e for e in self.endings if e)
        return counts.most_common(1)[0][0] if counts else "\n"

    @property
    def final_newline(self) -> bool:
        return bool(self.endings) and self.endings[-1] != ""

    @property
    def plain(self) -> bool:
        """Nothing to put back: no BOM and only \\n endings."""
        return not self.bom and all(e in ("\n", "") for e in self.endings)


def detect(text: str) -> TextForm:
    """The form of a file's decoded text (as read, BOM and \\r included)."""
    bom = text.startswith(BOM)
    lines = split_lines(text[1:] if bom else text)
    return TextForm(bom, tuple(c for c, _ in lines), tuple(e for _, e in lines))


def normalise(text: str) -> str:
    """The text for editing and parsing: no BOM, every line ending a bare \\n."""
    if text.startswith(BOM):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def injected_text(text: str) -> str:
    """A file's text as the assistant puts it in its prompt (universal newlines, BOM kept)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def prompt_chars(text: str) -> int:
    """A memory file's size: the characters the assistant injects. Every view shows this one."""
    return len(injected_text(text))


def reapply(form: TextForm, new_text: str, keep_final_newline: bool = True) -> str:
    """`new_text` (normalised or not) in `form`: lines equal to one of the file's keep that line's
    ending, new or changed lines take the dominant ending, and the BOM stays. With
    `keep_final_newline` the text ends in a newline exactly when the file did (a person's edit
    passes False: whether their text ends in one is theirs to say)."""
    new = split_lines(normalise(new_text))
    if not new:
        return ""                       # an emptied file: nothing to carry a BOM for
    if form.plain:                      # the common case: no line matching needed
        body = normalise(new_text)
        if keep_final_newline and form.lines and body.endswith("\n") != form.final_newline:
            body = body + "\n" if form.final_newline else body[:-1]
        return body
    dominant = form.dominant
    endings = [dominant if e else "" for _, e in new]
    contents = [c for c, _ in new]
    for i, j in _matched_lines(form.lines, contents):
        if endings[j] and form.endings[i]:
            endings[j] = form.endings[i]
    if keep_final_newline and form.lines:
        endings[-1] = (endings[-1] or dominant) if form.final_newline else ""
    body = "".join(c + e for c, e in zip(contents, endings))
    return (BOM if form.bom else "") + body


def _matched_lines(old: tuple[str, ...], new: list[str]) -> list[tuple[int, int]]:
    """(old index, new index) of the lines an edit left alone. The common head and tail are
    matched directly: difflib alone is quadratic on a file of many equal lines."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    pairs = [(k, k) for k in range(head)]
    middle = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    for i, j, size in middle.get_matching_blocks():
        pairs += [(head + i + k, head + j + k) for k in range(size)]
    pairs += [(len(old) - tail + k, len(new) - tail + k) for k in range(tail)]
    return pairs


def fit(old_text: str | None, new_text: str, mode: str) -> str:
    """What a writer writes over a file that holds `old_text` (None: no such file yet)."""
    if mode == AS_GIVEN:
        return new_text
    if old_text is None:
        return normalise(new_text)
    return reapply(detect(old_text), new_text, keep_final_newline=mode == KEEP_FORM)
