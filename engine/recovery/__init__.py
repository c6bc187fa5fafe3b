"""Nothing lost: the archive of every removed entry, restores and their undo, the restore log,
prunes found in either writer's history and putting them back, pins, the watch that archives an
outside writer's removals, and hand edits."""
