"""HTML pieces of a run's detail pane, shared by the views that show a run: a text box, a table,
a unified diff with its added and removed lines tinted."""

from __future__ import annotations

import html


def pre_block(text: str | None, mono: str, c: dict[str, str]) -> str:
    if text is None:
        return f"<p style='margin:2px 0 6px 16px; color:{c['dim']}'><i>[text deleted]</i></p>"
    return (f"<pre style='white-space:pre-wrap; font-family:\"{mono}\"; margin:2px 0 4px 16px; "
            f"background-color:{c['box']}'>{html.escape(str(text))}</pre>")


def html_table(header: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> str:
    def td(i: int, v: str, tag: str = "td") -> str:
        align = " align='right'" if i in right else " align='left'"
        return f"<{tag}{align} style='padding:1px 10px 1px 0'>{v}</{tag}>"
    head = "<tr>" + "".join(td(i, f"<b>{h}</b>", "th") for i, h in enumerate(header)) + "</tr>"
    body = "".join("<tr>" + "".join(td(i, v) for i, v in enumerate(r)) + "</tr>" for r in rows)
    return f"<table cellspacing='0' cellpadding='2' style='margin-left:16px'>{head}{body}</table>"


def diff_html(unified: str, mono: str, c: dict[str, str]) -> str:
    """A unified diff, one block per line, added and removed lines on a tinted background."""
    out = []
    for line in unified.split("\n"):
        if line.startswith(("+++", "---")):
            style = f"color:{c['dim']}"
        elif line.startswith("@@"):
            style = f"color:{c['hunk']}"
        elif line.startswith("+"):
            style = f"background-color:{c['add_bg']}"
        elif line.startswith("-"):
            style = f"background-color:{c['del_bg']}"
        else:
            style = ""
        out.append(f"<p style='margin:0; white-space:pre-wrap; font-family:\"{mono}\"; {style}'>"
                   f"{html.escape(line) or '&nbsp;'}</p>")
    return f"<div style='margin-left:16px'>{''.join(out)}</div>"
