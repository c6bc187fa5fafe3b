"""The Snapshots view driven through its real widgets on real git repositories: the timeline,
diffs of one or two snapshots, restores of a hunk / a file / the whole snapshot with their
confirmations, Undo last restore, the stale-diff token, and the empty state."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest

from conftest import tree_state
from helpers.gui_waits import jobs_done
from dreamdesk.engine.text.diffs import diff_texts, revert_hunk
from dreamdesk.engine.recovery.restore import restore_snapshot
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

# snapshots.png goes to docs/screenshots only when asked (DREAMDESK_SCREENSHOTS=1); the other grabs, and every
# grab in a normal run, go to the temp folder, so a test run never changes tracked files.
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
TMP_SHOTS = Path(tempfile.gettempdir()) / "dreamdesk-screenshots"
SHOTS = DOCS if os.environ.get("DREAMDESK_SCREENSHOTS") else TMP_SHOTS

FACTS = [f"- fact {i}: something about Inès" for i in range(1, 21)]
MEMORY_FILES = ["SOUL.md", "USER.md", "memory/MEMORY.md", "skills/weekly-review/SKILL.md"]


def user_text(facts: list[str]) -> str:
    return "# User\n\n## Facts\n" + "\n".join(facts) + "\n\n## Preferences\n- Short answers.\n"


V1 = {
    "SOUL.md": "I am Jenny.\nI am calm.\n",
    "USER.md": user_text(FACTS),
    "memory/MEMORY.md": "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n",
    "memory/.dream_cursor": "5",
    "memory/.cursor": "12",
    "skills/weekly-review/SKILL.md": "# Weekly review\nFriday 16:00.\n",
}


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode("utf-8"))


def memory_bytes(root: Path) -> dict[str, bytes]:
    return {rel: (root / rel).read_bytes() for rel in MEMORY_FILES + ["memory/.dream_cursor"]}


@pytest.fixture
def history(make_workspace):
    """Three snapshots (pre-dream v1, dream v2, edit v3) and working files changed since v3."""
    root = make_workspace(V1)
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    v1 = store.snapshot("snapshot: before dream r1")
    facts = list(FACTS)
    facts[1] = "- fact 2: something CHANGED about Inès"       # USER.md hunk 1 against v1
    del facts[11]                                               # hunk 2: "- fact 12" removed
    facts.append("- fact 21: added by dream")                  # hunk 3
    write(root, "USER.md", user_text(facts))
    write(root, "SOUL.md", "I am Jenny.\nI am calm and brief.\n")
    write(root, "memory/.dream_cursor", "9")
    v2 = store.snapshot("dream: periodic memory consolidation", with_summary=True)
    write(root, "memory/MEMORY.md", "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n- Backups at 03:00.\n")
    v3 = store.snapshot("edit: memory/MEMORY.md")
    write(root, "SOUL.md", "I am Jenny.\nI am calm and brief.\nI never guess dates.\n")   # not snapshotted
    return root, ws, store, (v1, v2, v3)


@pytest.fixture
def engine(qapp):
    from dreamdesk.gui.context.worker import JobLanes
    e = JobLanes()
    yield e
    e.shutdown()


class Answers:
    """Stands in for the view's dialogs: records every question, answers as told."""

    def __init__(self, confirm=True, move=False):
        self.confirm_answer = confirm
        self.move_answer = move
        self.asked: list[tuple[str, str, str]] = []

    def confirm(self, parent, title, text):
        self.asked.append(("confirm", title, text))
        return self.confirm_answer

    def move_cursor_back(self, parent, text):
        self.asked.append(("move", "", text))
        return self.move_answer

    def error(self, parent, title, text):
        self.asked.append(("error", title, text))


def make_view(qtbot, engine, ws, answers=None):
    from dreamdesk.gui.views.snapshots_view import SnapshotsView
    view = SnapshotsView(engine)
    view.dialogs = answers or Answers()
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitExposed(view)
    view.set_workspace(ws)
    return view


def wait_listed(view, qtbot, n):
    qtbot.waitUntil(lambda: view.model.rowCount() == n, timeout=10000)


def wait_diff(view, qtbot, key):
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.shas == tuple(key) and view._current_shown(),
                    timeout=10000)


def click_row(view, qtbot, sha, ctrl=False):
    from dreamdesk.gui.models.snapshots_model import COL_MESSAGE
    from dreamdesk.gui.qt import Qt
    row = view.model.row_of(sha)
    rect = view.table.visualRect(view.model.index(row, COL_MESSAGE))
    mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, mod, rect.center())


def diff_of(qtbot, engine, ws, sha):
    """The view with the three snapshots listed and `sha`'s diff shown."""
    view = make_view(qtbot, engine, ws)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, sha)
    wait_diff(view, qtbot, [sha])
    return view


def click_link(view, qtbot, href):
    from dreamdesk.gui.qt import QPoint, Qt
    rect = view.diff.anchor_rect(href)
    assert rect is not None, (href, view.diff.hrefs())
    qtbot.mouseClick(view.diff.viewport(), Qt.MouseButton.LeftButton, pos=rect.center() + QPoint(3, 0))


def grab(widget, name, docs=False):
    where = SHOTS if docs else TMP_SHOTS
    where.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(where / name))


# -- the timeline ---------------------------------------------------------------------------------

def test_timeline_lists_kinds_and_counts(gui_env, qtbot, engine, history):
    from dreamdesk.gui.models.snapshots_model import COL_FILES, COL_KIND, FilesRole, KindRole, ShaRole
    root, ws, store, (v1, v2, v3) = history
    view = make_view(qtbot, engine, ws)
    snaps = store.list()
    wait_listed(view, qtbot, len(snaps))
    assert view.stack.currentWidget() is view.splitter
    m = view.model
    assert [m.index(r, 0).data(ShaRole) for r in range(m.rowCount())] == [s.sha for s in snaps] == [v3, v2, v1]
    assert [m.index(r, COL_KIND).data(KindRole) for r in range(3)] == ["edit", "dream", "pre-dream"]
    for r, s in enumerate(snaps):
        assert m.index(r, 0).data(FilesRole) == s.files
        shown = m.index(r, COL_FILES).data()
        for path, (a, d) in s.files.items():
            assert f"{path} +{a} −{d}" in shown
    assert snaps[1].files["USER.md"] == (2, 2) and "USER.md +2 −2" in m.index(1, COL_FILES).data()
    # the newest is selected at first: its diff against the working files is on screen
    wait_diff(view, qtbot, [v3])
    assert "I never guess dates." in view.diff.text()


def test_nanobot_kinds_have_their_badge(gui_env, qtbot, engine, tmp_path):
    from dreamdesk.gui.models.snapshots_model import COL_KIND, KindRole
    from helpers.nanobot_repo import build_nanobot_repo
    repo = build_nanobot_repo(tmp_path / "nb")
    view = make_view(qtbot, engine, Workspace.open(repo.root))
    wait_listed(view, qtbot, 3)
    assert [view.model.index(r, COL_KIND).data(KindRole) for r in range(3)] == \
        ["nanobot revert", "nanobot dream", "nanobot init"]


def test_the_model_passes_qtmodeltester(gui_env, qtmodeltester, history):
    from dreamdesk.gui.models.snapshots_model import SnapshotsModel
    root, ws, store, _ = history
    model = SnapshotsModel()
    model.set_snapshots(store.list())
    qtmodeltester.check(model, force_py=True)
    model.set_snapshots([])
    qtmodeltester.check(model, force_py=True)


# -- diffs ------------------------------------------------------------------------------------------

def test_one_snapshot_diffs_against_the_working_files(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    view = diff_of(qtbot, engine, ws, v1)
    text = view.diff.text()
    assert "Changes since snapshot " + v1[:8] in view.title.text()
    assert "fact 2: something CHANGED" in text and "fact 12: something" in text and "fact 21" in text
    assert "Backups at 03:00." in text and "I never guess dates." in text
    assert [f.path for f in view.diff.files()] == [d.path for d in store.diff(v1)]
    # every hunk of store.diff(v1) has its restore link, numbered as the engine numbers them
    expected = [f"restore-file:{fi}" if h is None else f"restore-hunk:{fi}/{h}"
                for fi, d in enumerate(store.diff(v1)) for h in [None] + [x.index for x in d.hunks]]
    assert view.diff.hrefs() == expected
    # side by side shows the same lines
    view.split_button.click()
    assert view.mode() == "split"
    split_text = view.diff.text()
    for needle in ("fact 2: something CHANGED", "fact 12: something", "I never guess dates."):
        assert needle in split_text


def test_what_this_snapshot_changed_and_what_changed_since_are_two_labelled_diffs(gui_env, qtbot, engine, history):
    """Issue 25 item 10: the row counts what the commit changed; the pane says which diff it shows."""
    root, ws, store, (v1, v2, v3) = history
    view = diff_of(qtbot, engine, ws, v2)
    assert view.since_button.isChecked() and "Changes since snapshot" in view.title.text()
    assert view.restore_button.isEnabled()
    qtbot.mouseClick(view.made_button, __import__("dreamdesk.gui.qt", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view._current_shown() and view.shown.made, timeout=10000)
    assert view.title.text().startswith(f"What snapshot {v2[:8]} (dream, 20") and "before it" in view.title.text()
    assert "the changes its row counts" in view.legend.text()
    row = view.model.snapshot(view.model.row_of(v2))
    shown = {f.path: (f.added, f.removed) for f in view.shown.diffs}
    assert shown == {p: n for p, n in row.files.items() if p in shown} and set(shown) == {"USER.md", "SOUL.md"}
    assert "fact 2: something CHANGED" in view.diff.text() and "Backups at 03:00." not in view.diff.text()
    assert view.diff.hrefs() == []                                   # nothing to restore from this diff
    assert not view.restore_button.isEnabled() and "What changed since" in view.restore_button.toolTip()
    grab(view, "snapshots-made.png")
    click_row(view, qtbot, v1, ctrl=True)                            # two selected: one diff, the toggle rests
    qtbot.waitUntil(lambda: view._current_shown() and len(view.shown.shas) == 2, timeout=10000)
    assert not view.made_button.isEnabled() and not view.shown.made


def test_the_context_menu_on_a_hunk_restores_that_hunk(gui_env, qtbot, engine, history):
    from dreamdesk.gui.qt import QMenu, QTextCursor
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=False)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    found = view.diff.document().find("fact 12: something")       # a removed line inside USER.md hunk 2
    assert not found.isNull()
    cur = QTextCursor(found)
    cur.setPosition(found.selectionStart() + 3)
    view.diff.setTextCursor(cur)
    view.diff.ensureCursorVisible()
    pos = view.diff.cursorRect(cur).center()
    assert view.diff.hunk_at(pos) == ("USER.md", 2)
    menu = QMenu()
    view.diff.hunk_actions(pos, menu)
    action = next(a for a in menu.actions() if a.text() == "Restore hunk 2 of USER.md…")
    action.trigger()
    assert answers.asked[-1][1] == "Restore hunk?" and "hunk 2 of USER.md" in answers.asked[-1][2]
    menu.deleteLater()


def test_two_snapshots_diff_between_them(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    view = make_view(qtbot, engine, ws)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v2)
    click_row(view, qtbot, v3, ctrl=True)
    wait_diff(view, qtbot, [v2, v3])                 # older → newer
    text = view.diff.text()
    assert "Backups at 03:00." in text
    assert "fact 2" not in text and "I never guess dates." not in text      # not between v2 and v3
    assert [f.path for f in view.diff.files()] == ["memory/MEMORY.md"]
    assert view.diff.hrefs() == []                   # nothing to restore from a comparison
    assert not view.restore_button.isEnabled() and not view.file_button.isEnabled()
    assert f"from snapshot {v2[:8]}" in view.title.text() and f"to {v3[:8]}" in view.title.text()


def test_intraline_marks_and_dark_palette(gui_env, qtbot, engine, history):
    from dreamdesk.gui.qt import QColor, QPalette
    from dreamdesk.gui.widgets.diff_view import DiffColours
    root, ws, store, (v1, v2, v3) = history
    view = diff_of(qtbot, engine, ws, v1)
    user = next(f for f in view.diff.files() if f.path == "USER.md")
    changed = [(line.kind, t) for h in user.hunks for line in h.lines for t, _, c in line.pieces() if c]
    assert ("+", "CHANGED ") in changed or ("+", "CHANGED") in changed
    pal = QPalette(view.palette())
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.Base, "#1e1e1e"),
                         (QPalette.ColorRole.AlternateBase, "#262626"), (QPalette.ColorRole.Text, "#e6e6e6"),
                         (QPalette.ColorRole.WindowText, "#e6e6e6"), (QPalette.ColorRole.Button, "#333333"),
                         (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#2f65ca"),
                         (QPalette.ColorRole.HighlightedText, "#ffffff"), (QPalette.ColorRole.Link, "#8ab4f8")):
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    view.setPalette(pal)
    colours = DiffColours.from_palette(view.diff.palette())
    assert colours.dark
    # text stays readable on the added/removed backgrounds in the dark palette
    for bg in (colours.add_bg, colours.del_bg, colours.add_mark, colours.del_mark, colours.hunk_bg):
        assert abs(colours.text.lightness() - bg.lightness()) > 100
    assert "fact 2: something CHANGED" in view.diff.text()
    grab(view, "snapshots-dark.png")


# -- restores ---------------------------------------------------------------------------------------

def test_hunk_restore_changes_only_that_hunk_then_undo(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=True)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    before = memory_bytes(root)
    user_diff = next(d for d in store.diff(v1) if d.path == "USER.md")
    fi = [d.path for d in store.diff(v1)].index("USER.md")
    assert len(user_diff.hunks) == 3
    expected = revert_hunk(before["USER.md"].decode(), user_diff.hunks[1]).encode()
    assert "- fact 12: something about Inès" in expected.decode()
    with qtbot.waitSignal(view.restored, timeout=10000):
        click_link(view, qtbot, f"restore-hunk:{fi}/2")
    kind, title, text = answers.asked[-1]
    assert title == "Restore hunk?" and "hunk 2 of USER.md" in text and "fact 12" in text and "undone" in text
    after = memory_bytes(root)
    assert after["USER.md"] == expected
    assert {k: v for k, v in after.items() if k != "USER.md"} == {k: v for k, v in before.items() if k != "USER.md"}
    # only hunk 2's lines moved: the other two hunks are still there against v1
    left = diff_texts(store.file_at(v1, "USER.md"), after["USER.md"].decode(), "USER.md")
    def changes(h):
        return [(x.kind, x.text) for x in h.lines]
    assert [changes(h) for h in left.hunks] == [changes(user_diff.hunks[0]), changes(user_diff.hunks[2])]
    assert view.last_restore is not None and view.last_restore.files == ["USER.md"]
    qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.undo_button, __import__("dreamdesk.gui.qt", fromlist=["Qt"]).Qt.MouseButton.LeftButton)
    assert answers.asked[-1][1] == "Undo last restore?"
    assert memory_bytes(root) == before                     # byte for byte
    kinds = [s.kind for s in store.list()]
    assert kinds[:2] == ["restore", "restore"]


def test_file_restore_from_the_file_menu(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=True)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    before = memory_bytes(root)
    action = next(a for a in view.file_menu.actions() if a.text().startswith("SOUL.md"))
    with qtbot.waitSignal(view.restored, timeout=10000):
        action.trigger()
    assert "Restore SOUL.md" in answers.asked[-1][2]
    after = memory_bytes(root)
    assert after["SOUL.md"] == V1["SOUL.md"].encode()
    assert {k: v for k, v in after.items() if k != "SOUL.md"} == {k: v for k, v in before.items() if k != "SOUL.md"}


def test_the_snapshots_a_restore_made_are_selected_and_in_sight(gui_env, qtbot, engine, history):
    """Issue 17.3: a restore adds snapshots above the rows in view; the newest is selected and
    scrolled to, instead of appearing out of sight."""
    root, ws, store, (v1, v2, v3) = history
    for i in range(40):                                  # enough rows that the list scrolls
        write(root, "memory/MEMORY.md", f"# Memory\n\n- note {i}\n")
        store.snapshot(f"edit: memory/MEMORY.md ({i})")
    view = make_view(qtbot, engine, ws, Answers(confirm=True))
    wait_listed(view, qtbot, 43)
    view.table.scrollToBottom()
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    action = next(a for a in view.file_menu.actions() if a.text().startswith("SOUL.md"))
    with qtbot.waitSignal(view.restored, timeout=10000):
        action.trigger()
    head = store.head()
    qtbot.waitUntil(lambda: view.model.rowCount() > 43, timeout=10000)
    qtbot.waitUntil(lambda: view.selected_shas() == [head], timeout=5000)
    rect = view.table.visualRect(view.model.index(view.model.row_of(head), 0))
    assert view.table.viewport().rect().contains(rect.center()), "the new snapshot is out of sight"
    wait_diff(view, qtbot, [head])
    grab(view, "snapshots-after-restore.png")


def test_whole_restore_moving_the_cursor_back(gui_env, qtbot, engine, history):
    from dreamdesk.gui.qt import Qt
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=True, move=True)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    assert "memory/.dream_cursor is 5 in the snapshot and 9 now" in view.legend.text()
    assert view.restore_button.isEnabled()
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    assert [a[0] for a in answers.asked] == ["move", "confirm"]
    assert "history entries after cursor 5" in answers.asked[0][2]
    confirm = answers.asked[1][2]
    for path in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        assert path in confirm
    assert "moves from 9 to 5" in confirm and "undone" in confirm
    assert (root / "memory/.dream_cursor").read_text() == "5"
    for rel in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
        assert (root / rel).read_text(encoding="utf-8") == V1[rel]
    # and Undo puts the cursor back too
    qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    assert (root / "memory/.dream_cursor").read_text() == "9"
    assert (root / "SOUL.md").read_text(encoding="utf-8").endswith("I never guess dates.\n")


def test_whole_restore_keeping_the_cursor(gui_env, qtbot, engine, history):
    from dreamdesk.gui.qt import Qt
    root, ws, store, (v1, v2, v3) = history
    write(root, "skills/new/SKILL.md", "# New skill\nWritten after every snapshot.\n")
    answers = Answers(confirm=True, move=False)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    paths = [f.path for f in view.diff.files()]
    new = paths.index("skills/new/SKILL.md")
    assert "not in this snapshot: a restore leaves it as it is" in view.diff.text()
    assert not any(h.startswith((f"restore-file:{new}", f"restore-hunk:{new}/")) for h in view.diff.hrefs())
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    assert "Not in the snapshot, left as they are: skills/new/SKILL.md" in answers.asked[-1][2]
    assert "stays at 9" in answers.asked[-1][2]
    assert (root / "memory/.dream_cursor").read_text() == "9"
    assert (root / "USER.md").read_text(encoding="utf-8") == V1["USER.md"]
    assert (root / "skills/new/SKILL.md").read_text(encoding="utf-8").startswith("# New skill")


@pytest.mark.parametrize("where", ["whole", "file", "hunk", "cursor-cancel", "undo"])
def test_declining_writes_nothing(gui_env, qtbot, engine, history, where):
    from dreamdesk.gui.qt import Qt
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=True)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    if where == "undo":
        with qtbot.waitSignal(view.restored, timeout=10000):
            view.restore_file("SOUL.md")
        qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    before = tree_state(root)
    answers.confirm_answer = False
    answers.move_answer = None if where == "cursor-cancel" else False
    n = len(answers.asked)
    if where in ("whole", "cursor-cancel"):
        qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    elif where == "file":
        next(a for a in view.file_menu.actions() if a.text().startswith("USER.md")).trigger()
    elif where == "hunk":
        click_link(view, qtbot, view.diff.hrefs()[-1])
    else:
        qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(answers.asked) > n, timeout=10000)   # asked once the undo is planned
    assert len(answers.asked) > n
    if where == "cursor-cancel":
        assert [a[0] for a in answers.asked[n:]] == ["move"]           # cancelled before the confirmation
    jobs_done(qtbot, engine)                                            # a write would have been queued, and run
    assert tree_state(root) == before
    assert not view.busy


def test_a_hunk_that_changed_underneath_is_refused(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=True)
    view = make_view(qtbot, engine, ws, answers)
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    fi = [f.path for f in view.diff.files()].index("USER.md")
    # the assistant rewrites USER.md after the diff was shown: hunk 1 is now a different change
    text = (root / "USER.md").read_text(encoding="utf-8").replace("- fact 1: something", "- fact 1: else")
    write(root, "USER.md", text)
    click_link(view, qtbot, f"restore-hunk:{fi}/1")
    qtbot.waitUntil(lambda: any(a[0] == "error" for a in answers.asked), timeout=10000)
    assert "changed since this diff was shown" in answers.asked[-1][2]
    assert (root / "USER.md").read_text(encoding="utf-8") == text


# -- the token and the empty state ------------------------------------------------------------------

def test_a_stale_diff_never_overwrites_the_newer_one(gui_env, qtbot, engine, history, monkeypatch):
    from dreamdesk.gui.views import snapshots_view
    root, ws, store, (v1, v2, v3) = history
    real = snapshots_view.compute_diff
    started = threading.Event()
    finished = threading.Event()
    go_on = threading.Event()

    def slow(ws_, shas, made=False):
        if shas == (v1,):
            started.set()
            go_on.wait(5)                    # A's diff is slow: it goes on once B was clicked
            try:
                return real(ws_, shas, made)
            finally:
                finished.set()
        return real(ws_, shas, made)

    monkeypatch.setattr(snapshots_view, "compute_diff", slow)
    view = make_view(qtbot, engine, ws)
    wait_listed(view, qtbot, 3)
    wait_diff(view, qtbot, [v3])
    applied = []
    original_set = view.diff.set_prepared
    view.diff.set_prepared = lambda prepared, *a, **k: (applied.append([f.path for f in prepared.files]),
                                                         original_set(prepared, *a, **k))
    click_row(view, qtbot, v1)                   # A
    qtbot.waitUntil(started.is_set, timeout=5000)
    click_row(view, qtbot, v2)                   # ...then B while A is still computing
    go_on.set()
    qtbot.waitUntil(finished.is_set, timeout=5000)
    wait_diff(view, qtbot, [v2])
    jobs_done(qtbot, engine)                     # (A's answer came before B's, on the one reader lane)
    assert view.shown.shas == (v2,)
    assert applied == [[d.path for d in store.diff(v2)]]            # A's answer was dropped
    assert "fact 2: something CHANGED" not in view.diff.text()      # v2 already holds that line
    assert "Backups at 03:00." in view.diff.text()


def test_quick_selection_changes_are_debounced(gui_env, qtbot, engine, history, monkeypatch):
    from dreamdesk.gui.views import snapshots_view
    root, ws, store, (v1, v2, v3) = history
    calls = []
    real = snapshots_view.compute_diff
    monkeypatch.setattr(snapshots_view, "compute_diff", lambda w, s, made=False: (calls.append(s), real(w, s, made))[1])
    view = make_view(qtbot, engine, ws)
    wait_listed(view, qtbot, 3)
    wait_diff(view, qtbot, [v3])
    calls.clear()
    view._debounce.setInterval(60_000)          # all four clicks inside one debounce interval, however slow
    for sha in (v2, v1, v2, v1):
        click_row(view, qtbot, sha)
    assert calls == []
    view._debounce.setInterval(0)               # the interval has passed (a running timer restarts with it)
    wait_diff(view, qtbot, [v1])
    jobs_done(qtbot, engine)
    assert calls == [(v1,)]


def test_empty_state_creates_no_repository(gui_env, qtbot, engine, make_workspace):
    root = make_workspace(V1)
    before = tree_state(root)
    view = make_view(qtbot, engine, Workspace.open(root))
    qtbot.waitUntil(lambda: view.listing is not None, timeout=10000)
    assert view.stack.currentWidget() is view.empty_page
    assert view.empty.text() == "No snapshots yet: the first Dream run, edit or restore creates them."
    assert not (root / ".git").exists() and not (root / ".dreamdesk").exists()
    assert tree_state(root) == before
    grab(view, "snapshots-empty.png")
    # the first snapshot appears on the next refresh
    SnapshotStore(Workspace.open(root)).snapshot("edit: USER.md")
    view.refresh()
    wait_listed(view, qtbot, 1)
    assert view.stack.currentWidget() is view.splitter


def test_screenshot_on_the_demo(gui_env, qtbot, engine, demo_home):
    """The demo with a realistic history: a nanobot-style start, a dream, an edit and a restore."""
    root = demo_home / "workspace"
    ws = Workspace.open(demo_home)
    store = SnapshotStore(ws)
    store.snapshot("snapshot: before dream 20260403-0200")
    user = (root / "USER.md").read_text(encoding="utf-8")
    user = user.replace("Short by default; long only when she says \"deep dive\".",
                        "Short by default; long only when she asks for a \"deep dive\".")
    user = user.replace("- Sunday afternoon is family board-game time (current favourite: Dixit).\n",
                        "- Sunday afternoon is family board-game time (current favourite: Cascadia).\n"
                        "- Prefers train over plane for trips under 800 km.\n")
    write(root, "USER.md", user)
    mem = (root / "memory/MEMORY.md").read_text(encoding="utf-8")
    write(root, "memory/MEMORY.md", mem + "\n## Travel\n- Lyon trip booked for 14 Mar (TGV from Brussels-Midi).\n")
    write(root, "memory/.dream_cursor", "110")
    store.snapshot("dream: periodic memory consolidation", with_summary=True)
    write(root, "SOUL.md", (root / "SOUL.md").read_text(encoding="utf-8") + "- Never guess a date: ask.\n")
    store.snapshot("edit: SOUL.md")
    first = store.list()[-1].sha
    restore_snapshot(ws, first, path="memory/MEMORY.md")
    write(root, "USER.md", (root / "USER.md").read_text(encoding="utf-8").replace("Dutch at B1", "Dutch at B2"))
    view = make_view(qtbot, engine, ws)
    view.resize(1400, 820)
    wait_listed(view, qtbot, len(store.list()))
    pre_dream = store.list()[-1].sha
    click_row(view, qtbot, pre_dream)
    wait_diff(view, qtbot, [pre_dream])
    assert "Cascadia" in view.diff.text()
    view.diff.verticalScrollBar().setValue(0)
    grab(view, "snapshots.png", docs=True)
    view.split_button.click()
    grab(view, "snapshots-side-by-side.png")


def test_a_git_failure_is_shown_where_the_timeline_would_be(gui_env, qtbot, engine, history, monkeypatch, tmp_path):
    ws = history[1]
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    view = make_view(qtbot, engine, ws)
    qtbot.waitUntil(lambda: view.stack.currentWidget() is view.empty_page
                    and view.empty.text() == "The snapshots cannot be read", timeout=5000)
    assert "git is not installed" in view.empty_note.text()
    assert not view.restore_button.isEnabled()


def test_charts_say_when_the_size_history_cannot_be_read(gui_env, qtbot, engine, history, monkeypatch, tmp_path):
    from dreamdesk.gui.views.charts_view import ChartsView
    ws = history[1]
    empty = tmp_path / "no-git"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    view = ChartsView(engine)
    qtbot.addWidget(view)
    view.show()
    view.set_workspace(ws, {})
    qtbot.waitUntil(lambda: view.empty.text().startswith("The size history cannot be read"), timeout=5000)
    assert "git is not installed" in view.empty.text() and not view.top_bar.isVisible()


# -- undo: exactly what a restore wrote, after a restart too -----------------------------------------

def test_undo_after_a_restart_reverts_only_what_that_restore_wrote(gui_env, qtbot, engine, history):
    """The seen case: MEMORY.md restored here, then an archived entry restored into USER.md and a
    hand edit of USER.md. After a restart the undo menu lists both restores; undoing the MEMORY.md
    one names only MEMORY.md and leaves USER.md as the person left it."""
    from dreamdesk.engine.recovery.archive import append_records
    from dreamdesk.engine.recovery.restore import restore_archive_entry
    root, ws, store, (v1, v2, v3) = history
    view = make_view(qtbot, engine, ws, Answers(confirm=True))
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    memory_before = (root / "memory/MEMORY.md").read_bytes()
    with qtbot.waitSignal(view.restored, timeout=10000):
        view.restore_file("memory/MEMORY.md")
    rec = append_records(ws, [{"file": "USER.md", "text": "- Has a cat.", "reason": "dream", "heading": "## Facts"}])[0]
    restore_archive_entry(ws, rec.id)
    write(root, "USER.md", (root / "USER.md").read_text(encoding="utf-8") + "- Typed by hand.\n")
    user_now = (root / "USER.md").read_bytes()
    view.close()

    answers = Answers(confirm=True)
    again = make_view(qtbot, engine, Workspace.open(root), answers)     # a new window on the same home
    qtbot.waitUntil(lambda: len(again.recent) == 2 and again.undo_button.isEnabled(), timeout=10000)
    items = [a.text() for a in again.undo_menu.actions()]
    assert items[0].startswith(f"Undo archived entry {rec.id} into USER.md")
    assert items[1].startswith("Undo ") and "memory/MEMORY.md" in items[1]
    grab(again, "snapshots-undo-menu.png")
    with qtbot.waitSignal(again.restored, timeout=10000):
        again.undo_menu.actions()[1].trigger()
    kind, title, text = answers.asked[-1]
    assert title == "Undo restore?" and "memory/MEMORY.md" in text and "USER.md" not in text
    assert (root / "memory/MEMORY.md").read_bytes() == memory_before
    assert (root / "USER.md").read_bytes() == user_now


def test_undo_over_a_later_edit_shows_what_would_be_lost(gui_env, qtbot, engine, history):
    root, ws, store, (v1, v2, v3) = history
    answers = Answers(confirm=False)
    view = make_view(qtbot, engine, ws, Answers(confirm=True))
    wait_listed(view, qtbot, 3)
    click_row(view, qtbot, v1)
    wait_diff(view, qtbot, [v1])
    soul_before = (root / "SOUL.md").read_bytes()
    with qtbot.waitSignal(view.restored, timeout=10000):
        view.restore_file("SOUL.md")
    write(root, "SOUL.md", V1["SOUL.md"] + "Edited after the restore.\n")
    view.dialogs = answers
    qtbot.waitUntil(view.undo_button.isEnabled, timeout=10000)
    from dreamdesk.gui.qt import Qt
    qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(answers.asked), timeout=10000)
    kind, title, text = answers.asked[-1]
    assert title == "Undo anyway?"
    assert "Changed since that restore" in text and "+ Edited after the restore." in text
    jobs_done(qtbot, engine)                                    # an undo would have been queued, and run
    assert (root / "SOUL.md").read_bytes() == (V1["SOUL.md"] + "Edited after the restore.\n").encode()   # declined
    answers.confirm_answer = True
    with qtbot.waitSignal(view.restored, timeout=10000):
        qtbot.mouseClick(view.undo_button, Qt.MouseButton.LeftButton)
    assert (root / "SOUL.md").read_bytes() == soul_before


def test_the_buttons_stay_put_when_the_explanation_wraps(gui_env, qtbot, engine, history):
    """A longer title or legend (two snapshots compared, a cursor note) takes more lines: the
    buttons a person is about to click must not move under the mouse."""
    from dreamdesk.gui.qt import QApplication, QPoint
    root, ws, store, (v1, v2, v3) = history
    view = make_view(qtbot, engine, ws)
    view.resize(900, 640)
    wait_listed(view, qtbot, 3)
    wait_diff(view, qtbot, [v3])
    buttons = (view.unified_button, view.split_button, view.restore_button, view.file_button, view.undo_button)

    def where():
        QApplication.processEvents()
        return [(b.mapTo(view, QPoint(0, 0)), b.size()) for b in buttons]

    before = where()
    lines_before = view.legend.height()
    long = " ".join(["memory/.dream_cursor is 99 in the snapshot and 125 now."] * 8)
    view.title.setText("Changes from snapshot " + long)
    view.legend.setText(long)
    assert where() == before
    assert view.legend.height() > 3 * lines_before      # the explanation did wrap to many more lines
    grab(view, "snapshots-long-explanation.png")
    # the real thing: two snapshots compared, then one, each with its own explanation
    click_row(view, qtbot, v1, ctrl=True)
    wait_diff(view, qtbot, [v1, v3])
    assert where() == before
