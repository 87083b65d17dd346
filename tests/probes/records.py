"""The largest game records a client can send, for the probes and benchmarks that
import them: as many moves as a record may hold (`RECORD_MAX_MOVES`), each cheap to
write, so the body stays under the server's bound."""

from __future__ import annotations

from app.engine import DRAW_MOVE, REDEAL_MOVE, Move, Record, Rules, deal, get_variant


def drawing_record(moves: int = 9_990, number: int = 1) -> str:
    """Canfield (unlimited redeals), drawing through the stock again and again: about
    5 bytes a move, so 9,990 moves take 51.5 KB (the body bound is 64 KiB)."""
    variant = get_variant("canfield")
    state = deal(variant, number, Rules())
    line: list[Move] = []
    while len(line) < moves:
        move = DRAW_MOVE if DRAW_MOVE in state.legal_moves() else REDEAL_MOVE
        state, _events = state.apply(move, auto_finish=False)
        line.append(move)
    return str(Record(variant, number, Rules(), tuple(line)))
