"""Dream: one bounded run of the model over new history, editing the memory files through a
sandbox (tools.py), with the cursor rules, run records and outcome notes of the spec."""
