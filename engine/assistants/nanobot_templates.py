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
