"""Judging chunks once they are made: quality flags, facts, comparisons, parameter sweeps and
retrieval evaluation. Built on the core, the readers and the strategies; nothing below imports it."""
