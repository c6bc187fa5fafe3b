"""One Dream run (spec section 5): batch, snapshot, passes, cursor rules, commit, record, note."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from . import prompt_edits, write_scope
from ..home import token_ceiling
from ..home.cursors import read_cursor, write_cursor
from ..text.diffs import diff_texts
from ..llm import Cancelled, LLMClient, LLMError, ModelChoice, Usage
from ..llm.resolve import PROMPT_REL, assistant_dream_prompt
from ..core.problems import ConflictError, WorkspaceError
from ..recovery.job_lock import job_lock
from ..versions.snapshots import NoGit, SnapshotError, SnapshotStore
from ..home.workspace import Workspace
from . import records
from .outcome import RunFacts, render_notes, render_outcome, snapshot_note
from .policy import Decision, Sizes, decide
from .run_state import load_state, read_state, save_state, state_path  # noqa: F401  (their home before)
from .runtypes import Batch, CursorMove, FileSize, ReviewInfo, RunRecord, RunState
from .runtypes import after_run, record_json, state_changes, with_changes
from .prompts import BATCH_SIZE, ENTRY_CHARS, ITERATION_LIMITS, PASSES, build_messages
from .tools import CORE, DiskBackend, OverlayBackend, Sandbox, tool_specs

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
    max_tokens: int | None = None      # this run's token ceiling (None: the workspace's, if set; 0: none)


@dataclass
class PassResult:
    name: str
    iterations: int = 0
    ended: str = "done"                # done | limit | repeated-failure | error | cancelled | ceiling | skipped
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
def review_due(run_number: int, cadence: int) -> bool:
    """Runs number cadence, 2×cadence, … (from 1); never the first run when cadence > 1."""
    if cadence <= 1:
        return True
    return run_number % cadence == 0


# -- the pass loop --------------------------------------------------------------------------
def run_pass(client: LLMClient, name: str, messages: list[dict], sandbox: Sandbox, cancel: threading.Event,
             progress: Callable[[dict], None], total: Usage, ceiling: int | None = None) -> PassResult:
    """`total`: the run's tokens so far; `ceiling`: past it the pass stops before running the
    last reply's tool calls (what landed before stays)."""
    result = PassResult(name)
    limit = ITERATION_LIMITS[name]
    tools = tool_specs(PASS_TOOLS[name])
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
        if ceiling and total.total >= ceiling:
            result.ended = "ceiling"
            result.error = (f"the run reached its token ceiling of {ceiling:,} ({total.total:,} tokens spent)"
                            + (f"; the last reply's {len(comp.tool_calls)} tool call(s) were not run"
                               if comp.tool_calls else ""))
            return result
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


def _pass_order(cfg, options: DreamOptions, run_number: int) -> list[str]:
    toggles = {k: bool(cfg.dream.get(f"passes.{k}", True)) for k in PASSES}
    toggles.update(options.passes or {})
    due = toggles["review"] and review_due(run_number, int(cfg.dream["reviewEveryRuns"]))
    return (["review"] if options.force_review or due else []) + [
        p for p in ("consolidation", "deduction", "induction") if toggles[p]]


def _snapshot_before(store: SnapshotStore, run_id: str | None,
                     refusal: str = "Dream did not run") -> tuple[str | None, str | None]:
    """(the commit before the run, why none was taken). A snapshot that fails (a lock held, a
    damaged repository) stops the run before it writes anything: without it the run could not
    be undone as a whole. Only a machine with no git at all runs without one, as the spec's
    best effort says (the archive still holds what the run removes)."""
    if run_id is None:
        return None, None
    try:
        return store.snapshot(f"snapshot: before dream {run_id}") or store.head(), None
    except NoGit as exc:
        return None, str(exc)
    except SnapshotError as exc:
        raise WorkspaceError(f"{refusal}: the snapshot taken before every run failed ({exc}). "
                             "Nothing was written; run it again once that is fixed") from None


class _Log:
    """The run record as the run goes: saved after every write and every pass (a run that fails
    part way still records what it committed); a dry run's is never saved."""

    def __init__(self, ws: Workspace, record: RunRecord, sandbox: Sandbox, dry: bool, ceiling: int | None = None):
        self.ws, self.record, self.sandbox, self.dry = ws, record, sandbox, dry
        self.passes: list[PassResult] = []
        self.total = Usage()
        self.ceiling = ceiling           # the run's token ceiling (None: none)
        sandbox.on_write = self.after_write

    def save(self) -> None:
        r, sb = self.record, self.sandbox
        r.passes = [p.to_json() for p in self.passes]
        r.created, r.removed = [f.to_json() for f in sb.created], [f.to_json() for f in sb.removed]
        r.writes, r.refused = [w.to_json() for w in sb.writes], [x.to_json() for x in sb.refused]
        r.tokens = self.total.to_json()
        if not self.dry:
            records.save_record(self.ws, r)

    def after_write(self) -> None:
        try:
            self.save()
        except OSError:
            pass                       # the write landed; the record is saved again at the pass's end


def _one_pass(client: LLMClient, name: str, msgs: list[dict], log: _Log, cancel: threading.Event,
              progress: Callable[[dict], None]) -> PassResult:
    """run_pass, with whatever breaks said in words: the run must end recorded."""
    try:
        return run_pass(client, name, msgs, log.sandbox, cancel, progress, log.total, log.ceiling)
    except ConflictError as exc:
        return PassResult(name, ended="error", error=f"{exc} (someone else wrote it during the run)")
    except OSError as exc:          # a read-only memory/, a full disk: said in words
        from ..disk.oserrors import describe
        return PassResult(name, ended="error", error=describe(exc))
    except Exception as exc:  # noqa: BLE001
        return PassResult(name, ended="error", error=f"internal error in the {name} pass: "
                                                    f"{type(exc).__name__}: {str(exc)[:200]}")


def _review_info(sb: Sandbox, before: dict[str, int], archived_from: int, refused_from: int) -> ReviewInfo:
    after = _sizes(sb, list(before))
    refused = sb.refused[refused_from:]
    return ReviewInfo(chars_freed=sum(before.values()) - sum(after.values()),
                      archived=[r.id for r in sb.archived[archived_from:]],
                      refused=sum(1 for r in refused if r.by_size),
                      refused_growth=sum(1 for r in refused if r.kind == "shrink-only"),
                      refused_pinned=sum(1 for r in refused if r.kind == "pin"))


def _run_passes(ws: Workspace, client: LLMClient, order: list[str], batch: list, budgets: dict[str, int],
                own_prompt: str | None, log: _Log, cancel: threading.Event, progress: Callable[[dict], None],
                growth: dict[str, int], edits: dict[str, str]) -> PassResult | None:
    """The passes in order, until one does not finish (returned). `growth` becomes the sizes
    growth is measured against: those after the review pass, which shrinks."""
    sb, tracked = log.sandbox, list(growth)
    for name in order:
        before = _sizes(sb, list(CORE)) if name == "review" else {}
        archived_from, refused_from = len(sb.archived), len(sb.refused)
        sb.begin_pass(name, PASSES[name][0], shrink_only=(name == "review"), tools=PASS_TOOLS[name])
        files = {rel: sb.prompt_view(rel) for rel in CORE}
        skills = [m.path for m in ws.memory_files() if m.kind == "skill"]
        msgs = build_messages(name, files, budgets, [] if name == "review" else batch, skills, own_prompt=own_prompt,
                              closed=sb.scope.to_json()["closed"], edited=edits.get(name))
        res = _one_pass(client, name, msgs, log, cancel, progress)
        log.passes.append(res)
        if name == "review":
            log.record.review = _review_info(sb, before, archived_from, refused_from)
            growth.clear()
            growth.update(_sizes(sb, sorted(set(tracked) | {w.file for w in sb.writes})))
        log.save()
        if res.ended != "done":
            return res
    return None


def _run(ws: Workspace, client: LLMClient, options: DreamOptions, cancel: threading.Event,
         progress: Callable[[dict], None], now: Callable[[], datetime], model_label: str | None,
         choice: ModelChoice | None = None) -> DreamResult:
    t0 = time.monotonic()
    cfg = ws.config()
    dream_cursor, _ = read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")
    batch = ws.history().pending(dream_cursor)[:BATCH_SIZE]
    if not batch:
        return DreamResult(None, "nothing", NOTHING_TO_PROCESS, dream_cursor, dream_cursor)
    cursors = [e.cursor for e in batch]
    # the person's scope and pass instructions (unreadable: said before anything is written)
    scope, edits = write_scope.load(ws.root), prompt_edits.load_edits(ws.root)
    ceiling = token_ceiling.load(ws.root) if options.max_tokens is None else options.max_tokens or None
    started, dry = now(), options.dry_run
    run_id = None if dry else records.new_run_id(ws, started)
    state = read_state(ws)      # a dry run reads it too: the same run number, review and hold
    store = SnapshotStore(ws)
    snapshot_before, snapshot_error = _snapshot_before(store, run_id)
    backend = OverlayBackend(ws) if dry else DiskBackend(ws, run_id)
    budgets = {rel: cfg.budget_for(rel) for rel in CORE}
    own_prompt = assistant_dream_prompt(ws.root)     # the assistant's prompts/dream.md, as it reads it
    sandbox = Sandbox(ws, budgets, backend, cursors, scope)
    tracked = [m.path for m in ws.memory_files()]
    sizes_before, user_before = _sizes(sandbox, tracked), sandbox.prompt_view("USER.md")
    record = RunRecord(
        id=run_id, started=started.isoformat(timespec="seconds"), trigger=options.trigger, status="running",
        run_number=state.runs + 1, batch=Batch(cursors[0], cursors[-1], len(cursors), cursors, ENTRY_CHARS),
        model=model_label or client.model, model_choice=choice.to_json() if choice is not None else None,
        prompt={"consolidation": "edited in Dreamdesk" if "consolidation" in edits else
                PROMPT_REL if own_prompt else "Dreamdesk's", "chars": len(own_prompt or "")}
        | ({"edited": sorted(edits)} if edits else {}),
        snapshot_before=snapshot_before, snapshot_error=snapshot_error,
        snapshot_notes=list(store.notes) if not dry else [], cursor=CursorMove(dream_cursor, dream_cursor, False))
    log = _Log(ws, record, sandbox, dry, ceiling)
    log.save()
    growth = dict(sizes_before)
    failure = _run_passes(ws, client, _pass_order(cfg, options, state.runs + 1), batch, budgets, own_prompt, log,
                          cancel, progress, growth, edits)

    # files the run wrote count even when they exist only in a dry run's overlay (a new skill)
    sizes_after = _sizes(sandbox, sorted(set(tracked) | {m.path for m in ws.memory_files()}
                                         | {w.file for w in sandbox.writes}))
    decision = decide(cursors, (e.content for e in batch), dream_cursor, Sizes(sizes_before, sizes_after, growth),
                      budgets, sandbox.outstanding_refusals(), {r.file for r in sandbox.refused if r.by_size},
                      state.held, state.refusal_streak, wrote=bool(sandbox.writes),
                      ended=failure.ended if failure else None)
    facts = RunFacts(time.monotonic() - t0, cursors[0], cursors[-1], dream_cursor, [w.file for w in sandbox.writes],
                     sandbox.refused, record.review, failure.error if failure else None)
    notes = render_notes(decision, facts, sandbox.io_errors)
    outcome = render_outcome(decision, facts, dry) + (
        "" if dry else snapshot_note(snapshot_error, store.notes)) + notes
    user_after = sandbox.prompt_view("USER.md")
    record.status, record.outcome = decision.status, outcome
    record.finished = now().isoformat(timespec="seconds")
    record.error = failure.error if failure and not dry else None
    record.sizes = {rel: FileSize(sizes_before.get(rel, 0), sizes_after.get(rel, 0), budgets.get(rel, 0))
                    for rel in sizes_after}
    record.user_md = {"before": user_before, "after": user_after} if user_before != user_after else None
    record.cursor = CursorMove(dream_cursor, decision.cursor_after, decision.held, decision.held_count,
                               decision.stuck)
    log.save()
    changes = state_changes(decision, cursors[0], cursors[-1], now().isoformat(timespec="seconds"))
    result = DreamResult(run_id, decision.status, outcome, dream_cursor, decision.cursor_after,
                         stuck_alarm=decision.stuck, tokens=log.total)
    if dry:
        assert isinstance(backend, OverlayBackend)
        return _preview(result, backend, record, changes, state, render_outcome(decision, facts) + notes)
    _commit(ws, store, record, decision, with_changes(state, changes), options.trigger, now)
    result.record = record_json(record)
    return result


def _preview(result: DreamResult, backend: OverlayBackend, record: RunRecord, changes: dict, state: RunState,
             applied_outcome: str) -> DreamResult:
    """A dry run's result: what would change, and what the run will have said once applied."""
    changed = backend.changed()
    result.record = record_json(record)
    result.preview = {"files": {rel: {"base_hash": backend.base_hash[rel], "old": old, "new": new}
                                for rel, (old, new) in changed.items()},
                      "cursor_before": result.cursor_before, "cursor_after": result.cursor_after,
                      "status": result.status, "state_changes": json.loads(json.dumps(changes)),
                      "runs_before": state.runs, "applied_outcome": applied_outcome,
                      "record": json.loads(json.dumps(result.record))}
    result.diffs = [diff_texts(old, new, rel) for rel, (old, new) in changed.items()]
    return result


def _commit(ws: Workspace, store: SnapshotStore, record: RunRecord, decision: Decision, state: RunState,
            trigger: str, now: Callable[[], datetime]) -> None:
    """A real run's end: the cursor once the record says what landed, the state, pruning, the
    commit (which holds the final record; the run id in its message links the two)."""
    if decision.cursor_after != record.cursor.before:
        # a kill before this leaves the cursor where it was (the entries are dreamed again),
        # never moved past a run nobody can see
        write_cursor(ws.dream_cursor_path, decision.cursor_after)
    save_state(ws, after_run(state, record.id, record.finished, decision.status, record.outcome))
    records.prune(ws, now())
    if record.writes or decision.cursor_after != record.cursor.before:
        title = "dream: manual run" if trigger == "manual" else "dream: periodic memory consolidation"
        try:
            store.snapshot(f"{title}\n\nrun {record.id}", with_summary=True)
        except SnapshotError as exc:
            record.snapshot_error = str(exc)
            records.save_record(ws, record)


def apply_preview(ws: Workspace, preview: dict, now: Callable[[], datetime] | None = None) -> list[str]:
    """Write exactly what a dry run previewed, as a recorded manual run, or refuse (nothing
    written) if the preview did not complete or any of its files changed since."""
    from ..recovery.archive import write_memory
    from ..disk.files import current_hash, resolve_inside
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
        if "runs_before" in preview and read_state(ws).runs != preview["runs_before"]:
            raise WorkspaceError("a Dream run happened since the preview was made; run the dry run again")
        started = now()
        run_id = records.new_run_id(ws, started)
        store = SnapshotStore(ws)
        snapshot_before, _ = _snapshot_before(store, run_id, "The dry run was not applied")
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
        state = read_state(ws)
        # the dry run's own explanation (a held cursor, a refused write), as it happened
        outcome = (f"Applied a previewed dry run: {len(written)} file(s) written ({', '.join(written)}). "
                   + (preview.get("applied_outcome") or "")).strip()
        record.update(id=run_id, started=started.isoformat(timespec="seconds"),
                      finished=now().isoformat(timespec="seconds"), trigger="manual",
                      status=record.get("status") or "completed", outcome=outcome,
                      run_number=state.runs + 1, snapshot_before=snapshot_before)
        for key in ("passes", "created", "removed", "writes", "refused"):
            record.setdefault(key, [])
        records.save_record(ws, record)
        if after != cur:
            write_cursor(ws.dream_cursor_path, after)       # after the record, as in a run
        if isinstance(preview.get("state_changes"), dict):
            state = with_changes(state, preview["state_changes"])
        save_state(ws, after_run(state, run_id, record["finished"], record["status"], outcome))
        records.prune(ws, now())            # the retention, as at the end of every run
        try:
            store.snapshot(f"dream: manual run\n\nrun {run_id}, applied as previewed by a dry run",
                           with_summary=True)
        except SnapshotError:
            pass
        return written
