"""Opening another workspace: everything the window shows belongs to the workspace that is open
(issue 25 items 1 and 2)."""

from conftest import pending_files


def _other(make_workspace, tmp_path):
    return make_workspace(pending_files("Likes tea"), tmp_path / "other")


def test_the_engine_panel_shows_the_open_workspaces_runs_only(main_window, demo_home, make_workspace, tmp_path,
                                                              qtbot):
    panel = main_window.panel
    panel.run_dream()                          # the demo's recorded run, played offline
    qtbot.waitUntil(lambda: panel.outcome.text().startswith("Dream completed"), timeout=15000)
    demo_outcome, demo_log = panel.outcome.text(), panel.log.toPlainText()
    assert "Last run used" in panel.progress.text() and "Dream started" in demo_log
    assert main_window.open_workspace(str(_other(make_workspace, tmp_path)))
    assert (panel.progress.text(), panel.outcome.text(), panel.log.toPlainText()) == ("Idle.", "", "")
    assert "blog-publish" not in panel.model_label.text() + panel.scope_label.text()
    assert main_window.open_workspace(str(demo_home))     # back: its own run again
    assert (panel.outcome.text(), panel.log.toPlainText()) == (demo_outcome, demo_log)


def test_a_run_that_ends_after_a_switch_reports_to_its_own_workspace(main_window, demo_home, make_workspace, tmp_path,
                                                                      qtbot):
    panel = main_window.panel
    panel.run_compact()                        # the demo compacts with its replayed model
    other = _other(make_workspace, tmp_path)
    assert main_window.open_workspace(str(other))
    qtbot.waitUntil(lambda: not panel.running, timeout=15000)
    assert (panel.progress.text(), panel.outcome.text(), panel.log.toPlainText()) == ("Idle.", "", "")
    assert main_window.open_workspace(str(demo_home))
    assert "Compact started" in panel.log.toPlainText() and panel.outcome.text()


def test_archive_search_does_not_follow_into_another_workspace(past_window, make_workspace, tmp_path, qtbot):
    win, view = past_window, past_window.archive
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() > 0, timeout=10000)
    qtbot.keyClicks(view.search_edit, "Dagster")
    qtbot.waitUntil(lambda: " of " in view.count_label.text(), timeout=5000)
    other = make_workspace(pending_files("Likes tea", USER="# User\n- Works with Dagster\n"), tmp_path / "other")
    (other / "memory/archive").mkdir(parents=True)
    assert win.open_workspace(str(other))
    assert view.search_edit.text() == ""
    qtbot.waitUntil(lambda: view.loaded and view.ws.root == other, timeout=10000)
    assert " of " not in view.count_label.text() and view.proxy.rowCount() == view.model.rowCount()


def test_history_filter_does_not_follow_into_another_workspace(main_window, make_workspace, tmp_path, qtbot):
    main_window.tabs.setCurrentWidget(main_window.history)
    view = main_window.history
    qtbot.keyClicks(view.filter_edit, "zzz-no-such-text")
    qtbot.waitUntil(lambda: view.proxy.rowCount() < view.model.rowCount(), timeout=5000)
    other = _other(make_workspace, tmp_path)
    assert main_window.open_workspace(str(other))
    qtbot.waitUntil(lambda: main_window.state is not None and main_window.state.status.cursor == 1, timeout=10000)
    assert view.filter_edit.text() == "" and view.proxy.rowCount() == view.model.rowCount() > 0
