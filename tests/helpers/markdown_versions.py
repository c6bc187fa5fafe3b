"""Two versions of a long markdown memory file, for diff tests and the diff benchmark: headings,
tagged bullets with bold and code, and a few hundred lines edited, removed or added between them."""

from __future__ import annotations

import random

WORDS = ("tea rain NAS Ghent runs cats code backup server garden Lisbon bike coffee meeting notes "
         "deploy python piano invoice dentist").split()


def _bullet(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12)))
    tag = rng.choice(["[durable] ", "[permanent] ", "", "**note** ", "`cfg` "])
    return f"- {tag}{words} {rng.randint(1, 999)}"


def two_versions(size: int = 50_000, changes: int = 300, seed: int = 14) -> tuple[str, str]:
    """(older, newer): about `size` bytes each, `changes` lines edited, removed or added."""
    rng = random.Random(seed)
    lines: list[str] = ["# Memory"]
    section = 0
    while sum(len(x) + 1 for x in lines) < size:
        if rng.random() < 0.06:
            section += 1
            lines += ["", f"## Section {section}: {' '.join(rng.choice(WORDS) for _ in range(3))}", ""]
        else:
            lines.append(_bullet(rng))
    new = list(lines)
    for i in sorted(rng.sample(range(1, len(new)), changes), reverse=True):
        op = rng.random()
        if op < 0.5 and new[i].startswith("- "):
            new[i] = new[i].replace(rng.choice(WORDS), rng.choice(WORDS).upper(), 1) + " " + rng.choice(WORDS)
        elif op < 0.75:
            del new[i]
        else:
            new.insert(i, _bullet(rng).replace("- ", "- [ephemeral] ", 1))
    return "\n".join(lines) + "\n", "\n".join(new) + "\n"
