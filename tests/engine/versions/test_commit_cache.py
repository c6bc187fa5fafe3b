"""The commit log's cache (issue 13 §2 speed, structure only: the wall time is in tests/bench): a
later open runs one git process and reads one file, a cache whose body changed by a byte is
rebuilt, and the records read back lazily are the records that were analysed."""


from dreamdesk.engine.versions.commit_cache import cache_file
from dreamdesk.engine.versions.commit_log import CACHE_NAME, load_history
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace
from helpers.prune_history import build
from helpers.git_probe import watched


def test_a_cache_hit_runs_one_git_process_and_reads_one_file(tmp_path):
    ws_path = tmp_path / "ws"
    build(ws_path)
    ws = Workspace.open(ws_path)
    first, _, started = watched(lambda: load_history(ws))
    # (gitpython asks `git version` once per process, on its first command)
    assert first.analysed == 4 and [c for c in started if c != "version"] == ["rev-parse", "log", "cat-file"]
    cache = str(cache_file(SnapshotStore(ws).git_dir, CACHE_NAME))
    again, opened, started = watched(lambda: load_history(ws))
    assert again.analysed == 0 and opened == [cache] and started == ["rev-parse"]
    assert [r.to_json() for r in again.records] == [r.to_json() for r in first.records]
    (_, extra, folded), opened, started = watched(lambda: all_prunes(ws))    # + the memory files, the restore log
    assert started == ["rev-parse"] and opened.count(cache) == 1, opened
    assert [r.text for r in extra] == [e.latest.text for e in folded] == [
        "- Has a cat named Miso.", "- Drinks oolong.\n  Loose leaf, never bags.", "- Backups go to a NAS.",
        "- Ships on Fridays.", "## Work"]


def test_a_cache_changed_by_one_byte_is_rebuilt(tmp_path):
    ws_path = tmp_path / "ws"
    build(ws_path)
    ws = Workspace.open(ws_path)
    good = [r.to_json() for r in load_history(ws).records]
    path = cache_file(SnapshotStore(ws).git_dir, CACHE_NAME)
    raw = path.read_bytes()
    body = raw.index(b"\n") + 1
    for at in (body, len(raw) - 2, raw.index(b"Miso")):     # the body's first and last row, an entry's text
        path.write_bytes(raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1:])
        again = load_history(ws)
        assert again.analysed == 4 and [r.to_json() for r in again.records] == good
    path.write_bytes(raw[:body - 1])                           # the header alone
    assert load_history(ws).analysed == 4
