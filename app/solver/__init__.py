"""The solver: proves deals winnable (or lost) by searching the engine's own moves."""

from app.solver.plan import solve
from app.solver.search import DEFAULT_MAX_POSITIONS, SolveResult, replay

__all__ = ["DEFAULT_MAX_POSITIONS", "SolveResult", "replay", "solve"]
