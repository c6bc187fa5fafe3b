"""Typed run records (memory/dreams/<run id>.json) and run state (memory/dreams/state.json),
each with one way to and from JSON. A record read back writes back the same keys in the same
order, whatever shape an older Dreamdesk gave it; keys this code does not know are kept."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, ClassVar

from .policy import Decision, Held


def _dump(value: Any) -> Any:
    if isinstance(value, JsonShape):
        return value.to_json()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


@dataclass
class JsonShape:
    """A JSON object with named fields. `nested` says which fields hold another shape (or, as a
    1-tuple, a dict of them); `omit_none` which are left out while None."""
    keys: tuple[str, ...] = field(default=(), kw_only=True, repr=False, compare=False)
    extra: dict[str, Any] = field(default_factory=dict, kw_only=True, repr=False)
    nested: ClassVar[dict[str, Any]] = {}
    omit_none: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def from_json(cls, obj: dict):
        """From a JSON object the loader has already checked (records.py _valid): a missing
        field takes its default, an unknown one is kept as it is."""
        names = [f.name for f in fields(cls) if f.init and f.name not in ("keys", "extra")]
        kw = {n: cls._load(n, obj[n]) for n in names if n in obj}
        return cls(**kw, keys=tuple(obj), extra={k: v for k, v in obj.items() if k not in names})

    @classmethod
    def _load(cls, name: str, value: Any) -> Any:
        kind = cls.nested.get(name)
        if kind is None or not isinstance(value, dict):
            return value
        if isinstance(kind, tuple):
            return {k: kind[0].from_json(v) if isinstance(v, dict) else v for k, v in value.items()}
        return kind.from_json(value)

    def to_json(self) -> dict:
        """In field order; one read from JSON: in its order, a field it lacked only once set."""
        own = {f.name: _dump(getattr(self, f.name)) for f in fields(self) if f.name not in ("keys", "extra")
               and not (f.name in self.omit_none and getattr(self, f.name) is None)
               and not (self.keys and f.name not in self.keys and getattr(self, f.name) == _default(f))}
        own.update(self.extra)
        if not self.keys:
            return own
        return {k: own[k] for k in self.keys if k in own} | {k: v for k, v in own.items() if k not in self.keys}


def _default(f) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


@dataclass
class Batch(JsonShape):
    first: int = 0
    last: int = 0
    count: int = 0
    cursors: list[int] = field(default_factory=list)
    truncated_to: int | None = None

    omit_none: ClassVar = ("truncated_to",)


@dataclass
class CursorMove(JsonShape):
    before: int = 0
    after: int = 0
    held: bool = False
    held_runs: int | None = None       # known once the run has decided
    stuck_alarm: bool | None = None

    omit_none: ClassVar = ("held_runs", "stuck_alarm")


@dataclass
class FileSize(JsonShape):
    before: int = 0
    after: int = 0
    budget: int | None = 0


@dataclass
class ReviewInfo(JsonShape):
    chars_freed: int = 0
    archived: list[str] = field(default_factory=list)
    refused: int = 0                   # by a size budget
    refused_growth: int = 0            # by the review pass's shrink-only rule
    refused_pinned: int = 0


@dataclass
class RunRecord(JsonShape):
    id: str | None = None
    started: str | None = None
    finished: str | None = None
    trigger: str | None = None
    status: str | None = None          # running | completed | wrote-nothing | held | failed | cancelled
    outcome: str | None = None
    run_number: int | None = None
    batch: Batch | None = None
    model: str | None = None
    model_choice: dict | None = None
    prompt: dict | None = None
    snapshot_before: str | None = None
    snapshot_error: str | None = None
    snapshot_notes: list[str] = field(default_factory=list)
    passes: list[dict] = field(default_factory=list)
    sizes: dict[str, FileSize] = field(default_factory=dict)
    created: list[dict] = field(default_factory=list)
    removed: list[dict] = field(default_factory=list)
    user_md: dict | None = None        # {"before", "after"} when the run changed USER.md
    writes: list[dict] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    tokens: dict = field(default_factory=dict)
    error: str | None = None
    cursor: CursorMove | None = None
    review: ReviewInfo | None = None

    nested: ClassVar = {"batch": Batch, "cursor": CursorMove, "review": ReviewInfo, "sizes": (FileSize,)}


def _count(value, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


@dataclass
class Stuck:
    batch: tuple[int, int]
    since: str = ""
    held_runs: int = 0


@dataclass
class RunState:
    """What carries from one run to the next. Read field by field: a damaged field reads as a
    fresh one (the run records keep the history; the state only carries counters)."""
    runs: int = 0
    held: Held = field(default_factory=Held)
    refusal_streak: dict[str, int] = field(default_factory=dict)
    last_run: dict[str, str | None] | None = None
    stuck: Stuck | None = None

    @classmethod
    def from_json(cls, st) -> "RunState":
        if not isinstance(st, dict):
            return cls()
        held = st.get("held") if isinstance(st.get("held"), dict) else {}
        streaks = st.get("refusal_streak") if isinstance(st.get("refusal_streak"), dict) else {}
        last = st.get("last_run") if isinstance(st.get("last_run"), dict) else None
        return cls(runs=_count(st.get("runs")),
                   held=Held(_count(held.get("batch"), -1), _count(held.get("count"))),
                   refusal_streak={str(k): _count(v) for k, v in streaks.items()},
                   last_run={k: v for k, v in last.items() if isinstance(v, (str, type(None)))} if last else None,
                   stuck=_stuck(st.get("stuck")))

    def to_json(self) -> dict:
        out: dict[str, Any] = {"runs": self.runs,
                               "held": {"batch": self.held.batch, "count": self.held.count} if self.held.count else {},
                               "refusal_streak": dict(self.refusal_streak), "last_run": self.last_run}
        if self.stuck:
            out["stuck"] = {"batch": list(self.stuck.batch), "since": self.stuck.since,
                            "held_runs": self.stuck.held_runs}
        return out


def _stuck(stuck) -> Stuck | None:
    if not (isinstance(stuck, dict) and isinstance(stuck.get("batch"), list) and len(stuck["batch"]) == 2
            and all(isinstance(x, int) for x in stuck["batch"])):
        return None
    return Stuck((stuck["batch"][0], stuck["batch"][1]), str(stuck.get("since", "")), _count(stuck.get("held_runs")))


def state_changes(d: Decision, first: int, last: int, since: str) -> dict:
    """What a run changes in the state besides the run count, as JSON (a dry run's preview
    carries it, so applying the preview updates the hold and streaks the same way)."""
    changes: dict[str, Any] = {"held": {"batch": first, "count": d.held_count} if d.held_count else {},
                               "refusal_streak": dict(d.streaks)}
    if d.stuck:
        changes["stuck"] = {"batch": [first, last], "since": since, "held_runs": d.held_count}
    elif d.clears_stuck:
        changes["stuck"] = None
    return changes


def with_changes(state: RunState, changes: dict) -> RunState:
    """The state with a run's changes (from state_changes, or a preview's copy of them: read
    back through from_json, so a damaged one is checked like the file)."""
    merged = state.to_json()
    for key, value in changes.items():
        if key == "stuck" and value is None:
            merged.pop("stuck", None)
        elif key in ("held", "refusal_streak", "stuck") and isinstance(value, dict):
            merged[key] = value
    return RunState.from_json(merged)


def after_run(state: RunState, run_id: str, finished: str, status: str, outcome: str) -> RunState:
    return replace(state, runs=state.runs + 1,
                   last_run={"id": run_id, "finished": finished, "status": status, "outcome": outcome})
