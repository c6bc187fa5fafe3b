"""Each lint threshold holds on both sides of its boundary (issue 26 item 5): a pair exactly at a
threshold is found, a hair under it is not; a plan dated today is not past, one dated yesterday is.
The thresholds are set to the pair's own measured figures, so a `<` turned `<=` fails here."""

from __future__ import annotations

from datetime import date

import pytest

from dreamdesk.engine.lint import lint_copies
from dreamdesk.engine.lint.lint_copies import bigrams, content, copies, words
from dreamdesk.engine.core.lint_finding import Place
from dreamdesk.engine.text.stale_dates import past_dates

KEPT = "- Backups run nightly at 03:00 to the Hetzner storage box over restic"
GONE = "- Backups run nightly at 03:00 to the Hetzner storage box"


def _places(*texts: str) -> list[Place]:
    return [Place("memory/MEMORY.md", i, i + 1, t, "## Infrastructure") for i, t in enumerate(texts)]


def _pairs(a: str, b: str) -> float:
    x, y = bigrams(words(b)), bigrams(words(a))
    return len(x & y) / len(x | y)


def _words(a: str, b: str) -> float:
    ca, cb = content(words(a)), content(words(b))
    return len(ca & cb) / len(ca | cb)


def _kinds(monkeypatch, pairs: float, words_share: float, similar: float) -> list[str]:
    monkeypatch.setattr(lint_copies, "NEAR_DUPLICATE_PAIRS", pairs)
    monkeypatch.setattr(lint_copies, "NEAR_DUPLICATE_WORDS", words_share)
    monkeypatch.setattr(lint_copies, "SIMILAR_PAIRS", similar)
    return [f.kind for f in copies(_places(KEPT, GONE))]


def test_a_pair_exactly_at_the_near_duplicate_thresholds_is_one(monkeypatch):
    p, w = _pairs(KEPT, GONE), _words(KEPT, GONE)
    assert 0 < p < 1 and 0 < w < 1
    assert _kinds(monkeypatch, p, w, p) == ["near-duplicate"]


@pytest.mark.parametrize("which", ["pairs", "words"])
def test_a_hair_under_a_near_duplicate_threshold_is_only_similar(monkeypatch, which):
    p, w = _pairs(KEPT, GONE), _words(KEPT, GONE)
    eps = 1e-9
    got = _kinds(monkeypatch, p + eps if which == "pairs" else p, w + eps if which == "words" else w, p)
    assert got == ["similar"]


def test_the_similar_threshold_holds_on_both_sides(monkeypatch):
    p = _pairs(KEPT, GONE)
    assert _kinds(monkeypatch, 2.0, 2.0, p) == ["similar"]          # exactly at it: shown for review
    assert _kinds(monkeypatch, 2.0, 2.0, p + 1e-9) == []             # a hair under: nothing


TODAY = date(2026, 12, 2)


@pytest.mark.parametrize("day, past", [("2026-12-02", False), ("2026-12-01", True), ("2026-12-03", False)])
def test_a_plan_dated_today_is_not_past_and_yesterday_is(day, past):
    text = f"- Dentist appointment due {day} at 09:30."
    assert bool(past_dates(text, date(2026, 11, 20), TODAY)) is past
