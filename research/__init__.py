"""Research beside the product: solvability surveys, lost-deal proofs, the peer solver,
soundness hunts and the native builds side by side (research/README.md). The product
(``app``) never imports this package."""
