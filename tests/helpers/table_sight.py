"""What a person sees of a table: the rows shown whole in its viewport."""

from __future__ import annotations


def rows_in_sight(table) -> int:
    """Rows shown whole in the table's viewport."""
    vh, height = table.verticalHeader(), table.viewport().height()
    return sum(1 for r in range(table.model().rowCount())
               if 0 <= vh.sectionViewportPosition(r) and vh.sectionViewportPosition(r) + vh.sectionSize(r) <= height)
