"""One function per user operation (issue 27): what a person asks Dreamdesk to write, from the CLI
or the window, each in one small function that takes the workspace, the operation's arguments and
who asked (the initiator), and returns an `OpResult`: its payload, the change record of what it
wrote and the words to tell the person. The operations only sequence the engine's own functions
(recovery/, lint/, home/config, jobs/consolidator, dream/run …): the rules live there, so the CLI
and the GUI write through the same rules (the stale-hunk check included).

  edit.py             save a memory file (a conflict is a question, not a failure)
  restore.py          restore a snapshot, a file or a hunk; undo a restore
  archive_restore.py  put removed entries back (Archive, Dream runs, "since you last looked")
  archive_delete.py   erase archived entries for good
  pin.py              pin, unpin, restore a missing pinned entry
  lint_fix.py         apply a lint finding's fix
  settings.py         config.json settings, re-apply and forget them; Dream's scope, ceiling, prompts
  compact.py          compact the sessions now
  dream.py            a Dream run, a review, a dry run
  dry_run.py          apply what a dry run previewed
  watch.py            the watch on and off; "got it" on what changed since you last looked
"""
