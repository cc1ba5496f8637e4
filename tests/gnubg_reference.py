"""GNU Backgammon's own move generator (PyPI gnubg-nn) as the reference for short nardy."""

from __future__ import annotations

from referee.rules import Position, Roll
from referee.rules.variants import encode_side

Board = tuple[tuple[int, ...], tuple[int, ...]]


def gnubg_board(position: Position) -> list[list[int]]:
    """gnubg's board: [opponent, mover], each points 1..24 then the bar, from its own side."""
    mover = encode_side(position, position.turn)
    opponent = encode_side(position, position.turn.other)
    return [list(opponent[1:26]), list(mover[1:26])]


def gnubg_results(position: Position, roll: Roll) -> set[Board]:
    import gnubg_nn

    keys = gnubg_nn.moves(gnubg_board(position), roll.die1, roll.die2)
    if not keys:
        board = gnubg_board(position)
        return {(tuple(board[0]), tuple(board[1]))}
    return {
        tuple(tuple(side) for side in gnubg_nn.board_from_position_key(key))  # type: ignore[misc]
        for key in keys
    }


def our_results(position: Position, roll: Roll) -> set[Board]:
    results = set()
    for after in position.legal_positions(roll):
        # `after` has the turn passed; gnubg keeps the mover's point of view.
        board = gnubg_board(after.with_turn(position.turn))
        results.add((tuple(board[0]), tuple(board[1])))
    return results
