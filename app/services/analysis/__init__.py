"""The analysis of a finished game: `walk` (the verdicts along a line, pure) and
`service` (asked for, queued, stored, answered, and its practice copies)."""
