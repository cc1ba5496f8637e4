"""A match: games strung together to a number of points, or money play without end.

Scores belong to players, not colours: under `next_game_starter = "previous_black"` (002 §1.4)
the players change colours every game. Player 0 plays white in the first game; `side_of` and
`player_of` translate for any game. Under `previous_winner` the colours never change, so player
0 is always white.
"""

from __future__ import annotations

from referee.rules.errors import GameFlowError, InvalidOptionError
from referee.rules.game import Game, StakeRules
from referee.rules.ids import MatchState
from referee.rules.model import Side
from referee.rules.variants import ShortNardy, Variant


class Match:
    """Games of one variant to `length` points (0: money play, unlimited games).

    `crawford` applies the Crawford rule in short-nardy match play: no doubling in the game
    right after a player first reaches `length - 1`.
    """

    def __init__(
        self,
        variant: Variant,
        length: int = 0,
        *,
        stakes: StakeRules | None = None,
        crawford: bool = True,
    ) -> None:
        if type(length) is not int or length < 0:
            raise InvalidOptionError(
                f"a match is played to 1 point or more (0: money), not {length}"
            )
        self.variant = variant
        self.length = length
        self.stakes = StakeRules() if stakes is None else stakes
        if length and self.stakes.money_only:
            names = ", ".join(self.stakes.money_only)
            raise InvalidOptionError(f"{names}: money-play conventions, not for match play")
        self.crawford = crawford
        self.games: list[Game] = []
        self._white_player: list[int] = []
        self._crawford_game: int | None = None

    # --- players and colours --------------------------------------------------------------------

    def player_of(self, side: Side, game: int = -1) -> int:
        """The player (0 or 1) who plays `side` in game number `game` (default: the latest)."""
        white = self._white_player[game] if self._white_player else 0
        return white if side is Side.WHITE else 1 - white

    def side_of(self, player: int, game: int = -1) -> Side:
        """The colour player `player` (0 or 1) has in game `game` (default: the latest)."""
        return Side.WHITE if self.player_of(Side.WHITE, game) == player else Side.BLACK

    # --- score -----------------------------------------------------------------------------------

    @property
    def scores(self) -> tuple[int, int]:
        """Points won by player 0 and player 1 in finished games (a draw scores nothing)."""
        scores = [0, 0]
        for number, game in enumerate(self.games):
            result = game.result()
            if result is not None and result.winner is not None:
                scores[self.player_of(result.winner, number)] += result.points
        return scores[0], scores[1]

    def is_over(self) -> bool:
        """A player reached the match length (never, in money play)."""
        return bool(self.length) and max(self.scores) >= self.length

    def winner(self) -> int | None:
        """The player who won the match, None while it goes on."""
        if not self.is_over():
            return None
        scores = self.scores
        return 0 if scores[0] > scores[1] else 1

    @property
    def current_game(self) -> Game | None:
        return self.games[-1] if self.games else None

    def is_crawford_game(self, game: int = -1) -> bool:
        """Whether game number `game` (default: the latest) is the Crawford game."""
        if self._crawford_game is None or not self.games:
            return False
        return range(len(self.games))[game] == self._crawford_game

    # --- play ------------------------------------------------------------------------------------

    def new_game(self) -> Game:
        """Start the next game: the first with an opening throw, later ones by the variant's
        `next_game_starter` (after a draw under `previous_winner`: an opening throw again)."""
        current = self.current_game
        if current is not None and not current.is_finished:
            raise GameFlowError("the current game is not finished")
        if self.is_over():
            raise GameFlowError("the match is over")
        white_player = self._white_player[-1] if self._white_player else 0
        starter: Side | None = None
        if current is not None:
            result = current.result()
            assert result is not None
            if self.variant.next_game_starter == "previous_black":
                # The player who had black starts the next game, and with it takes white.
                white_player = 1 - white_player
                starter = Side.WHITE
            elif result.winner is not None:
                starter = result.winner
        crawford = self._next_is_crawford()
        if crawford:
            self._crawford_game = len(self.games)
        game = Game(
            self.variant,
            stakes=self.stakes,
            match_length=self.length,
            crawford=crawford,
            starter=starter,
        )
        self.games.append(game)
        self._white_player.append(white_player)
        return game

    def match_state(self) -> MatchState:
        """The current game's Match ID / XGID state, with the match score by colour."""
        game = self.current_game
        if game is None:
            raise GameFlowError("no game has started")
        scores = self.scores
        by_side = (scores[self.player_of(Side.WHITE)], scores[self.player_of(Side.BLACK)])
        return game.match_state(by_side)

    def _next_is_crawford(self) -> bool:
        # Only short nardy has a cube to hold back. "Reaches" means by winning a game: a 1-point
        # match starts at 0-0, match point - 1 for both, and its only game is an ordinary one.
        if not (self.length and self.crawford and self.games) or self._crawford_game is not None:
            return False
        return isinstance(self.variant, ShortNardy) and self.length - 1 in self.scores


__all__ = ["Match"]
