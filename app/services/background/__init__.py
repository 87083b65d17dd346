"""The solver's background work: `cpu_pool` (the one pool of workers for all CPU work),
`jobs` (the queue in the database), `job_runner` (takes the queue's jobs and runs them),
`proving` (proofs that a deal is winnable), `deal_prover` (what the daily deals and the
solvable pools share), `solvable_pools` (the pools of proven deals to deal from),
`knowledge` (what the solver knows, shared through the database), `undecided_memory`
(searches that answered `unknown`, remembered for a while), `build` (one process's
background work)."""
