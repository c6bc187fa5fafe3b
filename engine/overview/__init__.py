"""Read-only answers over everything below: the status a dashboard and `dreamdesk status` show,
and the history listing."""
