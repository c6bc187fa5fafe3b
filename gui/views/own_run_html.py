"""The detail of a run the assistant records itself (engine.assistants.base.AssistantRuns: OpenClaw's
dreaming sweeps and `promote --apply`): its counts, the entries it added and removed (with what
replaced each), its diary, its phase reports and its MEMORY.md diff, or why that diff is not known."""

from __future__ import annotations

import html

from dreamdesk.engine.dream.restore_points import RESTORE_NOTE, point_label

from ..models.runs_model import time_label
from .run_html import diff_html, html_table, pre_block

REPLACED_WHY = {"merged": "merged into", "superseded": "superseded by", "replaced": "replaced by",
                "compacted": "compacted away", "outside": "removed outside a run"}


def own_run_html(run: dict, mono: str, c: dict[str, str], points: list[dict] | None = None) -> str:
    """`points`: the saved versions the assistant keeps (restore points), newest first: each a link
    to its diff against the file now."""
    e = html.escape
    d = run.get("detail") or {}
    points = points or []
    before = next((p for p in points if p.get("key") == d.get("preimage")), None)
    status = str(run.get("status") or "—")
    scol = c["good"] if status == "ok" else c["bad"] if status == "failed" else c["warn"]
    out = [f"<h3 style='margin-bottom:2px'>{e(str(run.get('kind')))} · "
           f"<span style='color:{c['assistant']}'>by {e(str(run.get('author')))}</span> · "
           f"<span style='color:{scol}'>{e(status)}</span></h3>",
           f"<p style='margin-top:2px'>{e(str(run.get('subject') or ''))}</p>"]
    counts = d.get("counts")
    facts = [("When", e(time_label(run.get("started")))),
             ("By", f"the assistant ({e(str(run.get('author')))}), not Dreamdesk"),
             ("Trigger", e(str(run.get("trigger") or "—"))),
             ("Counts", e(f"added {counts['added']}, merged {counts['merged']}, superseded {counts['superseded']}"
                          " (its consolidation history)") if counts else "—"),
             ("Saved version", "MEMORY.md before it: " + _point_link(before, c) if before is not None else
              e(f"MEMORY.md before it: {d['preimage']}") if d.get("preimage") else "none kept"),
             ("Files", e(", ".join(run.get("files") or [])) or "—"),
             ("Run", e(str(run.get("id"))))]
    out.append("<table cellspacing='0' cellpadding='1'>" + "".join(
        f"<tr><td style='padding-right:12px; color:{c['dim']}'>{k}</td><td>{v}</td></tr>" for k, v in facts)
        + "</table>")
    out += _points(points, c)
    out += _entries(d, mono, c)
    out += _diary(d, mono, c)
    out += _reports(d, c)
    out.append("<h4 style='margin-bottom:0'>MEMORY.md: before → after</h4>")
    if d.get("diff_unified"):
        if d.get("diff_note"):
            out.append(f"<p style='color:{c['dim']}'>{e(d['diff_note'])}</p>")
        out.append(diff_html(d["diff_unified"].rstrip("\n"), mono, c))
    else:
        out.append(f"<p style='color:{c['dim']}'>{e(d.get('diff_note') or 'This run did not change MEMORY.md.')}</p>")
    return "".join(out)


def _entries(d: dict, mono: str, c: dict[str, str]) -> list[str]:
    e = html.escape
    out: list[str] = []
    for title, items in (("Added entries", d.get("added") or []), ("Removed entries", d.get("removed") or [])):
        items = [x for x in items if x.get("why") != "heading"]
        out.append(f"<h4 style='margin-bottom:0'>{title} ({len(items)})</h4>")
        if not items:
            out.append(f"<p style='color:{c['dim']}'>None.</p>")
        for n, x in enumerate(items, 1):
            where = e(f"MEMORY.md · {x['heading']}") if x.get("heading") else "MEMORY.md"
            out.append(f"<p style='margin:8px 0 0 0'><b>{n}.</b> {where} · {e(str(x.get('why')))}</p>")
            out.append(pre_block(x.get("text"), mono, c))
            if x.get("other") and title.startswith("Removed"):
                label = REPLACED_WHY.get(str(x.get("why")), "replaced by")
                out.append(f"<p style='margin:0 0 0 16px; color:{c['dim']}'>{e(label)}:</p>")
                out.append(pre_block(x["other"], mono, c))
    return out


def _diary(d: dict, mono: str, c: dict[str, str]) -> list[str]:
    diary = d.get("diary") or []
    if not diary:
        return []
    out = [f"<h4 style='margin-bottom:0'>Diary ({len(diary)})</h4>"]
    for x in diary:
        out.append(f"<p style='margin:6px 0 0 0; color:{c['dim']}'>{html.escape(str(x.get('when')))}</p>")
        out.append(pre_block(x.get("text"), mono, c))
    return out


def _reports(d: dict, c: dict[str, str]) -> list[str]:
    reports = d.get("reports") or []
    if not reports:
        return []
    rows = [[html.escape(str(p["phase"])), html.escape(str(p["path"])), html.escape(str(p.get("outcome") or "—")),
             "" if p.get("latest") else f"<span style='color:{c['dim']}'>rewritten by a later sweep that day</span>"]
            for p in reports]
    return ["<h4 style='margin-bottom:0'>Phase reports</h4>", html_table(["Phase", "File", "Outcome", ""], rows)]


def _point_link(p: dict, c: dict[str, str]) -> str:
    return f"<a href='point:{html.escape(str(p.get('key')))}' style='color:{c['link']}'>{html.escape(point_label(p))}</a>"


def _points(points: list[dict], c: dict[str, str]) -> list[str]:
    """The saved versions, each a link to its diff against the file now (read-only)."""
    if not points:
        return []
    rows = "".join(f"<li>{_point_link(p, c)} · {p.get('chars', 0):,} characters, {p.get('entries', 0)} entries"
                   + (f" · before {html.escape(str(p['run']))}" if p.get("run") else "") + "</li>" for p in points)
    return [f"<h4 style='margin-bottom:0'>Restore points ({len(points)}): MEMORY.md as OpenClaw saved it</h4>",
            f"<p style='margin:2px 0; color:{c['dim']}'>{html.escape(RESTORE_NOTE)}.</p>", f"<ul>{rows}</ul>"]


def point_html(point: dict, unified: str, run_id: str | None, mono: str, c: dict[str, str]) -> str:
    """A saved version against the file now, read-only, with the way back to the run shown."""
    e = html.escape
    back = f"<p><a href='back:{e(run_id)}' style='color:{c['link']}'>← back to the run</a></p>" if run_id else ""
    out = [back, f"<h3 style='margin-bottom:2px'>MEMORY.md saved {e(point_label(point))} → the file now</h3>",
           f"<p style='margin-top:2px; color:{c['dim']}'>{e(RESTORE_NOTE)}.</p>"]
    if unified:
        out.append(f"<p><a href='restore-point:{e(str(point.get('key')))}' style='color:{c['link']}'>"
                   "Restore this version…</a></p>")
    out.append(diff_html(unified.rstrip("\n"), mono, c) if unified else
               f"<p style='color:{c['dim']}'>The file now is this saved version, byte for byte.</p>")
    return "".join(out)
