"""The kinds an archive row is filtered by (`dreamdesk archive --reason/--from`): on their own,
so the CLI's parser has them without loading the archive and the commit log behind it."""

REASONS = ("dream", "review", "edit", "restore", "outside")   # outside: another writer (engine/recovery/watch.py)
COMMIT_REASONS = ("revert",)   # beside REASONS, which has "outside" too
ORIGINS = ("archive", "commit", "assistant", "dreamdesk")
