"""The index read from its file names exactly the paths `git ls-files` names, in every index
version git writes, and says it cannot tell (None) for one it cannot vouch for."""

import pytest

from dreamdesk.engine.disk.git_index import index_paths
from helpers.nanobot_repo import git

NAMES = ["SOUL.md", "USER.md", "memory/MEMORY.md", "memory/archive/2026-01.jsonl", "skills/a b/SKILL.md",
         "skills/é/SKILL.md", "/".join(c * 200 for c in "abcdefghijklmnop") + "/long.md"]   # > 4095 bytes


def ls_files(root):
    return [p for p in git(root, "-c", "core.quotepath=false", "ls-files", "-z").split("\0") if p]


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    git(root, "add", "--", *NAMES)
    (root / "new.md").write_text("x")
    git(root, "add", "--intent-to-add", "new.md")          # an extended-flag entry (version 3)
    return root


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_every_index_version_reads_as_ls_files(repo, version):
    git(repo, "update-index", "--index-version", version)
    assert index_paths(repo / ".git") == ls_files(repo) == sorted(NAMES + ["new.md"])


def test_a_conflicted_path_is_named_once(repo):
    git(repo, "commit", "-qm", "one")
    git(repo, "checkout", "-qb", "other")
    (repo / "USER.md").write_text("theirs")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "-")
    (repo / "USER.md").write_text("ours")
    git(repo, "commit", "-qam", "ours")
    with pytest.raises(AssertionError):
        git(repo, "merge", "-q", "other")                 # USER.md at stages 1, 2 and 3
    assert ls_files(repo).count("USER.md") == 3
    assert index_paths(repo / ".git") == list(dict.fromkeys(ls_files(repo)))


def test_no_index_is_no_path_and_an_index_it_cannot_vouch_for_is_none(repo):
    git_dir = repo / ".git"
    git(repo, "update-index", "--split-index")
    assert index_paths(git_dir) is None                   # the paths live in sharedindex.*
    git(repo, "update-index", "--no-split-index")
    data = (git_dir / "index").read_bytes()
    (git_dir / "index").write_bytes(data[:40] + bytes([data[40] ^ 1]) + data[41:])
    assert index_paths(git_dir) is None                   # its SHA-1 no longer checks out
    (git_dir / "index").unlink()
    assert index_paths(git_dir) == []
