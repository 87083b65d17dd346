"""Small helpers shared by the services: `bounded_map` (a map that forgets its oldest),
`page_cursors` (the sealed cursors of every paged list), `idempotency` (the stored
answers of retried writes), `auth_failures` (wrong tokens limited per address),
`account_bounds` (what a free account cannot multiply), `offload` (long request work
off the event loop)."""
