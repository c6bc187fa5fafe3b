"""A value of a JSON5 document set in place: only the value's own characters change (or, for a key
the document lacks, the member inserted in the object that should hold it), so every comment,
trailing comma, quote style, blank line and key order outside it stays byte for byte. An
assistant's config written by hand (OpenClaw's openclaw.json) is the user's text, not a data dump.

The document is read into spans (where each value, key and comma is), not into values: decoding
is left to the json5 package the home layer reads configs with; the caller checks the edited text
reads back as the config it meant (engine/assistants/openclaw_config_write.py does).

A new member copies its neighbours' style: their indentation, key quotes, the text between key
and value, a trailing comma after the last member; a new object opens on its own lines when the
document is laid out on lines, else inline."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import json5

Key = str | int                          # an object's key, or an array's index
_LINE_END = "\n\r\u2028\u2029"
_SPACE = "\t\v\f \u00a0\ufeff" + _LINE_END
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


class Json5EditError(ValueError):
    """The edit cannot be made without changing what the person wrote: said in words."""


@dataclass
class Node:
    kind: str                             # object | array | string | scalar
    start: int                            # [start, end) of the value's text
    end: int = 0
    members: list[Member] = field(default_factory=list)     # an object's
    items: list[Node] = field(default_factory=list)         # an array's


@dataclass
class Member:
    key: str
    key_start: int
    key_end: int
    quote: str                            # '"', "'" or "" (an identifier)
    value: Node
    comma: int | None = None              # where the comma after it is


def _is_space(ch: str) -> bool:
    return ch in _SPACE or unicodedata.category(ch) == "Zs"


class _Reader:
    """The spans of a JSON5 text (json5.org's grammar; lenient only where the json5 package,
    which read the file first, is strict)."""

    def __init__(self, text: str):
        self.t, self.i = text, 0

    def fail(self, what: str) -> Json5EditError:
        line = self.t.count("\n", 0, self.i) + 1
        col = self.i - (self.t.rfind("\n", 0, self.i) + 1) + 1
        return Json5EditError(f"{what} at line {line}, column {col}")

    def skip(self) -> None:
        t, n = self.t, len(self.t)
        while self.i < n:
            if _is_space(t[self.i]):
                self.i += 1
            elif t.startswith("//", self.i):
                while self.i < n and t[self.i] not in _LINE_END:
                    self.i += 1
            elif t.startswith("/*", self.i):
                end = t.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("an unclosed comment")
                self.i = end + 2
            else:
                return

    def document(self) -> Node:
        self.skip()
        node = self.value()
        self.skip()
        if self.i != len(self.t):
            raise self.fail("text after the document")
        return node

    def value(self) -> Node:
        if self.i >= len(self.t):
            raise self.fail("the document ends where a value should be")
        ch = self.t[self.i]
        if ch == "{":
            return self.object()
        if ch == "[":
            return self.array()
        start = self.i
        if ch in "\"'":
            self.string()
            return Node("string", start, self.i)
        while self.i < len(self.t) and self.t[self.i] not in ",]}/:" and not _is_space(self.t[self.i]):
            self.i += 1
        if self.i == start:
            raise self.fail(f"unexpected {ch!r}")
        return Node("scalar", start, self.i)

    def string(self) -> None:
        q, t = self.t[self.i], self.t
        self.i += 1
        while self.i < len(t) and t[self.i] != q:
            self.i += 2 if t[self.i] == "\\" and not t.startswith("\\\r\n", self.i) else \
                3 if t[self.i] == "\\" else 1
        if self.i >= len(t):
            raise self.fail("an unclosed string")
        self.i += 1

    def object(self) -> Node:
        node = Node("object", self.i)

        def take() -> Member:
            node.members.append(self.member())
            return node.members[-1]
        return self._items(node, "}", take)

    def member(self) -> Member:
        start, t = self.i, self.t
        if start < len(t) and t[start] in "\"'":
            self.string()
            raw, quote = t[start:self.i], t[start]
            key = raw[1:-1] if "\\" not in raw else json5.loads(raw)
        else:
            while self.i < len(t) and t[self.i] not in ":/" and not _is_space(t[self.i]):
                self.i += 1
            raw, quote = t[start:self.i], ""
            if not raw:
                raise self.fail("expected a key")
            key = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), raw)
        end = self.i
        self.skip()
        if not t.startswith(":", self.i):
            raise self.fail("expected ':'")
        self.i += 1
        self.skip()
        return Member(key, start, end, quote, self.value())

    def array(self) -> Node:
        node = Node("array", self.i)

        def take() -> None:
            node.items.append(self.value())
        return self._items(node, "]", take)

    def _items(self, node: Node, close: str, take: Callable[[], Member | None]) -> Node:
        """An object's members or an array's items up to `close`, commas between (and one after
        the last allowed); a member keeps where its comma is."""
        self.i += 1
        while True:
            self.skip()
            if self.t.startswith(close, self.i):
                self.i += 1
                node.end = self.i
                return node
            taken = take()
            self.skip()
            if self.t.startswith(",", self.i):
                if isinstance(taken, Member):
                    taken.comma = self.i
                self.i += 1
            elif not self.t.startswith(close, self.i):
                raise self.fail(f"expected ',' or '{close}'")

def parse(text: str) -> Node:
    """The document's spans; Json5EditError (in words, with where) when it is not JSON5."""
    return _Reader(text).document()


def find(node: Node, key: Key) -> Member | Node | None:
    """An object's member `key` (the last one: JSON5 keeps the last of a repeated key), or an
    array's item."""
    if node.kind == "object" and isinstance(key, str):
        return next((m for m in reversed(node.members) if m.key == key), None)
    if node.kind == "array" and isinstance(key, int) and 0 <= key < len(node.items):
        return node.items[key]
    return None


def dotted(path: tuple[Key, ...]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else ("." if i else "") + k for i, k in enumerate(path))


# -- the style a new member copies ----------------------------------------------------------------
@dataclass(frozen=True)
class Style:
    newline: str = "\n"
    unit: str = "  "              # one level of indentation ("": the document is on one line)
    key_quote: str = '"'          # how keys are written: '"', "'", or "" (bare where a name allows)
    string_quote: str = '"'
    colon: str = ": "
    trailing_comma: bool = False  # an object laid out on lines ends with a comma


def style_of(text: str, root: Node) -> Style:
    """The document's own habits, by majority; JSON's where it shows none."""
    keys: Counter[str] = Counter()
    strings: Counter[str] = Counter()
    colons: Counter[str] = Counter()
    trails: Counter[bool] = Counter()
    indents: list[str] = []
    for node, depth in _objects(root):
        multiline = "\n" in text[node.start:node.end]
        for m in node.members:
            keys[m.quote] += 1
            between = text[m.key_end:m.value.start]
            if "\n" not in between and "/" not in between:
                colons[between] += 1
            if m.value.kind == "string":
                strings[text[m.value.start]] += 1
            indent = _indent_before(text, m.key_start)
            if indent is not None and depth == 1:
                indents.append(indent)
        if node.members and multiline:
            trails[node.members[-1].comma is not None] += 1
    unit = indents[0] if indents else ("" if root.members else "  ")
    return Style("\r\n" if "\r\n" in text else "\n", unit, _most(keys, '"'), _most(strings, '"'),
                 _most(colons, ": "), _most(trails, False))


def _most(counts: Counter, default):
    """The most common habit; a tie that JSON's habit is in goes JSON's way."""
    top = counts.most_common()
    tied = [k for k, n in top if n == top[0][1]] if top else []
    return default if not tied or default in tied else tied[0]


def _objects(node: Node, depth: int = 1):
    if node.kind == "object":
        yield node, depth
        for m in node.members:
            yield from _objects(m.value, depth + 1)
    for item in node.items:
        yield from _objects(item, depth + 1)


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_before(text: str, pos: int) -> str | None:
    """The whitespace that starts `pos`'s line, when nothing else is before it there."""
    lead = text[_line_start(text, pos):pos]
    return lead if lead.strip(" \t") == "" else None


def _line_indent(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    line = text[start:pos]
    return line[:len(line) - len(line.lstrip(" \t"))]


def _clean_eol(text: str, pos: int) -> int | None:
    """Where `pos`'s line ends when only blanks and comments follow it there; None otherwise."""
    i, n = pos, len(text)
    while i < n:
        if text[i] in " \t":
            i += 1
        elif text[i] == "\n" or text.startswith("\r\n", i):
            return i
        elif text.startswith("//", i):
            j = i
            while j < n and text[j] not in "\r\n":
                j += 1
            return j if j < n else None
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0 or "\n" in text[i:j]:
                return None
            i = j + 2
        else:
            return None
    return None


# -- literals ----------------------------------------------------------------------------------
def literal(value, quote: str = '"') -> str:
    """`value` (bool, int, finite float, str) as JSON5 text, a string in `quote`s."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Json5EditError(f"{value} is not a number a config can hold")
        return repr(value)
    if isinstance(value, str):
        return quote + "".join(_escaped(ch, quote) for ch in value) + quote
    raise Json5EditError(f"a {type(value).__name__} is not written here")


def _escaped(ch: str, quote: str) -> str:
    if ch in ("\\", quote):
        return "\\" + ch
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if ch < " " or ch in "\u2028\u2029\x7f":
        return f"\\u{ord(ch):04x}"
    return ch


def _key_text(key: str, quote: str, style: Style) -> str:
    if quote == "" and _IDENT.match(key):
        return key
    q = quote or (style.key_quote if style.key_quote else '"')
    return literal(key, q)


# -- the edit ----------------------------------------------------------------------------------
def set_value(text: str, path: tuple[Key, ...], value) -> str:
    """`text` with the value at `path` set to `value`; a key missing on the way is inserted with
    the objects it needs. Json5EditError, in words, when a step of `path` is no object (or the
    value there is an object or array, which a scalar would replace)."""
    root = parse(text)
    if root.kind != "object":
        raise Json5EditError("the document is not an object")
    node = root
    for depth, key in enumerate(path):
        found = find(node, key)
        if found is None:
            if isinstance(key, int) or node.kind != "object":
                raise Json5EditError(f"{dotted(path[:depth + 1])} is not in the file")
            return _insert(text, root, node, [str(k) for k in path[depth:]], value)
        child = found.value if isinstance(found, Member) else found
        if depth == len(path) - 1:
            return _replace(text, child, value, dotted(path))
        if child.kind not in ("object", "array"):
            raise Json5EditError(f"{dotted(path[:depth + 1])} holds {text[child.start:child.end][:40]}, "
                                 "not an object")
        node = child
    raise Json5EditError("an empty path")


def _replace(text: str, node: Node, value, where: str) -> str:
    if node.kind in ("object", "array"):
        raise Json5EditError(f"{where} holds an {node.kind} in the file; it is not replaced by a single value")
    quote = text[node.start] if node.kind == "string" else '"'
    return text[:node.start] + literal(value, quote) + text[node.end:]


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, at = [], 0
    for start, end, new in sorted(edits, key=lambda e: e[0]):
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


def _insert(text: str, root: Node, obj: Node, keys: list[str], value) -> str:
    """A member for keys[0] (holding objects down to the value) added to `obj` after its last."""
    style = style_of(text, root)
    lines = bool(style.unit)
    last = obj.members[-1] if obj.members else None
    leading = next((i for m in reversed(obj.members) if (i := _indent_before(text, m.key_start)) is not None), None)
    indent = leading if leading is not None else _line_indent(text, obj.start) + style.unit
    quote = _quote_in(obj, style)
    colon = text[last.key_end:last.value.start] if last is not None and "\n" not in \
        text[last.key_end:last.value.start] and "/" not in text[last.key_end:last.value.start] else style.colon
    trail = "," if (last.comma is not None if last is not None else style.trailing_comma) else ""
    member = _render(keys, value, indent, quote, colon, style, lines)
    if last is not None:
        multiline = "\n" in text[last.value.end:obj.end]
        anchor = last.comma + 1 if last.comma is not None else last.value.end
        comma = [] if last.comma is not None else [(last.value.end, last.value.end, ",")]
        if not multiline:
            return _splice(text, comma + [(anchor, anchor, " " + member + trail)])
        eol = _clean_eol(text, anchor)
        at = eol if eol is not None else anchor
        return _splice(text, comma + [(at, at, style.newline + indent + member + trail)])
    inner = text[obj.start + 1:obj.end - 1]
    if "\n" in inner:
        eol = _clean_eol(text, obj.start + 1)
        at = eol if eol is not None else obj.start + 1
        return _splice(text, [(at, at, style.newline + indent + member + trail)])
    if inner.strip(" \t"):          # a comment inside: kept after the member
        return _splice(text, [(obj.start + 1, obj.start + 1, member + " ")])
    if lines:
        body = style.newline + indent + member + trail + style.newline + _line_indent(text, obj.start)
    else:
        body = inner + member + inner
    return _splice(text, [(obj.start + 1, obj.end - 1, body)])


def _quote_in(obj: Node, style: Style) -> str:
    """How the object's own keys are quoted, by majority; a tie (or none) goes the document's way."""
    return _most(Counter(m.quote for m in obj.members), style.key_quote)


def _render(keys: list[str], value, indent: str, quote: str, colon: str, style: Style, lines: bool) -> str:
    """`key: value`, or `key: {` the objects down to the value `}`, laid out like the document."""
    head = _key_text(keys[0], quote, style) + colon
    if len(keys) == 1:
        return head + literal(value, style.string_quote)
    if not lines:
        return head + "{" + _render(keys[1:], value, "", quote, colon, style, False) + "}"
    deeper, trail = indent + style.unit, "," if style.trailing_comma else ""
    return (head + "{" + style.newline + deeper + _render(keys[1:], value, deeper, quote, colon, style, True)
            + trail + style.newline + indent + "}")
