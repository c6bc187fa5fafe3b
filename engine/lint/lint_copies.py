"""Entries that say the same thing twice, and entries that only look alike (memory lint).

- duplicate: the same words (case, punctuation and list markers aside); the later copy goes.
- near-duplicate: the later entry says nothing the earlier one does not: every content word of
  it (stop words aside, plurals folded) is in the earlier one, the two share most of their word
  pairs (rules.NEAR_DUPLICATE_PAIRS) and most of their content words (rules.NEAR_DUPLICATE_WORDS),
  and what the earlier one adds is no "not", "no longer", "was" … that turns it around. So the
  removal loses nothing.
- similar: word pairs shared (rules.SIMILAR_PAIRS) but not that: other numbers, a negation,
  swapped roles, one saying more. Which one is right is for a person to say: review, no fix.

Some copies are no copies: two numbered steps of one procedure (a procedure may repeat a step), a
step shared by two skills (each skill stays whole; a skill's copy is kept over USER.md's), and a
placeholder of a word or two under two headings of a file ("None yet")."""

from __future__ import annotations

import re
from collections import defaultdict

from ..core.lint_finding import REMOVE, Finding, Place
from ..core.rules import NEAR_DUPLICATE_PAIRS, NEAR_DUPLICATE_WORDS, SIMILAR_PAIRS

_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*\d+[.)]\s")
_STOP = frozenset("""a an the and or of to in on at for with by from as is are be been being it its this that these
    those she he they her his their them i my me we our us you your so very just also then than about into over under
    up out there here has have had do does did will would can could should may might must shall am what which who
    whom when where why how all any some each every more most other such only own same too s t re ll ve d m
    user users""".split())
# words that turn an entry around: what the kept copy adds must not be one of these
_TURNS = frozenset("""no not never nor none nothing don doesn didn isn aren wasn weren won cannot without longer
    anymore stopped quit used former formerly previously ex until was were""".split())


def words(text: str) -> list[str]:
    """An entry's words, lowercased, without list markers or punctuation (an ISO date is one word)."""
    return re.findall(r"\d{4}-\d\d-\d\d|\w+", _MARKER.sub("", text).lower())


def bigrams(ws: list[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(ws[i:i + 2]) for i in range(max(1, len(ws) - 1)))


def similarity(a: str, b: str) -> float:
    """Jaccard index of the two entries' word bigrams."""
    x, y = bigrams(words(a)), bigrams(words(b))
    return len(x & y) / len(x | y) if x | y else 0.0


def content(ws: list[str]) -> frozenset[str]:
    """The words that carry meaning, plurals folded ("answers" is "answer")."""
    return frozenset(_stem(w) for w in ws if w not in _STOP)


def _stem(w: str) -> str:
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def copies(places: list[Place]) -> list[Finding]:
    """Each entry that repeats an earlier one (exactly or nearly), or looks like one: reported
    once, against the entry it is most like."""
    out: list[Finding] = []
    first: dict[tuple[str, ...], Place] = {}
    ws = [words(p.said) for p in places]
    grams = [bigrams(w) for w in ws]
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)     # bigram -> earlier entries holding it
    for i, p in enumerate(places):
        key = tuple(ws[i])
        if key and key in first:
            if not _apart(first[key], p):
                kept, gone = _keep_skill(first[key], p)
                out.append(Finding("duplicate", (kept, gone), f"the same words as {_where(kept, gone)}", REMOVE))
        elif key:
            first[key] = p
            if (found := _nearest(i, places, ws, grams, index)) is not None:
                out.append(found)
        for g in grams[i]:
            index[g].append(i)
    return out


def _nearest(i: int, places: list[Place], ws: list[list[str]], grams: list[frozenset],
             index: dict) -> Finding | None:
    """Entry i against the earlier entries it shares word pairs with: a near-duplicate if one
    is, else the most similar one, else nothing."""
    mine = grams[i]
    if len(mine) < 2:
        return None                      # two words or fewer: too little to call alike
    best = None
    for j in {j for g in mine for j in index.get(g, ())}:
        a, b = places[j], places[i]
        if tuple(ws[j]) == tuple(ws[i]) or _skill_part(a, b) or _apart(a, b):
            continue
        score = len(mine & grams[j]) / len(mine | grams[j])
        if score < SIMILAR_PAIRS:
            continue
        pair = _covered(a, ws[j], b, ws[i], score)
        rank = (pair is not None, score, -j)
        if best is None or rank > best[0]:
            best = (rank, pair or (a, b), score)
    if best is None:
        return None
    (near, score, _), (kept, gone), _ = best
    if near:
        return Finding("near-duplicate", (kept, gone), f"all it says is in {_where(kept, gone)} "
                       f"({score:.0%} of their word pairs shared)", REMOVE)
    return Finding("similar", (kept, gone), f"{score:.0%} of its word pairs shared with {_where(kept, gone)}, but "
                   "no copy (other words or numbers, a negation, another order): compare them")


def _covered(a: Place, wa: list[str], b: Place, wb: list[str], score: float) -> tuple[Place, Place] | None:
    """(kept, removed) when one of the two says nothing the other does not (the later one goes,
    unless it is a skill's: a skill stays whole), else None."""
    if score < NEAR_DUPLICATE_PAIRS:
        return None
    ca, cb = content(wa), content(wb)
    if not ca or not cb or len(ca & cb) / len(ca | cb) < NEAR_DUPLICATE_WORDS:
        return None
    order = [(b, a), (a, b)] if b.file.startswith("skills/") else [(a, b)]
    for kept, gone in order:
        sk, sg = _sequence(words(kept.said)), _sequence(words(gone.said))
        ck, cg = frozenset(sk), frozenset(sg)
        if cg <= ck and not (ck - cg) & _TURNS and _in_order(sg, sk, slack=1 if cg == ck else 0):
            return kept, gone
    return None


def _sequence(ws: list[str]) -> list[str]:
    return [_stem(w) for w in ws if w not in _STOP]


def _in_order(part: list[str], whole: list[str], slack: int) -> bool:
    """Are `part`'s content words in `whole` in the same order (but for `slack` of them)? The
    same words in another order can swap who does what ("Joris cooks on weekdays, Inès at the
    weekend"); one word moved ("Runs HA OS on …" / "HA OS runs on …") cannot."""
    n, m = len(part), len(whole)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n):
        for j in range(m):
            lcs[i + 1][j + 1] = lcs[i][j] + 1 if part[i] == whole[j] else max(lcs[i][j + 1], lcs[i + 1][j])
    return lcs[n][m] >= n - slack


def _skill_part(a: Place, b: Place) -> bool:
    """Both in skills: the parts of a procedure are alike by nature, and each skill stays whole."""
    return a.file.startswith("skills/") and b.file.startswith("skills/")


def _apart(a: Place, b: Place) -> bool:
    """Two entries that repeat words yet are no copies: numbered steps of one file, one step in
    two skills, a placeholder under two headings of a file."""
    if a.file == b.file and (_NUMBERED.match(a.text) or _NUMBERED.match(b.text)):
        return True
    if a.file != b.file and _skill_part(a, b):
        return True
    return a.file == b.file and a.heading != b.heading and len(words(b.said)) < 3


def _keep_skill(a: Place, b: Place) -> tuple[Place, Place]:
    """(kept, removed) of an exact copy: the later goes, unless it is a skill's."""
    return (b, a) if b.file.startswith("skills/") and not a.file.startswith("skills/") else (a, b)


def _where(kept: Place, p: Place) -> str:
    return f"{kept.lines}" + ("" if kept.file == p.file else f" of {kept.file}")
