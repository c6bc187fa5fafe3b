"""Every prune from the snapshot commits (issue 13 §1-2): the assistant's own `dream:` commits in a
nanobot-style repository become archive rows and runs; each restores byte for byte; listing
writes nothing in the workspace; the walk is cached outside it and redone only for new commits."""

import json
import os
from pathlib import Path

import pytest

from conftest import tree_state
from dreamdesk.engine.recovery.archive import write_memory
from dreamdesk.engine.cli import main
from dreamdesk.engine.versions.commit_cache import cache_file
from dreamdesk.engine.versions.commit_log import CACHE_NAME, assistant_runs, load_history
from dreamdesk.engine.text.entries import removed_entries
from dreamdesk.engine.disk.files import current_hash
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.recovery.restore import undo_restore
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.text.textform import normalise
from dreamdesk.engine.home.workspace import Workspace
from helpers.nanobot_repo import git, head
from helpers.prune_history import BOM, FORMS, USER_V1, build, crlf, expected_rows, only_inserted


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("form", FORMS)
def test_rows_are_what_each_dream_commit_removed_and_listing_writes_nothing(tmp_path, capsys, form):
    ws = tmp_path / "ws"
    shas = build(ws, *FORMS[form])
    before = tree_state(ws)
    code, out, err = cli(capsys, "archive", str(ws), "--json")
    assert code == 0 and err == ""
    rows = json.loads(out)["entries"]
    want = expected_rows(ws, shas)
    assert len(want) == 5        # Miso, the oolong item (edited), Backups, the Work heading and its item
    assert sorted((r["id"], r["file"], r["text"], r["heading"]) for r in rows) == sorted(want)
    assert {(r["known_from"], r["commits"][0]["writer"], r["reason"]) for r in rows} == {("commit", "assistant", "dream")}
    oolong = next(r for r in rows if r["text"].startswith("- Drinks oolong.\n"))
    assert oolong["replaced_by"] == "- Drinks oolong, loose leaf."
    assert tree_state(ws) == before                      # nothing written inside the workspace
    code, out, _ = cli(capsys, "archive", str(ws), "--search", "miso")
    assert "from commit " + shas[1][:8] + " · assistant" in out and "- Has a cat named Miso." in out
    code, out, _ = cli(capsys, "archive", str(ws), "--from", "archive")
    assert "No archived entries match." in out


def test_restoring_every_pruned_entry_brings_it_back_byte_for_byte(tmp_path, capsys):
    ws = tmp_path / "ws"
    shas = build(ws, *FORMS["crlf+bom"])
    for rid, path, text, heading in expected_rows(ws, shas):
        if text.startswith("#"):
            continue                          # a heading comes back with the entries under it
        original = (ws / path).read_bytes()
        code, out, err = cli(capsys, "archive", str(ws), "--restore", rid)
        assert code == 0, err
        now = (ws / path).read_bytes()
        want = crlf(text).encode()
        assert want in now and want not in original
        # the file is otherwise byte for byte what it was: its lines are all kept, in order, and
        # what came in is the entry (with its heading when that was gone too), in the file's endings
        inserted = only_inserted(original, now)
        assert b"".join(inserted).strip(b"\r\n") in (want, crlf(heading + "\n\n" + text).encode())
        assert now.startswith(BOM) == original.startswith(BOM) and all(line.endswith(b"\r\n") for line in inserted)
        undone = undo_restore(Workspace.open(ws))
        assert undone.files == [path] and (ws / path).read_bytes() == original


def test_dreamdesks_own_removal_is_known_from_both(tmp_path):
    ws_path = tmp_path / "ws"
    build(ws_path)
    ws = Workspace.open(ws_path)
    text = (ws_path / "USER.md").read_text()
    write_memory(ws, "USER.md", text.replace("- Runs three times a week.\n", ""), current_hash(ws_path / "USER.md"),
                 "dream", run="r-20261201-100000")
    SnapshotStore(ws).snapshot("dream: run r-20261201-100000")
    _, _, entries = all_prunes(ws)
    runs = next(e for e in entries if e.latest.text == "- Runs three times a week.")
    assert runs.known_from == "archive + commit" and runs.id.startswith("a-")
    assert [c.writer for c in runs.commits] == ["dreamdesk"]
    assert all(r.by_dreamdesk is False for r in assistant_runs(ws))      # Dreamdesk's commit is not theirs


def test_second_open_is_a_head_check_and_a_new_commit_is_analysed_alone(tmp_path):
    ws_path = tmp_path / "ws"
    shas = build(ws_path)
    ws = Workspace.open(ws_path)
    first = load_history(ws)
    assert first.analysed == 4 and first.git_calls == ["rev-parse", "log", "cat-file"]
    again = load_history(ws)
    assert again.analysed == 0 and again.git_calls == ["rev-parse"]
    assert [r.to_json() for r in again.records] == [r.to_json() for r in first.records]
    assert not any(Path(p).is_relative_to(ws_path) for p in [cache_file(SnapshotStore(ws).git_dir, CACHE_NAME)])
    (ws_path / "USER.md").write_text(USER_V1)
    git(ws_path, "commit", "--quiet", "-am", "dream: put it all back")
    grown = load_history(ws)
    assert grown.analysed == 1 and grown.git_calls == ["rev-parse", "merge-base", "log", "cat-file"]
    assert [r.sha for r in grown.records] == shas + [head(ws_path)]
    last = grown.records[-1]
    assert last.parent == shas[-1] and [e.text for _, e in last.added()] == [
        "- Has a cat named Miso.", "- Drinks oolong.\n  Loose leaf, never bags."]     # measured from the cached tip
    assert [e.text for _, e in last.removed()] == ["- Drinks oolong, loose leaf.", "- Moved to Antwerp."]
    assert last.cursor == (9, 9) and last.user_md == (first.records[-1].user_md[1], last.files[0].after)


def test_a_file_deleted_and_recreated_lists_each_removal_once(tmp_path):
    """USER.md removed in one commit and written anew in a later one: the deletion removes each of
    its entries once; the new file is measured from nothing (its parent holds no USER.md), not
    from the version last seen before the deletion, so it removes nothing again."""
    ws_path = tmp_path / "ws"
    shas = build(ws_path)
    git(ws_path, "rm", "--quiet", "USER.md")
    git(ws_path, "commit", "--quiet", "-m", "dream: USER.md removed")
    gone = head(ws_path)
    (ws_path / "USER.md").write_text("# User\n\n## Identity\n- Inès, data engineer in Ghent.\n")
    git(ws_path, "add", "USER.md")
    git(ws_path, "commit", "--quiet", "-m", "dream: USER.md again")
    back = head(ws_path)
    records = {r.sha: r for r in load_history(Workspace.open(ws_path)).records}
    assert records[gone].user_md == (records[shas[-1]].user_md[1], None)     # the peer card gone, then new
    assert records[back].user_md == (None, records[back].files[0].after)
    kept = normalise(git(ws_path, "show", f"{shas[-1]}:USER.md"))
    assert [e.text for _, e in records[gone].removed()] == [r.entry.text for r in removed_entries(kept, "")]
    assert records[back].removed() == [] and {e.text for _, e in records[back].added()} == {
        "# User", "## Identity", "- Inès, data engineer in Ghent."}
    removed = [(path, e.text) for r in records.values() for path, e in r.removed()]
    assert len(removed) == len(set(removed))                 # no entry removed twice


def test_a_record_holds_its_commit_s_author_time_subject_and_the_peer_card_around_it(tmp_path):
    ws_path = tmp_path / "ws"
    shas = build(ws_path)
    records = load_history(Workspace.open(ws_path)).records
    for r, sha in zip(records, shas):
        assert (r.author, r.time) == ("nanobot", int(git(ws_path, "show", "-s", "--format=%ct", sha)))
        assert r.subject == git(ws_path, "show", "-s", "--format=%s", sha).strip()
    assert [(path, e.text) for path, e in records[1].added()] == [("USER.md", "- Drinks oolong, loose leaf.")]
    assert "USER.md" not in [f.path for f in records[2].files] and records[2].user_md == (records[1].user_md[1],) * 2


def commit_all(ws: Path, subject: str) -> str:
    git(ws, "add", "--all")
    git(ws, "commit", "--quiet", "--no-verify", "-m", subject)
    return head(ws)


def test_what_the_log_shows_renames_links_other_files_bad_bytes_and_merges(tmp_path):
    """A renamed skill is one removal and one addition; a memory file that becomes a link is gone
    (its blob is a path) and comes back when it is a file again; a commit of other files is no
    record; bytes that are not UTF-8 are read all the same; only the first-parent line is walked,
    a merge measured against its first parent."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "skills" / "tea").mkdir(parents=True)
    git(ws, "init", "--quiet", "--initial-branch=main")
    (ws / "USER.md").write_text("# User\n\n- Likes rain.\n")
    (ws / "skills/tea/SKILL.md").write_text("# Tea\n\n- Steep four minutes.\n")
    made = [commit_all(ws, "init: memory")]
    (ws / "notes.txt").write_text("not memory\n")
    other = commit_all(ws, "edit: notes")
    git(ws, "mv", "skills/tea", "skills/brew")
    made.append(commit_all(ws, "dream: renamed"))
    (ws / "USER.md").unlink()
    (ws / "USER.md").symlink_to("notes.txt")
    made.append(commit_all(ws, "edit: a link"))
    (ws / "USER.md").unlink()
    (ws / "USER.md").write_bytes(b"# User\n\n- Likes r\xe4in.\n")
    made.append(commit_all(ws, "edit: a file again"))
    git(ws, "checkout", "--quiet", "-b", "side")
    (ws / "memory/MEMORY.md").write_text("# Memory\n\n- From the side branch.\n")
    side = commit_all(ws, "dream: on the side")
    git(ws, "checkout", "--quiet", "main")
    (ws / "skills/brew/SKILL.md").write_text("# Tea\n")
    made.append(commit_all(ws, "dream: on main"))
    git(ws, "merge", "--quiet", "--no-ff", "-m", "merge: side", "side")
    made.append(head(ws))
    records = {r.sha: r for r in load_history(Workspace.open(ws)).records}
    assert list(records) == made and other not in records and side not in records
    rename = records[made[1]]
    assert [(f.path, f.before is None, f.after is None) for f in rename.files] == [
        ("skills/brew/SKILL.md", True, False), ("skills/tea/SKILL.md", False, True)]
    assert ("skills/tea/SKILL.md", "- Steep four minutes.") in [(p, e.text) for p, e in rename.removed()]
    link, again = records[made[2]].files[0], records[made[3]].files[0]
    assert (link.path, link.after, again.before) == ("USER.md", None, None)
    assert records[made[3]].removed() == []                  # the link's target path was never an entry
    assert "- Likes r\ufffdin." in [e.text for _, e in records[made[3]].added()]
    merge = records[made[5]]
    assert merge.parent == made[4] and "- From the side branch." in [e.text for _, e in merge.added()]


def test_a_corrupt_or_rewritten_cache_is_rebuilt(tmp_path):
    ws_path = tmp_path / "ws"
    shas = build(ws_path)
    ws = Workspace.open(ws_path)
    good = [r.to_json() for r in load_history(ws).records]
    path = cache_file(SnapshotStore(ws).git_dir, CACHE_NAME)
    for junk in (b"{not json", b'{"version": 2, "head": 3}', json.dumps(
            {"version": 2, "repo": os.path.realpath(SnapshotStore(ws).git_dir), "head": shas[-1],
             "tip": {}, "commits": [{"sha": 1}]}).encode()):
        path.write_bytes(junk)
        again = load_history(ws)
        assert [r.to_json() for r in again.records] == good and again.analysed == 4
    git(ws_path, "reset", "--quiet", "--hard", shas[1])      # history rewritten under the cache
    (ws_path / "memory/MEMORY.md").write_text("# Memory\n")
    git(ws_path, "commit", "--quiet", "-am", "dream: other branch")
    rewritten = load_history(ws)
    assert [r.sha for r in rewritten.records] == shas[:2] + [head(ws_path)]
    assert rewritten.analysed == 1            # the two kept commits came from the cache by sha


def test_separate_git_dir_and_outside_edits(tmp_path):
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "--quiet")
    ws_path = outer / "ws"
    (ws_path / "memory").mkdir(parents=True)
    (ws_path / "USER.md").write_text("# User\n\n- Likes tea.\n- Likes rain.\n")
    ws = Workspace.open(ws_path)
    store = SnapshotStore(ws)
    assert store.separate
    store.snapshot("snapshot: first")
    (ws_path / "USER.md").write_text("# User\n\n- Likes tea.\n")        # another editor removed a line
    store.snapshot("snapshot: before dream")
    _, extra, _ = all_prunes(ws)
    assert [(r.text, r.reason, r.writer) for r in extra] == [("- Likes rain.", "outside", "dreamdesk")]


def test_runs_list_and_show_the_assistants_commits(tmp_path, capsys):
    ws = tmp_path / "ws"
    shas = build(ws)
    code, out, _ = cli(capsys, "runs", str(ws), "--json")
    runs = json.loads(out)["runs"]
    assert [r["commit"] for r in runs] == shas[::-1] and {r["writer"] for r in runs} == {"assistant"}
    assert runs[2]["removed_count"] == 2 and runs[2]["cursor"] == {"before": 0, "after": 4}
    code, out, _ = cli(capsys, "runs", str(ws))
    assert out.splitlines()[2].startswith(shas[1][:8]) and "cursor 0→4" in out
    code, out, _ = cli(capsys, "runs", str(ws), "show", shas[1][:10], "--json")
    shown = json.loads(out)
    assert shown["cursor"] == {"before": 0, "after": 4} and "Miso" in shown["peer_card"]["before"]
    assert "Miso" not in shown["peer_card"]["after"]
    code, out, _ = cli(capsys, "runs", str(ws), "show", shas[1][:10])
    assert "- - Has a cat named Miso." in out and ".dream_cursor 0 -> 4" in out
    code, out, err = cli(capsys, "runs", str(ws), "show", "deadbeef00")
    assert code == 2 and err.count("\n") == 1 and "no run deadbeef00" in err
