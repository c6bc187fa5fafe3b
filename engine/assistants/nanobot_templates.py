"""nanobot-ai 0.3.5's bundled workspace templates, known by digest (not copied): the SHA-256 of
each template's text after strip(), read from nanobot/templates/ in its wheel. tests/interop
checks them against the installed nanobot.

nanobot's ContextBuilder compares a bootstrap file, stripped, with its template to decide it
is untouched and skips it; a SOUL.md equal to the legacy template is replaced by the current
one, which is the legacy text up to its "## Execution Rules" section.
"""

from __future__ import annotations

import hashlib

DIGESTS: dict[str, str] = {
    "AGENTS.md": "b5d3a9f71da9ae2f28a431ed3edb32a622b56d9b7501aa8ae75dad87ea692dfd",
    "SOUL.md": "0351091f89de5e7162f4883af295fe0af039c3f78f93cb1232e9aa7dcb49cf6f",
    "USER.md": "4a69b5be617ad5a182d7411d76e3c42ed6483e3c737308f481d64c6e3ccc89c1",
    "legacy/SOUL.md": "34cb8ffca9dcb097be57e03b39a1570b9adecd3f4c2101720fe9827b62e1b1d9",
    "memory/MEMORY.md": "d22710640c228b702c0d8d36196040ed56a734c13ca69afd14cb5888c894bb76",
}
LEGACY_SOUL_CUT = "\n## Execution Rules"


def digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).hexdigest()


def is_template(text: str, name: str) -> bool:
    """nanobot's test: the file, stripped, equals its bundled template, stripped."""
    d = DIGESTS.get(name)
    return d is not None and digest(text) == d


def current_soul_from_legacy(legacy: str) -> str | None:
    """The current SOUL.md template, taken from a legacy one (None if it does not check out)."""
    head = legacy.strip().split(LEGACY_SOUL_CUT, 1)[0].rstrip()
    return head + "\n" if is_template(head, "SOUL.md") else None


# The lines of the two templates whose removals Dreamdesk lists (USER.md, memory/MEMORY.md), each
# known by the first 16 hex digits of the SHA-256 of the line stripped. An archived entry made of
# such lines only is onboarding text nobody filled in ("- [ ] Casual", "(your name)"), not a fact
# that was pruned: the Archive folds those rows away (issue 25 item 8).
LINE_DIGESTS: dict[str, frozenset[str]] = {
    "USER.md": frozenset({
        "00aa0fca9682f053", "16319b647efb5a36", "1e22c25b1f2b011c", "2940baee652d73c9", "2986a8d8e1b6b750",
        "354fcca73a86a96d", "379623755545a561", "37b6b1dc5af50cbc", "3973e022e93220f9", "3c90728b5e914b4d",
        "3ca0e6c20a93f2b4", "44b1594d6474c612", "51b2b9d84d0fe9d9", "5fdcdd9c9725b54b", "703b44e9d015887e",
        "705965bfd3aea72a", "9896b53637f7de02", "b445fb218d9922f5", "b74e65cf55c8d420", "bfffac706ad717ef",
        "c2f03fe67ee0bc60", "cb3f91d54eee30e5", "cd8f6bedb97ebb0e", "cfd45140d74e7f72", "db6ed6c547409992",
        "dba503ee6ead511f", "dc9f9668c62304f2", "f0e4aaf46d15d7c1", "fb118c48177bd92c",
    }),
    "memory/MEMORY.md": frozenset({
        "347ccf3776e0cd9f", "38c02839fee6d5c4", "3c90728b5e914b4d", "4cba97a3dab7d6f3", "60a823970a669a27",
        "a6db30079316ba58", "a8796cdf5ad2f7a5", "aa4323feb942532c", "cb3f91d54eee30e5", "e663dcbd06d6a432",
        "e90ad4d11a78cc67", "ff2ffe5a4c7be705",
    }),
}


def line_digest(line: str) -> str:
    return hashlib.sha256(line.strip().encode("utf-8", "surrogatepass")).hexdigest()[:16]


def is_placeholder(text: str, file: str) -> bool:
    """Every non-blank line of `text` is a line of `file`'s bundled template."""
    known = LINE_DIGESTS.get(file)
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(known and lines) and all(line_digest(line) in known for line in lines)
