"""Every threshold of the vision pipeline, one frozen dataclass per stage, with a JSON form.

`VisionConfig()` is what `referee read` and the `vision` reader use. A JSON file names only the
fields it changes, section by section (`{"dice": {"min_pip_contrast": 30}}`); unknown keys are
refused so a typo never silently keeps a default.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from referee.configfile import dataclass_from_dict


@dataclasses.dataclass(frozen=True)
class RectifyConfig:
    """The canonical top-down board image every stage after calibration works on.

    The playing surface (both fields and the bar, inside the frame) fills `surface_width_px`;
    margins (in board millimetres) keep the frame, the bear-off tray and a strip of table in view.
    """

    surface_width_px: int = 640
    margin_side_mm: float = 120.0
    margin_edge_mm: float = 70.0


@dataclasses.dataclass(frozen=True)
class CalibrationConfig:
    """Finding the board without markers, and re-checking a saved profile.

    Attributes:
        work_width_px: images are shrunk to this width to find the board outline.
        min_board_area_frac: an outline must cover at least this share of the image.
        approx_eps_frac: polygon simplification tolerance, share of the contour's perimeter.
        min_point_edges: a fit competes for the board, and the one kept is a board, only when
            the points' sides (the triangles' edges, where the fit puts them) lie on image
            edges at least this strongly (0..1, the fit scorer's triangle part). Boards found
            within 2 % of their width score 0.1 and more, outlines a fifth of a board's width
            or more off and dice trays, desks and table edges under 0.07.
        fit_tries: how many of the fits that show points at the work size are polished finely,
            best first, for one that still shows them (a dark board's outer outline can outscore
            its surface at the work size and then show no points).
        refine_band_frac: corner refinement looks for straight edges within this share of the
            board width either side of each border line the coarse fit found.
        refine_bar_band_frac: and this share either side of the bar's edges (for the lens).
        refine_samples: points sampled along each edge for refinement and re-checks.
        border_min_cover: a straight edge along a border must be seen at this share of them.
        border_widest_cover: and the widest one along a border at this share, or the coarse
            fit's line stays (only pieces show: a row of checkers, a triangle's side, with the
            surface's own edge too faint).
        frame_probe_frac: the frame's top colour is sampled this share of the board width
            outside each border line.
        frame_colour_tolerance: Lab difference (lightness weighed 0.35) from that colour below
            which the strip just outside an edge is the frame's top: the edge is the rim's top.
        max_wall_frac: the playing surface's edge lies at most this share of the board width
            inside the rim's top edge (the frame's inner wall seen from above).
        rim_height_frac: the frame's rim stands this share of the playing surface's width above
            it; with the camera's pose (from the coarse fit) it says where the rim's top edge
            shows relative to the surface's edge, or how far it hides it. 0: not used.
        distortion_k1_range: the plumb-line search for radial distortion tries k1 in this range
            (focal length taken as the image's larger side).
        distortion_steps: grid steps of that search before a golden-section polish.
        recheck_tolerance_frac: a re-check passes when every corner found again lies within this
            share of the board width of the profile's corner.
        recheck_min_edge_frac: and when at least this share of edge samples still sees an edge.
        use_corner_model: the corner network (`models/board_corners.md`) takes a last look at
            each corner the border lines put; off, or without the file, the lines' crossings
            stand.
        corner_model_path: its ONNX model; empty for the one shipped in
            `models/board_corners.onnx`.
        corner_rounds: looks it takes, each from where the last one put the corners (on four
            tuning sets a second look moved as many corners out of 1 % as into it).
        corner_max_move_mm: a corner is moved only when the network puts it this close (board
            mm): further off, its patch is not a corner it was trained on.
        corner_steady_shift_mm, corner_steady_mm: and only when, looking again from the
            corners moved `corner_steady_shift_mm` each way, it puts the corner within
            `corner_steady_mm` of the same place every time (it cannot see a corner under a
            hand, and answers alike from wherever it starts); 0 shift: one look decides.
        use_surface_model: the surface network (`models/board_surface.md`) proposes one more
            place to start the search from, the quadrilateral round the surface it sees; off,
            or without the file, the search starts only from the picture's outlines and lines.
        surface_model_path: its ONNX model; empty for the one shipped in
            `models/board_surface.onnx`.
        surface_agree_min, surface_agree_margin: where the surface network sees a surface and
            the best of the fits that show points covers it at least `surface_agree_min`
            (intersection over union), a fit that covers it less well than that best by more
            than `surface_agree_margin` does not compete, and a shift by points
            (`point_shifts`) may not lose more than the margin. A dark board's outer frame
            edge, or the triangles a point along, can outscore the surface's own edges; the
            network outlines the surface, hidden parts included, within about 0.98.
        bent_refit_max_k1: where the lens fitted to the board found has barrel distortion
            this strong or stronger (k1 of a guessed lens at or below this), the board is
            looked for again in the work image straightened by that lens and the better fit
            there kept; -1 or less: never.
        surface_min_area_frac: the network's quadrilateral competes when it covers at least
            this share of the image. Less than an outline must (`min_board_area_frac`): that
            floor keeps a field half, a tray or a desk's outline out, and the network's
            quadrilateral is the surface already; the generator's surfaces cover down to 12 %.
        marker_height_frac: the printed corner markers lie this share of the playing surface's
            width above it (on the frame's top, as high as its rim: `rim_height_frac`); each
            sticker's corner is brought down that far, through the camera's pose, to the
            surface's corner under it. 0 for markers stuck level with the surface.
        marker_bit_margin: with printed corner markers (`--markers`), the share of each cell's
            side left out at its edges when a marker's bits are read (OpenCV's 0.13 by
            default): blur smears each cell's edges into its neighbours'. 0.3 found all four
            markers in 76 of 80 drawn views blurred up to 2 px, against 69 at 0.13.
        marker_threshold_window_max: and the largest window (px) of the thresholds the markers
            are cut out with (OpenCV's 23): a larger one keeps a blurred marker's black border
            whole (with 0.3 above: 78 of 80).
        marker_fit_max_error: the markers seen are fitted as one board; where a corner of one
            lies further off it than this share of a marker's side, a marker was read off its
            place (partly covered, its outline bent) and the three that agree are kept, or none.
            On 300 drawn views (`scripts/bench_markers.py`) four well-read markers lay at most
            0.064 off, three 0.058 at the 99th percentile; a marker read off its place, 0.63.
        side_jumps: shares of the board's width by which two opposite sides of the coarse fit
            are moved together, in and out, before it is polished again; the fit scoring best
            is kept. A frame's outer edges run parallel to the surface's, and a hill-climb that
            settled on them cannot walk a frame's width to the right ones.
        side_jump_min_points: a jump is taken only when the points' sides show at least this
            share as strongly as before: the triangles have no parallel twin, so a jump onto
            the frame's outer edges weakens them (to 0.53-0.68 on four tuning sets), one back
            to the surface strengthens them or nearly keeps them (0.96 and more).
        point_shifts: whole points (point widths) by which the coarse fit, the whole of it or
            either end alone, is moved along the board's length before it is polished again.
            The triangles repeat every point, so a fit one or two points along the board, or
            with one end on a tray's divider, still puts most of them on triangles; where an
            arm hides the bar or an end, no hill-climb walks it back.
        point_shift_min_gain: a shifted fit replaces the coarse fit only when it scores at
            least this share higher. On five tuning sets (850 scenes), the shifts that put a
            fit 9-24 % of the board's width off right scored 19-35 % higher; those that took a
            right fit a point away scored at most 4.4 % higher.
        evened_clip: where no outline found shows points, the outline is looked for again in
            the picture with its lightness evened out (CLAHE on Lab lightness, this clip limit,
            `evened_tiles` tiles across; `board_finder.evened`), the board then refined in the
            picture as taken: a dark board's points and its surface's edge, in dim light or in
            someone's shadow, are too faint for the fit's edge strengths. 0: not looked for.
        evened_tiles: the CLAHE grid's tiles across and down.
    """

    work_width_px: int = 640
    min_board_area_frac: float = 0.15
    approx_eps_frac: float = 0.02
    min_point_edges: float = 0.08
    fit_tries: int = 3
    refine_band_frac: float = 0.025
    refine_bar_band_frac: float = 0.015
    refine_samples: int = 64
    border_min_cover: float = 0.2
    border_widest_cover: float = 0.3
    frame_probe_frac: float = 0.022
    frame_colour_tolerance: float = 12.0
    max_wall_frac: float = 0.022
    rim_height_frac: float = 0.028
    distortion_k1_range: tuple[float, float] = (-0.9, 0.3)
    distortion_steps: int = 31
    recheck_tolerance_frac: float = 0.01
    recheck_min_edge_frac: float = 0.6
    use_corner_model: bool = True
    corner_model_path: str = ""
    corner_rounds: int = 1
    corner_max_move_mm: float = 20.0
    corner_steady_shift_mm: float = 4.0
    corner_steady_mm: float = 3.0
    use_surface_model: bool = True
    surface_model_path: str = ""
    surface_min_area_frac: float = 0.1
    surface_agree_min: float = 0.9
    surface_agree_margin: float = 0.05
    bent_refit_max_k1: float = -0.12
    marker_height_frac: float = 0.028
    marker_bit_margin: float = 0.3
    marker_threshold_window_max: int = 53
    marker_fit_max_error: float = 0.08
    side_jumps: tuple[float, ...] = (0.03, 0.05, 0.07, 0.09)
    side_jump_min_points: float = 0.9
    point_shifts: tuple[int, ...] = (1, 2)
    point_shift_min_gain: float = 0.1
    evened_clip: float = 3.0
    evened_tiles: int = 8


@dataclasses.dataclass(frozen=True)
class CheckerConfig:
    """Reading checkers on the rectified board.

    Attributes:
        slot_search_frac: a checker is looked for this share of its radius either side of
            where an evenly packed row would put it.
        slot_weights: logistic weights of the slot measurements (`checkers.FEATURES` order),
            fitted on generated scenes by `scripts/fit_checker_weights.py`.
        slot_bias: the logistic model's constant.
        min_color_gap: lightness (Lab L, 0..255) between the two checker colours below which all
            checkers are taken as one colour and classed by comparison with the board.
        bar_threshold: rim score (0..1) at which a checker is seen on the bar or a tray pile.
        tray_pile: checkers per borne-off pile (only a pile's top shows from above).
        use_model: count with the learned strip network (`checker_model.py`) when its model
            file is there; otherwise with the slot measurements and `slot_weights`.
        model_path: the ONNX model; empty for the one shipped in `models/checker_strip.onnx`.
        colour_cap: most colour evidence (log-odds) one slot gives a point.
        rim_colour_under_dice: once the dice are found, read the board again with the colour
            of every checker a die lies on taken from what the die leaves of its rim
            (`CheckerEvidence.reading`): the die's own colour shows where the middle of a
            checker is sampled. A die lies on a
            checker where, raised a checker's thickness, it stands within `on_checker_frac`
            (`DiceConfig`) of a checker's width of a slot the reading covers or the strip
            network calls likelier occupied than not.
        conservation_penalty: log-likelihood a reading pays per checker by which a side's
            total (points, bar and borne off) misses 15.
        layer_boost: log-odds added to the strip network's chance that a point's slot holds a
            second or higher layer: trained on few stacks, it under-calls the layers a camera
            from above barely sees (0.5 chosen on three tuning sets, true corners: stacked
            points right 301 -> 316 of 387, single rows wrong 32 -> 35 of 3805).
        count_weight: weight of each point's count log-likelihood against the 15-checker rule,
            the bar and the tray: the network's slots of one stack err together, but their
            log-likelihoods add as if each slot were separate evidence (0.5-0.8 read the same
            boards on four tuning sets, true corners: 590 of 650, 584 at 1).
        use_pile_model: read the borne-off piles' heights with the pile network too
            (`piles.py`) when its model file is there and the board's camera is known.
        pile_model_path: its ONNX model; empty for the one shipped in
            `models/checker_pile.onnx`.
        pile_weight: the pile network's weight (0..1) against the strip network's in the
            geometric mean of their odds for a tray place.
        pile_min_occupied: the pile network is asked about a tray place where the strip
            network gives at least this chance of a checker.
        use_stack_model, stack_model_path, stack_weight: the same for the stack network
            (`models/checker_stack.onnx`), which reads the slots of the points' rows.
        stack_min_row: the stack network is asked about a point whose slots' chances of a
            checker add up to at least this (a full row, on which a layer can lie), ...
        stack_min_occupied: ... at each of its slots with at least this chance of a checker.
        use_hand_model: let the hand cover network (`models/hand_cover.onnx`, or
            `hand_model_path`) say which checker places a hand hides; the strip network's
            odds there are mixed with odds that say nothing (`hand_cover.py`) ...
        hand_cover_start, hand_doubt: ... not at all where less than `hand_cover_start` of a
            place is covered, by the share `hand_doubt` where all of it is, in proportion
            between. (Fingers let some of a checker show, and the strip network often reads
            a covered place right: doubting all of it let a neighbouring covered point take
            checkers a head under the hand had.)
        shade_reach: a checker's colour is read as in full light (`shade.py`): the bare board
            within this many checker diameters of it, against the same kind of surface over
            the whole board, says how much a shadow darkens it; 0 reads colours as seen.
        shade_min_bare: where less than this share of that window is bare board, the place is
            taken as lit.
        shade_below: a place is taken as lit too where a shadow leaves more than this share of
            its lightness: checkers' own shadows, the frame's and the lamp's fall-off darken a row's
            surroundings to 0.64-0.92, and lifting those cost more than it mended (0.7, 0.75
            and 0.8 read the tuning shadow set alike; 0.75 and 0.8 lost a board of set 61).
    """

    slot_search_frac: float = 0.25
    slot_weights: tuple[float, ...] = (
        0.62052, 1.00587, 5.78482, 0.01672, -0.01824, -0.03695,
        -6.78755, 0.03607, 3.96587, 1.19206, -0.53792, -0.13159,
        -0.66882, 0.00751, -0.03048, 0.01081, 0.01186, 0.73759,
    )  # fmt: skip
    slot_bias: float = -5.9031
    min_color_gap: float = 25.0
    bar_threshold: float = 0.5
    tray_pile: int = 5
    use_model: bool = True
    model_path: str = ""
    colour_cap: float = 6.0
    rim_colour_under_dice: bool = True
    conservation_penalty: float = 6.0
    layer_boost: float = 0.5
    count_weight: float = 0.7
    use_pile_model: bool = True
    pile_model_path: str = ""
    pile_weight: float = 0.5
    pile_min_occupied: float = 0.02
    use_stack_model: bool = True
    stack_model_path: str = ""
    stack_weight: float = 0.5
    stack_min_row: float = 4.5
    stack_min_occupied: float = 0.5
    use_hand_model: bool = True
    hand_model_path: str = ""
    hand_cover_start: float = 0.4
    hand_doubt: float = 0.4
    shade_reach: float = 1.0
    shade_min_bare: float = 0.15
    shade_below: float = 0.7


@dataclasses.dataclass(frozen=True)
class DiceConfig:
    """Finding dice by their pips, reading them, and judging the throw.

    Attributes:
        pip_diameter_frac: pip diameter as a share of the die's side (to size the pip filter).
        min_pip_contrast: grey-level difference between a pip and the die face around it.
        pip_max_ridge: largest ratio of a pip's two curvatures (a ridge, like an edge, has one).
        group_distance_frac: pips closer than this many die sides belong to one die.
        max_extent_frac: a group of pips wider than this many die sides is not one face.
        flat_max_size_ratio: a die whose pip pattern spans more than this many expected face
            sizes is taken as cocked (a side face shows beside the top).
        max_pips: at most this many pips, the strongest, are grouped into dice on a board.
        plain_work_px: photos of dice alone are shrunk to this smaller side first.
        plain_min_difference: Lab distance from the surface round it that marks a die there.
        plain_size_frac: smallest and largest die side, as shares of the image's smaller side.
        use_model: read candidates with the learned crop classifier (`dice_classifier.py`)
            when its model file is there; otherwise pips are counted.
        model_path: the ONNX model; empty for the one shipped in `models/dice_value.onnx`.
        use_second_model: ask a second classifier too (when its model file is there) about
            the crops the first is not sure hold no die, and average the two answers.
        second_model_path: its ONNX model; empty for `models/dice_value_second.onnx`.
        second_below_none: the crops whose "no die" probability from the first classifier is
            below this are the ones asked again.
        model_mirrored: the crops asked again (`second_below_none`) are also read mirrored
            left to right (the lean still points down), all the answers averaged as
            log-probabilities.
        model_pip_contrast: pip contrast for proposing candidates when the model checks them
            (lower than `min_pip_contrast`: the model throws out what is no die).
        model_max_candidates: at most this many candidates per image go to the model, the
            strongest pip groups first.
        model_max_none: a candidate is a die while the model's "no die" probability is below.
        model_min_cocked: a die is not flat when its cocked + rolling probability reaches this.
        model_min_separation: candidates the model keeps closer than this many die sides (as
            large as a die is at that spot), plus the sides a flat die's side face shows there
            (`Lean.sides`), are one die, read from all their crops (two dice cannot overlap;
            one die's pips split into two groups, or seen on its top and side faces, can).
            The same distance says which of the board dice detector's boxes are dice not
            read yet, and how near another die `centred` may move one. 0.75, not 0.9: two
            touching dice lie one of their own sides apart, 0.81 of the profile's 16 mm
            die's for a 13 mm die, a cocked die leaning on the other closer still, and the
            lean's side face is added to the distance (tuning sets 61-69, true corners: throw
            verdicts 1,836 -> 1,840 of 2,000, flat dice's values 3,692 -> 3,699, false dice
            106 -> 101; at 0.65 and 0.8, 1,837 and 1,836).
        model_min_apart: but a candidate read flat beside a surer one read tilted (cocked or
            rolling) is another die, the one a cocked die leans on, from this many die sides
            on (two dice cannot lie closer).
        use_tilt_model: on a board, ask the tilt reader (`dice_classifier.TiltReader`) too
            whether each die found lies flat, when its model file is there.
        tilt_model_path: its ONNX model; empty for the one shipped in `models/dice_tilt.onnx`.
        tilt_model_weight: the tilt reader's share when its probability that a die is tilted
            is averaged with the crop classifier's (`DieSeen.tilt`).
        tilt_min: with the tilt reader, a die is tilted when that average reaches this.
        tilt_crops: the tilt reader reads this many crops round a die, their answers averaged:
            9 (its centre and the eight round it one `face_search_step` away), 5 (its centre
            and the four beside it: 14 ms a read faster on a two-core AMD EPYC, one more flat
            die called cocked in each held-out set) or 1 (its centre).
        use_board_face_model: on a board, ask the board face reader
            (`dice_classifier.BoardFaceReader`) which face each die read flat shows, when its
            model file is there.
        board_face_model_path: its ONNX model; empty for the one shipped in
            `models/dice_board_face.onnx`.
        board_face_weight: its share when its face probabilities and the crop classifier's
            are combined (a weighted geometric mean; 1: its alone).
        board_face_reach, board_face_step: it reads crops on a grid up to `board_face_reach`
            die sides round a die's centre, `board_face_step` apart, and the surest speaks
            (0 reach: the centre's crop alone).
        touching_sides: two dice read closer than this many die sides (as large as a die is
            between them) may touch, and the crops round one take in the other's pips: where
            a die read flat there is doubtful, or both read flat show the same face, they are
            placed again together (`dice.touching_read`), and a die read alone, flat, may
            be two touching; 0: not.
        touching_unless_sure: doubtful means a face confidence under this; a die read alone
            is two only where the board face reader is this sure of each one's face.
        touching_reach, touching_step: the board face reader reads crops on a grid up to
            `touching_reach` die sides round the pair's midpoint (or the die read alone),
            `touching_step` apart,
        touching_coarse_step, touching_refine: the grid is read this many die sides apart
            first, then `touching_step` apart only round the places of its `touching_refine`
            surest pairs (surest places where one die moves): on the tuning and touching sets,
            against the whole fine grid, one die more found and two false ones fewer, at two
            thirds of the time; a coarse step no larger than `touching_step` reads the fine
            grid whole,
        touching_tube: for a pair, those no farther than this many die sides from the line
            between them,
        touching_apart: and the two places between these many die sides apart whose faces
            are surest together hold the dice (a die read tilted stays where it is, and the
            flat one goes at least the first of them from it).
        shade_reach: pips in a shadow are faint, so on a board the dice are read from the
            photo relit (`shade.board_light`, `shade.relit_photo`): the bare board within this
            many checker diameters says how far a shadow darkens it; 0 reads the photo as is.
        shade_below, shade_lit: the shadow is divided out as measured where it leaves less
            than `shade_below` of the lightness, not at all from `shade_lit`, eased between.
        face_search_sides: on a board, a die read flat is read again from crops on a grid up to
            this many die sides round its centre (as large as a die is there), and takes the
            face and centre of the crop whose likeliest face is surest, and is tilted after
            all when the crops within one step of its centre say so on average
            (`dice.centred`); 0: not.
        face_search_step: that grid's spacing, in die sides.
        face_search_below: only dice whose face confidence is below this are searched so (a
            face read surely is rarely wrong, and the search reads several crops: 9 a die with
            the defaults).
        beside_sides: on a still photo where a single die is read (after the spot search), the
            other may lie against it: crops this many die sides from it all round are read
            too, with the die found painted out (`dice.dice_beside`); 0: not looked for.
        use_detector: find dice in photos of dice alone with the learned detector
            (`dice_detector.py`) when its model file is there; otherwise blobs and pip groups.
        detector_path: its ONNX model; empty for the one shipped in `models/dice_detector.onnx`.
        detector_input_px: the side of the square input it was exported for.
        detector_min_score: a box is a die when its best face scores at least this.
        detector_max_overlap: boxes overlapping a better one by more than this (intersection
            over union) are the same die.
        detector_min_separation: so are boxes whose centre lies closer to a better one's
            than this many box sides (the larger of the two boxes' sides).
        use_board_detector: on a board, the learned board dice detector
            (`dice_detector.BoardDiceDetector`) proposes the dice the pip groups missed, when
            its model file is there; the crop classifier reads them as it reads those.
        board_detector_path: its ONNX model; empty for the one shipped in
            `models/dice_board.onnx`.
        board_detector_min_score: a box is proposed when its best class scores at least this.
        board_detector_unless_sure, board_detector_unless_apart: the detector is not asked
            when the pip groups' dice already hold two at rest, each at least this sure of
            being a die (the crop classifier's 1 - P(no die)), at least this many die sides
            apart (a throw has two dice; closer, two reads may be one die and its side face);
            above 1, it is always asked.
        use_face_model: read the faces of the dice the detector finds with the face reader
            (`dice_classifier.FaceReader`) when its model file is there; otherwise the crop
            classifier reads them.
        face_model_path: its ONNX model; empty for the one shipped in `models/dice_face.onnx`.
        same_die_reach: of the dice read on a board, one read like a surer one (the same face,
            or both tilted) closer than this many die sides (plus the side face a flat die shows
            there) is taken for a second read of it (pips of one die in two groups, or on its
            side face), while another die is seen to take its place.
        on_checker_frac: a die rests on a checker when the spot under its top face's centre,
            a checker and a die lower (`BoardModel.checker_thick_mm`, `die_mm`), lies closer
            than this many checker diameters to a checker read there.
        cocked_support_sides: a cocked die leans on something (a wall of its field, a checker,
            the other die): a die read tilted in a field with nothing of these within this many
            die sides of its middle lies flat (`pipeline.support_clearance`; a cocked die's
            middle lies up to about 1.5 sides from what it leans on). 0 leaves the tilt as
            read.
        on_checker_lies_flat: a die read resting on a checker (`on_checker_frac`) and tilted
            is read flat on it: raised by the checker, its side shows more than the tilt
            reader expects, and a cocked die leans with its foot on the board.
        new_die_min_change: in a live game, mean grey-level change over a die's square since
            the last still scene below which nothing moved there: a die read then keeps its
            reading, and a candidate where no die lay is part of the board.
        spot_min_difference: when the pip finder sees fewer than a throw's two dice on a still
            photo, a point's strip differing from its same-coloured siblings by this much (Lab
            distance, lightness counted half) is part of a spot nothing on the board explains
            (`referee.vision.spots`); such spots of `spot_area_dice` die areas (a die, its
            streak, its shadow) go to the crop classifier, the most different
            `spot_max_candidates` of them.
        rolling_min_share: a spot the classifier calls rolling with at least this is a die
            caught rolling (no value, not flat).
        spot_max_none: any other spot is a die read as a pip group's is while the classifier's
            "no die" share is below this (stricter than `model_max_none`: no pips were seen).
    """

    pip_diameter_frac: float = 0.2
    min_pip_contrast: float = 35.0
    pip_max_ridge: float = 4.0
    group_distance_frac: float = 0.62
    max_extent_frac: float = 0.75
    flat_max_size_ratio: float = 1.25
    max_pips: int = 300
    plain_work_px: int = 480
    plain_min_difference: float = 28.0
    plain_size_frac: tuple[float, float] = (0.03, 0.25)
    use_model: bool = True
    model_path: str = ""
    use_second_model: bool = True
    second_model_path: str = ""
    second_below_none: float = 0.8
    model_mirrored: bool = True
    model_pip_contrast: float = 22.0
    model_max_candidates: int = 48
    model_max_none: float = 0.3
    model_min_cocked: float = 0.5
    model_min_separation: float = 0.75
    model_min_apart: float = 0.5
    use_tilt_model: bool = True
    tilt_model_path: str = ""
    tilt_model_weight: float = 0.8
    tilt_min: float = 0.55
    tilt_crops: int = 9
    use_board_face_model: bool = True
    board_face_model_path: str = ""
    board_face_weight: float = 0.5
    board_face_reach: float = 0.2
    board_face_step: float = 0.2
    touching_sides: float = 2.0
    touching_unless_sure: float = 0.9
    touching_reach: float = 1.2
    touching_step: float = 0.2
    touching_coarse_step: float = 0.4
    touching_refine: int = 8
    touching_tube: float = 0.6
    touching_apart: tuple[float, float] = (0.9, 1.6)
    shade_reach: float = 2.0
    shade_below: float = 0.6
    shade_lit: float = 0.7
    face_search_sides: float = 0.2
    face_search_step: float = 0.2
    face_search_below: float = 0.97
    beside_sides: float = 1.1
    use_detector: bool = True
    detector_path: str = ""
    detector_input_px: int = 416
    detector_min_score: float = 0.1
    detector_max_overlap: float = 0.5
    detector_min_separation: float = 0.4
    use_board_detector: bool = True
    board_detector_path: str = ""
    board_detector_min_score: float = 0.25
    board_detector_unless_sure: float = 0.9
    board_detector_unless_apart: float = 2.0
    use_face_model: bool = True
    face_model_path: str = ""
    same_die_reach: float = 1.3
    on_checker_frac: float = 0.52
    cocked_support_sides: float = 2.0
    on_checker_lies_flat: bool = True
    new_die_min_change: float = 10.0
    spot_min_difference: float = 18.0
    spot_area_dice: tuple[float, float] = (0.3, 6.0)
    spot_max_candidates: int = 24
    rolling_min_share: float = 0.5
    spot_max_none: float = 0.2

    def __post_init__(self) -> None:
        if self.tilt_crops not in (1, 5, 9):
            raise ValueError(f"dice.tilt_crops must be 1, 5 or 9, not {self.tilt_crops!r}")
        if self.touching_refine < 1:
            raise ValueError(
                f"dice.touching_refine must be 1 or more, not {self.touching_refine!r}"
            )


@dataclasses.dataclass(frozen=True)
class GateConfig:
    """Still or moving, by differencing small grey frames.

    Attributes:
        width_px: frames are shrunk to this width (height keeps the aspect) and blurred.
        blur_px: box-blur size on the shrunk frame, to ignore sensor noise.
        pixel_threshold: grey-level change that counts a pixel as changed.
        moving_frac: share of changed pixels at or above which a frame is moving.
        still_frac: share at or below which a frame is quiet (no more than sensor noise leaves:
            a settling die changes 3 to 6 of the 14,400 pixels of a 1080p frame shrunk to 160
            px); between the two keeps a still scene still and restarts a moving one's count.
        still_frames: quiet frames in a row needed before the scene is declared still.
        tilted_look_again_frames: in live play, a still scene whose reading has a die read
            tilted is read again this many frames on, and only that reading is told to the
            session (0: never): a die rocking to rest moves too little for the shrunk frames
            (the generated games' throws: a flat die read cocked one frame before it lay).
    """

    width_px: int = 160
    blur_px: int = 3
    pixel_threshold: int = 18
    moving_frac: float = 0.004
    still_frac: float = 0.0001
    still_frames: int = 4
    tilted_look_again_frames: int = 3


@dataclasses.dataclass(frozen=True)
class HandConfig:
    """Hands resting over the board in a still picture (`hands.py`).

    Attributes:
        width_px: pictures are shrunk to this width (height keeps the aspect) and blurred.
        min_change: change of any colour channel since the last still scene that marks a
            pixel changed.
        min_area_frac: an arm's changed region covers at least this share of the playing
            surface's area, at least half of that on the surface.
        min_beyond_frac: and this share of the surface's area beyond the board's outline (or
            it reaches the picture's edge, where the board fills the picture).
        min_surface_arm_frac: or, on the surface alone, this share of its area reaching in
            from its border: a sleeve that matches the table and the frame changes nothing
            beyond the board (a full turn's checkers and dice change far less, in pieces).
        join_px: changed pieces this close (pixels at `width_px`) are one region: an arm's
            change breaks where the skin matches what lay beneath it.
        max_settlings: after this many settlings in a row that all look like hands and alike
            (no arm moved between them), the picture is read anyway (the earlier scene itself
            must have had the hand).
    """

    width_px: int = 240
    min_change: float = 30.0
    min_area_frac: float = 0.03
    min_beyond_frac: float = 0.004
    min_surface_arm_frac: float = 0.09
    join_px: int = 1
    max_settlings: int = 3


@dataclasses.dataclass(frozen=True)
class BumpConfig:
    """Thresholds of the bump watch (`bump.py`): has the board or the camera moved since the
    profile was made?

    Attributes:
        enabled: live play takes a look at every settling that shows no hands.
        width_px: the pictures are compared shrunk to this width.
        ring_out_frac: the part compared runs this share of the board's width out from the
            playing surface's border: the frame, a little under the 28 mm of a common board's.
            The table is left out: a board knocked on it leaves it where it was (with 0.1 out
            and 0.03 in, 163 of 650 board knocks on the four tuning sets were followed right
            and 50 wrong; with these, 631 and none) ...
        ring_in_frac: ... and this share in from it (the points' bases): nothing a game moves
            stays there for long but checkers at a point's base (`changed_grey`).
        min_correlation: below this correlation between the two pictures after aligning them,
            the look says nothing.
        min_in_place_correlation: a look that does not align, but comes this near and moves
            no corner more than `move_frac`, finds the board in place with the ring changed:
            the watch takes its picture afresh.
        move_frac: a corner that moved more than this share of the board's width moves the
            profile (the tuning scenes with fresh noise moved none more than 0.0002).
        changed_grey: the pixels whose grey level differs by more than this (the two
            pictures matched in brightness and contrast) are the ones that changed: a look
            that does not align is tried again without them, where the board was and where
            that alignment put it (a checker moved at a point's base pulls an alignment of the
            whole ring a per cent off).
        changed_grow_frac: those pixels' region grown by this share of the width.
        min_kept_edges: an alignment stands only where the pixels that did not change hold
            this share of the ring's edges (generated games, checkers moved and dice thrown
            since the picture: at the right alignment 0.75 and more, knocked 3-8 % and looked
            at where the board was, 0.32 and less).
        iterations: most steps of each alignment (`cv2.findTransformECC`).
        max_unaligned: after this many settlings in a row that can neither be aligned nor
            found in place (a knock too large to follow, the ring much changed), the board is
            found again (`find_board`) and the watch starts afresh from there.
    """

    enabled: bool = True
    width_px: int = 480
    ring_out_frac: float = 0.05
    ring_in_frac: float = 0.1
    min_correlation: float = 0.985
    min_in_place_correlation: float = 0.9
    move_frac: float = 0.006
    changed_grey: float = 20.0
    changed_grow_frac: float = 0.012
    min_kept_edges: float = 0.6
    iterations: int = 60
    max_unaligned: int = 3


@dataclasses.dataclass(frozen=True)
class QualityConfig:
    """Whether the picture is sharp and well exposed enough to read (`quality.py`).

    Attributes:
        min_board_px: a playing surface narrower than this in the picture (pixels, its width:
            `BoardProfile.board_width_px`) is said to be too small to read well.
        max_edge_px: a picture whose board edges (the points' sides) are wider than this, as
            a Gaussian blur's sigma in pixels, is said to be blurred.
        max_clipped: one with more than this share of the playing surface clipped white (a
            colour channel at 254 or more) is said to be overexposed.
        min_light: one whose lightest things on the playing surface (its 98th percentile of
            grey, 0-255) are darker than this is said to be too dark.
        min_step: a place on a point's side counts towards the edge width where the grey
            level steps across it by this much or more.
        min_edges: the edge width is measured only where this many places count.
    """

    min_board_px: float = 300.0
    max_edge_px: float = 1.6
    max_clipped: float = 0.6
    min_light: float = 80.0
    min_step: float = 25.0
    min_edges: int = 20


@dataclasses.dataclass(frozen=True)
class VisionConfig:
    """All stages' thresholds."""

    rectify: RectifyConfig = dataclasses.field(default_factory=RectifyConfig)
    calibration: CalibrationConfig = dataclasses.field(default_factory=CalibrationConfig)
    checkers: CheckerConfig = dataclasses.field(default_factory=CheckerConfig)
    dice: DiceConfig = dataclasses.field(default_factory=DiceConfig)
    gate: GateConfig = dataclasses.field(default_factory=GateConfig)
    hands: HandConfig = dataclasses.field(default_factory=HandConfig)
    bump: BumpConfig = dataclasses.field(default_factory=BumpConfig)
    quality: QualityConfig = dataclasses.field(default_factory=QualityConfig)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (every field)."""
        data: dict[str, Any] = dataclasses.asdict(self)
        return data


def load_config(path: str | Path | None) -> VisionConfig:
    """The config in JSON file `path` (only changed fields needed), or the defaults for None."""
    if path is None:
        return VisionConfig()
    return dataclass_from_dict(VisionConfig, json.loads(Path(path).read_text(encoding="utf-8")))
