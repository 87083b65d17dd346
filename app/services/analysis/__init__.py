"""The analysis of a finished game: `service` (asked for, queued, stored, answered)."""
