"""The jobs: the Consolidator, the scheduler that says when a job is due, the Qt-free upkeep loop
(schedule and watch) that both `dreamdesk serve` and the window drive, and serve itself."""
