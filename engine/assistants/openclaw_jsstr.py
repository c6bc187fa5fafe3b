"""JavaScript's string rules, as OpenClaw's code meets them: lengths and slices in UTF-16 code
units that never split a surrogate pair (its utf16-slice module), JS's whitespace set for
trim()/trimEnd() and `\\s`, and the order String.prototype.localeCompare gives (ICU's root
collation, Node's default for an English or unset locale).

Every count OpenClaw reports ("kept 15000+5000 chars of 21000") is in these units: an emoji
outside the Basic Multilingual Plane counts two."""

from __future__ import annotations

import unicodedata

# ECMAScript's WhiteSpace and LineTerminator code points: what trim() removes and `\s` matches
# (Python's str.isspace() differs: it takes \x1c-\x1f and \x85 and leaves U+FEFF)
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                 "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_ESCAPED = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
JS_SPACE_CLASS, JS_NONSPACE_CLASS = f"[{_ESCAPED}]", f"[^{_ESCAPED}]"       # `\s` and `\S`


def u16len(text: str) -> int:
    """text.length in JavaScript."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def trim_end(text: str) -> str:
    return text.rstrip(JS_WHITESPACE)


def trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def _units(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


def _text(units: bytes) -> str:
    return units.decode("utf-16-le", "surrogatepass")


def _high(units: bytes, i: int) -> bool:
    return 0xD8 <= units[2 * i + 1] <= 0xDB


def _low(units: bytes, i: int) -> bool:
    return 0xDC <= units[2 * i + 1] <= 0xDF


def head(text: str, n: int) -> str:
    """sliceUtf16Safe(text, 0, n) (and truncateUtf16Safe): the first n units, one less when
    the n-th would split a surrogate pair."""
    if n <= 0:
        return ""
    if text.isascii():
        return text[:n]
    units = _units(text)
    total = len(units) // 2
    if n >= total:
        return text
    if _high(units, n - 1) and _low(units, n):
        n -= 1
    return _text(units[:2 * n])


def tail(text: str, n: int) -> str:
    """sliceUtf16Safe(text, -n): the last n units, one less when the first would be the second
    half of a surrogate pair."""
    if n <= 0:
        return ""
    if text.isascii():
        return text[-n:]
    units = _units(text)
    total = len(units) // 2
    if n >= total:
        return text
    start = total - n
    if _low(units, start) and _high(units, start - 1):
        start += 1
    return _text(units[2 * start:])


# -- localeCompare ---------------------------------------------------------------------------------
# ICU root collation of printable ASCII (measured with Node 24's localeCompare): space and
# punctuation first, then digits, then letters with lower case before upper case
_ASCII_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: i + 1 for i, c in enumerate(_ASCII_ORDER)}
_COMMON, _UPPER = 0, 1


def _weights(ch: str) -> tuple[int, int, int] | None:
    """A base character's (primary, secondary, tertiary) weights; None when ignorable."""
    if unicodedata.category(ch) == "Cc" and ch not in "\t\n\v\f\r":
        return None
    low = ch.lower()
    primary = _PRIMARY.get(low) if len(low) == 1 else None
    if primary is None:
        primary = 1000 + ord(low[0]) if low else 1000 + ord(ch)
    return primary, 0, _UPPER if ch != low else _COMMON


def collation_key(text: str) -> tuple:
    """A key whose order is localeCompare's for ASCII text and for Latin letters with accents
    (primary letters, then accents, then case); other scripts follow their code points after the
    Latin letters, an approximation of ICU's order."""
    prim: list[int] = []
    sec: list[int] = []
    ter: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            sec.append(ord(ch))
            continue
        w = _weights(ch)
        if w is None:
            continue
        prim.append(w[0])
        sec.append(w[1])
        ter.append(w[2])
    return tuple(prim), tuple(sec), tuple(ter)


def locale_compare(a: str, b: str) -> int:
    ka, kb = collation_key(a), collation_key(b)
    return (ka > kb) - (ka < kb)


def u16_slice(text: str, start: int, end: int) -> str:
    """text.slice(start, end) for offsets that fall between characters (not inside a pair)."""
    if text.isascii():
        return text[start:end]
    return _text(_units(text)[2 * start:2 * end])
