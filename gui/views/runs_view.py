"""Dream runs: every run record (memory/dreams/) and every run of the assistant's own (its snapshot
commits), newest first, and the selected run in full. Dreamdesk's run: its outcome note, the
facts it created with their status today and the history entries they came from (links that
jump to the history row), the facts it removed with their archive ids, the peer card (USER.md)
before → after, refused writes, file sizes, and its passes. The assistant's run: its commit (a
link to Snapshots), the entries it added and removed (each removal restorable), the cursor
move, the peer card, its Dream transcript's tool calls and its tokens, where the home keeps them."""

from __future__ import annotations

import html
import json
from datetime import tzinfo

from dreamdesk.engine.core import clock
from dreamdesk.engine.text.diffs import diff_texts
from dreamdesk.engine.text.entries import heading_label
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.restore_points import against_now, point_label
from dreamdesk.engine.dream.run_list import assistant_run_detail, every_run
from dreamdesk.engine.home.workspace import Workspace

from ..models.base import blend, theme
from ..models.history_model import preview
from ..models.runs_model import COL_ID, COL_STATUS, RunsModel, duration_label, is_assistant, time_label
from ..operations.archive_restore import restore_entry
from ..operations.restore import restore_saved
from ..operations.run import Initiator
from ..qt import (QTimer, QAbstractItemView, QColor, QEvent, QFontDatabase, QHBoxLayout, QLabel, QPalette, QTableView,
                  QTextBrowser, QVBoxLayout, QWidget, Signal)
from ..context.worker import JobLanes, Latest
from ..widgets.table_fit import ColumnFit, RowsFit
from .own_run_html import own_run_html, point_html
from .run_html import diff_html, html_table, pre_block
from .common import select_row_only, detail_splitter, empty_notice, link_color, read_latest, setup_table

EMPTY_TEXT = ("<h3>No Dream runs yet</h3>"
              "<p>Every Dream run writes a record to <code>memory/dreams/</code>: the history entries it read, "
              "the facts it created (with the entries they came from) and removed, the peer card before and "
              "after, refused writes and tokens. Run Dream from the engine panel, or let the schedule run it; "
              "its record shows up here.</p>"
              "<p>The assistant's own Dream runs show up here too, once it commits a change to SOUL.md, "
              "USER.md, memory/MEMORY.md or a skill in the workspace's snapshots.</p>")
SOURCE_CHARS = 220
# the retention (engine.dream.records.prune), as Honcho's: a run past 30 days with nothing left goes
NOTHING_LEFT = ("Nothing it created is left in the files. Past the 30-day retention a run with nothing left "
                "is deleted, as Honcho does: the next Dream run deletes this record (what it removed stays "
                "in the Archive).")
GONE_RUN = "No record of run {run} here: a run past 30 days with nothing left is deleted"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _num(v) -> str:
    return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else "—"


def detail_colors(palette: QPalette) -> dict[str, str]:
    """Colours for the detail HTML, derived from the palette so a dark theme stays readable."""
    text, base, dark = theme(palette)
    green = QColor(90, 200, 110) if dark else QColor(20, 125, 45)
    red = QColor(255, 120, 120) if dark else QColor(185, 20, 20)
    amber = QColor(240, 190, 80) if dark else QColor(165, 100, 0)
    return {
        "dim": blend(text, base, 0.45).name(),
        "good": blend(text, green, 0.75).name(),
        "warn": blend(text, amber, 0.8).name(),
        "bad": blend(text, red, 0.8).name(),
        "add_bg": blend(base, QColor(60, 170, 80), 0.28 if dark else 0.18).name(),
        "del_bg": blend(base, QColor(214, 60, 60), 0.28 if dark else 0.16).name(),
        "hunk": blend(text, QColor(120, 160, 255) if dark else QColor(40, 80, 180), 0.6).name(),
        "box": blend(base, text, 0.07).name(),
        "link": link_color(palette).name(),
        "assistant": blend(text, QColor(200, 150, 255) if dark else QColor(120, 50, 170), 0.75).name(),
    }


def link(href: str, label: str, c: dict[str, str]) -> str:
    return f"<a href='{html.escape(href)}' style='color:{c['link']}'>{html.escape(label)}</a>"


def source_text(content: str, limit: int = SOURCE_CHARS) -> str:
    """A history entry on one line: its list items joined by bullets."""
    items = [line.strip() for line in content.split("\n") if line.strip()]
    items = [x[2:] if x.startswith(("- ", "* ")) else x for x in items]
    return preview(" • ".join(items), limit)


def _status_html(fact: dict, c: dict[str, str]) -> str:
    st = fact.get("status")
    if st == "current":
        return f"<span style='color:{c['good']}'><b>current</b></span>"
    if st == "removed":
        by = fact.get("removed_in_run")
        if by:
            return f"<span style='color:{c['warn']}'><b>removed in {link('run:' + by, by, c)}</b></span>"
        return f"<span style='color:{c['warn']}'><b>removed by an edit</b></span>"
    if st is None:
        return f"<span style='color:{c['dim']}'><b>status unknown</b></span>"
    return f"<span style='color:{c['dim']}'><b>unavailable</b></span>"


def run_detail_html(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                    home_zone: tzinfo | None = None) -> str:
    """The detail pane for one resolved run record (records.resolve). `home_zone`: the zone of
    the history stamps (engine.clock.home_zone)."""
    e = html.escape
    rid = str(run.get("id"))
    status = str(run.get("status") or "—")
    scol = {"completed": c["good"], "failed": c["bad"]}.get(status, c["warn"] if status in
                                                            ("held", "cancelled", "stopped", "running", "interrupted") else c["dim"])
    out = [f"<h3 style='margin-bottom:2px'>{e(rid)} · <span style='color:{scol}'>{e(status)}</span></h3>"]
    if run.get("outcome"):
        out.append(f"<p style='margin-top:2px'>{e(str(run['outcome']))}</p>")
    batch = run.get("batch") or {}
    cur = run.get("cursor") or {}
    tokens = run.get("tokens") or {}
    facts = [("Started", e(time_label(run.get("started")))),
             ("Finished", e(time_label(run.get("finished"))) + f" ({e(duration_label(run))})"),
             ("Trigger", e(str(run.get("trigger") or "—")))]
    if run.get("model"):
        facts.append(("Model", e(str(run["model"]))))
    if batch:
        facts.append(("Batch", f"history cursors {_num(batch.get('first'))}–{_num(batch.get('last'))} "
                               + (f"({_plural(batch['count'], 'entry', 'entries')})"
                                  if isinstance(batch.get("count"), int) else "")))
    if cur:
        move = (f".dream_cursor {_num(cur.get('before'))} → {_num(cur.get('after'))}"
                + (" (held)" if cur.get("held") else "")
                + (" · stuck alarm" if cur.get("stuck_alarm") else ""))
        facts.append(("Cursor", e(move)))
    if tokens:
        facts.append(("Tokens", f"{_num(tokens.get('total'))} (prompt {_num(tokens.get('prompt'))}, "
                                f"completion {_num(tokens.get('completion'))})"))
    if run.get("snapshot_before"):
        facts.append(("Snapshot before", e(str(run["snapshot_before"])[:12])))
    if run.get("snapshot_error"):
        facts.append(("Snapshot", f"<span style='color:{c['warn']}'>{e(str(run['snapshot_error']))}</span>"))
    if run.get("error"):
        facts.append(("Error", f"<span style='color:{c['bad']}'>{e(str(run['error']))}</span>"))
    out.append("<table cellspacing='0' cellpadding='1'>" + "".join(
        f"<tr><td style='padding-right:12px; color:{c['dim']}'>{k}</td><td>{v}</td></tr>" for k, v in facts)
        + "</table>")
    if run.get("resolve_error"):
        out.append(f"<p style='color:{c['bad']}'>The status of this run's facts could not be worked out (the "
                   f"record looks damaged: {e(str(run['resolve_error']))}); it is shown as recorded.</p>")
    if run.get("pruned_at"):
        out.append(f"<p style='color:{c['warn']}'>Pruned {e(time_label(run['pruned_at']))}: past the 30-day "
                   "retention this record keeps only the facts it created that still exist, and its counts "
                   f"(created {_num(run.get('created_count'))}, removed {_num(run.get('removed_count'))}, "
                   f"peer card {'updated' if run.get('peer_card_updated') else 'not updated'}).</p>")
        if not run.get("created"):
            out.append(f"<p style='color:{c['dim']}'>{NOTHING_LEFT}</p>")

    out += _created_section(run, peer_diff, mono, c, home_zone)
    out += _removed_section(run, peer_diff, mono, c, home_zone)
    out += _peer_section(run, peer_diff, mono, c, home_zone)
    out += _refused_section(run, peer_diff, mono, c, home_zone)
    out += _sizes_section(run, peer_diff, mono, c, home_zone)
    out += _passes_section(run, peer_diff, mono, c, home_zone)
    return "".join(out)
def _created_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                     home_zone: tzinfo | None) -> list[str]:
    e = html.escape
    out: list[str] = []
    created = run.get("created") or []
    out.append(f"<h4 style='margin-bottom:0'>Created facts ({len(created)})</h4>")
    if created:
        out.append(f"<p style='margin-top:0; color:{c['dim']}'>Status today: current = still in the file · "
                   "removed in a run = a later run removed it · unavailable = no longer in the file "
                   "(edited away or deleted). Click a source to see its history entry.</p>")
    else:
        out.append(f"<p style='color:{c['dim']}'>None.</p>")
    for n, f in enumerate(created, 1):
        where = e(str(f.get("file")))
        if f.get("heading"):
            where += f" · {e(heading_label(str(f['heading'])))}"
        bits = [f"<i>{e(str(f.get('kind') or 'explicit'))}</i>"]
        if f.get("confidence"):
            bits.append(f"confidence {e(str(f['confidence']))}")
        if f.get("pass"):
            bits.append(f"{e(str(f['pass']))} pass")
        out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> {where} · {' · '.join(bits)} · "
                   f"{_status_html(f, c)}</p>")
        out.append(pre_block(f.get("text"), mono, c))
        sources = f.get("source_entries")
        if sources is None:
            sources = [{"cursor": s, "status": "unavailable"} for s in f.get("sources") or []]
        if not sources:
            out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>No source entries recorded "
                       "(a move or rewrite of text already in the files).</p>")
        for s in sources:
            cursor = s.get("cursor")
            if s.get("status") == "current" and s.get("content") is not None:
                text = e(source_text(str(s["content"])))
                ts = s.get("timestamp")
                when = f" <span style='color:{c['dim']}'>({e(clock.show_history(ts, home_zone))})</span>" if ts else ""
                anchor = link(f"cursor:{int(cursor)}", f"cursor {int(cursor)}", c)
                out.append(f"<p style='margin:0 0 0 16px'>from {anchor}{when}: {text}</p>")
            else:
                out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>from cursor {e(str(cursor))} · no longer "
                           "in memory/history.jsonl (dropped by the 1000-entry cap)</p>")
    return out


def _removed_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                     home_zone: tzinfo | None) -> list[str]:
    e = html.escape
    out: list[str] = []
    removed = run.get("removed") or []
    out.append(f"<h4 style='margin-bottom:0'>Removed facts ({len(removed)})</h4>")
    if not removed:
        out.append(f"<p style='color:{c['dim']}'>"
                   + ("Pruned with the record." if run.get("pruned_at") else "None.") + "</p>")
    for n, f in enumerate(removed, 1):
        aid = f.get("archive_id")
        arch = (f"archived as {link(f'archive:{aid}', str(aid), c)}" if aid else
                f"<span style='color:{c['dim']}'>not archived (only USER.md and MEMORY.md are)</span>")
        extra = ""
        if f.get("status") == "current":
            extra = f" · <span style='color:{c['good']}'>back in the file (restored)</span>"
        pas = f" · {e(str(f['pass']))} pass" if f.get("pass") else ""
        out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> {e(str(f.get('file')))}{pas} · {arch}{extra}</p>")
        out.append(pre_block(f.get("text"), mono, c))
        if f.get("replaced_by"):
            out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>replaced by:</p>")
            out.append(pre_block(f["replaced_by"], mono, c))
        else:
            out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>removed outright</p>")
    return out


def _peer_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                  home_zone: tzinfo | None) -> list[str]:
    out: list[str] = []
    out.append("<h4 style='margin-bottom:0'>Peer card (USER.md): before → after</h4>")
    if peer_diff:
        out.append(diff_html(peer_diff.rstrip("\n"), mono, c))
    elif run.get("pruned_at") and run.get("peer_card_updated"):
        out.append(f"<p style='color:{c['dim']}'>Updated; the before and after were pruned with the record.</p>")
    else:
        out.append(f"<p style='color:{c['dim']}'>This run did not change USER.md.</p>")
    return out


def _refused_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                     home_zone: tzinfo | None) -> list[str]:
    e = html.escape
    out: list[str] = []
    refused = records.size_refusals(run.get("refused") or [])
    pinned = records.pin_refusals(run.get("refused") or [])
    growth = [r for r in run.get("refused") or [] if isinstance(r, dict) and r not in refused and r not in pinned]
    out.append(f"<h4 style='margin-bottom:0'>Refused writes ({len(refused)})</h4>")
    if refused:
        out.append(html_table(["File", "Would have been", "Budget", "Before", "Pass"],
                          [[e(str(r.get("file"))), _num(r.get("size")), _num(r.get("budget")), _num(r.get("before")),
                            e(str(r.get("pass") or ""))] for r in refused], right={1, 2, 3}))
        for r in refused:
            if r.get("reason"):
                out.append(f"<p style='margin:2px 0 0 16px; color:{c['dim']}'>{e(str(r['reason']))}</p>")
    else:
        out.append(f"<p style='color:{c['dim']}'>None: every write fit its budget.</p>")
    if pinned:
        out.append(f"<h4 style='margin-bottom:0'>Refused to change pinned entries ({len(pinned)})</h4>")
        for r in pinned:
            out.append(f"<p style='margin:2px 0 0 16px; color:{c['dim']}'>{e(str(r.get('pass') or ''))} pass: "
                       f"{e(str(r.get('reason') or r.get('file')))}</p>")
    if growth:
        out.append(f"<p style='color:{c['dim']}'>The review pass also had {len(growth)} write(s) refused because "
                   "they would have grown a file (it only makes files smaller).</p>")
    return out


def _sizes_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                   home_zone: tzinfo | None) -> list[str]:
    e = html.escape
    out: list[str] = []
    sizes = run.get("sizes") or {}
    if sizes:
        out.append("<h4 style='margin-bottom:0'>File sizes (characters)</h4>")
        rows = []
        for rel, s in sizes.items():
            if not isinstance(s, dict):
                continue
            b, a, budget = s.get("before"), s.get("after"), s.get("budget")
            delta = ""
            if isinstance(a, int) and isinstance(b, int) and a != b:
                col = c["warn"] if a > b else c["good"]
                delta = f"<span style='color:{col}'>{a - b:+,}</span>"
            after = _num(a)
            if isinstance(a, int) and isinstance(budget, int) and budget and a > budget:
                after = f"<span style='color:{c['bad']}'>{after}</span>"
            rows.append([e(rel), _num(b), after, delta, _num(budget) if budget else "none"])
        out.append(html_table(["File", "Before", "After", "Change", "Budget"], rows, right={1, 2, 3, 4}))
    return out


def _passes_section(run: dict, peer_diff: str | None, mono: str, c: dict[str, str],
                    home_zone: tzinfo | None) -> list[str]:
    e = html.escape
    out: list[str] = []
    passes = run.get("passes") or []
    out.append(f"<h4 style='margin-bottom:0'>Passes ({len(passes)})</h4>")
    if passes:
        rows = []
        for p in passes:
            t = p.get("tokens") if isinstance(p.get("tokens"), dict) else {}
            ended = e(str(p.get("ended") or ""))
            if p.get("ended") not in (None, "done"):
                ended = f"<span style='color:{c['warn']}'>{ended}</span>"
            rows.append([e(str(p.get("name"))), _num(p.get("iterations")), ended, _num(t.get("total")),
                         e(str(p.get("error") or ""))])
        out.append(html_table(["Pass", "Iterations", "Ended", "Tokens", "Error"], rows, right={1, 3}))
    else:
        out.append(f"<p style='color:{c['dim']}'>No pass ran.</p>")
    return out




RESULT_CHARS = 300


def _edit_html(ed, mono: str, c: dict[str, str]) -> str:
    """One change a tool call asked for: old text struck on red, new text on green."""
    def box(text: str, bg: str) -> str:
        return (f"<pre style='white-space:pre-wrap; font-family:\"{mono}\"; margin:1px 0 1px 32px; "
                f"background-color:{bg}'>{html.escape(text)}</pre>")
    out = [f"<p style='margin:2px 0 0 32px; color:{c['dim']}'>{html.escape(ed.action)} in "
           f"{html.escape(ed.path)}:</p>"]
    if ed.old_text is not None:
        out.append(box(ed.old_text or "(empty)", c["del_bg"]))
    if ed.new_text is not None:
        out.append(box(ed.new_text or "(nothing: the text is deleted)", c["add_bg"]))
    return "".join(out)


def _tool_calls_html(tr, mono: str, c: dict[str, str]) -> str:
    e = html.escape
    out = [f"<h4 style='margin-bottom:0'>The model's tool calls ({len(tr.calls)})</h4>",
           f"<p style='margin-top:0; color:{c['dim']}'>From nanobot's Dream transcript {e(tr.key)} "
           f"({e(tr.file)}), in the order the model made them.</p>"]
    for n, call in enumerate(tr.calls, 1):
        state = (f" · <span style='color:{c['bad']}'><b>failed</b></span>" if call.failed else "")
        path = f" {e(call.path)}" if call.path else ""
        out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> <code>{e(call.name)}</code>{path}{state}</p>")
        out.extend(_edit_html(ed, mono, c) for ed in call.edits)
        result = "no result recorded" if call.result is None else preview(call.result, RESULT_CHARS)
        col = c["bad"] if call.failed else c["dim"]
        out.append(f"<p style='margin:1px 0 0 32px; color:{col}'>→ {e(result)}</p>")
    if tr.answer:
        out.append(f"<p style='margin:8px 0 0 0'><b>Answer:</b> {e(preview(tr.answer, RESULT_CHARS))}</p>")
    return "".join(out)


def _entry_where(path: str, heading: str | None) -> str:
    where = html.escape(path)
    return where + (f" · {html.escape(heading_label(heading))}" if heading else "")


def assistant_run_html(d, peer_diff: str | None, mono: str, c: dict[str, str]) -> str:
    """The detail pane for one of the assistant's runs (engine.dream.run_list.AssistantRunDetail)."""
    e = html.escape
    rec = d.rec
    out = [f"<h3 style='margin-bottom:2px'>{e(rec.kind)} · commit {e(rec.sha[:8])} · "
           f"<span style='color:{c['assistant']}'>by the assistant</span></h3>",
           f"<p style='margin-top:2px'>{e(rec.subject)}</p>"]
    cur = rec.cursor
    tokens = (f"{d.tokens.tokens.total:,} (prompt {d.tokens.tokens.input:,}, completion "
              f"{d.tokens.tokens.output:,}; {_plural(d.tokens.tokens.calls, 'call', 'calls')})"
              if d.tokens else f"<span style='color:{c['dim']}'>{e(d.tokens_note or '')}</span>")
    transcript = (f"{e(d.transcript.key)} ({e(d.transcript.file)})" if d.transcript
                  else f"<span style='color:{c['dim']}'>{e(d.transcript_note or '')}</span>")
    facts = [("When", e(clock.show_epoch(rec.time, True))),
             ("By", f"the assistant ({e(rec.author)}), not Dreamdesk"),
             ("Commit", f"{e(rec.sha[:12])} · {link('commit:' + rec.sha, 'show in Snapshots', c)}"),
             ("Files", e(", ".join(f.path for f in rec.files)) or "—"),
             ("Cursor", e(f".dream_cursor {_num(cur[0])} → {_num(cur[1])}" if cur[0] != cur[1]
                          else f".dream_cursor unchanged ({_num(cur[1])})")),
             ("Tokens", tokens), ("Transcript", transcript)]
    out.append("<table cellspacing='0' cellpadding='1'>" + "".join(
        f"<tr><td style='padding-right:12px; color:{c['dim']}'>{k}</td><td>{v}</td></tr>" for k, v in facts)
        + "</table>")

    out.append(f"<h4 style='margin-bottom:0'>Removed entries ({len(d.removed)})</h4>")
    if not d.removed:
        out.append(f"<p style='color:{c['dim']}'>None.</p>")
    for n, r in enumerate(d.removed, 1):
        if r.back:
            act = f"<span style='color:{c['good']}'>back in the file</span>"
        elif r.prune_id:
            act = f"{e(r.prune_id)} · " + link(f"restore:{r.prune_id}", "Restore", c)
        else:
            act = f"<span style='color:{c['dim']}'>restore it from Snapshots</span>"
        out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> {_entry_where(r.path, r.entry.heading)} · {act}</p>")
        out.append(pre_block(r.entry.text, mono, c))
        if r.entry.replaced_by:
            out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>replaced by:</p>")
            out.append(pre_block(r.entry.replaced_by, mono, c))
        else:
            out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>removed outright</p>")

    added = rec.added()
    out.append(f"<h4 style='margin-bottom:0'>Added entries ({len(added)})</h4>")
    if not added:
        out.append(f"<p style='color:{c['dim']}'>None.</p>")
    for n, (path, entry) in enumerate(added, 1):
        out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> {_entry_where(path, entry.heading)}</p>")
        out.append(pre_block(entry.text, mono, c))

    out.append("<h4 style='margin-bottom:0'>Peer card (USER.md): before → after</h4>")
    out.append(diff_html(peer_diff.rstrip("\n"), mono, c) if peer_diff else
               f"<p style='color:{c['dim']}'>This run did not change USER.md.</p>")
    if d.transcript:
        out.append(_tool_calls_html(d.transcript, mono, c))
    return "".join(out)


class RunDialogs:
    """The question the runs view asks before a restore; tests replace this object."""

    def confirm(self, parent: QWidget, title: str, text: str) -> bool:
        from .archive_view import ArchiveDialogs     # here: archive_view imports this module
        return ArchiveDialogs().confirm(parent, title, text)


class RunsView(QWidget):
    status = Signal(str)
    historyCursorRequested = Signal(int)     # a source entry's link: show that history row
    archiveEntryRequested = Signal(str)      # a removed fact's archive id link
    snapshotRequested = Signal(str)          # an assistant's run's commit link: show that snapshot
    restored = Signal(str)                   # an entry an assistant's run removed is back (its prune id)

    def __init__(self, engine: JobLanes, parent: QWidget | None = None):
        super().__init__(parent)
        self.engine = engine
        self.ws: Workspace | None = None
        self.problems: list = []
        self.shown: dict | None = None           # the resolved record in the detail pane
        self.loaded = False                      # the current workspace's runs have been read
        self._shown_diff: str | None = None
        self._home_zone = None                    # the zone of the history stamps it shows
        self.shown_assistant = None               # the assistant's run in the detail (AssistantRunDetail)
        self.side = None                          # what the home holds about the assistant's runs
        self.dialogs = RunDialogs()
        self.restoring = False
        self._list_token = Latest()
        self._wanted: str | None = None         # a run asked for before the rows arrived
        self._detail_token = Latest()
        self.mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()

        self.model = RunsModel(self)
        self.table = QTableView()
        setup_table(self.table, self.model, QAbstractItemView.SelectionMode.SingleSelection, pixel_scroll=False)
        # the run id (also above its detail) gives way; the statuses further down keep their width
        self.columns = ColumnFit(self.table, elastic=COL_ID, least=0, samples={COL_STATUS: "wrote-nothing"})

        self.summary = QLabel()
        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        self.detail.setPlaceholderText("Select a run to see what it changed.")
        self.detail.anchorClicked.connect(self._on_anchor)

        self.empty = empty_notice(EMPTY_TEXT)
        self.splitter = detail_splitter("runsSplitter", self.table, self.detail, (1, 3), [200, 500])
        self.rows = RowsFit(self.splitter, self.table, share=0.5)

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.splitter, 1)
        lay.addWidget(self.empty, 1)

        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self._update_state()

    # ---- public API ------------------------------------------------------------------------

    def set_workspace(self, ws: Workspace) -> None:
        if self.ws is None or ws.root != self.ws.root:
            self.loaded = False
            self.model.set_runs([])
            self._show(None, None)
            self._update_state()
        self.ws = ws
        self.refresh()

    def refresh(self) -> None:
        """Re-read memory/dreams/ and the assistant's commits, transcripts and tokens on the reader
        thread; keeps the selected run (or picks the newest)."""
        read_latest(self, self._list_token, "read Dream runs", every_run,
                    lambda result: self._set_runs(*result),
                    lambda msg: self.status.emit(f"Could not read the Dream runs: {msg}"))

    def selected_run(self) -> dict | None:
        index = self.table.currentIndex()
        return self.model.run(index.row()) if index.isValid() else None

    def select_run(self, run_id: str) -> bool:
        """Select one run; one not listed yet is selected when the read under way arrives (a
        listing already there is read again first: the run may have just been recorded)."""
        row = self.model.row_for_id(run_id)
        if row is None:
            self._wanted = run_id
            if self.loaded and self.ws is not None:
                self.refresh()
            return False
        select_row_only(self.table, self.model.index(row, 0))
        self.table.scrollTo(self.model.index(row, 0))
        return True

    # ---- internals -------------------------------------------------------------------------

    def _set_runs(self, runs: list[dict], problems: list, side=None) -> None:
        current = self.selected_run()
        keep = current.get("id") if current else None
        self.problems = list(problems)
        self.side = side
        self.loaded = True
        self.model.set_runs(runs)
        self._update_state()
        if self._wanted is not None and self.model.row_for_id(self._wanted) is None:
            self.status.emit(GONE_RUN.format(run=self._wanted))
            self._wanted = None
        if not runs:
            self._show(None, None)
            return
        wanted, self._wanted = self._wanted, None
        row = self.model.row_for_id(wanted or keep) if wanted or keep else None
        row = 0 if row is None else row
        # The reset cleared the current index, so this reloads the detail (its facts' status
        # may have changed since it was shown) and keeps its scroll position for the same run.
        select_row_only(self.table, self.model.index(row, 0))

    def _update_state(self) -> None:
        n = self.model.rowCount()
        self.empty.setVisible(self.loaded and n == 0)
        self.splitter.setVisible(n > 0 or not self.loaded)
        theirs = self.model.assistant_count()
        text = (_plural(n, "Dream run", "Dream runs") + (f" ({theirs:,} by the assistant)" if theirs else "")
                + " · newest first") if n else ""
        if self.problems:
            text += (" · " if text else "") + _plural(len(self.problems), "unreadable record", "unreadable records") \
                + " skipped"
        self.summary.setText(text)
        self.summary.setToolTip("\n".join(str(p) for p in self.problems))
        self.summary.setVisible(bool(text))

    def _current_changed(self, current, previous) -> None:
        if current.isValid():
            self._load_detail(current.row())
        else:
            self._show(None, None)

    def _load_detail(self, row: int) -> None:
        rec = self.model.run(row)
        if rec is None:
            return
        if is_assistant(rec) and rec.get("detail") is not None:
            self._show_own(rec)            # a run the assistant records itself: read with the listing
            return
        if is_assistant(rec):
            self._load_assistant_detail(rec)
            return

        def job(ws: Workspace):
            try:
                resolved = records.resolve(ws, records.load_run(ws, rec.get("id")))
            except Exception as exc:  # noqa: BLE001 - a damaged record is still shown, as it is
                resolved = json.loads(json.dumps(rec, default=str))
                resolved["resolve_error"] = f"{type(exc).__name__}: {exc}"
            um = resolved.get("user_md")
            diff = None
            if isinstance(um, dict) and isinstance(um.get("before"), str) and isinstance(um.get("after"), str):
                diff = diff_texts(um["before"], um["after"], "USER.md").unified("before", "after") or None
            return resolved, diff, clock.home_zone(ws.config())

        read_latest(self, self._detail_token, f"resolve run {rec.get('id')}", job,
                    lambda result: self._show_changed(*result), lambda msg: self._show_error(rec.get("id"), msg))

    def _show_changed(self, resolved: dict, diff: str | None, home_zone: tzinfo | None) -> None:
        """The detail as resolved again, unless it reads exactly as shown (a refresh after nothing
        changed in this run: the pane is not laid out again, and stays where it was scrolled)."""
        if self.shown_assistant is None and (resolved, diff, home_zone) == (self.shown, self._shown_diff,
                                                                           self._home_zone):
            return
        self._show(resolved, diff, home_zone)

    def _load_assistant_detail(self, rec: dict) -> None:
        side, sha = self.side, str(rec.get("commit"))

        def job(ws: Workspace):
            d = assistant_run_detail(ws, sha, side)
            before, after = d.peer_card
            diff = diff_texts(before, after, "USER.md").unified("before", "after") if before != after else None
            return d, diff or None

        read_latest(self, self._detail_token, f"read the assistant's run {sha[:8]}", job,
                    lambda result: self._show_assistant(rec, *result), lambda msg: self._show_error(sha[:8], msg))

    def _show_assistant(self, rec: dict, detail, diff: str | None) -> None:
        same = self.shown is not None and rec.get("id") == self.shown.get("id")
        scroll = self.detail.verticalScrollBar().value() if same else 0
        self.shown, self.shown_assistant, self._shown_diff = rec, detail, diff
        self.detail.setHtml(assistant_run_html(detail, diff, self.mono, detail_colors(self.detail.palette())))
        self.detail.verticalScrollBar().setValue(scroll)

    def _show_own(self, rec: dict) -> None:
        same = self.shown is not None and rec.get("id") == self.shown.get("id")
        scroll = self.detail.verticalScrollBar().value() if same else 0
        self.shown, self.shown_assistant, self._shown_diff = rec, None, None
        self.detail.setHtml(own_run_html(rec, self.mono, detail_colors(self.detail.palette()), self._points()))
        self.detail.verticalScrollBar().setValue(scroll)

    def _points(self) -> list[dict]:
        own = getattr(self.side, "own", None)
        return list(own.restore_points) if own is not None else []

    def show_point(self, key: str) -> None:
        """A saved version (restore point) against the file now, read-only, in the detail pane."""
        point = next((p for p in self._points() if p.get("key") == key), None)
        ws, run_id = self.ws, (self.shown or {}).get("id")
        if point is None or ws is None:
            return
        self.engine.read("compare a saved version", lambda ctx: against_now(ws, point),
                         lambda unified: self.detail.setHtml(point_html(
                             point, unified, run_id, self.mono, detail_colors(self.detail.palette()))),
                         lambda msg: self.status.emit(f"Could not compare the saved version: {msg}"))

    def restore_point(self, key: str) -> None:
        """Put MEMORY.md back as the assistant saved it (engine.dream.restore_points: a snapshot
        first, what leaves it archived), after asking."""
        point = next((p for p in self._points() if p.get("key") == key), None)
        ws = self.ws
        if point is None or ws is None or self.restoring:
            return
        text = (f"Put {point.get('file') or 'MEMORY.md'} back as it was saved {point_label(point)}?\n\n"
                "What leaves it is archived first and a snapshot is taken; undo it with Ctrl+Alt+Z "
                "(Edit → Undo Last Restore).")
        if not self.dialogs.confirm(self, "Restore a saved version", text):
            self.status.emit("Restore cancelled; nothing was written")
            return
        self.restoring = True

        def done(result) -> None:
            self.restoring = False
            self.show_point(key)                # the saved version against the file now: the same now
        restore_saved(Initiator(self.engine, "runs", self.status.emit), ws, key, done=done,
                      failed=self._restore_failed)

    def restore_entry(self, prune_id: str) -> None:
        """Put back an entry the assistant's run removed (engine.prunes.restore_prune: a snapshot
        first, under its heading, the file's own line endings), after asking."""
        d, ws = self.shown_assistant, self.ws
        gone = next((r for r in d.removed if r.prune_id == prune_id), None) if d else None
        if gone is None or ws is None or self.restoring:
            return
        text = (f"Put this entry back into {gone.path}?\n\n{gone.entry.text}\n\nA snapshot is taken first; "
                "undo it with Ctrl+Alt+Z (Edit → Undo Last Restore).")
        if not self.dialogs.confirm(self, "Restore an entry the assistant removed", text):
            self.status.emit("Restore cancelled; nothing was written")
            return
        self.restoring = True
        restore_entry(Initiator(self.engine, "runs", self.status.emit), ws, prune_id,
                      done=lambda result: self._restore_done(prune_id, result.value),
                      failed=self._restore_failed)

    def _restore_failed(self, _message: str) -> None:
        self.restoring = False

    def _restore_done(self, prune_id: str, result) -> None:
        self.restoring = False
        if result.files:
            self.restored.emit(prune_id)
        if self.shown is not None and is_assistant(self.shown):
            self._load_assistant_detail(self.shown)

    def _show_error(self, run_id, msg: str) -> None:
        self.shown, self._shown_diff, self.shown_assistant = None, None, None
        self.detail.setHtml(f"<h3>{html.escape(str(run_id))}</h3><p>This run record could not be read: "
                            f"{html.escape(msg)}</p>")
        self.status.emit(f"Could not read run {run_id}: {msg}")

    def _show(self, resolved: dict | None, diff: str | None, home_zone: tzinfo | None = None) -> None:
        same = resolved is not None and self.shown is not None and resolved.get("id") == self.shown.get("id")
        scroll = self.detail.verticalScrollBar().value() if same else 0
        self.shown, self._shown_diff, self._home_zone = resolved, diff, home_zone
        self.shown_assistant = None
        if resolved is None:
            self.detail.clear()
            return
        try:
            text = run_detail_html(resolved, diff, self.mono, detail_colors(self.detail.palette()), home_zone)
        except Exception as exc:  # noqa: BLE001 - a damaged record is shown as such, never a crash
            self._show_error(resolved.get("id"), f"{type(exc).__name__}: {exc}")
            return
        self.detail.setHtml(text)
        self.detail.verticalScrollBar().setValue(scroll)

    def _on_anchor(self, url) -> None:
        scheme, _, value = url.toString().partition(":")
        if scheme == "cursor" and value.isdigit():
            self.historyCursorRequested.emit(int(value))
        elif scheme == "run" and value:
            self.select_run(value)
        elif scheme == "archive" and value:
            self.archiveEntryRequested.emit(value)
        elif scheme == "commit" and value:
            self.snapshotRequested.emit(value)
        elif scheme == "restore" and value:
            self.restore_entry(value)
        elif scheme == "point" and value:
            self.show_point(value)
        elif scheme == "restore-point" and value:
            self.restore_point(value)
        elif scheme == "back" and self.shown is not None and self.shown.get("detail") is not None:
            self._show_own(self.shown)

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.model.set_palette(self.palette())
            # re-render after the children have taken the new palette too (they get it later)
            QTimer.singleShot(0, self._rerender)
        super().changeEvent(event)

    def _rerender(self) -> None:
        if self.shown_assistant is not None:
            self._show_assistant(self.shown, self.shown_assistant, self._shown_diff)
        elif self.shown is not None and self.shown.get("detail") is not None:
            self._show_own(self.shown)
        elif self.shown is not None:
            self._show(self.shown, self._shown_diff, self._home_zone)
