"""Memory lint: findings (duplicates, near-duplicates, past dates, misplaced entries, copies) and
the fixes that remove or move an entry, each archived first."""
