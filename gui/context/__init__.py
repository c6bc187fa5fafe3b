"""What a window works on, with no widget: the application context (the open workspace, the job
lanes, the state reader, the watcher, the upkeep timer, the routing of change records) and
what each tab view is handed."""
