"""engine/disk/file_watch.py: the one watchdog adapter `serve` and the window share, Qt-free."""

from __future__ import annotations

import queue

from dreamdesk.engine.disk.file_watch import FileWatch


def watching(root, **kw):
    seen: queue.Queue = queue.Queue()
    watch = FileWatch(root, lambda path, complete: seen.put((path, complete)), **kw)
    watch.start()
    watch.wait_started()
    return watch, seen


def until(seen: queue.Queue, path: str) -> list[tuple[str, bool]]:
    """Everything reported up to (and with) the report that a write to `path` is complete."""
    got = []
    while not got or got[-1] != (path, True):
        got.append(seen.get(timeout=5))
    return got


def test_reads_temp_files_and_git_are_not_changes_writes_deep_and_outside_are(tmp_path):
    root = tmp_path / "ws"
    (root / "memory" / "dreams").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "USER.md").write_text("# U\n")
    cfg = tmp_path / "config.json"
    cfg.write_text("{}")
    watch, seen = watching(root, outside=(str(cfg),))
    try:
        (root / "USER.md").read_bytes()                        # a read
        (root / ".git" / "HEAD").write_text("ref\n")           # git's own files
        (root / "USER.md.tmp").write_text("half")              # a temp file
        fence = root / "fence.md"
        fence.write_text("x")                                  # same folder: reported after the above
        got = until(seen, str(fence))
        assert {p for p, _ in got} == {str(fence)}, got
        (root / "memory" / "dreams" / "run.json").write_text("{}")          # deep in memory/
        until(seen, str(root / "memory" / "dreams" / "run.json"))
        tmp = cfg.with_name(".config.json.tmp")
        tmp.write_text('{"a": 1}')
        tmp.replace(cfg)                                       # an atomic save outside the workspace
        until(seen, str(cfg))
    finally:
        watch.stop()


def test_the_first_look_reports_what_changed_before_the_watch_ran(tmp_path):
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "USER.md").write_text("# U\n")
    seen: queue.Queue = queue.Queue()
    watch = FileWatch(root, lambda path, complete: seen.put(path), first_look=True,
                      on_started=lambda: seen.put("started"))
    with watch.lock:                                           # the watch cannot run yet
        watch.start()
        (root / "USER.md").write_text("# U\n- new\n")
    try:
        assert [seen.get(timeout=5), seen.get(timeout=5)] == [str(root / "USER.md"), "started"]
    finally:
        watch.stop()
