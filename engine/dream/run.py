"""One Dream run (spec section 5): batch, snapshot, passes, cursor rules, commit, record, note."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from ..cursors import read_cursor, write_cursor
from ..diffs import diff_texts
from .. import redact
from ..files import atomic_write_text, read_bytes
from ..llm import Cancelled, LLMClient, LLMError, ModelChoice, Usage
from ..llm.resolve import PROMPT_REL, assistant_dream_prompt
from ..problems import ConflictError, WorkspaceError
from ..restore import job_lock
from ..rules import BUDGET_KEYS, NEAR_FRACTION, REFUSAL_WARN_RUNS
from ..snapshots import SnapshotError, SnapshotStore
from ..workspace import Workspace
from . import records
from .prompts import BATCH_SIZE, ENTRY_CHARS, ITERATION_LIMITS, PASSES, build_messages
from .tools import CORE, DiskBackend, OverlayBackend, Sandbox, tool_specs

RETENTION_TAGS = ("[permanent]", "[durable]", "[correction]")
HOLD_LIMIT = 4             # after this many held runs on one batch, advance anyway
STUCK_AT = 3               # the stuck alarm fires on this held run
MAX_CALLS_PER_TURN = 16
MAX_STORED_ARGS = 20_000   # tool-call arguments kept in the conversation are cut beyond this

NOTHING_TO_PROCESS = (
    "Nothing to process: there is no new compacted history since the last Dream run. Conversations reach "
    "Dream only after the Consolidator has compacted them: enable idle compaction (idleCompactAfterMinutes) "
    "so finished chats become Dream input on their own, or wait until the current chat is compacted.")

PASS_TOOLS = {
    "review": ["read_file", "edit_file", "write_file", "remove_fact"],
    "consolidation": ["read_file", "edit_file", "write_file", "add_fact", "remove_fact"],
    "deduction": ["read_file", "edit_file", "add_fact", "remove_fact"],
    # no edit_file: add_fact and remove_fact (replacing a pattern) are where a pattern's ≥2
    # sources are checked and its confidence given
    "induction": ["read_file", "add_fact", "remove_fact"],
}


@dataclass
class DreamOptions:
    trigger: str = "manual"            # manual | interval | activity
    dry_run: bool = False
    force_review: bool = False
    passes: dict[str, bool] | None = None   # overrides of the config's pass toggles


@dataclass
class PassResult:
    name: str
    iterations: int = 0
    ended: str = "done"                # done | limit | repeated-failure | error | cancelled | skipped
    error: str | None = None
    usage: Usage = field(default_factory=Usage)

    def to_json(self) -> dict:
        return {"name": self.name, "iterations": self.iterations, "ended": self.ended, "error": self.error,
                "tokens": self.usage.to_json()}


@dataclass
class DreamResult:
    run_id: str | None
    status: str                        # completed | wrote-nothing | failed | cancelled | held | nothing
    outcome: str
    cursor_before: int
    cursor_after: int
    record: dict | None = None
    preview: dict | None = None        # dry run: {file: {"base_hash", "old", "new"}}
    diffs: list = field(default_factory=list)
    stuck_alarm: bool = False
    tokens: Usage = field(default_factory=Usage)

    def to_json(self) -> dict:
        return {"run_id": self.run_id, "status": self.status, "outcome": self.outcome,
                "cursor": {"before": self.cursor_before, "after": self.cursor_after},
                "stuck_alarm": self.stuck_alarm, "tokens": self.tokens.to_json(),
                "record": self.record, "dry_run": self.preview is not None,
                "diffs": [d.to_json() for d in self.diffs],
                "unified": "".join(d.unified() for d in self.diffs)}


# -- state across runs ----------------------------------------------------------------------
def _budget_settings(files: list[str]) -> str:
    """Where those files' budgets are set, in config.json's words (the GUI names its own place)."""
    return ", ".join(f"dream.{BUDGET_KEYS[f]}" if f in BUDGET_KEYS else f for f in files)


def state_path(ws: Workspace):
    return records.dreams_dir(ws) / "state.json"


def _int(value, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def load_state(ws: Workspace) -> dict:
    """memory/dreams/state.json, type-checked: a damaged file reads as a fresh state (the run
    records keep the history; the state only carries counters)."""
    try:
        st = json.loads(read_bytes(state_path(ws)).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(st, dict):
        return {}
    held = st.get("held") if isinstance(st.get("held"), dict) else {}
    stuck = st.get("stuck")
    if not (isinstance(stuck, dict) and isinstance(stuck.get("batch"), list) and len(stuck["batch"]) == 2
            and all(isinstance(x, int) for x in stuck["batch"])):
        stuck = None
    streaks = st.get("refusal_streak") if isinstance(st.get("refusal_streak"), dict) else {}
    last = st.get("last_run") if isinstance(st.get("last_run"), dict) else None
    out = {"runs": _int(st.get("runs")),
           "held": {"batch": _int(held.get("batch"), -1), "count": _int(held.get("count"))} if held else {},
           "refusal_streak": {str(k): _int(v) for k, v in streaks.items()},
           "last_run": {k: v for k, v in last.items() if isinstance(v, (str, type(None)))} if last else None}
    if stuck:
        out["stuck"] = {"batch": stuck["batch"], "since": str(stuck.get("since", "")),
                        "held_runs": _int(stuck.get("held_runs"))}
    return out


def save_state(ws: Workspace, st: dict) -> None:
    atomic_write_text(state_path(ws), redact.scrub(json.dumps(st, indent=2, ensure_ascii=False)) + "\n")


def review_due(run_number: int, cadence: int) -> bool:
    """Runs number cadence, 2×cadence, … (from 1); never the first run when cadence > 1."""
    if cadence <= 1:
        return True
    return run_number % cadence == 0


# -- the pass loop --------------------------------------------------------------------------
def run_pass(client: LLMClient, name: str, messages: list[dict], sandbox: Sandbox, cancel: threading.Event,
             progress: Callable[[dict], None], total: Usage) -> PassResult:
    result = PassResult(name)
    limit = ITERATION_LIMITS[name]
    tools = tool_specs(PASS_TOOLS[name])
    if hasattr(client, "begin_pass"):
        client.begin_pass(name)
    for i in range(1, limit + 1):
        if cancel.is_set():
            result.ended = "cancelled"
            return result
        result.iterations = i
        progress({"pass": name, "iteration": i, "limit": limit, "tokens": total.total})
        try:
            comp = client.complete(messages, tools, cancel)
        except Cancelled:
            result.ended = "cancelled"
            return result
        except LLMError as exc:
            result.ended, result.error = "error", str(exc)
            return result
        result.usage.add(comp.usage)
        total.add(comp.usage)
        msg = comp.as_message()
        for tc in msg.get("tool_calls", []):
            if len(tc["function"]["arguments"]) > MAX_STORED_ARGS:
                tc["function"]["arguments"] = json.dumps({"_note": "arguments too long; not kept"})
        messages.append(msg)
        if not comp.tool_calls:
            progress({"pass": name, "iteration": i, "limit": limit, "tokens": total.total,
                      "message": (comp.content or "").strip()[:300]})
            return result
        for n, tc in enumerate(comp.tool_calls):
            if n >= MAX_CALLS_PER_TURN:
                text = f"Error: more than {MAX_CALLS_PER_TURN} tool calls in one turn; this one was not run"
            else:
                text, ok = sandbox.call(tc.name, tc.arguments)
                progress({"pass": name, "iteration": i, "limit": limit, "tokens": total.total,
                          "tool": tc.name, "ok": ok, "message": text[:200]})
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": text})
        if sandbox.repeated_failure:
            result.ended, result.error = "repeated-failure", sandbox.repeated_failure
            return result
    result.ended = "limit"
    result.error = f"the {name} pass hit its {limit}-iteration limit"
    return result


# -- one run --------------------------------------------------------------------------------
def run_dream(ws: Workspace, client: LLMClient, options: DreamOptions | None = None,
              cancel: threading.Event | None = None, progress: Callable[[dict], None] | None = None,
              now: Callable[[], datetime] | None = None, model_label: str | None = None,
              choice: ModelChoice | None = None) -> DreamResult:
    """`choice` (how the model was chosen, never a key) goes into the run record. The client is
    closed when the run ends (using it again opens a new connection)."""
    options = options or DreamOptions()
    cancel = cancel or threading.Event()
    progress = progress or (lambda e: None)
    now = now or (lambda: datetime.now().astimezone())
    try:
        if options.dry_run:
            return _run(ws, client, options, cancel, progress, now, model_label, choice)
        with job_lock(ws):
            return _run(ws, client, options, cancel, progress, now, model_label, choice)
    finally:
        client.close()          # the run's connection and its thread end with the run


def _sizes(sandbox, rels: list[str]) -> dict[str, int]:
    return {rel: len(sandbox.prompt_view(rel) or "") for rel in rels}


def _run(ws: Workspace, client: LLMClient, options: DreamOptions, cancel: threading.Event,
         progress: Callable[[dict], None], now: Callable[[], datetime], model_label: str | None,
         choice: ModelChoice | None = None) -> DreamResult:
    t0 = time.monotonic()
    cfg = ws.config()
    dcfg = cfg.dream
    hist = ws.history()
    dream_cursor, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
    pending = hist.pending(dream_cursor)
    batch = pending[:BATCH_SIZE]
    if not batch:
        return DreamResult(None, "nothing", NOTHING_TO_PROCESS, dream_cursor, dream_cursor)
    cursors = [e.cursor for e in batch]
    started = now()
    dry = options.dry_run
    run_id = None if dry else records.new_run_id(ws, started)
    state = load_state(ws)      # a dry run reads it too: the same run number, review and hold
    run_number = _int(state.get("runs")) + 1
    toggles = {"review": True, "consolidation": True, "deduction": True, "induction": True}
    toggles.update({k: bool(dcfg.get(f"passes.{k}", True)) for k in toggles})
    toggles.update(options.passes or {})
    cadence = int(dcfg["reviewEveryRuns"])
    do_review = options.force_review or (toggles["review"] and review_due(run_number, cadence))

    store = SnapshotStore(ws)
    snapshot_before, snapshot_error = None, None
    if not dry:
        try:
            snapshot_before = store.snapshot(f"snapshot: before dream {run_id}") or store.head()
        except SnapshotError as exc:
            snapshot_error = str(exc)   # best effort: Dream still runs

    backend = OverlayBackend(ws) if dry else DiskBackend(ws, run_id)
    budgets = {rel: cfg.budget_for(rel) for rel in CORE}
    own_prompt = assistant_dream_prompt(ws.root)     # the assistant's prompts/dream.md, as it reads it
    sandbox = Sandbox(ws, budgets, backend, cursors)
    tracked = [m.path for m in ws.memory_files()]
    sizes_before = _sizes(sandbox, tracked)
    user_before = sandbox.prompt_view("USER.md")
    total = Usage()
    passes: list[PassResult] = []
    record: dict = {
        "id": run_id, "started": started.isoformat(timespec="seconds"), "finished": None,
        "trigger": options.trigger, "status": "running", "outcome": None, "run_number": run_number,
        "batch": {"first": cursors[0], "last": cursors[-1], "count": len(cursors), "cursors": cursors,
                  "truncated_to": ENTRY_CHARS},
        "model": model_label or getattr(client, "model", None),
        "model_choice": choice.to_json() if choice is not None else None,
        "prompt": {"consolidation": PROMPT_REL if own_prompt else "Dreamdesk's",
                   "chars": len(own_prompt or "")},
        "snapshot_before": snapshot_before,
        "snapshot_error": snapshot_error, "snapshot_notes": list(store.notes) if not dry else [],
        "passes": [], "sizes": {}, "created": [], "removed": [],
        "user_md": None, "writes": [], "refused": [], "tokens": {}, "error": None,
        "cursor": {"before": dream_cursor, "after": dream_cursor, "held": False}, "review": None,
    }

    def save_progress() -> None:
        record.update(passes=[p.to_json() for p in passes], created=[f.to_json() for f in sandbox.created],
                      removed=[f.to_json() for f in sandbox.removed], writes=[w.to_json() for w in sandbox.writes],
                      refused=[r.to_json() for r in sandbox.refused], tokens=total.to_json())
        if not dry:
            records.save_record(ws, record)

    save_progress()
    def save_after_write() -> None:   # a run that fails part way still records what it committed
        try:
            save_progress()
        except OSError:
            pass                       # the write landed; the record is saved again at the pass's end
    sandbox.on_write = save_after_write
    growth_base = sizes_before         # growth is measured after the review pass (which shrinks)
    order = (["review"] if do_review else []) + [p for p in ("consolidation", "deduction", "induction") if toggles[p]]
    review_info = None
    failure: PassResult | None = None
    for name in order:
        kind, _ = PASSES[name]
        before_pass = _sizes(sandbox, list(CORE)) if name == "review" else None
        archived_before = len(sandbox.archived)
        refused_before = len(sandbox.refused)
        sandbox.begin_pass(name, kind, shrink_only=(name == "review"), tools=PASS_TOOLS[name])
        files = {rel: sandbox.prompt_view(rel) for rel in CORE}
        skills = [m.path for m in ws.memory_files() if m.kind == "skill"]
        msgs = build_messages(name, files, budgets, [] if name == "review" else batch, skills,
                              own_prompt=own_prompt)
        try:
            res = run_pass(client, name, msgs, sandbox, cancel, progress, total)
        except ConflictError as exc:
            res = PassResult(name, ended="error", error=f"{exc} (someone else wrote it during the run)")
        except OSError as exc:          # a read-only memory/, a full disk: said in words
            from ..oserrors import describe
            res = PassResult(name, ended="error", error=describe(exc))
        except Exception as exc:  # noqa: BLE001 - the run must end recorded, whatever broke
            res = PassResult(name, ended="error", error=f"internal error in the {name} pass: "
                                                        f"{type(exc).__name__}: {str(exc)[:200]}")
        passes.append(res)
        if name == "review":
            after_pass = _sizes(sandbox, list(before_pass))
            freed = sum(before_pass.values()) - sum(after_pass.values())
            review_refused = sandbox.refused[refused_before:]
            review_info = {"chars_freed": freed, "archived": [r.id for r in sandbox.archived[archived_before:]],
                           "refused": sum(1 for r in review_refused if r.by_size),
                           "refused_growth": sum(1 for r in review_refused if r.kind == "shrink-only"),
                           "refused_pinned": sum(1 for r in review_refused if r.kind == "pin")}
            record["review"] = review_info
            growth_base = _sizes(sandbox, sorted(set(tracked) | {w.file for w in sandbox.writes}))
        save_progress()
        if res.ended != "done":
            failure = res
            break

    # files the run wrote count even when they exist only in a dry run's overlay (a new skill)
    sizes_after = _sizes(sandbox, sorted(set(tracked) | {m.path for m in ws.memory_files()}
                                         | {w.file for w in sandbox.writes}))
    user_after = sandbox.prompt_view("USER.md")
    wrote = bool(sandbox.writes)
    grew = [rel for rel, size in sizes_after.items() if size > growth_base.get(rel, sizes_before.get(rel, 0))]
    blocked = sandbox.outstanding_refusals()
    near = [rel for rel in CORE if budgets.get(rel) and sizes_before.get(rel, 0) >= NEAR_FRACTION * budgets[rel]]
    retention = any(tag in e.content for e in batch for tag in RETENTION_TAGS)

    held_state = state.get("held") or {}
    # a batch is known by where it starts: new history arriving between held runs extends it
    held_count = _int(held_state.get("count")) if held_state.get("batch") == cursors[0] else 0
    stuck = False
    new_cursor = dream_cursor
    hold_note = ""
    if failure is not None:
        status = "cancelled" if failure.ended == "cancelled" else "failed"
    elif (near and retention and not grew) or blocked:
        # the near-budget hold, or a blocked run: a size refusal is still outstanding (the write
        # never landed and nothing took its place), so those entries must come back
        if held_count >= HOLD_LIMIT:
            new_cursor, status = cursors[-1], ("completed" if wrote else "wrote-nothing")
            stuck = True
            hold_note = (f" Gave up on entries {cursors[0]}–{cursors[-1]} after {held_count} held runs and moved on; "
                         "the stuck alarm is raised.")
            held_count = 0
        else:
            held_count += 1
            status = "held"
            stuck = held_count >= STUCK_AT
    else:
        new_cursor, status = cursors[-1], ("completed" if wrote else "wrote-nothing")
        held_count = 0

    duration = time.monotonic() - t0
    said = _outcome(status, duration, sandbox, failure, near, held_count, cursors, dream_cursor, review_info,
                    blocked, dry=dry)
    outcome = _dry_wording(said) if dry else said
    if not dry and snapshot_error:
        outcome += (f" No snapshot was taken before the run ({snapshot_error}); everything it removed from "
                    "USER.md and MEMORY.md is still in memory/archive/.")
    elif not dry and store.notes:
        outcome += " Snapshots: " + "; ".join(store.notes) + "."
    extra = ""                           # the same words for a dry run and a real one
    if sandbox.io_errors:
        extra += " " + " ".join(sandbox.io_errors)
    extra += hold_note
    if stuck and status == "held":
        extra += (f" Stuck alarm: entries {cursors[0]}–{cursors[-1]} have been held {held_count} runs in a row; "
                  "the review pass or a bigger budget would make room.")
    streaks = state.get("refusal_streak") or {}
    refused_files = {r.file for r in sandbox.refused if r.by_size}
    streaks = {f: (_int(streaks.get(f)) + 1 if f in refused_files else 0) for f in set(streaks) | refused_files}
    warn = sorted(f for f, n in streaks.items() if n >= REFUSAL_WARN_RUNS)
    if warn:
        extra += (f" Writes to {', '.join(warn)} have been refused by a size budget on {REFUSAL_WARN_RUNS} or more "
                  f"runs in a row: check its size against its budget ({_budget_settings(warn)} in config.json).")
    outcome += extra

    # what this run changes in memory/dreams/state.json besides the run count (a dry run's
    # preview carries it, so applying the preview updates the hold and streaks the same way)
    state_changes: dict = {"held": {"batch": cursors[0], "count": held_count} if held_count else {},
                           "refusal_streak": streaks}
    if stuck:
        state_changes["stuck"] = {"batch": [cursors[0], cursors[-1]], "since": now().isoformat(timespec="seconds"),
                                  "held_runs": held_count}
    elif status in ("completed", "wrote-nothing"):
        state_changes["stuck"] = None

    result = DreamResult(run_id, status, outcome, dream_cursor, new_cursor, stuck_alarm=stuck, tokens=total)
    if dry:
        assert isinstance(backend, OverlayBackend)
        changed = backend.changed()
        result.preview = {"files": {rel: {"base_hash": backend.base_hash[rel], "old": old, "new": new}
                                    for rel, (old, new) in changed.items()},
                          "cursor_before": dream_cursor, "cursor_after": new_cursor, "status": status,
                          "state_changes": json.loads(json.dumps(state_changes)),
                          "runs_before": _int(state.get("runs")),
                          # what the run will have said once applied: its explanation, as done
                          "applied_outcome": _outcome(status, duration, sandbox, failure, near, held_count, cursors,
                                                      dream_cursor, review_info, blocked) + extra}
        result.diffs = [diff_texts(old, new, rel) for rel, (old, new) in changed.items()]
        record.update(status=status, outcome=outcome, finished=now().isoformat(timespec="seconds"),
                      sizes={rel: {"before": sizes_before.get(rel, 0), "after": sizes_after.get(rel, 0),
                                   "budget": budgets.get(rel, 0)} for rel in sizes_after},
                      user_md={"before": user_before, "after": user_after} if user_before != user_after else None,
                      cursor={"before": dream_cursor, "after": new_cursor, "held": status == "held",
                              "held_runs": held_count, "stuck_alarm": stuck},
                      review=review_info)
        save_progress()
        result.record = record
        result.preview["record"] = json.loads(json.dumps(record))
        return result

    record.update(status=status, outcome=outcome, finished=now().isoformat(timespec="seconds"),
                  error=failure.error if failure else None,
                  sizes={rel: {"before": sizes_before.get(rel, 0), "after": sizes_after.get(rel, 0),
                               "budget": budgets.get(rel, 0)} for rel in sizes_after},
                  user_md={"before": user_before, "after": user_after} if user_before != user_after else None,
                  cursor={"before": dream_cursor, "after": new_cursor, "held": status == "held",
                          "held_runs": held_count, "stuck_alarm": stuck})
    save_progress()
    if new_cursor != dream_cursor:
        # only once the record says what landed: a kill before this leaves the cursor where it
        # was (the entries are dreamed again), never moved past a run nobody can see
        write_cursor(ws.dream_cursor_path, new_cursor)
    _apply_state_changes(state, state_changes)
    state.update(runs=run_number, last_run={"id": run_id, "finished": record["finished"], "status": status,
                                            "outcome": outcome})
    save_state(ws, state)
    records.prune(ws, now())
    if wrote or new_cursor != dream_cursor:
        # The record is final before the commit, so the commit holds it; the run id in the
        # message links the two.
        title = "dream: manual run" if options.trigger == "manual" else "dream: periodic memory consolidation"
        try:
            store.snapshot(f"{title}\n\nrun {run_id}", with_summary=True)
        except SnapshotError as exc:
            record["snapshot_error"] = str(exc)
            records.save_record(ws, record)
    result.record = record
    return result


def _apply_state_changes(state: dict, changes: dict) -> None:
    for key, value in changes.items():
        if key == "stuck" and value is None:
            state.pop("stuck", None)
        elif key in ("held", "refusal_streak", "stuck") and isinstance(value, dict):
            state[key] = value


def _dry_wording(outcome: str) -> str:
    """The outcome of a dry run says what would happen: nothing of it was written."""
    for done, would in (("Dream completed in ", "Dry run (nothing written) in "),
                        (" write(s) to ", " write(s) would go to "), ("but wrote nothing", "and would write nothing"),
                        ("but held the cursor", "and would hold the cursor"),
                        ("Dream was cancelled; the cursor stays", "Dry run cancelled; the cursor stays"),
                        ("Dream failed:", "Dry run failed:"), ("and never landed", "and would not land")):
        outcome = outcome.replace(done, would)
    return outcome


def _outcome(status: str, duration: float, sandbox: Sandbox, failure: PassResult | None, near: list[str],
             held_count: int, cursors: list[int], dream_cursor: int, review: dict | None,
             blocked: list[str] = (), dry: bool = False) -> str:
    secs = f"{duration:.0f}s" if duration >= 1 else f"{duration:.1f}s"
    files = sorted({w.file for w in sandbox.writes})
    if status == "completed":
        text = f"Dream completed in {secs}: {len(sandbox.writes)} write(s) to {', '.join(files)}."
    elif status == "wrote-nothing":
        text = f"Dream completed in {secs} but wrote nothing."
    elif status == "held" and blocked:
        text = (f"Dream completed in {secs} but held the cursor at {dream_cursor}: a write to {', '.join(blocked)} "
                f"was refused by a size budget and nothing took its place. Entries {cursors[0]}–{cursors[-1]} "
                f"come back next run (held {held_count} of {HOLD_LIMIT}).")
    elif status == "held":
        text = (f"Dream completed in {secs} but held the cursor at {dream_cursor}: {', '.join(near)} "
                f"{'was' if len(near) == 1 else 'were'} near the budget, the batch carried facts tagged for retention, "
                f"and no memory file grew. Entries {cursors[0]}–{cursors[-1]} come back next run "
                f"(held {held_count} of {HOLD_LIMIT}).")
    elif status == "cancelled":
        text = f"Dream was cancelled; the cursor stays at {dream_cursor} and those entries are retried next run."
    else:
        why = failure.error if failure and failure.error else "unknown error"
        text = f"Dream failed: {why}. The cursor stays at {dream_cursor}; those entries are retried next run."
    if review is not None:
        ids = [i for i in review["archived"] if not dry]    # a dry run's ids are placeholders
        moved = len(review["archived"])
        text += (f" Review pass: freed {review['chars_freed']:,} characters, "
                 f"{'would move' if dry else 'moved'} {moved} fact{'s' if moved != 1 else ''} to memory/archive/"
                 + (f" ({', '.join(ids)})" if ids else "")
                 + f", {review['refused']} of its writes refused by a size budget"
                 + (f" ({review['refused_growth']} more refused because they would have grown a file)"
                    if review.get("refused_growth") else "")
                 + (f" ({review['refused_pinned']} more refused because they would have removed or changed a "
                    "pinned entry)" if review.get("refused_pinned") else "") + ".")
    other_refusals = [r for r in sandbox.refused if r.pass_name != "review" and r.by_size]
    if other_refusals:
        text += (f" {'Other passes: ' if review is not None else ''}{len(other_refusals)} write(s) refused by a "
                 f"size budget and never landed ({', '.join(sorted({r.file for r in other_refusals}))}).")
    pinned = [r for r in sandbox.refused if r.pass_name != "review" and r.kind == "pin"]
    if pinned:
        text += (f" {len(pinned)} write(s) refused because they would have removed or changed an entry the user "
                 f"pinned ({', '.join(sorted({r.file for r in pinned}))}); the pinned entries were kept.")
    return text


def apply_preview(ws: Workspace, preview: dict, now: Callable[[], datetime] | None = None) -> list[str]:
    """Write exactly what a dry run previewed, as a recorded manual run, or refuse (nothing
    written) if the preview did not complete or any of its files changed since."""
    from ..archive import write_memory
    from ..files import current_hash, resolve_inside
    if preview.get("status") not in ("completed", "wrote-nothing", "held"):
        raise WorkspaceError(f"this dry run did not complete ({preview.get('status')}); there is nothing safe to apply")
    now = now or (lambda: datetime.now().astimezone())
    files = preview.get("files", {})
    with job_lock(ws):
        for rel, f in files.items():
            if current_hash(resolve_inside(ws.root, rel)) != f["base_hash"]:
                raise ConflictError(rel, f["base_hash"], current_hash(resolve_inside(ws.root, rel)))
        cur, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
        if cur != preview.get("cursor_before", cur):
            raise WorkspaceError(".dream_cursor moved since the preview was made; run the dry run again")
        if "runs_before" in preview and _int(load_state(ws).get("runs")) != preview["runs_before"]:
            raise WorkspaceError("a Dream run happened since the preview was made; run the dry run again")
        started = now()
        run_id = records.new_run_id(ws, started)
        store = SnapshotStore(ws)
        snapshot_before = None
        try:
            snapshot_before = store.snapshot(f"snapshot: before dream {run_id}") or store.head()
        except SnapshotError:
            pass
        written, archived = [], []
        # each removal keeps what the run said of it: the review pass's reason, Dream's replacement
        removed = [x for x in (preview.get("record") or {}).get("removed", []) if isinstance(x, dict)]
        for rel, f in files.items():
            mine = [x for x in removed if x.get("file") == rel and isinstance(x.get("text"), str)]
            reasons = {x["text"]: "review" for x in mine if x.get("pass") == "review"}
            replacements = {x["text"]: x["replaced_by"] for x in mine if isinstance(x.get("replaced_by"), str)}
            _, recs = write_memory(ws, rel, f["new"], f["base_hash"], "dream", run_id, replacements, reasons)
            archived.extend(recs)
            written.append(rel)
        after = preview.get("cursor_after", cur)
        # the record is the dry run's, made real: its id, its archive ids, applied status
        record = json.loads(json.dumps(preview.get("record") or {}))
        by_text = {(a.file, a.text): a.id for a in archived}
        for fact in record.get("removed", []):
            fact["archive_id"] = by_text.get((fact.get("file"), fact.get("text")))
        if isinstance(record.get("review"), dict):
            record["review"]["archived"] = [f["archive_id"] for f in record.get("removed", [])
                                            if f.get("pass") == "review" and f.get("archive_id")]
        for w in record.get("writes", []):
            w["archived"] = []
        state = load_state(ws)
        # the dry run's own explanation (a held cursor, a refused write), as it happened
        outcome = (f"Applied a previewed dry run: {len(written)} file(s) written ({', '.join(written)}). "
                   + (preview.get("applied_outcome") or "")).strip()
        record.update(id=run_id, started=started.isoformat(timespec="seconds"),
                      finished=now().isoformat(timespec="seconds"), trigger="manual",
                      status=record.get("status") or "completed", outcome=outcome,
                      run_number=_int(state.get("runs")) + 1, snapshot_before=snapshot_before)
        for key in ("passes", "created", "removed", "writes", "refused"):
            record.setdefault(key, [])
        records.save_record(ws, record)
        if after != cur:
            write_cursor(ws.dream_cursor_path, after)       # after the record, as in a run
        if isinstance(preview.get("state_changes"), dict):
            _apply_state_changes(state, preview["state_changes"])
        state.update(runs=_int(state.get("runs")) + 1,
                     last_run={"id": run_id, "finished": record["finished"], "status": record["status"],
                               "outcome": outcome})
        save_state(ws, state)
        try:
            store.snapshot(f"dream: manual run\n\nrun {run_id}, applied as previewed by a dry run",
                           with_summary=True)
        except SnapshotError:
            pass
        return written
