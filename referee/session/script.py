"""Writing down what a camera would see of a game: scripted observations, frame by frame.

`TableScript` is told what the players do (throw, move, pick up the dice) and records the
observations a perfect camera pipeline would report, in order. Tests, the benchmark and
`referee watch --script` replay them through `ScriptedVision`; a reading can be degraded on
purpose (an uncounted head, a shadowed point) to exercise the referee's reading through rules.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.rules import Play, Position, Side, Variant
from referee.session.observation import (
    BoardObservation,
    CubeObservation,
    DiceObservation,
    DieObservation,
    Half,
    Observation,
    SceneState,
)
from referee.session.throws import ThrowFault

Degrade = Callable[[BoardObservation], BoardObservation]
"""A change to a perfect reading: what an imperfect camera made of the board."""


def read_as(faces: tuple[float, ...], half: Half) -> DieObservation:
    """A die in `half` whose reader gives `faces` (each face's probability): read as the
    likeliest face, at its probability."""
    chance = max(faces)
    return DieObservation(faces.index(chance) + 1, half=half, confidence=chance, faces=faces)


class TableScript:
    """Records observations of a game as it is played at the table.

    The board starts in the variant's starting position (or `position`). `misreads` is what
    the camera makes of every still, its steady mistakes (a glint read as a checker); one
    still's own `degrade` applies after it. Every method returns the script, so calls chain:
    `script.throw(WHITE, 6, 5).play("24/18 18/13").pick_up()`.
    """

    def __init__(
        self, variant: Variant, position: Position | None = None, misreads: Degrade | None = None
    ) -> None:
        self.position = variant.starting_position() if position is None else position
        self.misreads = misreads
        self.observations: list[Observation] = []
        self.dice: tuple[DieObservation, ...] = ()
        self.cube: CubeObservation | None = None
        self._time = 0.0

    # --- what the players do ---------------------------------------------------------------------

    def opening(
        self,
        white: int,
        black: int,
        *,
        faces: tuple[tuple[float, ...], tuple[float, ...]] | None = None,
    ) -> TableScript:
        """Each player throws one die into their own right-hand half; the higher die's player
        is the one whose checkers `play` moves next. `faces`, as for `throw`, are the reader's
        chances of each face of White's die and Black's."""
        if white != black:
            self.position = self.position.with_turn(Side.WHITE if white > black else Side.BLACK)
        self._rolling()
        self.dice = tuple(
            DieObservation(value, half=Half.right_of(side))
            if not chances
            else read_as(chances, Half.right_of(side))
            for value, side, chances in zip((white, black), Side, faces or ((), ()), strict=True)
        )
        return self.still()

    def throw(
        self,
        side: Side,
        die1: int,
        die2: int,
        *,
        fault: ThrowFault | None = None,
        second_read: tuple[int | None, float] | None = None,
        faces: tuple[tuple[float, ...], tuple[float, ...]] | None = None,
    ) -> TableScript:
        """`side` throws two dice into its right-hand half; `fault` spoils the throw so;
        `second_read` is what the camera makes of the second die (face, confidence) when it
        does not read it for sure; or `faces` give the reader's probability of each face of
        each die (an empty one: read for sure), and each die is read as its likeliest face."""
        self.position = self.position.with_turn(side)
        half = Half.right_of(side)
        other = Half.right_of(side.other)
        first = DieObservation(die1, half=half)
        second = DieObservation(die2, half=half)
        if second_read is not None:
            second = DieObservation(second_read[0], half=half, confidence=second_read[1])
        if faces is not None:
            first, second = (
                die if not chances else read_as(chances, half)
                for die, chances in zip((first, second), faces, strict=True)
            )
        if fault is ThrowFault.COCKED:
            second = DieObservation(die2, flat=False, half=half)
        elif fault is ThrowFault.ON_CHECKER:
            second = DieObservation(die2, on_checker=True, half=half)
        elif fault is ThrowFault.OFF_BOARD:
            second = DieObservation(die2, on_board=False)
        elif fault is ThrowFault.SPLIT_HALVES:
            second = DieObservation(die2, half=other)
        elif fault is ThrowFault.WRONG_HALF:
            first, second = DieObservation(die1, half=other), DieObservation(die2, half=other)
        self._rolling()
        if fault is ThrowFault.ROLLING:
            self.dice = ()  # caught before they came to rest
            return self.hands()
        self.dice = (first, second)
        return self.still()

    def set_dice(self, side: Side, die1: int, die2: int) -> TableScript:
        """`side` sets two dice down by hand, into its right-hand half, to show moves it owes
        without a throw (a ladder's next double, moves passed over: RULES.md §4)."""
        self.position = self.position.with_turn(side)
        self.hands()
        half = Half.right_of(side)
        self.dice = (DieObservation(die1, half=half), DieObservation(die2, half=half))
        return self.still()

    def early_throw(self, side: Side, die1: int, die2: int) -> TableScript:
        """`side` throws its own dice while the mover's still lie on the board."""
        half = Half.right_of(side)
        self._rolling()
        self.dice = (*self.dice, DieObservation(die1, half=half), DieObservation(die2, half=half))
        return self.still()

    def play(self, play: str | Play, *, degrade: Degrade | None = None) -> TableScript:
        """The side that threw moves its checkers (hands over the board, then still)."""
        steps = Play.from_str(play) if isinstance(play, str) else play
        self.hands()
        self.position = self.position.play(steps).with_turn(self.position.turn)
        return self.still(degrade=degrade)

    def set_board(self, position: Position, *, degrade: Degrade | None = None) -> TableScript:
        """Checkers are put as in `position` (a correction, a new game's set-up)."""
        self.hands()
        self.position = position.with_turn(self.position.turn)
        return self.still(degrade=degrade)

    def pick_up(self, *, degrade: Degrade | None = None) -> TableScript:
        """The dice are picked up: the move is finished."""
        self.hands()
        self.dice = ()
        return self.still(degrade=degrade)

    def offer_double(self, value: int) -> TableScript:
        """The side on roll turns the cube to `value` in the middle of the board."""
        self.hands()
        self.cube = CubeObservation(value, None, offered=True)
        return self.still()

    def take(self, side: Side, value: int) -> TableScript:
        """`side` takes the cube to its side of the board."""
        self.hands()
        self.cube = CubeObservation(value, side)
        return self.still()

    # --- frames ----------------------------------------------------------------------------------

    def still(self, *, degrade: Degrade | None = None) -> TableScript:
        """A settled frame of the board as it stands."""
        reading = BoardObservation.from_position(self.position)
        reading = BoardObservation(reading.points, reading.bar, reading.off, self.cube)
        if self.misreads is not None:
            reading = self.misreads(reading)
        if degrade is not None:
            reading = degrade(reading)
        self._add(Observation.settled(reading, self.dice))
        return self

    def hands(self) -> TableScript:
        """A frame with hands over the board."""
        self._add(Observation(SceneState.HANDS))
        return self

    def _rolling(self) -> None:
        rolling = (DieObservation(None, rolling=True), DieObservation(None, rolling=True))
        self._add(Observation(SceneState.MOVING, dice=DiceObservation(rolling)))

    def _add(self, observation: Observation) -> None:
        self._time += 0.1
        self.observations.append(
            Observation(
                observation.scene,
                observation.board,
                observation.dice,
                round(self._time, 3),
                len(self.observations),
            )
        )

    def take_observations(self) -> list[Observation]:
        """The observations recorded since the last call (the script continues after them)."""
        taken, self.observations = self.observations, []
        return taken


__all__ = ["Degrade", "TableScript"]
