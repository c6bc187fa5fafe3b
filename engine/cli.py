"""`dreamdesk`: the command-line front end of the engine.

Exit codes: 0 ok, 1 the action failed, 2 bad usage or bad input (one clear line on stderr).
Every read command takes --json; the JSON shapes are documented in README.md and stable.
"""

from __future__ import annotations

import argparse
import json
import sys
from json.encoder import encode_basestring as _js
from datetime import datetime
from typing import Any

from .core import clock, json_stream, redact
from .home import config as config_mod
from .recovery.archive_kinds import COMMIT_REASONS, ORIGINS, REASONS   # the parser's choices; the archive loads when used
from .disk.files import LockHeld
from .disk.oserrors import describe as describe_os_error
from .home.history import BadLine, HistoryEntry
from .overview.history_listing import Listing
from .assistants import assistant_of, open_home, refuse_jobs
from .assistants.prompt import build_prompt
from .core.rules import KEEP_LAST, whole_number
from .core.problems import ConflictError, Problem, WorkspaceError
from .home.workspace import Workspace
from .ops.result import CLI

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line, exit 2
        raise UsageError(f"{self.prog}: {message} (see {self.prog.split()[0]} --help)")


def _dump(obj: Any) -> None:
    sys.stdout.write(redact.scrub(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")


def _open(path: str, args=None) -> Workspace:
    """The home at `path` as its assistant lays it out (engine/assistants.open_home); `--agent`
    picks one of an OpenClaw home's agents."""
    return open_home(path, getattr(args, "agent", None))


def _open_for_jobs(path: str, args) -> Workspace:
    """_open, for Dreamdesk's own jobs (dream, compact, serve): refused in words first, before any
    model is looked for, on a home whose assistant runs its own (OpenClaw)."""
    ws = _open(path, args)
    refuse_jobs(ws)
    return ws


def _problem_lines(problems: list[Problem]) -> list[str]:
    return [f"  {p.severity:<7} {p}" for p in problems]


def _bar(fraction: float | None, width: int = 20) -> str:
    if fraction is None:
        return " " * width
    filled = min(width, round(fraction * width))
    return "█" * filled + "░" * (width - filled)


# -- commands ------------------------------------------------------------------------------
def cmd_status(args) -> int:
    from .overview.status import next_words, read_status
    ws = _open(args.path, args)
    st = read_status(ws)
    if args.json:
        _dump(st.to_json())
        return EXIT_OK
    a = st.assistant
    out = [f"Workspace  {st.workspace}", f"Config     {st.config_path or '(none: defaults)'}",
           f"Assistant  {a.label}: {'; '.join(a.why)}" if a else "Assistant  (unknown)"]
    if a and a.roster:
        out.append(f"Agents     {a.roster}")
    out.append("")
    said: set[str] = set()
    for f in st.files:
        out += _size_lines(f, said)
    out += [_size_line(t.name, t.chars, t.budget, t.fraction, t.state, True) for t in st.totals]
    if ws.layout.history:
        h = st.history
        out += ["", f"History    {len(h.entries)} entries, {len(h.bad_lines)} unreadable line(s)",
                f"Cursors    .cursor {st.cursor}   .dream_cursor {st.dream_cursor}   pending {st.pending}"]
    else:
        notes = ws.dated_notes()
        out += ["", f"Notes      {len(notes)} daily note(s)" + (f", the newest of {notes[0].day}" if notes else "")
                + "; no history.jsonl here"]
    if a and not a.runs_dreamdesk_jobs:
        out.append(f"Dream      {a.jobs_refused}.")
        if st.whats_next is not None:
            out.append("Next       " + next_words(st.whats_next).replace("\n", "\n           "))
    else:
        d = st.config.dream
        out.append(f"Dream      {'enabled' if d['enabled'] else 'disabled'}, every {d['intervalH']:g} h, "
                   f"review every {d['reviewEveryRuns']} runs")
    if ws.layout.history:
        out.append(f"Clock      {_clock_line(clock.home_zone(st.config))}")
    if st.problems:
        out += ["", f"Problems ({len(st.problems)})"] + _problem_lines(st.problems)
    print("\n".join(out))
    return EXIT_OK


def cmd_files(args) -> int:
    """The memory files, each against the limit that really applies, and the entries cut."""
    ws = _open(args.path, args)
    cfg = ws.config()
    sizes = assistant_of(ws, cfg.raw).sizes(ws, cfg)
    if args.json:
        _dump({"files": [f.to_json() for f in sizes.files], "totals": [t.to_json() for t in sizes.totals],
               "problems": [p.to_json() for p in sizes.problems]} | assistant_of(ws, cfg.raw).files_detail(ws))
        return EXIT_OK
    said: set[str] = set()
    out = [line for f in sizes.files for line in _size_lines(f, said)]
    out += [_size_line(t.name, t.chars, t.budget, t.fraction, t.state, True) for t in sizes.totals]
    print("\n".join(out))
    return EXIT_OK


def _size_line(name: str, chars: int, budget: int, fraction: float | None, state: str, exists: bool) -> str:
    from .home.budgets import percent_label
    shown = f"{budget:>6,}" if budget else "     –"
    pct = f"{percent_label(chars, budget):>5}" if fraction is not None else "     "
    return f"  {name:<32} {chars:>6,} / {shown}  {pct} {_bar(fraction)} {state}{'' if exists else '  (missing)'}"


def _size_lines(f, said: set[str]) -> list[str]:
    """A file's gauge line; under it the limits it is held to, how its assistant takes it (said
    once for files taken alike: the daily notes) and the entries its cut hides."""
    out = [_size_line(f.path, f.chars, f.budget, f.fraction, f.state, f.exists)]
    if f.limits:
        out.append("      limits: " + " · ".join(f"{x.what} {x.chars:,}" + (f" ({x.key})" if x.key else "")
                                            for x in f.limits))
    if f.note and f.note != "injected whole" and f.note not in said:
        said.add(f.note)
        out.append(f"      {f.note}")
    if f.cut:
        out.append(f"      {len(f.cut)} entr{'y falls' if len(f.cut) == 1 else 'ies fall'} into the cut "
                   "(never seen by the model):")
        for c in f.cut:
            first = " ".join(c.text.split())
            first = first if len(first) <= 72 else first[:71] + "…"
            out.append(f"        line {c.line:>4}  {'' if c.whole else '(part) '}{first}")
    return out


def _clock_line(home) -> str:
    """Which zone the times are shown in, and which one history.jsonl is stamped in."""
    stamped = f"history.jsonl is stamped in {home} (config.json)" if home is not None else \
        "history.jsonl is taken as stamped on this machine (config.json names no timezone)"
    return f"{clock.zone_label()}; {stamped}"


def cmd_history(args) -> int:
    """Written as history.jsonl is read (issue 14): the same bytes as one dump of the whole. A
    home with no history.jsonl (OpenClaw's) lists its daily notes instead."""
    ws = _open(args.path, args)
    if not ws.layout.history:
        return _notes_listing(ws, args)
    cur, dream, cprobs = ws.cursors()
    home = clock.home_zone(ws.config())
    listing = Listing(ws, dream)
    if args.json:
        json_stream.write_object(lambda text: sys.stdout.write(redact.scrub(text)),
                                 _history_fields(listing, cur, dream, cprobs, home, args.pending))
    else:
        _write_history_rows(listing, cur, dream, home, args.pending)
    return EXIT_OK


NOTES_NOTE = "this home keeps no history.jsonl: its daily notes (memory/YYYY-MM-DD[-slug].md), newest first"


def _notes_listing(ws: Workspace, args) -> int:
    notes = ws.dated_notes()
    if args.json:
        _dump({"notes": [n.to_json() for n in notes], "note": NOTES_NOTE})
        return EXIT_OK
    print(NOTES_NOTE[0].upper() + NOTES_NOTE[1:] + ":" if notes else "No daily notes here (memory/YYYY-MM-DD.md).")
    for n in notes:
        print(f"  {n.day}  {n.slug or '':<20}  {n.size:>8,} bytes  {n.path}")
    return EXIT_OK


def _history_fields(listing: Listing, cur: int, dream: int, cprobs: list[Problem], home, pending: bool):
    bad_lines: list[dict] = []

    def entries():
        for x, shown in listing:
            if type(x) is BadLine:
                if not pending:
                    bad_lines.append({"line": x.line, "reason": x.reason, "text": x.text})
            elif not pending or x.cursor > dream:
                yield _entry_json(x, dream, shown, home)

    yield "cursor", cur
    yield "dream_cursor", dream
    yield "entries", json_stream.Encoded(entries())
    yield "bad_lines", bad_lines
    yield "problems", [p.to_json() for p in listing.problems + cprobs]


def _entry_json(e: HistoryEntry, dream: int, shown: bool, home) -> str:
    """json_stream.encode(dict(e.to_json(), line=…, status=…, in_prompt=…, time=…), 2), three
    times faster: no dict, no walk over it (the hot loop of `dreamdesk history --json`)."""
    key = "" if e.session_key is None else f',\n      "session_key": {_js(e.session_key)}'
    status = "dreamed" if e.cursor <= dream else "pending"
    t = clock.iso_history(e.timestamp, home)
    return (f'{{\n      "cursor": {e.cursor},\n      "timestamp": {_js(e.timestamp)},\n      "content": '
            f'{_js(e.content)}{key},\n      "line": {e.line},\n      "status": "{status}",\n      "in_prompt": '
            f'{"true" if shown else "false"},\n      "time": {"null" if t is None else _js(t)}\n    }}')


def _write_history_rows(listing: Listing, cur: int, dream: int, home, pending: bool) -> None:
    """One row per line of the file. The .dream_cursor marker sits after the last dreamed entry
    (at the top when none is): unreadable lines after an entry wait until the next entry says
    which side of the marker they are on. The columns have fixed widths (the rows are written
    as the file is read, before the longest session key is known): a longer value is elided."""
    write = sys.stdout.write
    num = max(6, len(str(cur)), len(str(dream)))      # the cursor column: .cursor is the highest
    marker = f"{'':>{num}}  ──── .dream_cursor = {dream} ── entries below are pending ────\n"
    marked, held = pending, []
    for x, shown in listing:
        if type(x) is BadLine:
            row = f"{'!':>{num}}  line {x.line}: {x.reason}\n"
            if pending:
                continue
            if marked:
                write(row)
            else:
                held.append(row)
            continue
        if pending and x.cursor <= dream:
            continue
        if not marked and x.cursor > dream:
            write(marker)
            marked = True
        write("".join(held) + _entry_row(x, dream, shown, home, num))
        held = []
    write(("" if marked else marker) + "".join(held) + f"{'':>{num}}  ──── .cursor = {cur} ────\n")


TIME_WIDTH, SESSION_WIDTH, PREVIEW_WIDTH = 16, 20, 72


def _column(text: str, width: int) -> str:
    """`text` in exactly `width` characters: padded, or elided in the middle (a session key's
    channel and its end are what tell two apart)."""
    if len(text) <= width:
        return text.ljust(width)
    head = width // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _entry_row(e: HistoryEntry, dream: int, shown: bool, home, num: int) -> str:
    preview = " ".join(e.content.split())
    if len(preview) > PREVIEW_WIDTH:
        preview = preview[:PREVIEW_WIDTH - 1] + "…"
    status = "dreamed" if e.cursor <= dream else "pending+prompt" if shown else "pending"
    when = _column(clock.show_history(e.timestamp, home), TIME_WIDTH)
    return f"{e.cursor:>{num}}  {when}  {_column(e.session_key or '-', SESSION_WIDTH)}  {status:<14}  {preview}\n"


def cmd_prompt(args) -> int:
    ws = _open(args.path, args)
    hist = ws.history()
    _, dream, _ = ws.cursors()
    pv = build_prompt(ws, hist, dream, new_session=args.new)
    if args.json:
        _dump(pv.to_json(with_text=args.text))
        return EXIT_OK
    if args.text and pv.text is not None:      # the assistant's own text, exactly as it sends it
        sys.stdout.write(pv.text + "\n")
        if pv.first_message is not None:
            sys.stdout.write("\n" + pv.first_message + "\n")
        return EXIT_OK
    if args.text:
        print("\n\n".join(p.text for p in pv.parts if p.included))
        return EXIT_OK
    who = pv.assistant.label if pv.assistant else "the assistant"
    out = [f"What a new chat receives, as {who} builds it:", ""]
    for p in pv.parts:
        mark = "✓" if p.included else "·"
        out.append(f"  {mark} {p.name:<16} {p.chars:>7,} chars  {p.tokens:>6,} tokens  {p.note}")
    out += ["", f"  Total {pv.total_chars:,} characters, ~{pv.total_tokens:,} tokens (UTF-8 bytes / 4)"]
    print("\n".join(out))
    return EXIT_OK


def cmd_config(args) -> int:
    rest = list(args.args)
    if rest and rest[0] == "set" and len(rest) == 4:
        return _config_set_either(rest[1], rest[2], rest[3], args)
    if rest and rest[0] == "set":
        raise UsageError("dreamdesk config set: usage: dreamdesk config set PATH KEY VALUE")
    if rest and rest[0] == "reapply":
        if len(rest) != 2:
            raise UsageError("dreamdesk config reapply: usage: dreamdesk config reapply PATH")
        return _config_reapply(rest[1], args)
    if rest and rest[0] == "forget":
        if len(rest) < 2:
            raise UsageError("dreamdesk config forget: usage: dreamdesk config forget PATH [KEY...]")
        return _config_forget(rest[1], rest[2:], args)
    if len(rest) != 1:
        raise UsageError("dreamdesk config: usage: dreamdesk config PATH [--json] | dreamdesk config set PATH KEY VALUE")
    ws = _open(rest[0], args)
    own = assistant_of(ws).own_settings(ws)
    if own is not None:
        return _own_show(own, args)
    cfg = ws.config()
    lost = config_mod.lost_settings(ws.root, cfg)
    if args.json:
        _dump(cfg.to_json() | {"lost_settings": [x.to_json() for x in lost]})
    else:
        out = [f"Config  {cfg.path or '(none: defaults)'}", ""]
        for s in config_mod.SETTINGS:
            src = cfg.sources[s.path]
            tag = "" if src == "file" else f"  ({src})"
            out.append(f"  {s.path:<46} {json.dumps(cfg.values[s.path], ensure_ascii=False)}{tag}")
        provs = cfg.providers()
        if provs:
            out += ["", "Providers"] + [f"  {n:<14} apiBase {p['apiBase'] or '-'}  apiKey {p['apiKey'] or '(empty)'}"
                                        for n, p in provs.items()]
        if lost:
            out += ["", "Lost from config.json (Dreamdesk wrote them; re-apply: dreamdesk config reapply PATH)"]
            out += [f"  {x.path:<46} {json.dumps(x.value, ensure_ascii=False)}  (now the default "
                    f"{json.dumps(x.default, ensure_ascii=False)})" for x in lost]
        if cfg.problems:
            out += ["", "Problems"] + _problem_lines(cfg.problems)
        print("\n".join(out))
    bad = [p for p in cfg.problems if p.severity == "error"]
    if bad:
        print(f"dreamdesk: {bad[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def _config_set(path: str, key: str, value: str, args) -> int:
    from .ops.settings import set_settings
    ws = _open(path, args)
    new = set_settings(ws, {key: value}, CLI, confirm_below_floor=args.confirm_below_floor).value
    setting = config_mod.find_setting(key)
    val = new.values[setting.path]
    if args.json:
        _dump({"key": setting.path, "value": val, "path": str(new.path)})
    else:
        print(f"{setting.path} = {json.dumps(val, ensure_ascii=False)}  ({new.path})")
    return EXIT_OK


def _config_set_either(path: str, key: str, value: str, args) -> int:
    """An assistant's own setting where the home has them (OpenClaw's), else config.json's."""
    ws = _open(path, args)
    own = assistant_of(ws).own_settings(ws)
    if own is not None and (_owns(own, key) or not config_mod.has_setting(key)):
        return _own_set(ws, own, key, value, args)
    if args.dry_run:
        raise UsageError("dreamdesk config set: --dry-run previews an assistant's own settings (an OpenClaw home)")
    return _config_set(path, key, value, args)


def _owns(own, key: str) -> bool:
    try:
        own.find(key)
    except WorkspaceError:
        return False
    return True


def _own_show(own, args) -> int:
    """The home's assistant's own settings (an OpenClaw home's openclaw.json), not config.json's."""
    if args.json:
        _dump(own.to_json())
        return EXIT_OK
    out = [f"{own.title}  {own.file or '(none)'}", ""]
    for s in own.settings:
        out.append(f"  {s.key:<24} {json.dumps(s.value, ensure_ascii=False):<14} {s.where}"
                   + ("" if s.written else "  (not in the file)"))
    refused = own.refused or next((s.refused for s in own.settings if s.refused), "")
    out += ["", f"Not written here: {refused}"] if refused else \
        ["", "Set with: dreamdesk config set PATH KEY VALUE [--dry-run] (KEY: " + ", ".join(s.key for s in own.settings) + ")"]
    print("\n".join(out))
    return EXIT_OK


def _own_set(ws: Workspace, own, key: str, text: str, args) -> int:
    """One of the assistant's own settings: previewed (--dry-run: what the prompt would cut, the
    next sweep), or written to its own config."""
    from .ops.settings import set_own_settings
    try:
        value = own.parse(key, text) if own.find(key).rule.kind != "str" else text
    except ValueError as e:
        raise WorkspaceError(f"{e}; nothing written") from None
    why = own.refusal(key, value)
    if why:
        raise WorkspaceError(f"{why}; nothing written")
    preview = own.what_if({key: value})
    if args.dry_run:
        if args.json:
            _dump({"key": own.find(key).key, "where": own.find(key).where, "value": value, "written": False,
                   "what_if": preview.to_json()})
        else:
            print("\n".join([f"{own.find(key).where} = {json.dumps(value, ensure_ascii=False)} (not written):",
                             *(f"  {line}" for line in preview.lines), *preview.details]))
        return EXIT_OK
    done = set_own_settings(ws, {key: value}, CLI).value
    if args.json:
        _dump(done.to_json() | {"key": own.find(key).key, "where": own.find(key).where, "value": value,
                                "what_if": preview.to_json()})
    else:
        print(done.said())
    return EXIT_OK


def _config_reapply(path: str, args) -> int:
    from .ops.settings import reapply
    new, lost = reapply(_open(path, args), CLI).value
    if args.json:
        _dump({"reapplied": [x.to_json() for x in lost], "path": str(new.path) if new.path else None})
    elif not lost:
        print("Nothing to re-apply: config.json holds every setting Dreamdesk wrote.")
    else:
        for x in lost:
            print(f"{x.path} = {json.dumps(x.value, ensure_ascii=False)}  (re-applied)")
        print(f"Written to {new.path}")
    return EXIT_OK


def _config_forget(path: str, keys: list[str], args) -> int:
    from .ops.settings import forget
    gone = forget(_open(path, args), keys or None, CLI).value
    if args.json:
        _dump({"forgotten": gone})
    elif gone:
        print("Forgotten (config.json untouched): " + ", ".join(gone))
    else:
        print("Nothing to forget.")
    return EXIT_OK


def cmd_snapshots(args) -> int:
    from .versions.snapshots import SnapshotStore
    ws = _open(args.path, args)
    store = SnapshotStore(ws)
    snaps = store.list()
    if args.json:
        _dump({"repository": str(store.git_dir), "exists": store.exists(), "separate": store.separate,
               "snapshots": [x.to_json() for x in snaps]})
        return EXIT_OK
    if not snaps:
        print("No snapshots yet (the first Dream run, edit or restore creates them).")
        return EXIT_OK
    for x in snaps:
        when = clock.show_epoch(x.time)
        changes = ", ".join(f"{p} +{a} -{r}" for p, (a, r) in x.files.items())
        print(f"{x.short}  {when}  {x.kind:<9}  {x.subject}")
        if changes:
            print(f"{'':>10}{changes}")
    return EXIT_OK


def cmd_diff(args) -> int:
    from .versions.snapshots import SnapshotStore
    ws = _open(args.path, args)
    store = SnapshotStore(ws)
    diffs = store.diff(args.rev, args.rev2, [args.file] if args.file else None)
    if args.json:
        _dump({"from": store.resolve(args.rev), "to": store.resolve(args.rev2) if args.rev2 else None,
               "files": [d.to_json() for d in diffs]})
        return EXIT_OK
    old_label = args.rev
    new_label = args.rev2 or "working"
    for d in diffs:
        text = d.unified(old_label, new_label)
        # number the hunks so `restore --hunk FILE:N` can name one
        n = 0
        for line in text.splitlines(keepends=True):
            if line.startswith("@@ "):
                n += 1
                line = line.rstrip("\n") + f"   [hunk {n} · id {d.hunks[n - 1].id}]\n"
            sys.stdout.write(line)
    if not diffs:
        print("No differences in the memory files.")
    return EXIT_OK


def cmd_restore(args) -> int:
    from .ops.restore import restore
    if args.list or args.undo is not None:
        if args.rev or args.file or args.hunk or args.cursor:
            raise UsageError("dreamdesk restore: --list and --undo take no REV, --file, --hunk or --cursor")
        return _restore_list(args) if args.list else _restore_undo(args)
    if args.force:
        raise UsageError("dreamdesk restore: --force goes with --undo")
    if args.saved:
        if args.rev or args.file or args.hunk or args.cursor:
            raise UsageError("dreamdesk restore: --saved takes no REV, --file, --hunk or --cursor")
        return _restore_saved(args)
    if not args.rev:
        raise UsageError("dreamdesk restore: name the snapshot REV to restore, or use --list / --undo [ID]")
    ws = _open(args.path, args)
    path, hunk = args.file, None
    if args.hunk:
        f, sep, n = args.hunk.rpartition(":")
        hunk = whole_number(n)
        if not sep or not f or hunk is None:
            raise UsageError("dreamdesk restore: --hunk takes FILE:N (N from `dreamdesk diff`)")
        path = f
    if args.hunk_id and hunk is None:
        raise UsageError("dreamdesk restore: --hunk-id goes with --hunk FILE:N")
    result = restore(ws, args.rev, CLI, path=path, hunk=hunk, hunk_id=args.hunk_id, move_cursor=args.cursor).value
    if args.json:
        _dump(result.to_json())
        return EXIT_OK
    if not result.files and not result.cursor:
        print(f"Nothing to restore: the files already match {result.target[:8]}.")
        return EXIT_OK
    print(f"Restored {', '.join(result.files) or '.dream_cursor'} from {result.target[:8]}.")
    _print_effects(result)
    print(f"Undo with: dreamdesk restore {args.path} --undo {result.id}")
    return EXIT_OK


def _restore_saved(args) -> int:
    from .ops.restore import restore_saved
    result = restore_saved(_open(args.path, args), args.saved, CLI).value
    if args.json:
        _dump(result.to_json())
        return EXIT_OK
    if not result.files:
        print("Nothing to restore: " + "; ".join(result.warnings))
        return EXIT_OK
    print(f"Restored {', '.join(result.files)} as saved ({result.target}).")
    _print_effects(result)
    print(f"Undo with: dreamdesk restore {args.path} --undo {result.id}")
    return EXIT_OK


def _print_effects(result) -> None:
    """What a restore or undo did besides the files it names."""
    if result.cursor:
        print(f".dream_cursor moved {result.cursor[0]} -> {result.cursor[1]}")
    if result.archived:
        print(f"Archived {len(result.archived)} removed entr{'y' if len(result.archived) == 1 else 'ies'}: "
              + ", ".join(r.id for r in result.archived))


def _restore_list(args) -> int:
    from .recovery.restore import recent_restores
    live = recent_restores(_open(args.path, args))
    if args.json:
        _dump({"restores": [e.to_json() for e in live]})
        return EXIT_OK
    if not live:
        print("No restore to undo.")
    for e in live:
        print(f"{e.id}  {clock.show_iso(e.at)}  {e.what}")
        print("    wrote: " + (", ".join(e.paths) or "no files") +
              (f"; .dream_cursor {e.cursor[0]} -> {e.cursor[1]}" if e.cursor else ""))
    return EXIT_OK


def _restore_undo(args) -> int:
    from .ops.restore import undo
    from .recovery.restore import UndoChanged
    ws = _open(args.path, args)
    try:
        result = undo(ws, CLI, args.undo or None, force=args.force).value
    except UndoChanged as exc:
        if args.json:
            _dump({"error": str(exc), "plan": exc.plan.to_json()})
        else:
            print(f"dreamdesk: {exc}.", file=sys.stderr)
            for f in exc.plan.changed:
                print(f"  {f.path}, changed since the restore:", file=sys.stderr)
                for line in f.since:
                    print(f"    {line}", file=sys.stderr)
            print("Undo anyway with --force (what it removes from USER.md or MEMORY.md is archived first).",
                  file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        _dump(result.to_json())
        return EXIT_OK
    if not result.files and not result.cursor:
        print("Nothing to undo: " + "; ".join(result.warnings))
        return EXIT_OK
    print(f"Undid restore {result.target}: put back {', '.join(result.files) or '.dream_cursor'}.")
    _print_effects(result)
    for w in result.warnings:
        print(f"dreamdesk: {w}", file=sys.stderr)
    print(f"Undo this with: dreamdesk restore {args.path} --undo {result.id}")
    return EXIT_OK


def cmd_archive(args) -> int:
    rest = list(args.args)
    if rest and rest[0] == "delete":
        return _archive_delete(rest, args)
    if rest and rest[0] == "restore":
        if len(rest) != 3:
            raise UsageError("dreamdesk archive restore: usage: dreamdesk archive restore PATH ID")
        return _archive_restore(rest[1], rest[2], args)
    if len(rest) == 1 and args.restore:
        return _archive_restore(rest[0], args.restore, args)
    if len(rest) != 1:
        raise UsageError("dreamdesk archive: usage: dreamdesk archive PATH [--search TEXT] | "
                         "dreamdesk archive restore PATH ID")
    for flag, day in (("--since", args.since), ("--until", args.until)):
        _check_day(flag, day)
    return _archive_list(_open(rest[0], args), args)


def _archive_delete(rest: list[str], args) -> int:
    if len(rest) != 3:
        raise UsageError("dreamdesk archive delete: usage: dreamdesk archive delete PATH ID --yes")
    if not args.yes:
        raise UsageError("dreamdesk archive delete: this erases the entry from the archive and the run "
                         "records for good; add --yes to confirm")
    from .ops.archive_delete import delete_entries
    out = delete_entries(_open(rest[1], args), [rest[2]], CLI).value[0]
    if args.json:
        _dump(out)
    else:
        print(f"Deleted {rest[2]}; scrubbed {out['records_scrubbed']} run record(s). {out['note']}.")
    return EXIT_OK


def _check_day(flag: str, day: str | None) -> None:
    if day is None:
        return
    try:
        ok = datetime.strptime(day, "%Y-%m-%d").date().isoformat() == day   # zero-padded, as compared
    except ValueError:
        ok = False
    if not ok:
        raise UsageError(f"dreamdesk archive: {flag} takes a day as YYYY-MM-DD, not {day!r}")


def _archive_list(ws: Workspace, args) -> int:
    from .recovery.archive import search
    from .recovery.prunes import all_prunes
    arc, extra, folded = all_prunes(ws)
    every = arc.records + extra
    hits = {id(r) for r in search(every, args.search, args.file, args.reason, args.since, args.until, args.origin)}
    # one entry per text, however often it was archived; found when any of its records matches
    found = [e for e in folded if any(id(r) in hits for r in e.records)]
    if args.json:
        _dump({"entries": [e.to_json() for e in found], "total": len(every),
               "problems": [p.to_json() for p in arc.problems]})
        return EXIT_OK
    # the assistant's untouched onboarding lines: one line at the end unless asked for (--json marks them)
    placeholders = [] if args.templates else [e for e in found if e.placeholder]
    found = [e for e in found if not e.placeholder] + ([] if placeholders else [e for e in found if e.placeholder])
    if not found and not placeholders:
        print("No archived entries" + (" match." if every else " yet."))
    for e in found:
        _print_archived(e)
    if placeholders:
        print(f"template placeholders ({len(placeholders)}): the assistant's onboarding text, never filled in; "
              "--templates lists them")
    for p in arc.problems:
        print(f"dreamdesk: {p}", file=sys.stderr)
    return EXIT_OK


def _print_archived(e) -> None:
    from .recovery.prunes import from_label
    r = e.latest
    print(f"{r.id}  {clock.show_iso(r.archived_at)}  {r.file}  {r.reason}{'  run ' + r.run if r.run else ''}"
          + (f"  commit {r.commit[:8]}" if r.commit else "")
          + (f"  (archived {len(e.archived)} times: {', '.join(r.id for r in e.archived[:-1])} before)"
             if len(e.archived) > 1 else ""))
    print(f"    from {from_label(e)}")
    print("    " + r.text.replace("\n", "\n    "))
    if r.replaced_by:
        print("    → replaced by: " + r.replaced_by.replace("\n", " "))
    if e.back:
        print(f"    ← back in {r.file}" + (f" since {e.back_since[:16].replace('T', ' ')}" if e.back_since else ""))


def _entry_args(args, command: str) -> tuple[str | None, int | None]:
    """TEXT or --line N, exactly one of them."""
    if (args.text is None) == (args.line is None):
        raise UsageError(f"dreamdesk {command}: name the entry by its TEXT or by --line N (one of the two)")
    if args.line is not None and args.line < 1:
        raise UsageError(f"dreamdesk {command}: --line counts from 1, not {args.line}")
    return args.text, args.line


def cmd_pin(args) -> int:
    from .ops.pin import pin
    text, line = _entry_args(args, "pin")
    done = pin(_open(args.path, args), args.file, CLI, text=text, line=line)
    p, new = done.value
    if args.json:
        _dump(p.to_json() | {"new": new})
    else:
        print(done.message)
    return EXIT_OK


def cmd_directive(args) -> int:
    from .ops.edit import apply_action
    given = list(args.args)
    n = whole_number(given.pop(0)) if args.action in ("supersede", "retire") and given else None
    if args.action in ("supersede", "retire") and n is None:
        raise UsageError(f"dreamdesk directive: {args.action} takes the directive's number N (from `files --json`)")
    if (args.action != "retire") != bool(given):
        raise UsageError(f"dreamdesk directive: {args.action} takes " + ("no text" if args.action == "retire"
                                                                          else "the directive's TEXT"))
    done = apply_action(_open(args.path, args), args.file, f"{args.action} directive",
                        {"n": n, "text": " ".join(given)}, CLI)
    if args.json:
        _dump({"path": done.value.path, "written": bool(done.value.edit and done.value.edit.written),
               "message": done.message})
    else:
        print(done.message)
    return EXIT_OK


def cmd_unpin(args) -> int:
    from .ops.pin import unpin
    text, line = _entry_args(args, "unpin")
    done = unpin(_open(args.path, args), args.file, CLI, text=text, line=line)
    if args.json:
        _dump(done.value.to_json())
    else:
        print(done.message)
    return EXIT_OK


def cmd_scope(args) -> int:
    from .dream import write_scope
    from .ops.settings import change_scope
    ws = _open(args.path, args)
    if args.close or args.open:
        scope = change_scope(ws, CLI, close=args.close or [], open_=args.open or []).value
    else:
        scope = write_scope.load(ws.root)
    if args.json:
        _dump(scope.to_json())
    else:
        print(scope.describe())
    return EXIT_OK


def cmd_ceiling(args) -> int:
    from .home import token_ceiling
    from .ops.settings import set_ceiling
    ws = _open(args.path, args)
    if args.tokens is not None and args.off:
        raise UsageError("dreamdesk ceiling: --tokens or --off, not both")
    if args.tokens is not None or args.off:
        tokens = set_ceiling(ws, None if args.off else args.tokens, CLI).value
    else:
        tokens = token_ceiling.load(ws.root)
    if args.json:
        _dump({"tokens_per_run": tokens})
    else:
        print(f"Each Dream run stops cleanly after {tokens:,} tokens." if tokens else
              "No token ceiling: a run ends when its passes do.")
    return EXIT_OK


def cmd_prompts(args) -> int:
    from pathlib import Path

    from .dream import prompt_edits
    from .ops.settings import reset_pass_prompt, set_pass_prompt
    ws = _open(args.path, args)
    if args.set and args.reset:
        raise UsageError("dreamdesk prompts: --set or --reset, not both")
    if args.set:
        name, source = args.set
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"dreamdesk prompts: cannot read {source}: {exc}") from None
        set_pass_prompt(ws, name, text, CLI)
    elif args.reset:
        reset_pass_prompt(ws, args.reset, CLI)
    prompts = prompt_edits.pass_prompts(ws.root)
    if args.json:
        _dump({"rules": prompt_edits.shared_rules(), "passes": [p.to_json() for p in prompts]})
        return EXIT_OK
    for p in prompts:
        print(f"== {p.name} ({p.source}) ==")
        print(p.text + "\n")
    return EXIT_OK


def cmd_pins(args) -> int:
    from .recovery.pins import pin_states
    ws = _open(args.path, args)
    states = pin_states(ws)
    if args.json:
        _dump({"pins": [s.to_json() for s in states], "missing": sum(1 for s in states if not s.present)})
        return EXIT_OK
    if not states:
        print("No pinned entries. Pin one with: dreamdesk pin PATH FILE TEXT|--line N")
    for s in states:
        state = "present" if s.present else "MISSING"
        print(f"{s.pin.id}  {state:<8} {s.pin.file}  {s.pin.heading or '(no heading)'}  pinned "
              f"{clock.show_iso(s.pin.pinned_at)}")
        print("    " + s.pin.text.replace("\n", "\n    "))
        if not s.present:
            print("    → " + ("now reads: " + s.replaced_by.replace("\n", " ") if s.replaced_by
                             else "gone from the file (restore it in the Dashboard, or unpin it)"))
    return EXIT_OK


def _archive_restore(path: str, record_id: str, args) -> int:
    from .ops.archive_restore import restore_entry
    done = restore_entry(_open(path, args), record_id, CLI)
    result = done.value
    if args.json:
        _dump(result.to_json())
    elif result.files:
        print(done.message)
        if result.id:
            print(f"Undo with: dreamdesk restore {path} --undo {result.id}")
    for w in result.warnings:
        print(f"dreamdesk: {w}", file=sys.stderr)
    return EXIT_OK


def cmd_dream(args) -> int:
    import signal
    import threading

    from .dream.run import DreamOptions
    from .llm import resolve_model
    from .ops.dream import dream, model

    ws = _open_for_jobs(args.path, args)
    if args.max_tokens:                # (before the model is looked for: bad input first)
        from .home.token_ceiling import check
        check(args.max_tokens)
    choice, client = model(lambda: resolve_model(ws.config(), _overrides(args), ws.root), timeout=args.timeout)
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *a: cancel.set())

    def progress(ev: dict) -> None:
        if args.json or not args.verbose:
            return
        what = f"{ev['pass']} {ev['iteration']}/{ev['limit']}"
        if "tool" in ev:
            print(f"  [{what}] {ev['tool']}: {'ok' if ev['ok'] else 'refused'} — {ev['message']}", file=sys.stderr)

    try:
        options = DreamOptions(trigger="manual", dry_run=args.dry_run, force_review=args.review,
                               max_tokens=args.max_tokens)
        result = dream(ws, client, choice, CLI, options=options, cancel=cancel, progress=progress).value
    finally:
        signal.signal(signal.SIGINT, previous)
    if args.json:
        _dump(dict(result.to_json(), model=choice.to_json()))
    else:
        print(f"Model: {choice.describe()}; prompt: {choice.prompt_source}")
        print(result.outcome)
        if result.preview is not None:
            for d in result.diffs:
                sys.stdout.write(d.unified("before", "after"))
            if not result.diffs:
                print("(the dry run would change no file)")
        elif result.run_id:
            print(f"Run {result.run_id}; cursor {result.cursor_before} -> {result.cursor_after}.")
    return EXIT_FAILED if result.status in ("failed", "cancelled", "stopped") else EXIT_OK


def cmd_model(args) -> int:
    from .llm import LLMError, resolve_model

    ws = _open(args.path, args)
    try:
        choice, _ = resolve_model(ws.config(), _overrides(args), ws.root)
    except LLMError as exc:
        raise WorkspaceError(str(exc)) from None
    if args.json:
        _dump(choice.to_json())
        return EXIT_OK
    print(f"Model   {choice.describe()}")
    print(f"API     {choice.api}; sends the model as {choice.sent_model}; key: {choice.key_source}")
    print(f"Prompt  {choice.prompt_source}")
    print("Why")
    print("\n".join(f"  - {r}" for r in choice.reasons))
    return EXIT_OK


def _overrides(args):
    from .llm import Overrides
    return Overrides(provider=args.provider, model=args.model, base_url=args.base_url,
                     api_key_env=args.api_key_env, replay=args.replay)


def _model_args(s) -> None:
    src = s.add_argument_group("model (default: the workspace's config.json, resolved as the assistant does)")
    src.add_argument("--provider", metavar="NAME",
                     help="a provider nanobot knows (anthropic, openrouter, ollama...) or one under providers in "
                          "config.json; with --base-url it decides the API spoken (default: OpenAI-compatible)")
    src.add_argument("--base-url", metavar="URL")
    src.add_argument("--model", metavar="M")
    src.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")
    src.add_argument("--replay", metavar="FILE", help="play a recorded transcript instead of calling a model")
    src.add_argument("--timeout", type=float, default=120.0, metavar="S")


def _client_factory(ws: Workspace, args):
    from .llm import make_client, resolve_model

    def make():
        choice, key = resolve_model(ws.config(), _overrides(args), ws.root)
        return make_client(choice, key, timeout=args.timeout)
    return make


def cmd_compact(args) -> int:
    from .jobs.consolidator import nothing_to_compact
    from .llm import LLMError
    from .ops.compact import compact, no_sessions

    ws = _open_for_jobs(args.path, args)
    if ws.home is None:                  # (before the model is looked for, as the path was given)
        raise WorkspaceError(no_sessions(args.path))
    try:
        client = _client_factory(ws, args)()
    except LLMError as exc:
        print(f"dreamdesk: no model ({exc}); messages are kept as [RAW] entries", file=sys.stderr)
        client = None
    done = compact(ws, client, CLI, only=args.session).value
    results, lines = done.results, done.log
    if args.json:
        _dump({"results": [r.to_json() for r in results], "log": lines})
    else:
        print("\n".join(lines) if lines else nothing_to_compact())
        for note in (n for r in results for n in r.notes):
            print(f"Note: {note}")
    return EXIT_OK


def cmd_schedule(args) -> int:
    from .jobs.scheduler import Scheduler

    ws = _open(args.path, args)
    st = Scheduler(ws).status(datetime.now().astimezone())
    if args.json:
        _dump(st.to_json())
        return EXIT_OK
    print(st.text)
    if st.last_run:
        print(f"Last run: {clock.show_iso(st.last_run.get('finished'))} — {st.last_run.get('outcome')}")
    if st.last_error:
        print(f"Last error: {st.last_error}")
    if st.stuck:
        print(f"Stuck alarm: entries {st.stuck['batch'][0]}–{st.stuck['batch'][1]} held {st.stuck['held_runs']} runs.")
    for w in st.warnings:
        print(f"Warning: {w}")
    return EXIT_OK


def cmd_serve(args) -> int:
    import signal
    import threading

    from .jobs.service import serve

    ws = _open_for_jobs(args.path, args)
    stop = threading.Event()
    handlers = {sig: signal.signal(sig, lambda *a: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}

    def log(line: str) -> None:
        print(f"{datetime.now():%Y-%m-%d %H:%M:%S} {line}", flush=True)

    try:
        return serve(ws, _client_factory(ws, args), stop, log, tick_seconds=args.tick,
                     consolidate_every=args.compact_every, watch_removals=args.watch_removals)
    finally:
        for sig, h in handlers.items():
            signal.signal(sig, h)


def cmd_runs(args) -> int:
    rest = list(args.args)
    ws = _open(rest[0], args) if rest else None
    if not rest or len(rest) not in (1, 3) or (len(rest) == 3 and rest[1] != "show"):
        raise UsageError("dreamdesk runs: usage: dreamdesk runs PATH [--json] | dreamdesk runs PATH show ID [--json]")
    if len(rest) == 3:
        own = assistant_of(ws).assistant_runs(ws)
        if own is not None:
            return _show_own_run(own, rest[2], args)
    if len(rest) == 3 and not rest[2].startswith("r-"):
        return _show_commit_run(ws, rest[2], args)
    if len(rest) == 3:
        return _show_run(ws, rest[2], args)
    return _list_runs(ws, args)


def _show_run(ws: Workspace, run_id: str, args) -> int:
    from .dream import records
    rec = records.resolve(ws, records.load_run(ws, run_id))
    if args.json:
        _dump(rec)
        return EXIT_OK
    print(f"{rec['id']}  {rec.get('trigger')}  {rec.get('status')}  {clock.show_iso(rec.get('started'), True)} → "
          f"{clock.show_iso(rec.get('finished'), True)}")
    print(rec.get("outcome") or "")
    b = rec.get("batch") or {}
    print(f"Batch: cursors {b.get('first')}–{b.get('last')} ({b.get('count')} entries)")
    _print_run_changes(rec)
    for p in rec.get("passes", []):
        print(f"Pass {p['name']}: {p['iterations']} iteration(s), ended {p['ended']}, "
              f"{(p.get('tokens') or {}).get('total', 0):,} tokens")
    for f, sz in (rec.get("sizes") or {}).items():
        budget = f" / {sz['budget']:,}" if sz.get("budget") else ""
        print(f"  {f}: {sz['before']:,} -> {sz['after']:,}{budget}")
    um = rec.get("user_md")
    if um:
        from .text.diffs import diff_texts
        print("USER.md (peer card) before -> after:")
        sys.stdout.write(diff_texts(um.get("before"), um.get("after"), "USER.md").unified("before", "after"))
    if rec.get("pruned_at"):
        print(f"(pruned {rec['pruned_at']}: only facts that still exist are kept)")
    return EXIT_OK


def _print_run_changes(rec: dict) -> None:
    """What a run created, removed and was refused, one line each."""
    for f in rec.get("created", []):
        conf = f" ({f['confidence']})" if f.get("confidence") else ""
        print(f"  + [{f.get('kind')}{conf}] {f.get('file')}: {f.get('text')}  — {f.get('status')}"
              + (f" in {f['removed_in_run']}" if f.get("removed_in_run") else "")
              + f"  sources {f.get('sources')}")
    for f in rec.get("removed", []):
        rb = f"  → {f['replaced_by']}" if f.get("replaced_by") else ""
        print(f"  - {f.get('file')}: {f.get('text')}  [{f.get('archive_id') or 'not archived'}]{rb}")
    for r in rec.get("refused", []):
        why = {"shrink-only": "the review pass only shrinks", "pin": "a pinned entry"}.get(
            r.get("kind"), f"budget {r.get('budget') or 0:,}")
        print(f"  ! refused {r['file']}: would be {r['size']:,} ({why})")


def _list_runs(ws: Workspace, args) -> int:
    from .dream import records
    from .dream.run_list import cursor_move, every_run, token_totals, tokens_by_day
    every, problems, side = every_run(ws)
    if args.json:     # (the usage store as the listing read it: one read of it)
        _dump({"tokens": token_totals(tokens_by_day(ws, usage=side.usage)[0]), "runs": [r if r["writer"] == "assistant" else
                        {k: r.get(k) for k in ("id", "writer", "started", "finished", "trigger", "status", "outcome",
                                               "batch", "tokens", "pruned_at")}
                        | {"created_count": r.get("created_count", len(r.get("created", []))),
                           "removed_count": r.get("removed_count", len(r.get("removed", []))),
                           "refused_count": len(records.counted_refusals(r.get("refused") or []))} for r in every],
               "problems": [p.to_json() for p in problems]}
              | ({"restore_points": side.own.restore_points, "notes": side.own.notes} if side.own else {}))
        return EXIT_OK
    for p in problems:
        print(f"dreamdesk: {p}", file=sys.stderr)
    if not every:
        print("No Dream runs recorded yet.")
    for r in every:
        if r["writer"] == "assistant" and side.own is not None:
            print(f"{r['id']}  {clock.show_iso(r.get('started'))}  {r.get('author')} {r['kind']:<9} "
                  f"+{r['created_count']} -{r['removed_count']}  {r['status']}  {r['subject']}")
            continue
        if r["writer"] == "assistant":
            moved = cursor_move(r["cursor"]["before"], r["cursor"]["after"]) or ""
            tok = f"{r['tokens']['total']:,} tokens  " if r.get("tokens") else ""
            print(f"{r['id'][:8]}  {clock.show_iso(r.get('started'))}  assistant {r['kind']:<8} "
                  f"+{r['created_count']} -{r['removed_count']}  {moved}  {tok}{r['subject']}")
            continue
        b = r.get("batch") or {}
        tok = (r.get("tokens") or {}).get("total", 0)
        print(f"{r['id']}  {clock.show_iso(r.get('started'))}  {r.get('trigger', ''):<8} {r.get('status', ''):<13} cursors {b.get('first')}–{b.get('last')}  "
              f"+{len(r.get('created', []))} -{len(r.get('removed', []))}  {tok:,} tokens")
    if side.own is not None:
        _print_restore_points(side.own.restore_points)
    return EXIT_OK


def _print_restore_points(points: list[dict]) -> None:
    if points:
        print(f"Restore points ({len(points)}): MEMORY.md as the assistant saved it before a run rewrote it")
    for p in points:
        print(f"  {clock.show_iso(p['created_at'], True)}  {p['chars']:>7,} chars  {p['entries']:>3} entries  "
              f"{'before ' + p['run'] if p.get('run') else '(no run of it is known)'}")


def _show_own_run(own, run_id: str, args) -> int:
    """One run the assistant records itself, by its id (or the start of it)."""
    found = [r for r in own.runs if r["id"] == run_id] or [r for r in own.runs if r["id"].startswith(run_id)]
    if len(found) != 1:
        raise WorkspaceError(f"no run {run_id} here" if not found else f"{run_id} names {len(found)} runs: give more of it")
    r, d = found[0], found[0]["detail"]
    if args.json:
        _dump(r)
        return EXIT_OK
    print(f"{r['id']}  {clock.show_iso(r.get('started'), True)}  by {r.get('author')}  {r['status']}")
    print(r["subject"])
    for c in (c for c in d["added"] if c["why"] != "heading"):
        print(f"  + [{c['why']}] {c['text']}")
    for c in (c for c in d["removed"] if c["why"] != "heading"):
        print(f"  - [{c['why']}] {c['text']}" + (f"  → {c['other']}" if c.get("other") else ""))
    for x in d["diary"]:
        print(f"Diary ({x['when']}): {x['text']}")
    for p in d["reports"]:
        print(f"Report {p['phase']}: {p['path']} ({p['outcome'] or 'no outcome recorded'}"
              + ("" if p["latest"] else "; a later sweep that day rewrote it") + ")")
    if d.get("diff_unified"):
        sys.stdout.write(d["diff_unified"])
    elif d.get("diff_note"):
        print(f"MEMORY.md diff: {d['diff_note']}")
    return EXIT_OK


def _show_commit_run(ws: Workspace, rev: str, args) -> int:
    """One assistant's run (any snapshot commit), named by its sha: what the Dream runs tab shows."""
    from .versions.commit_log import load_history
    from .text.diffs import diff_texts
    from .dream.run_list import assistant_run_detail
    rec = load_history(ws).find(rev)
    if rec is None:
        raise WorkspaceError(f"no run {rev} in this workspace (a run id r-…, or a commit's sha, 7 characters or more)")
    d = assistant_run_detail(ws, rec.sha)
    before, after = d.peer_card
    if args.json:
        t = d.transcript
        _dump(rec.to_json() | {
            "peer_card": {"before": before, "after": after},
            "tokens": d.tokens.tokens.to_json() if d.tokens else None, "tokens_note": d.tokens_note,
            "transcript": None if t is None else {
                "key": t.key, "file": t.file, "answer": t.answer,
                "calls": [{"tool": c.name, "path": c.path, "arguments": c.arguments, "result": c.result,
                           "failed": c.failed} for c in t.calls]},
            "transcript_note": d.transcript_note})
        return EXIT_OK
    print(f"{rec.sha}  {clock.show_epoch(rec.time, True)}  by {rec.who} ({rec.author})  {rec.kind}")
    print(rec.subject)
    if rec.cursor[0] != rec.cursor[1]:
        print(f".dream_cursor {rec.cursor[0]} -> {rec.cursor[1]}")
    print(f"Tokens: {_tokens_line(d.tokens.tokens)}" if d.tokens else f"Tokens: {d.tokens_note}")
    for f in rec.files:
        print(f"{f.path}:")
        for e in f.added:
            print("  + " + e.text.replace("\n", "\n    "))
        for e in f.removed:
            print("  - " + e.text.replace("\n", "\n    ") + (f"  → {e.replaced_by}" if e.replaced_by else ""))
    if before != after:
        print("USER.md (peer card) before -> after:")
        sys.stdout.write(diff_texts(before, after, "USER.md").unified("before", "after"))
    if d.transcript is None:
        print(f"Transcript: {d.transcript_note}")
    else:
        print(f"Transcript {d.transcript.key} ({d.transcript.file}): the model's tool calls, in order")
        for n, c in enumerate(d.transcript.calls, 1):
            print(f"  {n}. {c.name} {c.path or ''}" + ("  (failed)" if c.failed else ""))
            for e in c.edits:
                if e.old_text is not None:
                    print("       old: " + e.old_text.strip().replace("\n", "\n            "))
                if e.new_text is not None:
                    print("       new: " + e.new_text.strip().replace("\n", "\n            "))
        if d.transcript.answer:
            print("  answer: " + d.transcript.answer.strip().replace("\n", "\n          "))
    return EXIT_OK


def cmd_usage(args) -> int:
    """The tokens the assistant's own Dream spent (nanobot's usage store), per run and per day."""
    from .assistants import nanobot_dreams, nanobot_usage

    ws = _open(args.path, args)
    usage = nanobot_usage.read_dream_usage(ws)
    runs: list = []
    if usage.calls:
        from .versions.commit_log import load_history
        from .dream.run_list import usage_runs
        runs = usage_runs(usage, nanobot_dreams.find_transcripts(ws).transcripts, load_history(ws))
    days = nanobot_usage.usage_by_day(usage.calls)
    if args.json:
        _dump({"state": usage.state, "message": usage.message, "store": str(usage.path) if usage.path else None,
               "total": usage.total.to_json(), "runs": [r.to_json() for r in runs],
               "days": [d.to_json() for d in days]})
        return EXIT_FAILED if usage.error else EXIT_OK
    if usage.error:
        print(f"dreamdesk: {usage.message}", file=sys.stderr)
        return EXIT_FAILED
    print(usage.message)
    if runs:
        print("Per Dream run:")
    for r in runs:
        print(f"  {clock.show(r.started)}  {r.key or '(no transcript)':<22}  "
              f"{('commit ' + r.sha[:8]) if r.sha else 'no commit':<15}  {_tokens_line(r.tokens)}")
    if days:
        print("Per day:")
    peak = max((d.tokens.total for d in days), default=0)
    for d in days:
        print(f"  {d.day.isoformat()}  {_bar(d.tokens.total / peak if peak else 0)}  {_tokens_line(d.tokens)}")
    return EXIT_OK


def cmd_lint(args) -> int:
    from .lint.memory_lint import counts, lint
    ws = _open(args.path, args)
    today = clock.today()
    found = lint(ws, today)
    if args.json:
        _dump({"today": today.isoformat(), "counts": counts(found), "findings": [f.to_json() for f in found]})
        return EXIT_OK
    for f in found:
        t = f.target
        first = t.text.split("\n")[0]
        more = "…" if len(first) > 100 or len(first) < len(t.text) else ""
        print(f"{t.file} {t.lines}  {f.kind}")
        print(f"    {first[:100]}{more}")
        print(f"    {f.reason}")
        print(f"    {f.advice}")
    tally = ", ".join(f"{n} {k}" for k, n in counts(found).items() if n)
    print(f"{len(found)} finding{'s' if len(found) != 1 else ''} ({tally}), as of {today.isoformat()}" if found
          else f"No findings, as of {today.isoformat()}.")
    return EXIT_OK


def _tokens_line(t) -> str:
    return f"{t.total:>9,} tokens ({t.input:,} in, {t.output:,} out; {t.calls} call{'s' if t.calls != 1 else ''})"


def cmd_install_desktop(args) -> int:
    """The menu entry, AppStream metainfo and icons in the user's data folder (or out of it)."""
    from .desktop import desktop_files
    out = desktop_files.uninstall() if args.uninstall else desktop_files.install()
    if args.json:
        _dump(out.to_json())
        return EXIT_OK
    why = "not one install-desktop wrote" + ("" if args.uninstall else "; move it away and run this again")
    lines = ([f"{out.action:<9} {p}" for p in out.done] + [f"not there {p}" for p in out.absent]
             + [f"kept      {p} ({why})" for p in out.foreign])
    if any(p.suffix == ".desktop" for p in out.done) and out.command:
        lines.append(f"The menu entry runs: {desktop_files.exec_value(out.command)}")
    lines += [f"refreshed the cache of {tool}" for tool in out.refreshed]
    print("\n".join(lines))
    return EXIT_OK


# -- parser --------------------------------------------------------------------------------
def _command(sub, name: str, help: str, func, *, json: bool = True, path: bool = True, agent: bool = True, **kw):
    """A subcommand taking the workspace PATH (and --json, --agent): the shape most commands share."""
    s = sub.add_parser(name, help=help, **kw)
    if path:
        s.add_argument("path", metavar="PATH", help="the home folder or the workspace folder")
    if json:
        s.add_argument("--json", action="store_true")
    if agent:
        s.add_argument("--agent", metavar="ID", help="an OpenClaw home with several agents: which agent's workspace "
                                                    "(default: its default agent)")
    s.set_defaults(func=func)
    return s


class _Version(argparse.Action):
    """--version: the installed version, looked up only when asked (it searches sys.path)."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, help="print Dreamdesk's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from .desktop.installation import version_text
        print(f"dreamdesk {version_text()}")
        parser.exit()


# the console script (gui/app/launcher.py) starts the desktop app for these two; the rest is this CLI
USAGE = ("dreamdesk [open PATH] [--new-window]\n       dreamdesk COMMAND PATH [options]\n"
         "       dreamdesk --version")
DESCRIPTION = """See, audit and repair what your assistant remembers.

the desktop app:
  dreamdesk             open the window on the last workspace (a private copy of the
                        demo on a first start)
  dreamdesk open PATH   open the window on PATH: an assistant's home folder or its
                        workspace folder
  While Dreamdesk runs, these bring its window to the front (opening PATH there)
  and end; with --new-window it opens a new window instead."""


def _restore_command(sub) -> None:
    s = _command(sub, "restore", "restore a snapshot, one file, or one hunk (undoable); --list, --undo [ID]",
                 cmd_restore,
                 usage="dreamdesk restore PATH REV [--file F | --hunk F:N [--hunk-id ID]] [--cursor] [--json]\n"
                       "       dreamdesk restore PATH --saved KEY [--json]\n"
                       "       dreamdesk restore PATH --list [--json]\n"
                       "       dreamdesk restore PATH --undo [ID] [--force] [--json]")
    s.add_argument("rev", metavar="REV", nargs="?")
    s.add_argument("--list", action="store_true", help="the recent restores that can be undone, newest first")
    s.add_argument("--undo", metavar="ID", nargs="?", const="",
                   help="undo the last restore, or the one with this id (from --list)")
    s.add_argument("--force", action="store_true",
                   help="with --undo: undo even over files changed since (what leaves USER.md / MEMORY.md is archived)")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--file", metavar="F")
    g.add_argument("--hunk", metavar="F:N", help="hunk N of `dreamdesk diff PATH REV --file F`")
    s.add_argument("--hunk-id", metavar="ID", help="the id `dreamdesk diff` showed for that hunk: refuse, writing "
                                                  "nothing, if hunk N is no longer that change")
    s.add_argument("--cursor", action="store_true", help="also move .dream_cursor back (whole restore only)")
    s.add_argument("--saved", metavar="KEY", help="a version the assistant saved of a memory file (OpenClaw's "
                                                 "MEMORY.md pre-images: `runs --json` restore_points), whole")


def _serve_and_desktop_commands(sub) -> None:
    s = _command(sub, "serve", "run the Consolidator and the Dream scheduler headless (Ctrl+C stops)",
                 cmd_serve, json=False)
    s.add_argument("--tick", type=float, default=1.0, metavar="S", help="seconds between scheduler checks")
    s.add_argument("--compact-every", type=float, default=60.0, metavar="S")
    s.add_argument("--watch", dest="watch_removals", action="store_true",
                   help="archive (reason outside) every entry another writer removes from USER.md or MEMORY.md")
    _model_args(s)

    s = _command(sub, "install-desktop", "put Dreamdesk in the desktop's menus: its entry, metainfo and icons "
                 "in $XDG_DATA_HOME (~/.local/share); --uninstall takes them away", cmd_install_desktop, path=False,
                 agent=False)
    s.add_argument("--uninstall", action="store_true", help="remove exactly the files install-desktop installs")


def _pin_prompt_scope_commands(sub) -> None:
    for name, what in (("pin", "pin an entry so Dreamdesk's Dream keeps it and its removal is flagged"),
                       ("unpin", "unpin an entry (by its text, or a line of it)")):
        s = _command(sub, name, what, {"pin": cmd_pin, "unpin": cmd_unpin}[name],
                     usage=f"dreamdesk {name} PATH FILE TEXT | dreamdesk {name} PATH FILE --line N [--json]")
        s.add_argument("file", metavar="FILE", help="SOUL.md, USER.md, memory/MEMORY.md or skills/<name>/SKILL.md")
        s.add_argument("text", metavar="TEXT", nargs="?", help="the entry's text (its list marker may be left off)")
        s.add_argument("--line", type=int, metavar="N", help="a line inside the entry (from 1)")

    s = _command(sub, "directive", "change a USER.md directive the assistant's way (OpenClaw: add one, supersede "
                 "one in place, retire one; undoable)", cmd_directive,
                 usage="dreamdesk directive PATH add TEXT | supersede N TEXT | retire N [--file F] [--json]")
    s.add_argument("action", choices=("add", "supersede", "retire"))
    s.add_argument("args", metavar="N|TEXT", nargs="*")
    s.add_argument("--file", default="USER.md", metavar="F", help="the USER.md (default: the workspace's own)")

    s = _command(sub, "pins", "pinned entries, each present or missing (and what replaced it)", cmd_pins)

    s = _command(sub, "prompts", "each Dream pass's instructions (default, edited here, or prompts/dream.md)",
                 cmd_prompts, usage="dreamdesk prompts PATH [--set PASS FILE|- | --reset PASS] [--json]")
    s.add_argument("--set", nargs=2, metavar=("PASS", "FILE"), help="replace a pass's instructions (FILE - : stdin)")
    s.add_argument("--reset", metavar="PASS", help="put a pass back to its default instructions")

    s = _command(sub, "scope", "which memory files Dreamdesk's Dream may write here; --close/--open to change it",
                 cmd_scope, usage="dreamdesk scope PATH [--close AREA]... [--open AREA]... [--json]")
    for flag, what in (("--close", "never let Dreamdesk's Dream write it here"), ("--open", "let it write it again")):
        s.add_argument(flag, action="append", metavar="AREA", help=f"SOUL.md, USER.md, MEMORY.md or skills: {what}")


def _archive_command(sub) -> None:
    s = _command(sub, "archive", "entries removed from USER.md / MEMORY.md; or: archive restore PATH ID",
                 cmd_archive, path=False,
                 usage="dreamdesk archive PATH [--json] [--search TEXT] [--file F] [--reason R] [--from W]\n"
                       "       dreamdesk archive restore PATH ID [--json] | dreamdesk archive PATH --restore ID\n"
                       "       dreamdesk archive delete PATH ID --yes")
    s.add_argument("args", nargs="+", metavar="ARGS")
    s.add_argument("--search", metavar="TEXT")
    s.add_argument("--file", metavar="F")
    s.add_argument("--reason", choices=REASONS + COMMIT_REASONS)
    s.add_argument("--from", dest="origin", choices=ORIGINS,
                   help="only entries known from the archive file, from a commit, or from a commit by that writer")
    s.add_argument("--restore", metavar="ID", help="restore the entry with this id (a-… or c-…), like archive restore")
    s.add_argument("--since", metavar="YYYY-MM-DD")
    s.add_argument("--until", metavar="YYYY-MM-DD")
    s.add_argument("--yes", action="store_true", help="confirm archive delete")
    s.add_argument("--templates", action="store_true",
                   help="list the assistant's template placeholders too (folded into one line otherwise)")


def _config_command(sub) -> None:
    """`dreamdesk config`: show, set (or preview an assistant's own setting), re-apply, forget."""
    s = _command(sub, "config", "show the effective config; config set PATH KEY VALUE; config reapply PATH "
                 "(write back what config.json lost)",
                 cmd_config, path=False,
                 usage="dreamdesk config PATH [--json]\n       dreamdesk config set PATH KEY VALUE "
                       "[--confirm-below-floor] [--dry-run]\n       dreamdesk config reapply PATH [--json]\n"
                       "       dreamdesk config forget PATH [KEY...] [--json]")
    s.add_argument("args", nargs="+", metavar="ARGS")
    s.add_argument("--confirm-below-floor", action="store_true",
                   help=f"allow reviewEveryRuns below {config_mod.REVIEW_FLOOR}")
    s.add_argument("--dry-run", action="store_true", help="OpenClaw's caps and dreaming: what the prompt would cut, "
                   "the next sweep; nothing written")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dreamdesk", usage=USAGE, description=DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version)
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND", prog="dreamdesk",
                           title="the command line (no window; dreamdesk COMMAND --help for one)")

    s = _command(sub, "status", "file sizes against budgets, cursors, pending history, problems", cmd_status)

    s = _command(sub, "files", "the memory files, each against the limit that really applies, and the entries "
                 "its assistant's cut hides from the prompt", cmd_files)

    s = _command(sub, "history", "history.jsonl entries with their status, and unreadable lines (an OpenClaw home: its "
                 "daily notes)", cmd_history)
    s.add_argument("--pending", action="store_true", help="only entries Dream has not processed")

    s = _command(sub, "prompt", "what a new chat would receive, part by part", cmd_prompt)
    s.add_argument("--text", action="store_true", help="print (or include in JSON) the text itself")
    s.add_argument("--new", action="store_true", help="a chat opened with /new (OpenClaw leads its first message "
                                                      "with today's and yesterday's daily notes)")

    _config_command(sub)

    s = _command(sub, "snapshots", "the snapshot timeline (git), newest first", cmd_snapshots)

    s = _command(sub, "diff", "memory-file diff from snapshot REV to REV2 or the working files", cmd_diff)
    s.add_argument("rev", metavar="REV")
    s.add_argument("rev2", metavar="REV2", nargs="?")
    s.add_argument("--file", metavar="F")

    _restore_command(sub)
    _archive_command(sub)

    _pin_prompt_scope_commands(sub)

    s = _command(sub, "dream", "run Dream once now (or --dry-run to preview its edits)", cmd_dream)
    s.add_argument("--dry-run", action="store_true", help="produce the edits and the diff; touch nothing")
    s.add_argument("--review", action="store_true", help="run the review pass first, whatever the cadence")
    s.add_argument("--verbose", "-v", action="store_true", help="log each tool call on stderr")
    s.add_argument("--max-tokens", type=int, metavar="N",
                   help="stop cleanly once the run has spent N tokens (0: no ceiling; default: the workspace's, "
                        "see `dreamdesk ceiling`)")
    _model_args(s)

    s = _command(sub, "lint", "copies, look-alikes, past plans, misplaced and over-long entries in the memory "
                 "files, and what the home's assistant adds (OpenClaw: the junk its dreaming promoted, [score=…] "
                 "metadata, directives left active, entries in the prompt cut); read-only, as of $DREAMDESK_TODAY "
                 "when set", cmd_lint)

    s = _command(sub, "ceiling", "the token ceiling of each of Dreamdesk's Dream runs here (--tokens N or --off)",
                 cmd_ceiling, usage="dreamdesk ceiling PATH [--tokens N | --off] [--json]")
    s.add_argument("--tokens", type=int, metavar="N", help="a run stops cleanly once it has spent N tokens")
    s.add_argument("--off", action="store_true", help="no ceiling")

    s = _command(sub, "model", "which model, provider, base URL and prompt Dream uses, and why", cmd_model)
    _model_args(s)

    s = _command(sub, "runs", "Dream run history; runs PATH show ID for one run with provenance",
                 cmd_runs, path=False,
                 usage="dreamdesk runs PATH [--json]\n       dreamdesk runs PATH show ID|SHA [--json]")
    s.add_argument("args", nargs="+", metavar="ARGS")

    s = _command(sub, "compact", f"run the Consolidator now: sessions -> history.jsonl (keeps the last {KEEP_LAST})",
                 cmd_compact)
    s.add_argument("--session", metavar="KEY")
    _model_args(s)

    s = _command(sub, "usage", "tokens the assistant's own Dream spent (nanobot's usage store), per run "
                 "and per day", cmd_usage)

    s = _command(sub, "schedule", "why a dream is (not) running, and when the next one is due", cmd_schedule)

    _serve_and_desktop_commands(sub)
    return p


def _asks_json(argv: list[str]) -> bool:
    """--json among the options (before a `--`): known even when the parser refused the rest."""
    return "--json" in (argv[:argv.index("--")] if "--" in argv else argv)


def _failed(words: str, code: int, as_json: bool, prefix: str = "dreamdesk: ") -> int:
    """An error: one line on stderr, and with --json also {"error": words} on stdout (a script
    reading stdout gets JSON whatever happened); the exit code says which kind it was."""
    words = redact.scrub(words)
    print(prefix + words, file=sys.stderr)
    if as_json:
        _dump({"error": words})
    return code


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        try:   # text that is not encodable (an unpaired surrogate) is shown escaped, never a crash
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = _asks_json(argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        as_json = bool(getattr(args, "json", as_json))
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        return args.func(args)
    except UsageError as exc:
        return _failed(str(exc), EXIT_BAD_INPUT, as_json, prefix="")
    except (ConflictError, LockHeld) as exc:
        return _failed(str(exc), EXIT_FAILED, as_json)
    except WorkspaceError as exc:
        return _failed(str(exc), EXIT_BAD_INPUT, as_json)
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        return _failed(describe_os_error(exc), EXIT_FAILED, as_json)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
