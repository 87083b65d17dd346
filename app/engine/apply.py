"""Applying a move: the new position and the events that say what happened, in order.

Positions are immutable, so a move builds a new value sharing the untouched piles and
undo is keeping the old value; :func:`undo_events` says what going back changes, for a
client to animate it without learning a face-down card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .moves import (
    DRAW,
    EV_AUTO_FINISH,
    EV_MOVE,
    EV_MOVE_BACK,
    EV_RESERVE_FILL,
    EV_TURN_DOWN,
    EV_TURN_UP,
    EV_UNDO,
    F_PILES,
    MOVE,
    REDEAL,
    RESERVE,
    RESERVE_PILE,
    STOCK_PILE,
    T_PILES,
    TABLEAU,
    WASTE,
    WASTE_PILE,
    Event,
    Move,
    Pile,
)
from .rules import foundation_takes, run_start
from .validate import check

if TYPE_CHECKING:
    from .state import State


def apply(
    state: State, move: Move, *, auto_finish: bool = True, validate: bool = True
) -> tuple[State, tuple[Event, ...]]:
    """The position after ``move`` and what happened, in order.

    Raises :class:`IllegalMove` (and changes nothing: states are immutable) when the
    rules refuse it. ``validate=False`` is for moves taken from ``legal_moves()``.
    """
    if validate:
        check(state, move)
    new, events = play(state, move)
    if auto_finish and auto_finish_ready(new):
        new, more = play_out(new)
        events.extend(more)
    return new, tuple(events)


def play(state: State, move: Move) -> tuple[State, list[Event]]:
    """Apply a legal move (unchecked), without the auto-finish."""
    variant = state.variant
    if move.action == DRAW:
        k = min(variant.draw, len(state.stock))
        drawn = state.stock[-1 : -k - 1 : -1]
        event = Event(EV_MOVE, move, None, None, drawn, STOCK_PILE, WASTE_PILE, None, k)
        return state._replace(stock=state.stock[:-k], waste=state.waste + drawn), [event]
    if move.action == REDEAL:
        left = None if state.redeals_left is None else state.redeals_left - 1
        event = Event(
            EV_MOVE, move, None, None, None, WASTE_PILE, STOCK_PILE, None, len(state.waste)
        )
        return state._replace(stock=state.waste[::-1], waste=(), redeals_left=left), [event]
    src, dst, count = move.src, move.dst, move.count
    assert src is not None and dst is not None
    tableau = list(state.tableau)
    hidden = state.hidden
    foundations = state.foundations
    waste, reserve = state.waste, state.reserve
    events: list[Event] = []
    if src.kind == TABLEAU:
        pile = tableau[src.index]
        moving = pile[-count:]
        rest = pile[:-count]
        tableau[src.index] = rest
        if rest and hidden[src.index] >= len(rest):
            hidden = _set(hidden, src.index, len(rest) - 1)
            events.append(Event(EV_TURN_UP, None, src, rest[-1], None, None, None, len(rest) - 1))
        elif not rest and variant.reserve_fills_empty and reserve:
            tableau[src.index] = (reserve[-1],)
            events.append(
                Event(EV_RESERVE_FILL, None, src, reserve[-1], None, RESERVE_PILE, None, 0)
            )
            reserve = reserve[:-1]
            if reserve:
                events.append(
                    Event(
                        EV_TURN_UP,
                        None,
                        RESERVE_PILE,
                        reserve[-1],
                        None,
                        None,
                        None,
                        len(reserve) - 1,
                    )
                )
    elif src.kind == WASTE:
        moving = waste[-1:]
        waste = waste[:-1]
    elif src.kind == RESERVE:
        moving = reserve[-1:]
        reserve = reserve[:-1]
        if reserve:
            events.append(
                Event(
                    EV_TURN_UP, None, RESERVE_PILE, reserve[-1], None, None, None, len(reserve) - 1
                )
            )
    else:
        moving = foundations[src.index][-1:]
        foundations = _set(foundations, src.index, foundations[src.index][:-1])
    if dst.kind == TABLEAU:
        tableau[dst.index] = tableau[dst.index] + moving
    else:
        foundations = _set(foundations, dst.index, foundations[dst.index] + moving)
    events.insert(0, Event(EV_MOVE, move, None, None, moving, src, dst, None, count))
    new = type(state)(
        variant,
        tuple(tableau),
        hidden,
        foundations,
        state.stock,
        waste,
        reserve,
        state.redeals_left,
        state.base_rank,
    )
    return new, events


# ------------------------------------------------------------------ auto-finish
def auto_finish_ready(state: State) -> bool:
    """Stock, waste and reserve empty, nothing face down, every pile one ordered run,
    and playing the tops to the foundations wins.

    The last test matters only where the tableau wraps (Rainbow, Canfield): there two
    ordered runs can each hide the card the other's top needs, and the server must
    not start a finish it cannot complete.
    """
    if state.stock or state.waste or state.reserve or any(state.hidden) or state.is_won:
        return False
    ok = state.variant.stack_ok
    if any(pile and run_start(pile, 0, ok) for pile in state.tableau):
        return False
    return not state.variant.build_wrap or play_out(state)[0].is_won


def play_out(state: State) -> tuple[State, list[Event]]:
    """Play tableau tops to the foundations, leftmost first, until none goes."""
    events: list[Event] = []
    while True:
        move = next_foundation_move(state)
        if move is None:
            return state, events
        state, played = play(state, move)
        events.append(played[0]._replace(type=EV_AUTO_FINISH))


def next_foundation_move(state: State) -> Move | None:
    for i, pile in enumerate(state.tableau):
        if pile:
            for f in range(len(state.foundations)):
                if foundation_takes(state, f, pile[-1]):
                    return Move(MOVE, T_PILES[i], F_PILES[f], 1)
    return None


# ------------------------------------------------------------------------- undo
def undo_events(before: State, move: Move, after: State) -> tuple[Event, ...]:
    """What taking back ``move`` (played from ``before``, giving ``after``) changes, in the
    order to animate it: ``undo``, then the move's events turned around, newest first.

    Cards that end face down are never named: a card turned up turns down again as
    ``turn_down`` (pile and index only); an undone draw's cards go back to the stock as
    a count. The auto-finish that followed the move, if any, is found by replaying it."""
    forward_state, forward = apply(before, move, auto_finish=True, validate=False)
    if forward_state != after:
        forward_state, forward = apply(before, move, auto_finish=False, validate=False)
    # A card the move turned up and the auto-finish then played (one card to a
    # foundation: the auto-finish moves nothing else) goes back where it was turned up,
    # face down: its move back names no card, and the turn_down that would follow it is
    # left out (the card arrives face down). Only cards face up at the end are named.
    shown = {card for _pile, cards, down in before.piles() for card in cards[down:]}
    arrived_face_down: set[Pile] = set()
    out = [Event(EV_UNDO, move)]
    for event in reversed(forward):
        if event.type == EV_TURN_UP:
            if event.pile in arrived_face_down:
                arrived_face_down.discard(event.pile)
                continue
            out.append(Event(EV_TURN_DOWN, None, event.pile, None, None, None, None, event.index))
        elif event.type == EV_RESERVE_FILL:
            assert event.card is not None
            out.append(
                Event(
                    EV_MOVE_BACK, None, None, None, (event.card,), event.pile, RESERVE_PILE, None, 1
                )
            )
        elif event.move is not None and event.move.action == DRAW:
            out.append(
                Event(
                    EV_MOVE_BACK, None, None, None, None, WASTE_PILE, STOCK_PILE, None, event.count
                )
            )
        elif event.move is not None and event.move.action == REDEAL:
            out.append(
                Event(
                    EV_MOVE_BACK,
                    None,
                    None,
                    None,
                    before.waste,
                    STOCK_PILE,
                    WASTE_PILE,
                    None,
                    event.count,
                )
            )
        else:
            named = event.cards is not None and set(event.cards) <= shown
            if not named and event.cards is not None and event.src is not None:
                arrived_face_down.add(event.src)
            out.append(
                Event(
                    EV_MOVE_BACK,
                    None,
                    None,
                    None,
                    event.cards if named else None,
                    event.dst,
                    event.src,
                    None,
                    event.count,
                )
            )
    return tuple(out)


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]
