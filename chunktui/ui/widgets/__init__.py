"""Widgets grouped by screen region: document view, controls pane, side pane (stats, histogram, table, detail)."""
