"""The deal of the day: `deals` (choosing and proving each date's deal), `ranking` (which
games rank, and when a deal's number is public), `revealed` (lines the solver showed on
a deal of the current date)."""
