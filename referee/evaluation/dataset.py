"""Labelled image folders: finding image/label pairs, and loading one pair.

Two layouts are understood, both "label file beside the image, same stem":
- `scene`: `000123.jpg` + `000123.json`, the scene generator's ground truth (datasets/FORMAT.md);
- `yolo-dice`: `x.jpg` + `x.txt`, one `class cx cy w h` line per die (class = face value - 1).
Folders are searched recursively. Anything that cannot be paired or read becomes a `Problem`
with the file's name and the reason, never an exception, so the rest can still be scored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

import cv2
import numpy as np

from referee.evaluation.basics import Image
from referee.evaluation.truth import GroundTruth, TruthError, parse_scene_truth, parse_yolo_dice

DataFormat: TypeAlias = Literal["scene", "yolo-dice"]

FORMATS: tuple[DataFormat, ...] = ("scene", "yolo-dice")

LABEL_SUFFIX: dict[DataFormat, str] = {"scene": ".json", "yolo-dice": ".txt"}

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp"})

# The YOLO class-names file: it labels no image, but says what the class numbers mean.
CLASSES_FILE = "classes.txt"
DIE_FACES = 6


@dataclass(frozen=True)
class Problem:
    """A file that could not be scored: its name (relative to the data folder) and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Sample:
    """One image and its label file; `name` is the image's path relative to the data folder."""

    name: str
    image_path: Path
    label_path: Path


@dataclass(frozen=True)
class Dataset:
    """The pairs found in a folder, and the files that could not be paired."""

    root: Path
    format: DataFormat
    samples: tuple[Sample, ...]
    problems: tuple[Problem, ...]


def _visible_files(root: Path) -> list[Path]:
    # Hidden files and folders (.git, .DS_Store, editor swap files) are never data.
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def detect_format(root: Path) -> DataFormat | None:
    """The layout most images in `root` follow, by which label file sits beside them.

    A tie goes to `scene`: the scene generator can write YOLO files beside its JSON labels, and
    the JSON holds everything the YOLO file does.
    """
    files = _visible_files(root)
    names = {p.with_suffix("") for p in files if p.suffix.lower() in IMAGE_SUFFIXES}
    votes = {
        fmt: sum(1 for p in files if p.suffix == suffix and p.with_suffix("") in names)
        for fmt, suffix in LABEL_SUFFIX.items()
    }
    best = max(FORMATS, key=lambda f: votes[f])
    return best if votes[best] else None


def discover(root: Path, fmt: DataFormat) -> Dataset:
    """Pair every image under `root` with its label; unpaired files become problems."""
    files = _visible_files(root)
    suffix = LABEL_SUFFIX[fmt]
    images = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES]
    labels = {p.with_suffix(""): p for p in files if p.suffix == suffix and p.name != CLASSES_FILE}
    samples: list[Sample] = []
    problems: list[Problem] = []
    seen_stems: set[Path] = set()
    checked_classes: dict[Path, str | None] = {}

    def class_problems(folder: Path) -> str | None:
        if folder not in checked_classes:
            checked_classes[folder] = _not_die_faces(folder)
        return checked_classes[folder]

    for image in images:
        stem = image.with_suffix("")
        name = image.relative_to(root).as_posix()
        if stem in seen_stems:
            problems.append(Problem(name, "another image has the same name; label is ambiguous"))
            continue
        seen_stems.add(stem)
        label = labels.get(stem)
        if label is None:
            problems.append(Problem(name, f"no label: {stem.name}{suffix} is missing"))
        elif fmt == "yolo-dice" and (wrong := class_problems(label.parent)) is not None:
            problems.append(Problem(name, wrong))
        else:
            samples.append(Sample(name, image, label))
    for stem, label in labels.items():
        if stem not in seen_stems:
            problems.append(Problem(label.relative_to(root).as_posix(), "label without image"))
    return Dataset(root, fmt, tuple(samples), tuple(sorted(problems, key=lambda p: p.name)))


def _not_die_faces(folder: Path) -> str | None:
    """Why the YOLO classes in `folder` are not the six die faces (class = value - 1), if not.

    Without a classes file the layout is taken on trust; the scene generator's YOLO files, for
    one, number checkers and dice together and must not be read as dice values.
    """
    classes_file = folder / CLASSES_FILE
    if not classes_file.is_file():
        return None
    try:
        names = [n.strip() for n in classes_file.read_text(errors="replace").splitlines()]
    except OSError as exc:
        return f"{CLASSES_FILE} unreadable: {exc}"
    names = [n for n in names if n]
    if len(names) == DIE_FACES:
        return None
    return f"{CLASSES_FILE} names {len(names)} classes, not the six die faces in order"


def read_image(path: Path) -> Image | None:
    """The image decoded as BGR, or None when the file is missing or not a readable image."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return None
    if data.size == 0:
        return None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image, dtype=np.uint8)


def load_truth(label_path: Path, fmt: DataFormat, image_shape: Sequence[int]) -> GroundTruth:
    """The ground truth in `label_path`; raises `TruthError` saying why it cannot be used.

    `image_shape` is the decoded image's (height, width, ...): YOLO boxes are fractions of it,
    and a scene label whose recorded size differs belongs to some other image.
    """
    height, width = int(image_shape[0]), int(image_shape[1])
    try:
        text = label_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TruthError(f"label unreadable: {exc}") from exc
    if fmt == "yolo-dice":
        return parse_yolo_dice(text, width, height)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TruthError(f"label is not valid JSON: {exc}") from exc
    truth = parse_scene_truth(obj)
    recorded = (obj.get("width"), obj.get("height"))
    if recorded != (width, height):
        raise TruthError(
            f"label is for a {recorded[0]}x{recorded[1]} image, the image is {width}x{height}"
        )
    return truth
