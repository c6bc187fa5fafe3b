"""OpenClaw's recall store ranked as its deep phase and `openclaw memory promote` rank it: each
short-term entry's score from its signals, and which thresholds it does not meet yet.

For the caller: openclaw_next calls `rank(recalls, phase_signals, thresholds, now_ms)` with the
state's rows; anything else wanting the scores may too. Pure arithmetic, no I/O.

Read from OpenClaw 2026.9.6 (`short-term-promotion-*.mjs` rankShortTermPromotionCandidates,
`short-term-promotion-store-*.mjs` normalizeShortTermRecallStore): the store is normalized first
(an entry with no path, lines or source "memory" is dropped; at most the newest 512 are kept;
user queries fall back to all queries for an entry with no daily or grounded signal); an entry
counts only with a short-term path (`memory/YYYY-MM-DD[-slug].md`, not under memory/dreaming/),
an origin that is not untrusted or system, and a snippet that is not dreaming's own output.
signals = recalls + daily + grounded; score = 0.24·frequency + 0.30·relevance + 0.15·diversity +
0.15·recency + 0.10·consolidation + 0.06·conceptual (weights over their sum) + the phase boost,
with frequency = log1p(signals)/log1p(10), relevance = totalScore/signals, diversity = unique
user queries/5, recency = exp(−ln2·age/halfLife) (age from the last recall), consolidation from
the spread of recall days (or grounded/3), conceptual = tags/6, each clamped to [0, 1]. A
candidate needs signals ≥ minRecallCount, unique queries ≥ minUniqueQueries, age ≤ maxAgeDays,
score ≥ minScore, in that order; ranked by score, then recalls, then path. Not modelled: concept
tags derived for an entry that has none stored (2026.9.6 always stores them).

The entries come as `Recall` structs decoded straight from the rows (openclaw_state): a store of
10,000 is ranked on every Dashboard read, and dicts cost more to make, to read and for the
collector to walk (measured in tests/bench/test_bench_openclaw.py).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import msgspec

DAY_MS = 86_400_000
WEIGHTS = {"frequency": .24, "relevance": .3, "diversity": .15, "recency": .15, "consolidation": .1, "conceptual": .06}
KEEP = 512
_SHORT_TERM = re.compile(r"(?:^|/)memory/(?:[^/]+/)*(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")
_CORPUS = re.compile(r"(?:^|/)memory/\.dreams/session-corpus/(\d{4})-(\d{2})-(\d{2})\.(?:md|txt)$")
_BASENAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:-[^/]+)?\.md$")
# isContaminatedDreamingSnippet's patterns; openclaw_junk names each one's finding in words
SESSION_METADATA = r"\bSession Key\b.{0,260}\bSession ID\b|\bSession ID\b.{0,260}\bSession Key\b"
SUMMARY = r"^(?:[-*+]\s*)?Conversation Summary:"
FLUSH_PROMPT = r"Save important context from this session to the daily memory file\.\s*STRICT RULES:"
_CONTAMINATED = re.compile(
    rf"<!--\s*openclaw-memory-promotion:|{SESSION_METADATA}|{SUMMARY}|{FLUSH_PROMPT}"
    r"|\[\s*score=\d+(?:\.\d+)?\s+(?:signals=\d+\s+)?recalls=\d+\s+avg=\d+(?:\.\d+)?\s+source=memory/", re.I)
_CONTAMINATION_WORDS = ("openclaw-memory-promotion", "session", "conversation summary:", "save important context",
                        "score=")
_TURN = re.compile(r"^(?:[-*+]\s*)?(?:user|assistant):\s", re.I)


_NULL = msgspec.Raw(b"null")


class Recall(msgspec.Struct, rename="camel", gc=False):
    """One short-term recall entry as OpenClaw stores it: the fields its ranking reads, each of
    whatever JSON type the row holds (a hand-edited row is judged as OpenClaw judges it, not
    refused). Untracked by the collector: JSON values hold no cycle. Its four lists stay raw JSON
    until asked for: only the newest 512 entries are ranked, and making the others' lists was
    half the decode."""
    key: Any = None
    path: Any = None
    start_line: Any = None
    end_line: Any = None
    source: Any = None
    snippet: Any = None
    recall_count: Any = None
    daily_count: Any = None
    grounded_count: Any = None
    total_score: Any = None
    max_score: Any = None
    last_recalled_at: Any = None
    promoted_at: Any = None
    provenance: Any = None
    query_hashes_json: msgspec.Raw = msgspec.field(default=_NULL, name="queryHashes")
    user_query_hashes_json: msgspec.Raw = msgspec.field(default=_NULL, name="userQueryHashes")
    recall_days_json: msgspec.Raw = msgspec.field(default=_NULL, name="recallDays")
    concept_tags_json: msgspec.Raw = msgspec.field(default=_NULL, name="conceptTags")

    def to_json(self) -> dict:
        """The entry's fields as OpenClaw names them."""
        return msgspec.json.decode(msgspec.json.encode(self))


def listed(raw: msgspec.Raw):
    """One of an entry's lists (whatever JSON it holds: a hand edit may have put anything there)."""
    return msgspec.json.decode(raw)


def recall_of(value: dict) -> Recall:
    """An entry from its JSON object (a row decoded loosely, a test's dict)."""
    return msgspec.json.decode(msgspec.json.encode(value), type=Recall)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One short-term entry as the deep phase weighs it."""
    key: str
    path: str
    start_line: int
    end_line: int
    snippet: str
    recall_count: int
    daily_count: int
    grounded_count: int
    signals: int
    unique_queries: int
    avg_score: float
    age_days: float
    score: float
    components: dict = field(default_factory=dict)
    phase_boost: float = 0.0
    short: tuple[str, ...] = ()        # the thresholds it does not meet yet, in words
    raw_score: float = 0.0             # before clamping: what OpenClaw orders by

    @property
    def eligible(self) -> bool:
        return not self.short

    def to_json(self) -> dict:
        return {**asdict(self), "eligible": self.eligible}


@dataclass(frozen=True, slots=True)
class Thresholds:
    min_score: float = 0.75
    min_recall_count: int = 3          # compared with all signals (recalls + daily + grounded), as OpenClaw does
    min_unique_queries: int = 3
    recency_half_life_days: float = 14
    max_age_days: int | None = 30
    limit: int = 10                    # how many one sweep promotes at most
    configured: tuple[str, ...] = ()   # which of them openclaw.json sets

    def to_json(self) -> dict:
        return asdict(self)


def _clamp(v: float) -> float:
    return max(0.0, min(1.0, v)) if math.isfinite(v) else 0.0


def _int(v) -> int:
    if type(v) is int:
        return max(0, v)
    try:
        n = float(v)
    except (TypeError, ValueError):
        return 0
    return max(0, math.floor(n)) if math.isfinite(n) else 0


def _ms(iso) -> float | None:
    try:
        return datetime.fromisoformat(str(iso).replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def short_term(path: str) -> bool:
    p = path.replace("\\", "/").removeprefix("./")
    if re.search(r"(?:^|/)memory/dreaming/", p):
        return False
    return bool(_SHORT_TERM.search(p) or _CORPUS.search(p) or _BASENAME.search(p))


def contaminated(snippet: str, path: str) -> bool:
    """isContaminatedDreamingSnippet's plain checks: dreaming's own markers and transcripts (its
    check for staged phase-report lines is left to the origin and path rules)."""
    s = " ".join(snippet.split())        # (as re.sub(r"\s+", " ", strip()): str.split's whitespace is \s's)
    if not s:
        return False
    # each of the pattern's alternatives holds one of these words: most snippets skip the regex
    folded = s.casefold()
    if any(w in folded for w in _CONTAMINATION_WORDS) and _CONTAMINATED.search(s):
        return True
    return bool(not _CORPUS.search(path) and _TURN.search(s))


def normalized(recalls) -> list[Recall]:
    """The entries OpenClaw keeps of its store: well-formed, memory-sourced, uncontaminated, the
    newest 512 (as sorted(...)[:KEEP] gives them; the contamination check, the dearest, is made
    in that order until KEEP are kept, which drops the same ones)."""
    cached = functools.lru_cache(maxsize=None)(_ms)      # (a store's entries share their timestamps)

    def ms(v):
        return cached(v) if isinstance(v, str) else _ms(v)
    keyed = []
    for n, e in enumerate(recalls):
        path = e.path if isinstance(e.path, str) else ""
        if not path or e.source != "memory" or not isinstance(e.start_line, int) or not isinstance(e.end_line, int):
            continue
        keyed.append(((-(ms(e.last_recalled_at) or -math.inf), -_signals(e), -float(e.total_score or 0),
                       -float(e.max_score or 0), -(ms(e.promoted_at) or -math.inf), str(e.key), n), e))
    keyed.sort(key=_first)
    out: list[Recall] = []
    for _, e in keyed:
        if not contaminated(str(e.snippet or ""), e.path):
            out.append(e)
            if len(out) == KEEP:
                break
    return out


def _first(pair: tuple) -> tuple:
    return pair[0]


def _signals(e: Recall) -> int:
    return _int(e.recall_count) + _int(e.daily_count) + _int(e.grounded_count)


def _distinct(values, limit: int) -> list[str]:
    """normalizeDistinctStrings: trimmed, non-empty, first of each, at most `limit`."""
    out: list[str] = []
    for v in values if isinstance(values, list) else []:
        if isinstance(v, str) and v.strip() and v.strip() not in out:
            out.append(v.strip())
    return out[:limit]


def _user_queries(e: Recall) -> int:
    """The distinct user queries that found it (all queries when it has no daily or grounded signal)."""
    users = listed(e.user_query_hashes_json)
    if isinstance(users, list):
        return len(_distinct(users, 32))
    if _int(e.daily_count) == 0 and _int(e.grounded_count) == 0:
        return len(_distinct(listed(e.query_hashes_json), 32))
    return 0


def rank(recalls, phase_signals, t: Thresholds, now_ms: float) -> list[Candidate]:
    """Every unpromoted short-term entry with its score and what it lacks: the eligible ones first,
    in OpenClaw's order (they are what `memory promote` lists), then the rest by score."""
    phases = {p.get("key"): p for p in phase_signals if isinstance(p, dict)}
    out = []
    for e in normalized(recalls):
        origin = e.provenance.get("originClass") if isinstance(e.provenance, dict) else None
        if e.promoted_at or not short_term(e.path) or _signals(e) <= 0:
            continue
        if isinstance(e.provenance, dict) and origin not in ("owner", "agent"):
            continue                     # untrusted or system (an unknown class reads as untrusted)
        out.append(_candidate(e, phases.get(e.key), t, now_ms))
    eligible = sorted((c for c in out if c.eligible), key=lambda c: (-c.raw_score, -c.recall_count, c.path))
    return eligible + sorted((c for c in out if not c.eligible), key=lambda c: (-c.score, c.path))


def _candidate(e: Recall, phase: dict | None, t: Thresholds, now_ms: float) -> Candidate:
    signals, queries = _signals(e), _user_queries(e)
    last = _ms(e.last_recalled_at)
    age = max(0.0, (now_ms - last) / DAY_MS) if last is not None else 0.0
    days = [d for d in listed(e.recall_days_json) or [] if isinstance(d, str)][-16:]
    tags = _distinct([t.lower() if isinstance(t, str) else t for t in listed(e.concept_tags_json) or []], 8)
    parts = {"frequency": _clamp(math.log1p(signals) / math.log1p(10)),
             "relevance": _clamp(max(0.0, float(e.total_score or 0)) / max(1, signals)),
             "diversity": _clamp(queries / 5), "recency": _clamp(_recency(age, t.recency_half_life_days)),
             "consolidation": max(_spread(days), _clamp(_int(e.grounded_count) / 3)),
             "conceptual": _clamp(len(tags) / 6)}
    total = sum(WEIGHTS.values())
    boost = _boost(phase, now_ms)
    score = sum(WEIGHTS[k] / total * v for k, v in parts.items()) + boost
    short = [f"signals {signals} < {t.min_recall_count}"] if signals < t.min_recall_count else []
    short += [f"unique queries {queries} < {t.min_unique_queries}"] if queries < t.min_unique_queries else []
    if t.max_age_days is not None and age > t.max_age_days:
        short.append(f"last recalled {age:.1f} days ago > {t.max_age_days}")
    short += [f"score {_clamp(score):.3f} < {t.min_score:.3f}"] if score < t.min_score else []
    return Candidate(str(e.key), e.path, e.start_line, e.end_line, str(e.snippet or ""),
                     _int(e.recall_count), _int(e.daily_count), _int(e.grounded_count), signals,
                     queries, parts["relevance"], age, _clamp(score), parts, boost, tuple(short), score)


def _recency(age: float, half_life: float) -> float:
    if not math.isfinite(age) or age < 0 or not math.isfinite(half_life) or half_life <= 0:
        return 1.0
    return math.exp(-(math.log(2) / half_life) * age)


def _spread(days: list[str]) -> float:
    """calculateConsolidationComponent: how many distinct days, and how far apart, it was recalled."""
    if not days:
        return 0.0
    parsed = sorted(ms for ms in (_ms(d[:10] + "T00:00:00+00:00") for d in days) if ms is not None)
    if len(parsed) <= 1:
        return 0.2
    spacing = _clamp(math.log1p(len(parsed) - 1) / math.log1p(4))
    span = _clamp(max(0.0, (parsed[-1] - parsed[0]) / DAY_MS) / 7)
    return _clamp(.55 * spacing + .45 * span)


def _boost(p: dict | None, now_ms: float) -> float:
    """calculatePhaseSignalBoost: up to +0.06 for light-sleep hits and +0.09 for REM hits, fading
    with a 14-day half-life."""
    if not p:
        return 0.0

    def part(hits, at, most: float) -> float:
        strength = _clamp(math.log1p(max(0, _int(hits))) / math.log1p(6))
        seen = _ms(at) if at else None
        fresh = 0.0 if seen is None else _clamp(_recency(max(0.0, (now_ms - seen) / DAY_MS), 14))
        return most * strength * fresh
    return _clamp(part(p.get("lightHits"), p.get("lastLightAt"), .06) + part(p.get("remHits"), p.get("lastRemAt"), .09))
