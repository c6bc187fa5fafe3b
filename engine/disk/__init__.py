"""Files and processes: atomic hash-checked writes (files), the change record every write adds to,
Dreamdesk's own-write registry and the one file-watch adapter, git's plumbing files (HEAD, index,
locks), /proc questions, and OS errors in words."""
