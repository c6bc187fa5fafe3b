"""Memory text as data: entries (CommonMark blocks), their deltas across versions, diffs, the line
endings, BOM and final newline a file keeps (textform), and dates in entries. Pure: no file or git I/O."""
