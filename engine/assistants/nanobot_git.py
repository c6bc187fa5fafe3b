"""What nanobot 0.3.5 keeps in its own git repository, read from its code
(nanobot/agent/memory.py builds `GitStore(workspace, tracked_files=[...])`;
nanobot/utils/gitstore.py stages exactly those paths and `.gitignore`).

nanobot's `/dream-log` shows every file a `dream:` commit changed, and its `/dream-restore`
writes back only these four: a file of Dreamdesk's in nanobot's repository is shown to the
user as a Dream change nanobot cannot restore. So Dreamdesk commits only these paths there and
keeps everything else it snapshots (skills, its archive, its run records) in a store of its own.
"""

from __future__ import annotations

# nanobot's tracked_files, in its order, plus the .gitignore its init commits
TRACKED = ("SOUL.md", "USER.md", "memory/MEMORY.md", "memory/.dream_cursor")
REPOSITORY_FILES = (*TRACKED, ".gitignore")

# Dreamdesk's own folders inside memory/, which nanobot's .gitignore re-includes whole
# (`!memory/`): named in the repository's local exclude file (.git/info/exclude, never
# committed, read by git and by nanobot's dulwich alike) so that `git status` stays nanobot's.
EXCLUDE_HEADER = "# Dreamdesk's archive and Dream run records: kept in Dreamdesk's own snapshot store"
EXCLUDE_LINES = ("/memory/archive/", "/memory/dreams/")
