"""Entry point of ``python -m app.solver``."""

from app.solver.cli import main

raise SystemExit(main())
