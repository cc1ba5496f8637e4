#!/usr/bin/env bash
# Train the board dice detector (`models/dice_board.md`) on one GPU machine in one call of under
# ten minutes: its scenes made and cut into windows on all the machine's cores, then YOLO11n
# trained from scratch on the GPU for the rest of the budget, checked on the validation
# windows and exported to ONNX. The shipped detector had 22 epochs on two CPU cores (2.6 hours)
# and was still learning; a GPU gives it a hundred or more in minutes.
#
#   RESULTS=$OUT scripts/train_gpu_board_dice.sh
#
# Writes to $RESULTS: dice_board.onnx (the export, 32-bit; make its 8-bit copy here with
# scripts/quantize_models.py), best.pt, results.csv (ultralytics' figures per epoch) and
# train.log. The scenes are this script's own seeds (531 on), never the measuring sets (1, 3,
# 4, 5, 11) or the tuning sets (41, 61-67, 81, 82), in the proportions of the shipped run's
# data: the default, touching, throws and club_overhead configs, tilt.json at 1280x720 and
# club_cocked.json at its own 1920x1080.
#
# Needs python3 with torch and torchvision (CUDA), numpy and OpenCV; ultralytics 8.4.190,
# ultralytics-thop, gpiozero, colorzero and pyserial come as wheels where they are missing
# (`models/dice_board.md`, "Trained on a GPU"). Two stand-ins, for what is too large to carry
# to that machine: polars, which ultralytics imports only to read its results table back, is
# a module that refuses to read (ultralytics catches that); and where python3's OpenCV is 4,
# the scene generator runs through a shim that gives `undistortPoints` the iteration criteria
# OpenCV 5 takes, from OpenCV 4's `undistortPointsIter` (three scenes made under OpenCV 4.14
# and 5.0: the same labels but for a hand outline's points; 5-6 % of pixels up to 17 levels
# apart, the encoders' and drawing's rounding).
#
# Variables: RESULTS, WORK, JOBS, PY, BUDGET_S (seconds from the start to the end of training),
# DEVICE (0: the first GPU; cpu for a dry run), BATCH, WORKERS, SCENES (scenes a chunk, 100; a
# dry run takes a few).
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-out/gpu_board_dice}
WORK=${WORK:-/tmp/nardy-board-dice}
JOBS=${JOBS:-$(nproc)}
PY=${PY:-python3}
BUDGET_S=${BUDGET_S:-480}
DEVICE=${DEVICE:-0}
BATCH=${BATCH:-128}
WORKERS=${WORKERS:-$JOBS}
SCENES=${SCENES:-100}
start=$(date +%s)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} OMP_NUM_THREADS=1
mkdir -p "$RESULTS" "$WORK"
RESULTS=$(cd "$RESULTS" && pwd)

mkdir -p "$WORK/stand-in"
cat >"$WORK/stand-in/opencv5_calls.py" <<'PY'
"""OpenCV 5's `undistortPoints(src, K, dist, dst, R, P, criteria)` on OpenCV 4, which takes
criteria only in `undistortPointsIter`; nothing is changed on OpenCV 5."""

import cv2

if hasattr(cv2, "undistortPointsIter"):
    _plain = cv2.undistortPoints

    def undistortPoints(src, cameraMatrix, distCoeffs, dst=None, R=None, P=None, criteria=None):
        if criteria is None:
            return _plain(src, cameraMatrix, distCoeffs, dst, R, P)
        return cv2.undistortPointsIter(src, cameraMatrix, distCoeffs, R, P, criteria)

    cv2.undistortPoints = undistortPoints
PY
export PYTHONPATH=$PYTHONPATH:$WORK/stand-in
if ! $PY -c "import polars" 2>/dev/null; then
  mkdir -p "$WORK/stand-in/polars"
  cat >"$WORK/stand-in/polars/__init__.py" <<'PY'
"""Stands in for polars, which ultralytics' training imports only to read its results table
back into each checkpoint, catching the failure to read; nothing else of polars is here."""


def read_csv(*args, **kwargs):
    raise RuntimeError("polars is not installed: the results table is not read back")
PY
fi

# One chunk a line: config, seed, width, height. 51 chunks of $SCENES, in the shipped run's
# proportions (6 default, 5 touching, 5 throws, 3 club_overhead, 25 tilt, 7 club_cocked).
chunks() {
  local seed=531
  emit() {
    for _ in $(seq "$2"); do
      echo "$1 $seed $3 $4"
      seed=$((seed + 1))
    done
  }
  emit default 6 1280 720
  emit touching 5 1280 720
  emit throws 5 1280 720
  emit club_overhead 3 1280 720
  emit tilt 25 1280 720
  emit club_cocked 7 1920 1080
}

# Make one chunk's scenes and cut its windows into $WORK/<config>_<seed>.win.
one_chunk() {
  local config=$1 seed=$2 width=$3 height=$4 dir="$WORK/$1_$2"
  local options=(--width "$width" --height "$height")
  [ "$config" = default ] || options+=(--config "datasets/$config.json")
  {
    $PY -c 'import opencv5_calls, runpy; runpy.run_module("referee.cli", run_name="__main__")' \
      scenes make --n "$SCENES" --seed "$seed" "${options[@]}" --out "$dir" --quiet &&
      $PY scripts/train_board_dice_detector.py --scenes "$dir" --work "$dir.win" --cut-only \
        --seed "$seed"
  } >"$dir.log" 2>&1 || { tail -5 "$dir.log" >&2; return 1; }
}
export -f one_chunk
export PY WORK SCENES

chunks | xargs -P "$JOBS" -L 1 bash -c 'one_chunk "$@"' _
data="$WORK/data"
rm -rf "$data"
wins=("$WORK"/*.win/data)
for part in train val; do
  mkdir -p "$data/images/$part" "$data/labels/$part"
  for win in "${wins[@]}"; do
    find "$win/images/$part" -name '*.jpg' -exec mv -t "$data/images/$part" {} +
    find "$win/labels/$part" -name '*.txt' -exec mv -t "$data/labels/$part" {} +
  done
done
sed "s#^path: .*#path: $data#" "${wins[0]}/data.yaml" >"$data/data.yaml"
echo "data ready after $(($(date +%s) - start)) s:" \
  "$(ls "$data/images/train" | wc -l) training and $(ls "$data/images/val" | wc -l)" \
  "validation windows"

hours=$(awk -v s="$BUDGET_S" -v e="$(($(date +%s) - start))" \
  'BEGIN { h = (s - e) / 3600; printf "%.4f", h < 0.01 ? 0.01 : h }')
echo "training for $hours h on $DEVICE"
set +e
$PY scripts/train_board_dice_detector.py --data "$data/data.yaml" --work "$WORK" \
  --out "$RESULTS/dice_board.onnx" --device "$DEVICE" --batch "$BATCH" \
  --workers "$WORKERS" --hours "$hours" 2>&1 | tee "$RESULTS/train.log"
status=${PIPESTATUS[0]}
set -e
cp "$WORK/run/weights/best.pt" "$WORK/run/results.csv" "$RESULTS/" 2>/dev/null || true
echo "done after $(($(date +%s) - start)) s (exit $status)"
exit "$status"
