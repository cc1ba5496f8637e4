"""A short scripted game on video, with a per-frame script of what is true when.

The script: the opening position rests; white throws (valid), moves legally and picks up the
dice; black throws and a die comes to rest cocked, black picks the dice up and throws again
(valid), then makes an illegal move and picks up the dice. Hands come in from the player's seat,
carry checkers and dice, and leave. A frame is *still* when nothing moves in it (no hand, no die
in flight); consecutive still frames with the same content form one *still*, which the sidecar
JSON describes fully (position, dice, throw verdict, checker boxes).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from referee.rules import Play, Position, Roll, Side, Step, judge, variant_from_name
from referee.scenes.config import SceneConfig
from referee.scenes.dice import DiePose, RollZone, rot_axis, top_value
from referee.scenes.hands import Hand, HandPose, lerp_pose, make_hand
from referee.scenes.layout import Color
from referee.scenes.placement import CheckerItem, place_checkers
from referee.scenes.render import Frame, Look, Painted, paint
from referee.scenes.scene import dice_halves, roll_zone, sample_look
from referee.scenes.styles import BOARD_STYLES, SKIN_TONES, SLEEVES
from referee.scenes.throws import Thrower, throw
from referee.scenes.truth import (
    board_truth,
    camera_truth,
    checkers_truth,
    die_truth,
    roll_truth,
    style_truth,
)

FloatArray = NDArray[np.float64]


@dataclasses.dataclass
class Shot:
    """One video frame's content and what the script says about it."""

    frame: Frame
    phase: str
    still: bool
    # The game's position as the rules core keeps it, and who threw the dice on the board.
    position: dict[str, Any]
    roller: Color


class Director:
    """Builds the shots of the script, keeping the game's position in the rules core."""

    def __init__(
        self, look: Look, config: SceneConfig, variant: str, rng: np.random.Generator, fps: float
    ) -> None:
        self.look = look
        self.config = config
        self.rng = rng
        self.fps = fps
        self.variant = variant_from_name(variant)
        self.zone = roll_zone(variant)
        self.position: Position = self.variant.starting_position(Side.WHITE)
        self.dice: list[DiePose] = []
        self.held: list[CheckerItem] = []
        # The checkers on show, when they differ from `position` (a checker in the hand).
        self.showing: dict[str, Any] | None = None
        self.shots: list[Shot] = []
        self.events: list[dict[str, Any]] = []
        self.die_size = float(rng.uniform(*config.dice.size_mm))
        self.jitter_seed = int(rng.integers(0, 2**31))
        self.run_on = bool(rng.random() < config.checkers.run_on_probability)
        self.skin = SKIN_TONES[int(rng.integers(0, len(SKIN_TONES)))]
        self.sleeves = {
            "white": SLEEVES[int(rng.integers(0, len(SLEEVES)))],
            "black": SLEEVES[int(rng.integers(0, len(SLEEVES)))],
        }
        self.roller: Color = "white"
        self.hand_pose: dict[Color, HandPose] = {
            side: self._away(side, 0.0) for side in ("white", "black")
        }

    # --- content ---

    def checkers(self, counts: dict[str, Any] | None = None) -> list[CheckerItem]:
        """The checkers of `counts` (default: what is on show) placed on the board."""
        shown = counts or self.showing or self.position.to_dict()
        return place_checkers(
            self.look.layout, shown, self.config.checkers, self.run_on, self.jitter_seed
        )

    def frames(self, seconds: float) -> int:
        """How many frames `seconds` last (at least two)."""
        return max(2, round(seconds * self.fps))

    def shoot(self, phase: str, hands: tuple[Hand, ...] = ()) -> None:
        """Record one frame of what is on the table now."""
        still = not hands and not any(d.rolling for d in self.dice)
        frame = Frame(tuple(self.checkers()), tuple(self.dice), hands, tuple(self.held))
        position = self.showing or self.position.to_dict()
        self.shots.append(Shot(frame, phase, still, position, self.roller))

    def rest(self, seconds: float) -> None:
        """Nothing moves for `seconds`."""
        for _ in range(self.frames(seconds)):
            self.shoot("rest")

    # --- hands ---

    def _pose(self, side: Color, target: FloatArray, curl: float) -> HandPose:
        """A pose whose pinch point (between thumb and index finger) is at `target`."""
        heading = math.pi / 2 if side == "white" else -math.pi / 2
        probe = HandPose((0.0, 0.0, 0.0), heading, curl, True, self.skin, self.sleeves[side])
        wrist = target - make_hand(probe).fingertip()
        return dataclasses.replace(probe, wrist=(float(wrist[0]), float(wrist[1]), float(wrist[2])))

    def _away(self, side: Color, x: float) -> HandPose:
        """The hand resting off the board at its player's seat, out of the picture."""
        _, _, oy0, oy1 = self.look.layout.outer
        y = oy0 - 420 if side == "white" else oy1 + 420
        return self._pose(side, np.array([x, y, 160.0]), 0.3)

    def sweep(
        self,
        side: Color,
        target: HandPose,
        seconds: float,
        phase: str,
        holding: Color | None = None,
    ) -> None:
        """Move `side`'s hand to `target`, carrying a checker of colour `holding` if given."""
        start = self.hand_pose[side]
        count = self.frames(seconds)
        for k in range(count):
            hand = make_hand(lerp_pose(start, target, (k + 1) / count))
            if holding is not None:
                lift = np.array([0.0, 0.0, self.look.layout.dims.checker_thickness * 0.7])
                self.held = [CheckerItem(holding, "off", 1, hand.fingertip() - lift, "air")]
            self.shoot(phase, (hand,))
        self.hand_pose[side] = target

    # --- script pieces ---

    def throw(self, side: Color, values: tuple[int, int], situation: str) -> None:
        """The roller's hand brings the dice in, lets go, the dice tumble and come to rest."""
        thrower = Thrower(
            self.rng, self.config.dice, self.look.layout, self.checkers(), self.die_size
        )
        width = self.look.camera.canvas_size[0]
        final = throw(thrower, situation, side, self.zone, values, None, width)
        if final is None:
            raise RuntimeError(f"no room for a {situation} throw")
        self.roller = side
        start_frame = len(self.shots)
        centre = np.mean([d.center for d in final], axis=0)
        towards = -1.0 if side == "white" else 1.0
        release = centre + np.array([0.0, 70.0 * towards, 90.0])
        self.sweep(side, self._pose(side, release, 0.7), 0.6, "throw")
        starts = [release + np.array([offset, 0.0, 0.0]) for offset in (-12.0, 12.0)]
        spins = []
        for _ in final:
            axis = self.rng.normal(size=3)
            spins.append((axis / np.linalg.norm(axis), float(self.rng.uniform(8.0, 14.0))))
        previous = [self.look.camera.project_canvas(s[None])[0] for s in starts]
        leave_from, away = self.hand_pose[side], self._away(side, float(release[0]))
        flight = self.frames(0.7)
        for k in range(flight):
            t = (k + 1) / flight
            dice = list(final)
            if k < flight - 1:
                # Eased travel, decaying bounces and a spin that winds down onto the rest pose.
                s = 1 - (1 - t) ** 2
                bounce = 70.0 * abs(math.cos(math.pi * 2.5 * t)) * (1 - t) ** 2
                for i, die in enumerate(final):
                    centre_t = starts[i] + (die.center - starts[i]) * s + np.array([0, 0, bounce])
                    rotation = rot_axis(spins[i][0], spins[i][1] * (1 - s)) @ die.rotation
                    here = self.look.camera.project_canvas(centre_t[None])[0]
                    dx, dy = (here - previous[i]) * 0.8
                    previous[i] = here
                    dice[i] = DiePose(
                        top_value(rotation), die.size, centre_t, rotation, flat=False,
                        rolling=True, streak=(float(dx), float(dy)),
                    )  # fmt: skip
            self.dice = dice
            hands = (make_hand(lerp_pose(leave_from, away, 2 * t)),) if t < 0.5 else ()
            self.shoot("rolling", hands)
        self.hand_pose[side] = away
        rest_frame = len(self.shots) - 1  # the flight's last frame shows the dice at rest
        verdict = roll_truth(self.dice, side, self.zone)
        assert verdict is not None
        self.events.append(
            {
                "type": "throw",
                "roller": side,
                "values": [d.value for d in self.dice],
                "start_frame": start_frame,
                "rest_frame": rest_frame,
                "valid": verdict["valid"],
                "reason": verdict["reason"],
            }
        )

    def pickup(self, side: Color) -> None:
        """The roller takes the dice back, which ends the turn or voids the throw."""
        centre = np.mean([d.center for d in self.dice], axis=0) + np.array([0.0, 0.0, 10.0])
        self.sweep(side, self._pose(side, centre, 0.8), 0.6, "pickup")
        self.events.append({"type": "pickup", "roller": side, "frame": len(self.shots)})
        self.dice = []
        self.sweep(side, self._away(side, float(centre[0])), 0.5, "pickup")

    def _place(self, side: Color, point: int) -> int | str:
        """Where `side`'s own point `point` (25 bar, 0 off) is, in white's numbering."""
        if point == 25:
            return "bar"
        if point == 0:
            return "off"
        return point if side == "white" else self.variant.opponent_point(point)

    def move(self, side: Color, play: Play, roll: Roll) -> None:
        """The mover's hand carries each checker of `play` from its point to its new point."""
        before = self.position
        thickness = np.array([0.0, 0.0, self.look.layout.dims.checker_thickness])
        leave_x = 0.0
        for k, step in enumerate(play.steps):
            so_far = self.variant.apply_steps(before, play.steps[:k])
            # `lifted` is the board while this step's checker is in the hand.
            shown, lifted = so_far.to_dict(), so_far.to_dict()
            source = self._place(side, step.start)
            top = [c for c in self.checkers(shown) if c.color == side and c.place == source][-1]
            self.showing = shown
            self.sweep(side, self._pose(side, top.base + thickness, 0.8), 0.5, "move")
            if step.start == 25:
                lifted["bar"][side] -= 1
            else:
                lifted[side][step.start - 1] -= 1
            landed = self.variant.apply_steps(before, play.steps[: k + 1]).to_dict()
            target = self._place(side, step.end)
            spot = [c for c in self.checkers(landed) if c.color == side and c.place == target][-1]
            drop = spot.base + thickness
            above = (top.base + drop) / 2 + np.array([0.0, 0.0, 50.0])
            self.showing = lifted
            self.sweep(side, self._pose(side, above, 0.8), 0.35, "move", holding=side)
            self.sweep(side, self._pose(side, drop, 0.8), 0.35, "move", holding=side)
            self.held = []
            self.showing = landed
            leave_x = float(drop[0])
        self.showing = None
        self.position = self.variant.apply_steps(before, play.steps)
        verdict = judge(before, roll, self.position)
        self.events.append(
            {
                "type": "move",
                "roller": side,
                "roll": roll.to_list(),
                "play": str(play),
                "legal": verdict.legal,
                "reasons": [str(reason) for reason in verdict.reasons],
                "message": verdict.message,
                "before": before.to_dict(),
                "after": self.position.to_dict(),
                "end_frame": len(self.shots),
            }
        )
        self.sweep(side, self._away(side, leave_x), 0.4, "move")


def random_roll(rng: np.random.Generator) -> Roll:
    """A roll that is not a double (doubles would make the scripted moves twice as long)."""
    first = int(rng.integers(1, 7))
    second = int(rng.integers(1, 6))
    return Roll(first, second + (second >= first))


def illegal_play(position: Position, roll: Roll) -> Play:
    """A one-checker play a careless player might make: a checker moved the dice's sum plus or
    minus one, onto a point it may occupy, which is not a legal play of `roll`."""
    legal = {option.board_key() for option in position.legal_positions(roll)}
    mover = position.points[position.turn]
    opponent = position.variant.facing(position.points[position.turn.other])
    for distance in (roll.high + roll.low + 1, roll.high + roll.low - 1, roll.high + roll.low + 2):
        for start in range(24, distance, -1):
            end = start - distance
            if not mover[start - 1] or opponent[end - 1]:
                continue
            play = Play((Step(start, end),))
            after = position.play(play)
            if after.is_valid() and after.board_key() not in legal:
                return play
    raise RuntimeError("no illegal one-checker play found")


def direct(
    look: Look, config: SceneConfig, variant: str, rng: np.random.Generator, fps: float
) -> Director:
    """Run the script (see the module text) and return the director holding its shots."""
    director = Director(look, config, variant, rng, fps)
    director.rest(1.0)
    white_roll = random_roll(rng)
    director.throw("white", (white_roll.die1, white_roll.die2), "valid")
    director.rest(1.2)
    plays = director.position.legal_plays(white_roll)
    director.move("white", plays[int(rng.integers(0, len(plays)))], white_roll)
    director.pickup("white")
    director.rest(1.0)
    first = random_roll(rng)
    director.throw("black", (first.die1, first.die2), "cocked_rim")
    director.rest(1.2)
    director.pickup("black")
    black_roll = random_roll(rng)
    director.throw("black", (black_roll.die1, black_roll.die2), "valid")
    director.rest(1.2)
    director.move("black", illegal_play(director.position, black_roll), black_roll)
    director.pickup("black")
    director.rest(1.0)
    return director


Script = Callable[[Look, SceneConfig, str, np.random.Generator, float], Director]
"""A video's script: builds the director's shots (`direct` is the standard one)."""


def game_script(turns: int, illegal_every: int = 0) -> Script:
    """A longer game's script: from the starting position, White first, each side in turn
    throws (valid), plays a random legal play of the throw and picks the dice up, for `turns`
    turns or until the side to throw could not move. Every `illegal_every`-th move (0: none) is an
    illegal one-checker play instead (`illegal_play`), which the next throw accepts."""

    def script(
        look: Look, config: SceneConfig, variant: str, rng: np.random.Generator, fps: float
    ) -> Director:
        director = Director(look, config, variant, rng, fps)
        director.rest(1.0)
        for turn in range(turns):
            side: Color = "white" if turn % 2 == 0 else "black"
            roll = random_roll(rng)
            plays = director.position.legal_plays(roll)
            if not plays[0].steps:  # nothing can move: the game as scripted ends here
                break
            director.throw(side, (roll.die1, roll.die2), "valid")
            director.rest(1.2)
            play = plays[int(rng.integers(0, len(plays)))]
            if illegal_every and (turn + 1) % illegal_every == 0:
                # Where no illegal one-checker play exists, this move stays legal.
                with contextlib.suppress(RuntimeError):
                    play = illegal_play(director.position, roll)
            director.move(side, play, roll)
            director.pickup(side)
            director.rest(1.0)
        return director

    return script


def _still_truth(
    look: Look, shot: Shot, index: int, painted: Painted, config: SceneConfig, zone: RollZone
) -> dict[str, Any]:
    """What is true during a run of still frames starting at frame `index`."""
    dice = shot.frame.dice
    halves = dice_halves(dice, shot.roller)
    return {
        "start": index,
        "end": index,
        "position": shot.position,
        "dice": [die_truth(look, d, h) for d, h in zip(dice, halves, strict=True)],
        "roll": roll_truth(dice, shot.roller, zone),
        "checkers": checkers_truth(
            look, shot.frame.checkers, painted.checker_visible, config.checkers.visible_fraction
        ),
    }


def make_video(
    out: Path,
    seed: int,
    config: SceneConfig,
    size: tuple[int, int] = (1280, 720),
    fps: float = 15.0,
    variant: str = "long",
    script: Script = direct,
) -> dict[str, Any]:
    """Render the scripted video to `out` (MJPG AVI) and its script to `out` with `.json`;
    `script` plays the game (default: the one in the module text)."""
    rng = np.random.default_rng((seed, 0x5C1E))
    board = BOARD_STYLES[sorted(BOARD_STYLES)[int(rng.integers(0, len(BOARD_STYLES)))]]
    if config.board_styles:
        board = BOARD_STYLES[config.board_styles[int(rng.integers(0, len(config.board_styles)))]]
    look = sample_look(rng, dataclasses.replace(config, clutter_count=(0, 0)), size, board)
    director = script(look, config, variant, rng, fps)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"MJPG"), fps, size)
    if not writer.isOpened():
        raise OSError(f"cannot write video {out}")
    frames: list[dict[str, Any]] = []
    stills: list[dict[str, Any]] = []
    previous_still = False
    try:
        for index, shot in enumerate(director.shots):
            painted = paint(look, shot.frame, np.random.default_rng((seed, index)))
            writer.write(painted.photo)
            if shot.still and not previous_still:
                stills.append(_still_truth(look, shot, index, painted, config, director.zone))
            if shot.still:
                stills[-1]["end"] = index
            previous_still = shot.still
            frames.append(
                {
                    "index": index,
                    "still": shot.still,
                    "still_index": len(stills) - 1 if shot.still else None,
                    "phase": shot.phase,
                    "hand": bool(shot.frame.hands),
                }
            )
    finally:
        writer.release()
    labels = {
        "video": out.name,
        "seed": seed,
        "fps": fps,
        "width": size[0],
        "height": size[1],
        "frame_count": len(frames),
        "variant": variant,
        "roll_zone": director.zone,
        "camera": camera_truth(look.camera),
        "board": board_truth(look),
        "style": style_truth(look),
        "events": director.events,
        "stills": stills,
        "frames": frames,
    }
    out.with_suffix(".json").write_text(json.dumps(labels) + "\n", encoding="utf-8")
    return labels
