"""The names the application's own jobs go by on the lanes, as the log shows them. Which of them
closing the window waits for without asking is the job's `bookkeeping` flag, never its name."""

SCHEDULE_JOB = "schedule: "   # the scheduler's jobs on the writer lane
WATCH_JOB = "watch: "         # the watch's jobs on the writer lane
