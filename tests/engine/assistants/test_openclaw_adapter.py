"""The OpenClaw adapter on the homes the real OpenClaw 2026.9.6 built (tests/fixtures/openclaw,
copied with their recorded paths made the copy's): opened through open_home with the signs in
words, the prompt preview equal to the Project Context OpenClaw sent in a real turn, byte for
byte, each file against the limit that really applies with the entries in the cut, Dreamdesk's
own jobs refused in words, and not one byte or mtime changed anywhere by opening and reading
(issue 28 items 1-3)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.assistants import OpenClaw, assistant_of, open_home, openclaw_prelude
from dreamdesk.engine.assistants.openclaw_sizes import TOTAL_NAME
from dreamdesk.engine.assistants.prompt import build_prompt
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.disk.changes import Changes
from dreamdesk.engine.overview.status import read_status
from helpers.openclaw_homes import no_openclaw_of_this_machine  # noqa: F401  (autouse)
from helpers.openclaw_homes import HOMES, copy_home, manifest, oracle_context


def status_of(home: Path, agent: str | None = None):
    ws = open_home(home, agent)
    return ws, read_status(ws)


# -- opening and detecting ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", HOMES)
def test_each_home_opens_as_openclaws_with_its_signs_in_words(tmp_path, name):
    home = copy_home(name, tmp_path)
    ws, st = status_of(home)
    assert (ws.root, ws.home, ws.config_path) == (home / "workspace", home, home / "openclaw.json")
    a = st.assistant
    assert isinstance(a, OpenClaw) and (a.kind, a.label, a.name, a.agent) == ("openclaw", "OpenClaw 2026.9.x",
                                                                            "OpenClaw", "main")
    assert a.why[:2] == ("openclaw.json: OpenClaw's config (JSON5)",
                         "state/openclaw.sqlite: OpenClaw's state database (2026.6.5 and later)")
    assert "workspace/IDENTITY.md beside SOUL.md or AGENTS.md: OpenClaw's onboarding seeds them" in a.why
    assert ("workspace: DREAMS.md or memory/.dreams/ from OpenClaw's dreaming" in a.why) == (name == "dreamed")
    assert not st.problems or all(p.severity == "info" for p in st.problems), st.problems


def test_the_state_folder_its_config_and_its_workspace_open_the_same_workspace(tmp_path):
    home = copy_home("dreamed", tmp_path)
    for path in (home, home / "openclaw.json", home / "workspace"):
        ws = open_home(path)
        assert (ws.root, ws.home, ws.layout.agent) == (home / "workspace", home, "main")
        assert assistant_of(ws).why == assistant_of(open_home(home)).why


def test_a_home_that_is_no_openclaws_opens_as_before(demo_home):
    ws = open_home(demo_home)
    assert ws.layout.owner == "" and assistant_of(ws).kind == "jenny"
    assert [m.path for m in ws.memory_files()][:3] == ["SOUL.md", "USER.md", "memory/MEMORY.md"]
    with pytest.raises(WorkspaceError, match="--agent is for an OpenClaw home"):
        open_home(demo_home, "work")


def test_an_agent_is_chosen_and_the_others_are_named(tmp_path):
    home = copy_home("dreamed", tmp_path)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    (tmp_path / "work-claw").mkdir()
    (tmp_path / "work-claw" / "USER.md").write_text("- Prefer tea.\n", encoding="utf-8")
    config["agents"]["entries"]["work"] = {"workspace": str(tmp_path / "work-claw"), "bootstrapMaxChars": 3000}
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    first, st = status_of(home)
    assert first.root == home / "workspace" and st.assistant.agents == ("main", "work")
    assert st.assistant.roster == ("agent main: the home has 2 agents and none is marked the default, so the "
                                   "first is shown; the others: work (dreamdesk … --agent ID opens one)")
    work, st = status_of(home, "work")
    assert (work.root, work.layout.agent, st.assistant.agent) == (tmp_path / "work-claw", "work", "work")
    user = next(f for f in st.files if f.path == "USER.md")
    assert (user.budget, user.budget_key) == (3000, "agents.entries.work.bootstrapMaxChars")   # its own cap wins
    with pytest.raises(WorkspaceError, match="no agent 'play' in this OpenClaw home; its agents: main, work"):
        open_home(home, "play")


def test_another_agents_recall_rows_are_never_read_as_this_agents(tmp_path):
    """The state database of a roster holds each agent's rows under its own workspace's key: an
    agent with none yet has no candidates, not its sibling's read as a moved home's."""
    home = copy_home("dreamed", tmp_path)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    (tmp_path / "work-claw").mkdir()
    config["agents"]["entries"]["work"] = {"workspace": str(tmp_path / "work-claw")}
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    main = open_home(home)
    assert assistant_of(main).whats_next(main)["candidates"]          # main's own rows are read
    work = open_home(home, "work")
    got = assistant_of(work).whats_next(work)
    assert got["candidates"] == [] and not any("moved" in p for p in got["problems"])
    assert assistant_of(work).assistant_runs(work).restore_points == []   # nor main's pre-images


def test_a_broken_config_is_a_problem_in_words_and_the_workspace_is_still_shown(tmp_path):
    home = copy_home("over-cap", tmp_path)
    (home / "openclaw.json").write_text('{ agents: { defaults: { bootstrapMaxChars: 6000, } ', encoding="utf-8")
    ws, st = status_of(home)
    assert ws.root == home / "workspace"                     # OpenClaw's default workspace
    said = [p for p in st.problems if p.file == "../openclaw.json"]
    assert said and "not valid JSON5" in said[0].message and said[0].severity == "error"
    memory = next(f for f in st.files if f.path == "MEMORY.md")
    assert memory.budget == 20_000                           # the defaults, as OpenClaw would refuse the file


def test_a_config_with_comments_and_trailing_commas_reads_and_is_never_rewritten(tmp_path):
    from dreamdesk.engine.home.config import write_settings
    home = copy_home("over-cap", tmp_path)
    text = (home / "openclaw.json").read_text(encoding="utf-8")
    text = "// hand-edited\n" + text.replace('"bootstrapMaxChars": 6000', '"bootstrapMaxChars": 5000, // lower')
    (home / "openclaw.json").write_text(text, encoding="utf-8")
    ws, st = status_of(home)
    assert next(f for f in st.files if f.path == "MEMORY.md").budget == 5000
    assert not [p for p in st.problems if "openclaw.json" in p.file]
    before = (home / "openclaw.json").read_bytes()
    with pytest.raises(WorkspaceError, match="openclaw.json is OpenClaw's own config"):
        write_settings(ws, {"intervalH": 4})
    assert (home / "openclaw.json").read_bytes() == before


# -- the prompt preview ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", HOMES)
def test_the_preview_is_the_project_context_openclaw_sent_byte_for_byte(tmp_path, name):
    home = copy_home(name, tmp_path)
    ws = open_home(home)
    pv = build_prompt(ws, ws.history(), 0)
    assert pv.text.encode("utf-8") == oracle_context(name, home).encode("utf-8")
    assert pv.first_message is None and pv.pending_shown == [] and pv.assistant.kind == "openclaw"


def test_the_fresh_home_still_gets_bootstrap_md_as_its_setup_row_says(tmp_path):
    """BOOTSTRAP.md is injected while OpenClaw's state database says setup is not completed;
    once the row says it is, it goes (OpenClaw deletes the file itself soon after)."""
    home = copy_home("fresh", tmp_path)
    ws = open_home(home)
    assert "BOOTSTRAP.md" in [p.name for p in build_prompt(ws, ws.history(), 0).parts]
    con = sqlite3.connect(home / "state" / "openclaw.sqlite")
    with con:
        con.execute("UPDATE workspace_setup_state SET setup_completed_at = '2026-12-07T00:00:00.000Z'")
    con.close()
    parts = build_prompt(ws, ws.history(), 0).parts
    assert "BOOTSTRAP.md" not in [p.name for p in parts]
    bootstrap = next(f for f in read_status(ws).files if f.path == "BOOTSTRAP.md")
    assert bootstrap.budget == 0 and "once the workspace's setup is completed" in bootstrap.note


def test_new_leads_the_first_message_with_the_recent_daily_notes(tmp_path, monkeypatch):
    home = copy_home("dreamed", tmp_path)
    d0 = manifest("dreamed")["days"]["D0"]
    monkeypatch.setenv("DREAMDESK_TODAY", d0)
    ws = open_home(home)
    pv = build_prompt(ws, ws.history(), 0, new_session=True)
    noon = datetime.fromisoformat(d0).replace(hour=12, tzinfo=timezone.utc).timestamp() * 1000
    assert pv.first_message == openclaw_prelude.startup_prelude(ws.root, assistant_of(ws).config, noon)
    assert pv.first_message.startswith("[Startup context loaded by runtime]\n")
    assert f"[Untrusted daily memory: memory/{d0}.md]" in pv.first_message
    assert pv.text == build_prompt(ws, ws.history(), 0).text          # the system prompt is the same
    assert pv.parts[-1].name == "Startup context (/new)" and pv.parts[-1].included


# -- sizes against the limits that apply -------------------------------------------------------------
def test_over_cap_each_file_against_its_own_cap_and_the_entries_in_the_cut(tmp_path):
    home = copy_home("over-cap", tmp_path)
    _, st = status_of(home)
    files = {f.path: f for f in st.files}
    assert {p: (f.chars, f.budget, f.state, f.budget_key) for p, f in files.items()} == {
        "AGENTS.md": (6305, 6000, "over", "agents.defaults.bootstrapMaxChars"),
        "SOUL.md": (1561, 6000, "ok", "agents.defaults.bootstrapMaxChars"),
        "IDENTITY.md": (1398, 6000, "ok", "agents.defaults.bootstrapMaxChars"),
        "USER.md": (5235, 4000, "over", None),
        "MEMORY.md": (8040, 6000, "over", "agents.defaults.bootstrapMaxChars")}
    memory = files["MEMORY.md"]
    assert [(x.what, x.chars) for x in memory.limits] == [("per-file cap", 6000), ("left of the total", 47158),
                                                           ("promotion budget", 6000)]
    assert [(x.what, x.chars) for x in files["USER.md"].limits][:2] == [("per-file cap", 6000), ("USER.md cap", 4000)]
    # OpenClaw kept 4419+1473 of 8040 (its marker says so): the entries between are the cut
    text = (home / "workspace" / "MEMORY.md").read_text(encoding="utf-8")
    kept_head, kept_tail = text[:4419], text.rstrip()[8040 - 1473:]
    cut = memory.cut
    assert [c.line for c in cut] == list(range(35, 52))
    assert not cut[0].whole and all(c.whole for c in cut[1:])
    assert cut[0].text.startswith("- Fact 33:") and cut[-1].text.startswith("- Fact 49:")
    assert all(c.text not in kept_head + kept_tail for c in cut[1:])
    assert cut[0].hidden == ((4419, cut[0].end),)
    assert st.totals == [st.totals[0]] and (st.totals[0].name, st.totals[0].chars, st.totals[0].budget) == (
        TOTAL_NAME, 22539, 60000)
    assert "OpenClaw injects 18,842 of them" in st.totals[0].note


def test_over_total_memory_md_gets_only_what_the_files_before_it_left(tmp_path):
    home = copy_home("over-total", tmp_path)
    _, st = status_of(home)
    memory = next(f for f in st.files if f.path == "MEMORY.md")
    # 10,000 in all; AGENTS, SOUL, IDENTITY and USER took 9,613: MEMORY.md (8,040) is cut to 387
    assert (memory.chars, memory.budget, memory.state, memory.budget_key) == (
        8040, 387, "over", "agents.defaults.bootstrapTotalMaxChars")
    # OpenClaw kept 211+70 (its marker says so): fact 01 whole, fact 02 in part, …, the last fact in part
    cut = memory.cut
    assert (cut[0].line, cut[0].whole, cut[0].hidden) == (4, False, ((211, 275),))
    assert cut[0].text.startswith("- Fact 02:") and all(c.whole for c in cut[1:-1]) and not cut[-1].whole
    assert cut[-1].hidden[-1][1] == 8040 - 70
    assert (st.totals[0].chars, st.totals[0].budget, st.totals[0].state) == (17653, 10000, "over")


def test_a_file_the_total_leaves_no_room_for_is_over_and_injection_off_is_no_limit(tmp_path):
    home = copy_home("over-total", tmp_path)
    config = json.loads((home / "openclaw.json").read_text(encoding="utf-8"))
    config["agents"]["defaults"]["bootstrapTotalMaxChars"] = 9650      # 37 left for MEMORY.md: under 64
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    memory = next(f for f in status_of(home)[1].files if f.path == "MEMORY.md")
    assert (memory.budget, memory.state) == (37, "over") and "under 64" in memory.note
    config["agents"]["defaults"]["contextInjection"] = "never"
    (home / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    memory = next(f for f in status_of(home)[1].files if f.path == "MEMORY.md")
    assert (memory.budget, memory.state) == (0, "unbudgeted") and "nothing is injected" in memory.note


def test_daily_notes_and_the_diary_are_listed_newest_first_and_never_capped(tmp_path):
    home = copy_home("dreamed", tmp_path)
    ws, st = status_of(home)
    d = manifest("dreamed")["days"]
    notes = [f for f in st.files if f.kind == "daily"]
    assert [f.path for f in notes] == [f"memory/{d['D0']}.md", f"memory/{d['D0']}-standup.md", f"memory/{d['D1']}.md",
                                       f"memory/{d['D1']}-retro.md", f"memory/{d['D2']}.md"]
    assert all(f.budget == 0 and f.state == "unbudgeted" and not f.cut for f in notes)
    dreams = next(f for f in st.files if f.path == "DREAMS.md")
    assert (dreams.kind, dreams.budget, dreams.note) == ("dreams", 0, "OpenClaw's dream diary: not injected")
    assert [(n.day, n.slug) for n in ws.dated_notes()][:2] == [(d["D0"], None), (d["D0"], "standup")]
    assert st.keeps_history is False and st.history.entries == [] and (st.cursor, st.dream_cursor) == (0, 0)


def test_another_writers_change_to_an_openclaw_file_is_read_as_that_file(tmp_path):
    ws = open_home(copy_home("dreamed", tmp_path))
    assert ws.layout.changes(["MEMORY.md", "memory/2026-12-06.md"]) == Changes(
        files=frozenset({"MEMORY.md", "memory/2026-12-06.md"}))
    assert ws.layout.changes(["config.json"]) == Changes(config=True)


# -- Dreamdesk's own jobs never race OpenClaw --------------------------------------------------------------
def test_dream_compact_and_scheduling_are_refused_in_words_and_the_watch_is_not(tmp_path, private_state):
    from dreamdesk.engine.jobs.scheduler import BY_ASSISTANT, Scheduler
    from dreamdesk.engine.jobs.service import serve
    from dreamdesk.engine.ops.compact import compact
    from dreamdesk.engine.ops.dream import dream
    from dreamdesk.engine.ops.watch import watch_on
    home = copy_home("dreamed", tmp_path)
    ws = open_home(home)
    before, state_before = tree_state(home), tree_state(private_state)
    for run in (lambda: dream(ws, None, None, "test"), lambda: compact(ws, None, "test"),
                lambda: serve(ws, lambda: None, None, print)):
        with pytest.raises(WorkspaceError, match="^OpenClaw runs its own dreaming .*so they do not run on an "
                                                 "OpenClaw home \\(the watch does: it writes only Dreamdesk's own "
                                                 "history\\)$"):
            run()
    sched = Scheduler(ws)
    sched.start(datetime.now().astimezone())
    assert sched.tick(datetime.now().astimezone()) is None
    status = sched.status(datetime.now().astimezone())
    assert status.state == BY_ASSISTANT and status.text.startswith("OpenClaw runs its own dreaming")
    assert tree_state(home) == before and tree_state(private_state) == state_before
    assert watch_on(ws, "test").value == [] and tree_state(home) == before   # its own state only


# -- opening and reading write nothing anywhere --------------------------------------------------------
@pytest.mark.parametrize("name", HOMES)
def test_opening_and_every_read_leave_the_home_byte_and_mtime_identical(tmp_path, name, private_state):
    home = copy_home(name, tmp_path)
    before, state_before = tree_state(home), tree_state(private_state)
    ws = open_home(home)
    st = read_status(ws)
    build_prompt(ws, ws.history(), 0)
    build_prompt(ws, ws.history(), 0, new_session=True)
    st.assistant.sizes(ws, ws.config())
    ws.dated_notes()
    assert tree_state(home) == before and tree_state(private_state) == state_before
    assert sorted(p.name for p in (home / "state").iterdir()) == ["openclaw.sqlite"]


def test_a_state_database_with_its_wal_is_read_from_a_private_copy(tmp_path):
    """OpenClaw running (its -wal and -shm beside the database): the setup row is read from a
    copy; nothing beside the database changes, not even the -shm a reader would attach to."""
    home = copy_home("fresh", tmp_path)
    db = home / "state" / "openclaw.sqlite"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with writer:
        writer.execute("UPDATE workspace_setup_state SET setup_completed_at = '2026-12-07T00:00:00.000Z'")
    try:
        assert (home / "state" / "openclaw.sqlite-wal").stat().st_size > 0
        before = tree_state(home)
        ws = open_home(home)
        assert "BOOTSTRAP.md" not in [p.name for p in build_prompt(ws, ws.history(), 0).parts]   # the -wal's row
        assert tree_state(home) == before
    finally:
        writer.close()


def test_the_memory_files_are_the_daily_notes_openclaw_reads(tmp_path):
    """The notes listed (and measured) are named as OpenClaw names them: its pattern takes an
    upper-case .MD too (openclaw_notes.DAILY_NOTE), and a name that is no dated note is not one."""
    home = copy_home("dreamed", tmp_path)
    (home / "workspace" / "memory" / "2026-12-07.MD").write_text("# 2026-12-07\n- Shouting note.\n")
    (home / "workspace" / "memory" / "notes-2026.md").write_text("- Not a dated note.\n")
    paths = {f.path for f in open_home(home).memory_files()}
    assert "memory/2026-12-07.MD" in paths and "memory/notes-2026.md" not in paths
    assert "memory/2026-12-06-standup.md" in paths


def test_memory_md_notes_carry_each_promotion_in_the_fields_a_list_shows(tmp_path):
    """Issue 28 item 4: the Files view's list of promoted entries takes its rows from these, not
    from the notes' words: the day, how, score, recalls and the source's presence of each."""
    ws = open_home(copy_home("dreamed", tmp_path))
    notes = assistant_of(ws).entry_notes(ws, "MEMORY.md")
    rows = [(n.start_line, n.promoted.day, n.promoted.how, n.promoted.score, n.promoted.recalls, n.source,
             n.promoted.source_exists) for n in notes if n.promoted is not None]
    assert rows == [(8, "2026-12-06", "consolidated", None, 4, ("memory/2026-12-04.md", 1, 5), True),
                    (13, "2026-12-06", "promoted", 0.806, 3, ("memory/2026-12-06.md", 1, 4), True),
                    (17, "2026-12-06", "consolidated", None, 3, ("memory/2026-12-06-standup.md", 1, 2), True)]
    promoted = notes[[n.start_line for n in notes].index(13)].promoted
    assert promoted.text == "# 2026-12-06 - Storage driver patch landed; cluster upgrade can proceed."
    assert promoted.at == "2026-12-06T23:20:14.734Z"
    assert [n.promoted for n in notes if n.state == "by hand"] == [None, None]
    assert not any(n.promoted for n in assistant_of(ws).entry_notes(ws, "USER.md"))
