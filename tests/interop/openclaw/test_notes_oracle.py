"""Which files are daily notes, their day and OpenClaw's order of them (issue 28 item 4) equal what
OpenClaw 2026.9.6's own functions say: one Node process imports the module that defines
parseDailyMemoryFileName and compareDailyMemoryFilesByNewestDay (dist/dreaming-ingestion-state-*.mjs)
and runs them on awkward names. (The /new prelude that says which notes are quoted is checked
against OpenClaw's function in test_bootstrap_oracle.py and against real turns in
test_prelude_turn_oracle.py.)

Found through DREAMDESK_OPENCLAW like test_bootstrap_oracle.py: skipped with one line without it,
a failure in CI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from dreamdesk.engine.assistants.openclaw_notes import daily_notes
from interop.openclaw.test_bootstrap_oracle import TOOLCHAIN

# The functions are found by their definition and called through the module's own export list
# (the bundle exports them under one-letter names that change with every build).
NOTES_JS = r"""
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const { dist, names } = JSON.parse(fs.readFileSync(0, "utf8"));
const file = fs.readdirSync(dist).filter((n) => n.endsWith(".mjs"))
  .find((n) => /^function parseDailyMemoryFileName\(/m.test(fs.readFileSync(path.join(dist, n), "utf8")));
const source = fs.readFileSync(path.join(dist, file), "utf8");
const exported = Object.fromEntries([...source.matchAll(/(\w+) as (\w+)/g)].map((m) => [m[1], m[2]]));
const mod = await import(pathToFileURL(path.join(dist, file)).href);
const parse = mod[exported.parseDailyMemoryFileName], compare = mod[exported.compareDailyMemoryFilesByNewestDay];
const parsed = names.map(parse).filter(Boolean);
process.stdout.write(JSON.stringify({ days: parsed.map((p) => [p.fileName, p.day]),
  order: parsed.toSorted(compare).map((p) => p.fileName) }));
"""
NAMES = ["2026-12-06.md", "2026-12-06.MD", "2026-12-06-standup.md", "2026-12-06-Standup.md", "2026-12-06-1432.md",
         "2026-12-06-1432-2.md", "2026-12-06-_draft.md", "2026-12-06-ünterwegs.md", "2026-12-06-.md",
         "2026-12-05-retro.md", "2026-12-05.md", "2026-13-45.md", "2026-12-6.md", "notes.md", "2026-12-06.txt",
         "2026-12-06-a.b.md", "2026-12-07-🍵.md"]


def test_daily_notes_and_their_order_are_openclaws(tmp_path):
    assert not isinstance(TOOLCHAIN, str)
    node, dist = TOOLCHAIN
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    for name in NAMES:
        (ws / "memory" / name).write_text(f"# {name}\n", encoding="utf-8")
    script = tmp_path / "notes.mjs"
    script.write_text(NOTES_JS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update(HOME=str(tmp_path), TZ="UTC", LANG="C.UTF-8", NO_COLOR="1")
    done = subprocess.run([str(node), str(script)], input=json.dumps({"dist": str(dist), "names": NAMES}),
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert done.returncode == 0, f"OpenClaw's notes script failed:\n{done.stderr[-4000:]}"
    openclaw = json.loads(done.stdout)
    ours = daily_notes(ws, {}, 0.0)
    assert [Path(n.path).name for n in ours.notes] == openclaw["order"]
    assert sorted([Path(n.path).name, n.day] for n in ours.notes) == sorted(openclaw["days"])
