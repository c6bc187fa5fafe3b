"""Snapshots in git: Dreamdesk's snapshot store, the assistant's own commits read as runs and prunes
(commit_log) and their cache."""
