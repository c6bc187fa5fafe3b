"""The assistant writes memory files in place, without Dreamdesk's lock. A real second process
writes at the worst moment — after Dreamdesk's last hash check, just before its rename — and
after the rename into the file it had open; none of its bytes are lost, and the archive never
claims a removal that did not land."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dreamdesk.engine.disk import files
from dreamdesk.engine.recovery.archive import append_records, read_archive, write_memory
from dreamdesk.engine.disk.files import LateWrite, content_hash
from dreamdesk.engine.core.problems import ConflictError
from dreamdesk.engine.recovery.restore import restore_archive_entry, restore_snapshot
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

USER = "# User\n\n## Facts\n- Lives in Lyon.\n- Has a cat.\n"
MEMORY = "# Memory\n\n## Homelab\n- Proxmox on the NUC.\n- Backups at 03:00.\n"


@pytest.fixture
def ws(make_workspace) -> Workspace:
    return Workspace.open(make_workspace({"SOUL.md": "s\n", "USER.md": USER, "memory/MEMORY.md": MEMORY}))


def assistant(*code: str) -> None:
    """Run the assistant's write in its own process, to completion."""
    subprocess.run([sys.executable, "-c", "\n".join(code)], check=True)


def at_worst_moment(monkeypatch, action) -> list[Path]:
    fired: list[Path] = []

    def hook(path: Path) -> None:
        if not fired:
            fired.append(path)
            action(path)
    monkeypatch.setattr(files, "_before_replace", hook)
    return fired


def test_an_append_at_the_worst_moment_is_kept_after_dreamdesks_write(ws, monkeypatch):
    target = ws.root / "memory/MEMORY.md"
    fired = at_worst_moment(monkeypatch, lambda p: assistant(
        f"open({str(target)!r}, 'a', encoding='utf-8').write('- Appended by the assistant.\\n')"))
    state, _ = ws.read_file("memory/MEMORY.md")
    write_memory(ws, "memory/MEMORY.md", MEMORY.replace("- Backups at 03:00.\n", ""), state.hash, "edit")
    assert fired
    text = target.read_text(encoding="utf-8")
    assert "- Appended by the assistant." in text and "Backups" not in text
    assert [r.text for r in read_archive(ws).records] == ["- Backups at 03:00."]


def test_an_unfinished_line_appended_at_the_worst_moment_is_a_late_write_not_an_append(ws, monkeypatch):
    """The other side of the test above: an append without its newline is a line still being
    written, not one to carry over after ours (it would run into our next line). Their file is
    put back whole and the write reported; the archive claims nothing."""
    target = ws.root / "memory/MEMORY.md"
    at_worst_moment(monkeypatch, lambda p: assistant(
        f"open({str(target)!r}, 'a', encoding='utf-8').write('- Half a line from the assist')"))
    state, _ = ws.read_file("memory/MEMORY.md")
    with pytest.raises(LateWrite, match="^memory/MEMORY.md was rewritten by another program") as info:
        write_memory(ws, "memory/MEMORY.md", MEMORY.replace("- Backups at 03:00.\n", ""), state.hash, "edit")
    assert target.read_text(encoding="utf-8") == MEMORY + "- Half a line from the assist"
    assert read_archive(ws).records == []
    assert (info.value.path, info.value.expected, info.value.actual) == (
        "memory/MEMORY.md", state.hash, content_hash((MEMORY + "- Half a line from the assist").encode()))


def test_an_in_place_rewrite_at_the_worst_moment_wins_and_the_archive_claims_nothing(ws, monkeypatch):
    target = ws.root / "USER.md"
    theirs = "# User\n\n## Facts\n- Lives in Nantes now.\n- Has a cat.\n"
    at_worst_moment(monkeypatch, lambda p: assistant(
        f"open({str(target)!r}, 'w', encoding='utf-8').write({theirs!r})"))
    state, _ = ws.read_file("USER.md")
    with pytest.raises(LateWrite, match="rewritten by another program"):
        write_memory(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n", state.hash, "edit")
    assert target.read_text(encoding="utf-8") == theirs
    assert read_archive(ws).records == []                    # "Has a cat." never left


def test_a_file_renamed_over_at_the_worst_moment_is_a_conflict_and_theirs_stays(ws, monkeypatch):
    target = ws.root / "USER.md"
    theirs = "# User\n\nRenamed into place.\n"
    at_worst_moment(monkeypatch, lambda p: assistant(
        "import os",
        f"open({str(target) + '.new'!r}, 'w').write({theirs!r})",
        f"os.replace({str(target) + '.new'!r}, {str(target)!r})"))
    state, _ = ws.read_file("USER.md")
    with pytest.raises(ConflictError) as info:
        write_memory(ws, "USER.md", "# User\n", state.hash, "edit")
    assert target.read_text() == theirs
    assert read_archive(ws).records == []
    # it names the file as the caller does, the version read and the one there now
    assert (str(info.value), info.value.expected, info.value.actual) == (
        "USER.md changed on disk since it was read; nothing was written", state.hash, content_hash(theirs.encode()))
    target.unlink()                                          # and one deleted since it was read
    with pytest.raises(ConflictError) as info:
        files.checked_write(target, "# User\n", state.hash, display="USER.md")
    assert (info.value.path, info.value.expected, info.value.actual) == ("USER.md", state.hash, files.MISSING_HASH)
    assert not target.exists()


def test_a_write_into_the_old_file_just_after_the_rename_is_kept(ws, monkeypatch):
    """The assistant opened MEMORY.md before Dreamdesk's rename and appends just after it: its
    write lands once the rename is done, before Dreamdesk looks at the old file for late bytes."""
    target = ws.root / "memory/MEMORY.md"
    procs = []

    def opened_before_the_rename(p: Path) -> None:
        proc = subprocess.Popen([sys.executable, "-c",
                                 f"import sys\nf = open({str(target)!r}, 'a')\nprint('open', flush=True)\n"
                                 "sys.stdin.readline()\nf.write('- Written into the old file.\\n')\nf.flush()\n"
                                 "print('written', flush=True)\nsys.stdin.read()\nf.close()"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"open"
        procs.append(proc)
    at_worst_moment(monkeypatch, opened_before_the_rename)
    real_settled = files._settled_bytes

    def renamed(fd: int) -> bytes:                 # the rename is done: the assistant writes now
        proc = procs[0]
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == b"written"
        return real_settled(fd)
    monkeypatch.setattr(files, "_settled_bytes", renamed)
    state, _ = ws.read_file("memory/MEMORY.md")
    try:
        write_memory(ws, "memory/MEMORY.md", MEMORY + "- Added by Dreamdesk.\n", state.hash, "edit")
    finally:
        procs[0].communicate()                     # stdin closed: it closes the file and ends
    text = target.read_text()
    assert "- Added by Dreamdesk." in text and "- Written into the old file." in text


def test_whole_restore_and_archive_restore_keep_a_worst_moment_append(ws, monkeypatch):
    store = SnapshotStore(ws)
    v1 = store.snapshot("init: test")
    (ws.root / "memory/MEMORY.md").write_text(MEMORY + "- Dream added this.\n")
    store.snapshot("dream: x")
    target = ws.root / "memory/MEMORY.md"
    at_worst_moment(monkeypatch, lambda p: p.name == "MEMORY.md" and assistant(
        f"open({str(target)!r}, 'a').write('- Assistant, during the restore.\\n')"))
    restore_snapshot(ws, v1)
    assert "- Assistant, during the restore." in target.read_text()

    rec = append_records(ws, [{"file": "USER.md", "text": "- Plays chess.", "reason": "dream", "heading": "## Facts"}])[0]
    user = ws.root / "USER.md"
    monkeypatch.setattr(files, "_before_replace", None)
    at_worst_moment(monkeypatch, lambda p: assistant(f"open({str(user)!r}, 'a').write('- Typed meanwhile.\\n')"))
    restore_archive_entry(ws, rec.id)
    text = user.read_text()
    assert "- Plays chess." in text and "- Typed meanwhile." in text


def test_a_second_process_writing_every_few_ms_never_loses_a_line(ws):
    """No hook: a real assistant appending to MEMORY.md every ~2 ms while Dreamdesk rewrites it
    twenty times. Every line it appended is in the file at the end."""
    target = ws.root / "memory/MEMORY.md"
    stop = ws.root.parent / "stop"
    writer = subprocess.Popen([sys.executable, "-c", f"""
import os, time
n = 0
while not os.path.exists({str(stop)!r}):
    with open({str(target)!r}, 'a') as f:
        f.write(f'- line {{n}} from the assistant\\n')
    n += 1
    if n == 1:
        print('writing', flush=True)      # the test starts once the writer is writing
    time.sleep(0.002)
print(n)
"""], stdout=subprocess.PIPE, text=True)
    conflicts = 0
    try:
        # the writer is writing before Dreamdesk starts (a loaded machine starts a process late)
        assert writer.stdout.readline().strip() == "writing"
        for i in range(20):
            state, _ = ws.read_file("memory/MEMORY.md")
            try:
                write_memory(ws, "memory/MEMORY.md", state.text + f"- note {i} from Dreamdesk\n", state.hash, "edit")
            except ConflictError:
                conflicts += 1                                  # it wrote between our read and check
    finally:
        stop.touch()
        n = int(writer.communicate(timeout=20)[0].split()[-1])
    text = target.read_text()
    missing = [k for k in range(n) if f"- line {k} from the assistant\n" not in text]
    assert n > 0 and missing == []
    assert conflicts < 20
