"""The assistant's home as it lies on disk: the workspace and its paths, config.json, history.jsonl
and its cursors, sessions, budgets and the token ceiling."""
