"""Dream: one bounded run of the model over new history, editing the memory files through a
sandbox (tools.py), with the cursor rule (policy.py, pure), the outcome note (outcome.py), typed
run records and state (runtypes.py, records.py on disk), orchestrated by run.py."""
