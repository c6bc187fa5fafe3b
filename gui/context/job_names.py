"""The names the application's own jobs go by on the lanes: the person is asked about their jobs
when the window closes, never about the watch's short bookkeeping."""

SCHEDULE_JOB = "schedule: "   # the scheduler's jobs on the writer lane
WATCH_JOB = "watch: "         # the watch's jobs on the writer lane
