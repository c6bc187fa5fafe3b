"""Typed run records (memory/dreams/<run id>.json) and run state (memory/dreams/state.json) as
msgspec Structs, the one typed layer the archive, the journal and schedule.json use too. Each
has one decoder (`decode_record`, `decode_state`: every check is here) and one encoder
(`record_json`, `state_json`). A record read back writes back the same keys in the same order,
whatever shape an older Dreamdesk gave it; keys this code does not know are kept."""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, ClassVar, NotRequired, TypedDict

import msgspec

from .policy import Decision, Held


class RecordError(ValueError):
    """Why a JSON value is not a usable run record, in words (the field is named)."""


class Shape(msgspec.Struct, dict=True):
    """A JSON object with named fields. Read from a file it remembers its keys' order and the
    keys it does not know (in __dict__: never part of what msgspec reads or writes), so it is
    written back as it was. `omit_none`: fields left out while None."""
    omit_none: ClassVar[tuple[str, ...]] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__.pop("json", None)        # what it was read as is no longer what it holds
        super().__setattr__(name, value)


class Batch(Shape):
    first: int = 0
    last: int = 0
    count: int = 0
    cursors: list[int] = []
    truncated_to: int | None = None

    omit_none: ClassVar = ("truncated_to",)


class CursorMove(Shape):
    before: int = 0
    after: int = 0
    held: bool = False
    held_runs: int | None = None       # known once the run has decided
    stuck_alarm: bool | None = None

    omit_none: ClassVar = ("held_runs", "stuck_alarm")


class FileSize(Shape):
    before: int
    after: int
    budget: int | None = 0


class ReviewInfo(Shape):
    chars_freed: int = 0
    archived: list[str] = []
    refused: int = 0                   # by a size budget
    refused_growth: int = 0            # by the review pass's shrink-only rule
    refused_pinned: int = 0


# A record's list entries stay the dicts they were read as (a later version's keys kept); these
# say which fields the views read from them, checked by the decoder like everything else. A
# created fact's text is null once its archive entry was deleted (scrub_text): the run stays listed.
class Created(TypedDict):
    file: str
    text: str | None
    sources: NotRequired[list[int]]
    kind: NotRequired[str | None]
    confidence: NotRequired[str | None]


class Removed(TypedDict):
    file: str
    text: NotRequired[str | None]
    archive_id: NotRequired[str | None]
    replaced_by: NotRequired[str | None]


class Refused(TypedDict):
    file: str
    size: int
    budget: NotRequired[int | None]
    kind: NotRequired[str | None]


class PassInfo(TypedDict):
    name: str
    iterations: NotRequired[int]
    ended: NotRequired[str | None]


class Write(TypedDict):
    file: NotRequired[str]


class UserMd(TypedDict):
    before: NotRequired[str]
    after: NotRequired[str]


class RunRecord(Shape):
    id: str | None = None
    started: str | None = None
    finished: str | None = None
    trigger: str | None = None
    status: str | None = None          # running | completed | wrote-nothing | held | failed | cancelled | stopped
    outcome: str | None = None
    run_number: int | None = None
    batch: Batch | None = None
    model: str | None = None
    model_choice: dict | None = None
    prompt: dict | None = None
    snapshot_before: str | None = None
    snapshot_error: str | None = None
    snapshot_notes: list[str] = []
    passes: list[PassInfo] = []
    sizes: dict[str, FileSize] = {}
    created: list[Created] = []
    removed: list[Removed] = []
    user_md: UserMd | None = None      # {"before", "after"} when the run changed USER.md
    writes: list[Write] = []
    refused: list[Refused] = []
    tokens: dict | None = {}
    error: str | None = None
    cursor: CursorMove | None = None
    review: ReviewInfo | None = None
    # set when the 30-day retention slimmed the record (records.prune)
    created_count: int | None = None
    removed_count: int | None = None
    peer_card_updated: bool | None = None
    pruned_at: str | None = None

    omit_none: ClassVar = ("created_count", "removed_count", "peer_card_updated", "pruned_at")


def decode_record(obj: Any, name: str | None = None) -> RunRecord:
    """The run record a JSON value holds, or RecordError saying why it is none. `name`: the
    file's own name, which the id must be, so nothing read from a record can steer a later
    write elsewhere (None: a record not read from a file, a dry run's has no id)."""
    if not isinstance(obj, dict):
        raise RecordError("it is not a JSON object")
    if name is not None and obj.get("id") != name:
        raise RecordError(f"its id {obj.get('id')!r} is not its file name")
    try:
        rec = msgspec.convert(obj, RunRecord)
    except msgspec.ValidationError as exc:
        why = str(exc)
        if "$.sizes[...]" in why:
            why = why.replace("$.sizes[...]", f"$.sizes[{_bad_size(obj['sizes'])!r}]")
        raise RecordError(in_words(why)) from None
    _keep_layout(rec, obj)
    rec.__dict__["json"] = obj         # its JSON while it is unchanged (a listing encodes every record)
    return rec


def _bad_size(sizes: dict) -> str:
    """The file whose entry in sizes does not fit (msgspec does not name a map's keys)."""
    for name, size in sizes.items():
        try:
            msgspec.convert(size, FileSize)
        except msgspec.ValidationError:
            return name
    return "..."


def _keep_layout(shape: Shape, obj: dict) -> None:
    """After msgspec checked `obj`: `shape` takes its key order, its unknown keys, and its own
    values where msgspec made copies of them (the list entries, with keys no field names)."""
    names = shape.__struct_fields__
    shape.__dict__.update(keys=tuple(obj), extra={k: v for k, v in obj.items() if k not in names})
    for name in names:
        value = getattr(shape, name)
        if isinstance(value, Shape):
            _keep_layout(value, obj[name])
        elif isinstance(value, dict) and value and isinstance(next(iter(value.values())), Shape):
            for key, inner in value.items():
                _keep_layout(inner, obj[name][key])
        elif name in obj and isinstance(value, (list, dict)):
            setattr(shape, name, obj[name])


_TYPE_WORDS = {"str": "text", "int": "a whole number", "null": "null", "bool": "true or false",
               "float": "a decimal number", "array": "a list", "object": "an object"}


def in_words(message: str) -> str:
    """msgspec's reason ("Expected `int`, got `str` - at `$.batch.first`") in words, the field
    first: "batch.first is not a whole number"."""
    got = re.match(r"Expected `(.+?)`, got `.+?`(?: - at `\$\.?(.*)`)?$", message)
    if got:
        return f"{got[2] or 'the record'} is not {' or '.join(_TYPE_WORDS.get(t, t) for t in got[1].split(' | '))}"
    missing = re.match(r"Object missing required field `(.+?)`(?: - at `\$\.?(.*)`)?$", message)
    if missing:
        return f"{missing[2] or 'the record'} lacks {missing[1]}"
    return message


def record_json(value: Any) -> Any:
    """The JSON of a record or any Shape in it: its fields in order, a field one read from a file
    lacked left out while it holds its default, unknown keys kept, the file's key order kept.
    Shared with the record (a record read and not changed since gives the JSON it was read from;
    list entries, tokens, ... are its own): copy before changing it. A record read from a file
    is changed by setting its own fields (list_runs' _interrupted), never a Shape inside it."""
    if isinstance(value, Shape):
        return _shape_json(value)
    if isinstance(value, dict) and value and isinstance(next(iter(value.values())), Shape):
        return {k: _shape_json(v) for k, v in value.items()}      # (sizes)
    return value


def _shape_json(shape: Shape) -> dict:
    if "json" in shape.__dict__:
        return shape.__dict__["json"]
    keys = shape.__dict__.get("keys")
    if not keys:                       # made by this code: every field, in order
        return {name: record_json(value) for name in type(shape).__struct_fields__
                if (value := getattr(shape, name)) is not None or name not in shape.omit_none}
    extra, out = shape.__dict__["extra"], {}
    for key in keys:                   # read from a file: in its order
        if key in extra:
            out[key] = extra[key]
        elif (value := getattr(shape, key)) is not None or key not in shape.omit_none:
            out[key] = record_json(value)
    for name, default in _defaults(type(shape)):      # a field it lacked, set since
        if name not in out and name not in keys and (value := getattr(shape, name)) != default \
                and not (value is None and name in shape.omit_none):
            out[name] = record_json(value)
    return out


@functools.cache
def _defaults(cls: type[Shape]) -> tuple[tuple[str, Any], ...]:
    """Each field with its default, in order (msgspec works them out from the annotations: slow)."""
    return tuple((f.name, f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default)
                 for f in msgspec.structs.fields(cls))


def copy_record(rec: RunRecord) -> RunRecord:
    """A copy of the record's top level, for a caller to change (what is inside is shared)."""
    out = msgspec.structs.replace(rec)
    out.__dict__.update(rec.__dict__)
    return out


# -- the run state ------------------------------------------------------------------------------
Count = Annotated[int, msgspec.Meta(ge=0)]


class Stuck(msgspec.Struct):
    batch: tuple[int, int]
    since: str = ""
    held_runs: Count = 0


class RunState(msgspec.Struct):
    """What carries from one run to the next."""
    runs: Count = 0
    held: Held = msgspec.field(default_factory=Held)
    refusal_streak: dict[str, Count] = {}
    last_run: dict[str, str | None] | None = None
    stuck: Stuck | None = None


_DROP = object()
# fields read value by value: a damaged value reads as this (or is dropped), the others are kept
_PER_VALUE = {"refusal_streak": (Count, 0), "last_run": (str | None, _DROP)}


def decode_state(obj: Any) -> RunState:
    """The state a JSON value holds, read field by field: a damaged field reads as a fresh one,
    the others are kept (the run records keep the history; the state only carries counters)."""
    if not isinstance(obj, dict):
        return RunState()
    kept = {}
    for f in msgspec.structs.fields(RunState):
        if f.encode_name not in obj:
            continue
        value = obj[f.encode_name]
        try:
            kept[f.name] = msgspec.convert(value, f.type)
        except msgspec.ValidationError:
            if f.name in _PER_VALUE and isinstance(value, dict):
                kept[f.name] = _good_values(value, *_PER_VALUE[f.name])
    return RunState(**kept)


def _good_values(values: dict, kind: Any, fallback: Any) -> dict:
    out = {}
    for key, value in values.items():
        try:
            out[key] = msgspec.convert(value, kind)
        except msgspec.ValidationError:
            if fallback is not _DROP:
                out[key] = fallback
    return out


def state_json(state: RunState) -> dict:
    """The state as state.json holds it: no hold reads as {}, no stuck alarm as no key."""
    out = msgspec.to_builtins(state)
    if not state.held.count:
        out["held"] = {}
    if state.stuck is None:
        del out["stuck"]
    else:
        out["stuck"]["batch"] = list(state.stuck.batch)
    return out


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
    back through decode_state, so a damaged one is checked like the file)."""
    merged = state_json(state)
    for key, value in changes.items():
        if key == "stuck" and value is None:
            merged.pop("stuck", None)
        elif key in ("held", "refusal_streak", "stuck") and isinstance(value, dict):
            merged[key] = value
    return decode_state(merged)


def after_run(state: RunState, run_id: str, finished: str, status: str, outcome: str) -> RunState:
    return msgspec.structs.replace(state, runs=state.runs + 1,
                                   last_run={"id": run_id, "finished": finished, "status": status, "outcome": outcome})
