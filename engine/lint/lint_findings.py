"""A memory-lint finding (engine/lint/memory_lint.py): the entries it is about, the reason in words, the fix
it would make, and whether that fix is offered in one click or the finding is for review.

A fix that removes or moves text is offered only for a kind whose measured precision
(rules.LINT_PRECISION, measured by tests/engine/lint/test_lint_labelled.py) reaches rules.LINT_PRECISION_BAR;
any other finding is shown for review: read it, and edit by hand if it is right. The GUI, the CLI
and lint_fixes.fix_finding all ask action() here, so a kind measured below the bar is demoted
everywhere by changing its figure."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.rules import LINT_PRECISION, LINT_PRECISION_BAR

KINDS = ("duplicate", "near-duplicate", "similar", "past-date", "misplaced", "too-long")
REMOVE, MOVE, REWRITE = "remove", "move", "rewrite"    # REWRITE: the entry without its stale part
FIX, REVIEW = "fix", "review"          # a finding's action: one click, or read and edit by hand
_BY_HAND = {"similar": "compare them and merge them by hand in the Files tab",
            "too-long": "shorten or split it in the Files tab"}


def action(kind: str) -> str:
    """FIX when findings of this kind are offered a one-click fix, else REVIEW."""
    return FIX if kind not in _BY_HAND and LINT_PRECISION.get(kind, 0.0) >= LINT_PRECISION_BAR else REVIEW


def _measured(kind: str) -> str:
    p = LINT_PRECISION.get(kind)
    return (f"{kind} findings are right {p:.0%} of the time on the labelled set" if p is not None
            else f"{kind} findings are not measured")


@dataclass(frozen=True, slots=True)
class Place:
    file: str                 # workspace-relative
    start: int                # 0-based first line
    end: int                  # exclusive
    text: str                 # the entry as entries.py reads it
    heading: str | None
    kind: str = "item"        # entries.py's kind: item | paragraph | code | quote | html

    @property
    def lines(self) -> str:
        """'lines 3–5' as a person counts them."""
        return f"line {self.start + 1}" if self.end - self.start <= 1 else f"lines {self.start + 1}–{self.end}"

    def to_json(self) -> dict:
        return {"file": self.file, "start_line": self.start + 1, "end_line": self.end, "text": self.text,
                "heading": self.heading}


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str                         # one of KINDS
    places: tuple[Place, ...]         # two entries: the one kept first, then the one the fix removes
    reason: str                       # in words
    fix: str | None = None            # REMOVE | MOVE | REWRITE | None (edit it by hand)
    move_to: str | None = None        # MOVE: the file it goes to
    rewrite_to: str | None = None     # REWRITE: the entry as the fix leaves it

    @property
    def target(self) -> Place:
        """The entry the finding is about (and the fix acts on): a duplicate's later copy."""
        return self.places[-1]

    @property
    def id(self) -> str:
        t = self.target
        return f"{self.kind}:{t.file}:{t.start + 1}"

    @property
    def action(self) -> str:
        return action(self.kind) if self.fix else REVIEW

    @property
    def fix_label(self) -> str:
        """What the fix does, in words (for review: what it would do)."""
        t = self.target
        if self.fix == REMOVE and len(self.places) > 1:
            kept = self.places[0]
            if kept.file == t.file:             # "the one in X" would not say which
                return f"Keep {kept.lines}, remove {t.lines} of {t.file}"
            return f"Remove it from {t.file} (keep the one in {kept.file})"
        if self.fix == REMOVE:
            return f"Remove it from {t.file}"
        if self.fix == MOVE:
            return f"Move it from {t.file} to {self.move_to}"
        if self.fix == REWRITE:
            return f"Take the past plan out of {t.file}, keep “{self.rewrite_to}”"
        return "No automatic fix: " + _BY_HAND.get(self.kind, "edit it in the Files tab")

    @property
    def review_note(self) -> str | None:
        """Why a finding with a fix is for review only (None when the fix is offered)."""
        if self.fix is None or self.action == FIX:
            return None
        return f"{_measured(self.kind)}, under the {LINT_PRECISION_BAR:.0%} a one-click fix needs"

    @property
    def by_hand(self) -> str:
        """The fix as something to do by hand: "remove it from USER.md by hand in the Files tab"."""
        return f"{self.fix_label[0].lower()}{self.fix_label[1:]} by hand in the Files tab"

    @property
    def advice(self) -> str:
        """One line: the fix offered ("fix: …"), or what to look at ("review: …")."""
        if self.action == FIX:
            return f"fix: {self.fix_label}"
        if self.fix is None:
            return f"review: {_BY_HAND.get(self.kind, 'edit it in the Files tab')}"
        return f"review: if it is right, {self.by_hand} ({self.review_note})"

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "action": self.action, "precision": LINT_PRECISION.get(self.kind),
                "reason": self.reason, "fix": self.fix, "move_to": self.move_to, "rewrite_to": self.rewrite_to,
                "fix_label": self.fix_label,
                "places": [p.to_json() for p in self.places]}
