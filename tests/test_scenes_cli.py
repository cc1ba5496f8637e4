"""`referee scenes make`: files, labels, YOLO extras and the shipped configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.scenes.config import SceneConfig, config_from_dict, load_config

DATASETS = Path(__file__).resolve().parent.parent / "datasets"


def test_make_writes_images_labels_and_yolo_files(tmp_path: Path) -> None:
    out = tmp_path / "set"
    args = ["scenes", "make", "--n", "2", "--seed", "4", "--out", str(out), "--quiet"]
    assert main([*args, "--width", "256", "--height", "192", "--yolo"]) == 0
    for stem in ("000000", "000001"):
        assert (out / f"{stem}.jpg").stat().st_size > 1000
        truth = json.loads((out / f"{stem}.json").read_text())
        assert truth["image"] == f"{stem}.jpg"
        assert (truth["width"], truth["height"]) == (256, 192)
        assert (out / f"{stem}.txt").exists()
    assert (out / "classes.txt").read_text().split()[0] == "checker_white"
    manifest = json.loads((out / "manifest.jsonl").read_text())
    assert manifest["seed"] == 4 and manifest["count"] == 2


def test_make_refuses_half_a_size(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["scenes", "make", "--n", "1", "--seed", "1", "--out", str(tmp_path), "--width", "64"])


@pytest.mark.parametrize("path", sorted(DATASETS.glob("*.json")), ids=lambda p: p.name)
def test_shipped_configs_load(path: Path) -> None:
    config = load_config(path)
    assert isinstance(config, SceneConfig)


def test_default_json_is_the_default_config() -> None:
    data = json.loads((DATASETS / "default.json").read_text())
    assert config_from_dict(data) == SceneConfig()


def test_unknown_config_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        config_from_dict({"camera": {"zoom": 2}})
    with pytest.raises(ValueError, match="unknown dice situation"):
        config_from_dict({"dice": {"situation_weights": {"levitating": 1}}})
