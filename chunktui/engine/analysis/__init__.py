"""Judging chunks once they are made: quality flags, facts, comparisons, parameter sweeps,
retrieval evaluation and collections of chunk sets. Built on the core, the readers and the
strategies; nothing below imports it."""
