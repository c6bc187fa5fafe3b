"""Memory lint (engine/lint/memory_lint.py, engine/text/stale_dates.py, engine/text/date_roles.py, engine/lint/lint_copies.py):
each heuristic table-tested both ways, the similarity threshold re-measured on the demo and on
generated documents, and the demo's known findings. (Precision and recall on the labelled set:
tests/engine/lint/test_lint_labelled.py.)"""

from __future__ import annotations

import itertools
import random
from datetime import date
from pathlib import Path

import pytest

from dreamdesk.engine.core import clock
from dreamdesk.engine.lint.memory_lint import (_places, counts, lint, preference_reason, procedure_reason, similarity, words)
from dreamdesk.engine.core.rules import LINT_ENTRY_CHARS, SIMILAR_PAIRS
from dreamdesk.engine.text.stale_dates import past_dates
from dreamdesk.engine.home.workspace import Workspace

DEMO = Path(__file__).resolve().parents[3] / "resources" / "demo"
TODAY = date(2026, 12, 2)          # a Wednesday
RECORDED = date(2026, 11, 20)      # a Friday


# -- past dates --------------------------------------------------------------------------------
@pytest.mark.parametrize("text, latest", [
    ("Dentist on 2026-11-03 at 9:00", date(2026, 11, 3)),
    ("Target launch: 1 Dec 2026.", date(2026, 12, 1)),
    ("Flight to Lisbon 3rd November 2026", date(2026, 11, 3)),
    ("Parents' evening November 3", date(2026, 11, 3)),             # no year: nearest the recorded day
    ("Renew the passport by Nov 30, 2026", date(2026, 11, 30)),
    ("Call the plumber tomorrow", date(2026, 11, 21)),
    ("Meeting with Sanne next Tuesday", date(2026, 12, 1)),
    ("Garage clear-out this weekend", date(2026, 11, 22)),
    ("Dinner at Joris' parents tonight", RECORDED),
])
def test_past_dates_found(text, latest):
    found = past_dates(text, RECORDED, TODAY)
    assert [d.latest for d in found] == [latest], text


@pytest.mark.parametrize("text", [
    "Antwerp 10 Miles on 25 April 2027",                    # future
    "Attic works 11–29 January 2027, attic empty by 8 January",
    "Dates written like \"12 Nov\", prices in €",            # an example, in quotes
    "Front matter has `date: 2020-01-01`",                   # code
    "Daughter Lotte, birthday 23 November",                  # comes back every year
    "Since 17 Nov it runs on a Beelink",                     # a record of the past
    "Gallery support added 12 Nov",
    "Nothing booked as of 14 Nov",
    "27.4 kg at the 4 Nov vet check",
    "Has lived in Ghent since 2019; at Parcelwise since March 2023",   # no day: no date
    "Review on Friday at 16:00, 1:25 for 10 miles",
    "Every 3 Nov: the car's inspection",
])
def test_no_past_date(text):
    assert past_dates(text, RECORDED, TODAY) == []


def test_relative_phrase_counts_from_the_recorded_day():
    assert past_dates("Call the plumber tomorrow", date(2026, 12, 1), TODAY) == []
    assert past_dates("Call the plumber tomorrow", date(2026, 11, 30), TODAY)[0].latest == date(2026, 12, 1)
    assert past_dates("Call the plumber tomorrow", RECORDED, TODAY, relative=False) == []


# -- a past date is stale only in a plan (issue 25 item 3) -----------------------------------------
LATER = date(2026, 4, 20)
WRITTEN = date(2026, 3, 2)          # a Monday


@pytest.mark.parametrize("text", [
    "- Distance running (Berlin half marathon on 2026-03-29)",            # an interest, with a race she ran
    "- Kestrel 2.0 beta shipped 2026-03-10 to 12 design partners",       # facts about past events
    "- SOC 2 Type I: audit report delivered 2026-03-12 by Prüfwerk GmbH",
    "- Ran the Berlin half in 1:52:10 on 2026-03-29; wants a sub-1:50 next year",
    "- Half marathon PB: 1:49:30 (Berlin, 2026-03-29)",
    "- Last dentist visit: 2026-03-12, no cavities",
    "- Meeting notes from the 2026-03-14 board meeting are in Notion",
    "- Pick up the new glasses at Fielmann on 2026-03-05 went smoothly",
    "- Paid the electricity bill due 2026-03-15",
    "- Mila's birthday is 2019-09-14",
    "- Review on Friday at 16:00",                                       # a weekday alone: a routine as often
])
def test_history_is_no_past_date(text):
    assert past_dates(text, WRITTEN, LATER) == []


@pytest.mark.parametrize("text, why", [
    ("- On Tuesday I will call the bank about the mortgage", "will"),
    ("- The VAT return is due 2026-03-10", "due"),
    ("- Dentist at 09:30 on 2026-04-14", "Dentist"),
    ("- Meeting with Jonas on 2026-04-08", "Meeting"),
    ("- Remind me to renew the Deutschlandticket on 2026-03-31", "Remind"),
    ("- Need to send the survey results to the board by 2026-04-15", "Need to"),
    ("- Pick up the repaired bike tomorrow", "tomorrow"),
    ("- Submit the expense report by Friday", "by"),
    ("- Will be in Munich for the kickoff 2026-03-18 to 2026-03-20", "Will"),
])
def test_plans_deadlines_appointments_and_reminders_go_stale(text, why):
    found = past_dates(text, WRITTEN, LATER)
    assert len(found) == 1 and found[0].why == why, text
    assert f"\"{why}\" makes it a plan" in found[0].reason(WRITTEN)


def test_a_range_is_one_plan_over_when_its_last_day_is():
    text = "- Will be in Munich for the kickoff 2026-04-18 to 2026-04-22"
    assert past_dates(text, WRITTEN, date(2026, 4, 20)) == []
    assert [d.latest for d in past_dates(text, WRITTEN, date(2026, 4, 23))] == [date(2026, 4, 22)]


def test_the_issues_nanobot_home_keeps_its_history(make_workspace):
    user = ("# User Profile\n\n## Topics of Interest\n\n- Distance running (Berlin half marathon on 2026-03-29)\n\n"
            "## Special Instructions\n\n- Dentist (Dr. Weber) on 2026-04-14 at 09:30\n")
    memory = ("# Long-term Memory\n\n## Project Context\n\n- Beta shipped 2026-03-10 to 12 design partners.\n"
              "- Audit report delivered 2026-03-12 by Prüfwerk GmbH.\n")
    found = lint(Workspace.open(make_workspace({"USER.md": user, "memory/MEMORY.md": memory})), LATER)
    assert [(f.kind, f.target.text) for f in found] == [("past-date", "- Dentist (Dr. Weber) on 2026-04-14 at 09:30")]


# -- copies, and what only looks like one (issue 25 item 3) -----------------------------------------
def _copies(make_workspace, files: dict[str, str]) -> list[tuple[str, str, str | None]]:
    found = lint(Workspace.open(make_workspace(files)), TODAY)
    return [(f.kind, f.target.text, f.fix) for f in found if f.kind in ("duplicate", "near-duplicate", "similar")]


SKILL = "---\nname: {0}\ndescription: {0}\n---\n\n# {0}\n\n"


def test_different_deploy_steps_are_no_copies(make_workspace):
    steps = ("1. Check that CI on main is green.\n"
             "2. Run the database migrations with `make migrate` on the staging host.\n"
             "3. Deploy the API to staging with `make deploy-staging SERVICE=api` and wait for the health check.\n"
             "4. Run the smoke tests with `make smoke` on the staging host.\n"
             "5. Deploy the web app to staging with `make deploy-staging SERVICE=web` and wait for the health check.\n"
             "6. Run the database migrations with `make migrate` on the staging host.\n")
    assert similarity("Run the database migrations with `make migrate` on the staging host.",
                      "Run the smoke tests with `make smoke` on the staging host.") >= 1 / 3
    assert _copies(make_workspace, {"skills/deploy/SKILL.md": SKILL.format("deploy") + steps}) == []


def test_a_step_two_skills_share_stays_in_both_and_a_skill_keeps_its_copy(make_workspace):
    step = "1. Run `uv run pytest -q` and stop if anything fails.\n"
    files = {"skills/a/SKILL.md": SKILL.format("a") + step, "skills/b/SKILL.md": SKILL.format("b") + step,
             "USER.md": "# User\n\n- Always run the migrations before deploying.\n",
             "skills/c/SKILL.md": SKILL.format("c") + "- Always run the migrations before deploying.\n"}
    found = lint(Workspace.open(make_workspace(files)), TODAY)
    assert [(f.kind, f.places[0].file, f.target.file) for f in found] == [
        ("duplicate", "skills/c/SKILL.md", "USER.md")]
    assert found[0].fix_label == "Remove it from USER.md (keep the one in skills/c/SKILL.md)"


@pytest.mark.parametrize("earlier, later, kind", [
    ("- Prefers answers in English, even when she writes in German.",
     "- She prefers answers in English even when she writes in German", "near-duplicate"),
    ("- Homelab: Proxmox on an Intel NUC 12, 64 GB RAM, two NVMe disks.",
     "- Homelab: Proxmox on an Intel NUC 12 with 64 GB RAM", "near-duplicate"),   # says less, nothing else
    ("- Runs Home Assistant OS on the Beelink EQ12.", "- Home Assistant OS runs on the Beelink EQ12.",
     "near-duplicate"),                                                         # one word moved
    ("- Runs three times a week, about 25 km in total.", "- Runs four times a week, about 30 km in total.",
     "similar"),                                                                # which numbers are current?
    ("- Drinks coffee in the morning.", "- No longer drinks coffee in the morning.", "similar"),
    ("- No longer drinks coffee in the morning.", "- Drinks coffee in the morning.", "similar"),
    ("- Joris cooks on weekdays, Inès at the weekend.", "- Inès cooks on weekdays, Joris at the weekend.",
     "similar"),                                                                # the same words, roles swapped
    ("- Works from the office on Mondays, from home on Fridays.",
     "- Works from home on Mondays, from the office on Fridays.", "similar"),
    ("- Partner Tomás, nurse at Charité.", "- Partner: Tomás, a nurse at Charité; works night shifts.", "similar"),
    ("- Her sister Jana is allergic to cats.", "- She is allergic to cats.", "similar"),
])
def test_a_removal_only_when_the_later_entry_says_nothing_new(make_workspace, earlier, later, kind):
    got = _copies(make_workspace, {"USER.md": f"# User\n\n{earlier}\n", "memory/MEMORY.md": f"# Memory\n\n{later}\n"})
    assert got == [(kind, later, "remove" if kind == "near-duplicate" else None)]


def test_a_placeholder_under_two_headings_is_no_copy(make_workspace):
    user = "# User\n\n## Open questions\n- None yet.\n\n## Plans\n- None yet.\n\n## Food\n- Metric units\n"
    assert _copies(make_workspace, {"USER.md": user, "memory/MEMORY.md": "# Memory\n\n- Metric units\n"}) == [
        ("duplicate", "- Metric units", "remove")]


def test_a_copy_in_the_same_file_names_both_lines(make_workspace):
    skill = SKILL.format("blog") + "- The deploy key lives in ~/.ssh/cx22.\n- Posts go out on Fridays.\n" \
        "- The deploy key lives in ~/.ssh/cx22\n"
    found = lint(Workspace.open(make_workspace({"skills/blog/SKILL.md": skill})), TODAY)
    assert [f.fix_label for f in found] == ["Keep line 8, remove line 10 of skills/blog/SKILL.md"]
    assert found[0].reason == "the same words as line 8"


# -- the precision bar, as data (issue 25 item 3) --------------------------------------------------
def test_a_kind_under_the_bar_is_for_review_in_the_cli_and_is_never_fixed(demo_home, capsys, monkeypatch):
    import json
    from conftest import tree_state
    from dreamdesk.engine.core import rules
    from dreamdesk.engine.cli import main
    from dreamdesk.engine.lint.lint_fixes import fix_finding
    from dreamdesk.engine.core.problems import WorkspaceError
    monkeypatch.setenv(clock.TODAY_ENV, "2026-12-02")
    monkeypatch.setitem(rules.LINT_PRECISION, "past-date", 0.9)
    before = tree_state(demo_home)
    assert main(["lint", str(demo_home)]) == 0
    out = capsys.readouterr().out
    assert ("review: if it is right, take the past plan out of memory/MEMORY.md, keep “- DNS stays at Cloudflare, "
            "proxy off.” by hand in the Files tab (past-date findings "
            "are right 90% of the time on the labelled set, under the 95% a one-click fix needs)") in out
    assert "fix:" not in out
    assert main(["lint", str(demo_home), "--json"]) == 0
    past = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["kind"] == "past-date"]
    assert [(f["action"], f["precision"], f["fix"]) for f in past] == [("review", 0.9, "rewrite")]
    finding = next(f for f in lint(Workspace.open(demo_home), TODAY) if f.kind == "past-date")
    with pytest.raises(WorkspaceError, match="not a one-click fix: past-date findings are right 90%.*nothing was"):
        fix_finding(Workspace.open(demo_home), finding)
    assert tree_state(demo_home) == before


# -- misplaced ---------------------------------------------------------------------------------
PROCEDURES = [  # (text, is it a procedure)
    ("- Deploy the blog:\n  1. run the build\n  2. rsync _site/ to the server", True),
    ("1. Run `npx @11ty/eleventy` and check _site/", True),
    ("- Run the backup script, then copy the archive to the NAS", True),
    ("- To publish: build the site, then rsync it → verify with curl", True),
    ("- Weekly review on Friday at 16:00 (skill weekly-review): one Telegram message", False),
    ("- Answer first, reasoning after. Short by default", False),
    ("- Runs three times a week, ~25 km in total, then stretches", False),     # "Runs": she does, not a step
    ("- Keeps tasks in Todoist; the weekly review reads the project \"This week\".", False),
    ("1. Family first", False),
]
PREFERENCES = [  # (text, is it a preference of the user's)
    ("- She prefers oat milk in her coffee", True),
    ("- Hates the lockfile churn of Poetry", True),
    ("- The user likes short answers", True),
    ("- Blog decisions are final. She really dislikes WordPress.", True),
    ("- Hosting: Hetzner CX22 (Falkenstein), Debian 12", False),
    ("- She reviews infra PRs on Thursdays", False),
    ("- Joris likes cooking on weekdays", False),          # someone else's preference
    ("- Alikes-like names are not words", False),
]


@pytest.mark.parametrize("check, text, found", [(procedure_reason, t, f) for t, f in PROCEDURES]
                         + [(preference_reason, t, f) for t, f in PREFERENCES])
def test_misplaced_heuristics(check, text, found):
    assert (check(text) is not None) is found, text


# -- near-duplicates: the threshold, measured ------------------------------------------------------
def _demo_entries() -> list[tuple[str, str]]:
    return [(p.file, p.text) for p in _places(Workspace.open(DEMO))]


def test_threshold_separates_the_demos_real_duplicate_from_its_near_misses():
    scores = sorted(((similarity(a, b), fa, fb) for (fa, a), (fb, b) in itertools.combinations(_demo_entries(), 2)),
                    reverse=True)
    (best, *pair), runner_up = scores[0], scores[1][0]
    assert set(pair) == {"SOUL.md", "USER.md"}         # the "no emojis, no Great question" rule, twice
    assert runner_up < SIMILAR_PAIRS <= best
    assert round(best, 2) == 0.29 and round(runner_up, 2) == 0.17     # the figures in rules.py


def test_threshold_catches_generated_copies():
    rnd = random.Random(7)
    for _file, text in _demo_entries():
        w = words(text)
        if len(w) < 8:
            continue
        changed = list(w)
        changed[rnd.randrange(len(w))] = "zzz"
        assert similarity(" ".join(w), " ".join(changed)) >= SIMILAR_PAIRS
        assert similarity(" ".join(w), " ".join(w[:len(w) * 2 // 3])) >= SIMILAR_PAIRS


# -- whole workspaces --------------------------------------------------------------------------
def test_the_demo_gives_its_known_findings():
    found = lint(Workspace.open(DEMO), TODAY)
    got = [(f.kind, f.target.file, f.target.start + 1, f.fix) for f in found]
    # SOUL.md's "No performed enthusiasm: no emojis, no "Great question", no sign-off questions" and
    # USER.md's "No emojis, no "Great question!", no closing "let me know if…" line" overlap, but
    # neither says all the other does: for review, not a one-click removal
    assert got == [("similar", "USER.md", 22, None),
                   ("too-long", "memory/MEMORY.md", 10, None),
                   ("past-date", "memory/MEMORY.md", 15, "rewrite")]
    assert [f.action for f in found] == ["review", "review", "fix"]
    near = found[0]
    assert near.places[0].file == "SOUL.md" and near.places[0].text.startswith("- No performed enthusiasm")
    assert "1 Dec 2026" in found[2].reason and found[2].target.text.startswith("- Target launch")
    assert counts(found)["duplicate"] == 0
    # a day earlier the launch date has not passed
    assert [f.kind for f in lint(Workspace.open(DEMO), date(2026, 11, 30))] == ["similar", "too-long"]


def test_today_comes_from_the_clock(monkeypatch):
    monkeypatch.setenv(clock.TODAY_ENV, "2026-11-30")
    assert clock.today() == date(2026, 11, 30)
    assert "past-date" not in [f.kind for f in lint(Workspace.open(DEMO))]
    monkeypatch.setenv(clock.TODAY_ENV, "not a date")
    assert clock.today() == date.today()


def _generated(make_workspace, rnd: random.Random):
    """USER.md and MEMORY.md of distinct facts, with known copies planted."""
    facts = [f"- Fact {n}: {' '.join(rnd.choice(['red', 'tram', 'Ghent', 'blue', 'oven', 'kite', 'moss']) + str(n * 7 + k) for k in range(6))}"
             for n in range(40)]
    user = facts[:20] + [facts[3], facts[5].replace("Fact", "fact").rstrip() + "."]       # exact (case, dot)
    memory = facts[20:] + [facts[8]] + [facts[30].rsplit(" ", 1)[0] + " changed", "- " + "long " * 80]
    root = make_workspace({"USER.md": "# User\n\n" + "\n".join(user) + "\n",
                           "memory/MEMORY.md": "# Memory\n\n" + "\n".join(memory) + "\n"})
    return Workspace.open(root), facts


def test_generated_documents(make_workspace):
    ws, facts = _generated(make_workspace, random.Random(3))
    found = lint(ws, TODAY)
    dup = [(f.kind, f.places[0].text, f.target.file) for f in found if f.kind in ("duplicate", "near-duplicate")]
    assert dup == [("duplicate", facts[3], "USER.md"), ("duplicate", facts[5], "USER.md"),
                   ("duplicate", facts[8], "memory/MEMORY.md")]
    # its last word replaced: which word is right is for a person to say
    assert [(f.places[0].text, f.fix) for f in found if f.kind == "similar"] == [(facts[30], None)]
    long = [f for f in found if f.kind == "too-long"]
    assert len(long) == 1 and len(long[0].target.text) > LINT_ENTRY_CHARS


def test_misplaced_entries_in_a_workspace(make_workspace):
    root = make_workspace({
        "USER.md": "# User\n\n## Deploying\n- Build the site, then rsync it to the server and verify with curl\n"
                   "- Likes short answers\n",
        "memory/MEMORY.md": "# Memory\n\n## Work\n- She prefers Dagster over Airflow\n- Dagster on GKE\n",
        "skills/deploy/SKILL.md": "---\nname: deploy\ndescription: deploy the site\n---\n\n# Deploy\n\n"
                                  "1. Build the site with eleventy\n2. rsync it to the server\n3. verify with curl\n"})
    found = [f for f in lint(Workspace.open(root), TODAY) if f.kind == "misplaced"]
    assert [(f.target.file, f.move_to) for f in found] == [("USER.md", "skills/deploy/SKILL.md"),
                                                            ("memory/MEMORY.md", "USER.md")]
    assert "belongs in a skill" in found[0].reason and "prefers" in found[1].reason


def test_recorded_day_comes_from_provenance(make_workspace):
    """A relative phrase Dream wrote counts from the history entry it was made from, not from the
    day the file last changed (today, here)."""
    import json
    entry = "- Call the plumber tomorrow"
    files = {"USER.md": "# User\n\n" + entry + "\n",
             "memory/history.jsonl": json.dumps({"cursor": 1, "timestamp": "2026-11-02 09:00",
                                                 "content": "plumber"}) + "\n"}
    root = make_workspace(files)
    ws = Workspace.open(root)
    assert lint(ws, TODAY) == []                          # the file changed today: tomorrow is ahead
    run = {"id": "r-20261102-100000", "started": "2026-11-02T10:00:00+00:00", "status": "done",
           "created": [{"file": "USER.md", "text": entry, "sources": [1]}]}
    (root / "memory" / "dreams").mkdir()
    (root / "memory" / "dreams" / "r-20261102-100000.json").write_text(json.dumps(run))
    found = lint(Workspace.open(root), TODAY)
    assert [f.kind for f in found] == ["past-date"]
    assert "recorded 2026-11-02" in found[0].reason and "2026-11-03" in found[0].reason


# -- the command line --------------------------------------------------------------------------
def test_cli_lint_reads_the_demo_without_writing(demo_home, capsys, monkeypatch):
    import json
    from conftest import tree_state
    from dreamdesk.engine.cli import main
    monkeypatch.setenv(clock.TODAY_ENV, "2026-12-02")
    before = tree_state(demo_home)
    assert main(["lint", str(demo_home)]) == 0
    out = capsys.readouterr().out
    assert "memory/MEMORY.md line 15  past-date" in out and "fix: Take the past plan out of memory/MEMORY.md, keep “- DNS stays at Cloudflare, proxy off.”" in out
    assert "USER.md line 22  similar" in out and "review: compare them and merge them by hand" in out
    assert out.rstrip().endswith("3 findings (1 similar, 1 past-date, 1 too-long), as of 2026-12-02")
    assert main(["lint", str(demo_home), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["today"] == "2026-12-02" and data["counts"]["past-date"] == 1
    assert [(f["id"], f["action"]) for f in data["findings"]] == [
        ("similar:USER.md:22", "review"), ("too-long:memory/MEMORY.md:10", "review"),
        ("past-date:memory/MEMORY.md:15", "fix")]
    assert data["findings"][0]["places"][0] | {"text": None} == {"file": "SOUL.md", "start_line": 10, "end_line": 10,
                                                                 "text": None, "heading": "## Voice"}
    assert tree_state(demo_home) == before


def test_cli_lint_bad_path_says_so(tmp_path, capsys):
    from dreamdesk.engine.cli import main
    assert main(["lint", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "Traceback" not in err


def test_cli_lint_clean_workspace(make_workspace, capsys):
    from dreamdesk.engine.cli import main
    root = make_workspace({"USER.md": "# User\n\n- Lives in Ghent\n"})
    assert main(["lint", str(root)]) == 0
    assert capsys.readouterr().out.startswith("No findings, as of ")


def test_the_demo_with_its_recorded_runs_gives_the_same_findings(history_home, tmp_path):
    """Dream's run records (provenance) date the entries they created; the findings stay the demo's."""
    import shutil
    home = tmp_path / "home"
    shutil.copytree(history_home, home, symlinks=True)
    ws = Workspace.open(home)
    from dreamdesk.engine.lint.memory_lint import _provenance_days
    assert _provenance_days(ws)                       # the recorded runs do date some entries
    assert [f.id for f in lint(ws, TODAY)] == [f.id for f in lint(Workspace.open(DEMO), TODAY)]
