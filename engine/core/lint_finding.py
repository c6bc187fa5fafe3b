"""A memory-lint finding (engine/lint/memory_lint.py): the entries it is about, the reason in words, the fix
it would make, and whether that fix is offered in one click or the finding is for review. Kept
here, below every layer that makes findings: the shared rules (engine/lint) and an assistant's own
(engine/assistants: OpenClaw's promoted junk, its directives, its prompt cut) build the same value.

A fix that removes or moves text is offered only for a kind whose measured precision reaches
rules.LINT_PRECISION_BAR: the shared kinds' figures are rules.LINT_PRECISION (measured by
tests/engine/lint/test_lint_labelled.py), an assistant's kinds carry their own (Finding.precision,
measured on that assistant's labelled set); any other finding is shown for review: read it, and
edit by hand if it is right. The GUI, the CLI and lint_fixes.fix_finding all ask Finding.action,
so a kind measured below the bar is demoted everywhere by changing its figure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .rules import LINT_PRECISION, LINT_PRECISION_BAR

KINDS = ("duplicate", "near-duplicate", "similar", "past-date", "misplaced", "too-long")
REMOVE, MOVE, REWRITE = "remove", "move", "rewrite"    # REWRITE: the entry without its stale part
FIX, REVIEW = "fix", "review"          # a finding's action: one click, or read and edit by hand
_BY_HAND = {"similar": "compare them and merge them by hand in the Files tab",
            "too-long": "shorten or split it in the Files tab"}


def action(kind: str, precision: float | None = None) -> str:
    """FIX when findings of this kind are offered a one-click fix, else REVIEW (`precision`: the
    kind's own measured figure, for a kind rules.LINT_PRECISION does not hold)."""
    p = LINT_PRECISION.get(kind, 0.0) if precision is None else precision
    return FIX if kind not in _BY_HAND and p >= LINT_PRECISION_BAR else REVIEW


@dataclass(frozen=True, slots=True)
class Place:
    file: str                 # workspace-relative
    start: int                # 0-based first line
    end: int                  # exclusive
    text: str                 # the entry as entries.py reads it
    heading: str | None
    kind: str = "item"        # entries.py's kind: item | paragraph | code | quote | html (| heading: its line)
    fact: str = ""            # what it says, the assistant's own annotations taken off ("": its text)
    # entries (or a heading) that belong to it and go when it goes: an assistant's marker comments
    # above it, the heading of a section it alone fills
    attached: tuple[Place, ...] = ()
    attached_what: str = ""   # those in words ("its OpenClaw promotion marker")
    day: date | None = None   # the day it was recorded, when the assistant's file says it

    @property
    def said(self) -> str:
        """The words the rules read: the fact, else the entry as written."""
        return self.fact or self.text

    @property
    def lines(self) -> str:
        """'lines 3–5' as a person counts them."""
        return f"line {self.start + 1}" if self.end - self.start <= 1 else f"lines {self.start + 1}–{self.end}"

    def to_json(self) -> dict:
        return {"file": self.file, "start_line": self.start + 1, "end_line": self.end, "text": self.text,
                "heading": self.heading}


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str                         # one of KINDS, or an assistant's own kind
    places: tuple[Place, ...]         # two entries: the one kept first, then the one the fix removes
    reason: str                       # in words
    fix: str | None = None            # REMOVE | MOVE | REWRITE | None (edit it by hand)
    move_to: str | None = None        # MOVE: the file it goes to
    rewrite_to: str | None = None     # REWRITE: the entry as the fix leaves it
    # an assistant's kind: its measured precision (None: rules.LINT_PRECISION's figure for the kind)
    precision: float | None = None
    label: str = ""                   # the fix in words, when the maker words it itself
    hand: str = ""                    # no fix: what to do by hand, when the maker says it itself
    # the fix as entries and what each becomes (None: removed), when it is not the target alone
    # (an assistant's directive comment rewritten for the directive under it)
    changes: tuple[tuple[Place, str | None], ...] = ()

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
        return action(self.kind, self.precision) if self.fix else REVIEW

    @property
    def edits(self) -> tuple[tuple[Place, str | None], ...]:
        """What the fix does to the file, entry by entry: the target (with what is attached to it)
        removed, or rewritten, unless the maker said otherwise."""
        if self.changes:
            return self.changes
        t = self.target
        if self.fix == REWRITE:
            return ((t, self.rewrite_to),)
        return ((t, None),) + tuple((a, None) for a in t.attached)

    @property
    def fix_label(self) -> str:
        """What the fix does, in words (for review: what it would do)."""
        if self.label:
            return self.label
        t = self.target
        also = f", with {t.attached_what}" if t.attached and self.fix == REMOVE else ""
        if self.fix == REMOVE and len(self.places) > 1:
            kept = self.places[0]
            if kept.file == t.file:             # "the one in X" would not say which
                return f"Keep {kept.lines}, remove {t.lines} of {t.file}{also}"
            return f"Remove it from {t.file}{also} (keep the one in {kept.file})"
        if self.fix == REMOVE:
            return f"Remove it from {t.file}{also}"
        if self.fix == MOVE:
            return f"Move it from {t.file} to {self.move_to}"
        if self.fix == REWRITE:
            return f"Take the past plan out of {t.file}, keep “{self.rewrite_to}”"
        return "No automatic fix: " + self._by_hand_words

    @property
    def _by_hand_words(self) -> str:
        return self.hand or _BY_HAND.get(self.kind, "edit it in the Files tab")

    def _measured(self) -> str:
        p = LINT_PRECISION.get(self.kind) if self.precision is None else self.precision
        return (f"{self.kind} findings are right {p:.0%} of the time on the labelled set" if p is not None
                else f"{self.kind} findings are not measured")

    @property
    def review_note(self) -> str | None:
        """Why a finding with a fix is for review only (None when the fix is offered)."""
        if self.fix is None or self.action == FIX:
            return None
        return f"{self._measured()}, under the {LINT_PRECISION_BAR:.0%} a one-click fix needs"

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
            return f"review: {self._by_hand_words}"
        return f"review: if it is right, {self.by_hand} ({self.review_note})"

    def to_json(self) -> dict:
        precision = LINT_PRECISION.get(self.kind) if self.precision is None else self.precision
        out = {"id": self.id, "kind": self.kind, "action": self.action, "precision": precision,
               "reason": self.reason, "fix": self.fix, "move_to": self.move_to, "rewrite_to": self.rewrite_to,
               "fix_label": self.fix_label,
               "places": [p.to_json() for p in self.places]}
        if self.fix in (REMOVE, REWRITE) and (self.changes or self.target.attached):
            # (only where the fix is more than the target: a contract home's JSON keeps its shape)
            out["edits"] = [{**p.to_json(), "to": to} for p, to in self.edits]
        return out
