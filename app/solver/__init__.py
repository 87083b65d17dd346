"""The solver: proves deals winnable (or lost) by searching the engine's own moves."""

from app.solver.plan import DEFAULT_MAX_POSITIONS, solve
from app.solver.result import SolveResult, replay

__all__ = ["DEFAULT_MAX_POSITIONS", "SolveResult", "replay", "solve"]
