#!/usr/bin/env bash
# Remake the dice classifier (`models/dice_value.md`) and the checker strip network
# (`models/checker_strip.md`) on one GPU machine in under ten minutes: scenes, crops and strips
# on all its cores, then both networks trained at once on the GPU, each at two widths.
#
#   RESULTS=out/gpu REAL=../shared/real/dice scripts/train_gpu.sh
#
# A second round on fresh scenes, starting from the first round's weights (here the checker
# networks alone):
#
#   MODELS=checkers SEED_OFFSET=100 INIT=out/gpu LR=1e-3 RESULTS=out/gpu2 scripts/train_gpu.sh
#
# INIT is a folder of weights named as this script writes them, `NAME_xSCALE.pt`; a checker
# network may start from an exported one instead, `checker_strip_xSCALE.onnx` (a shipped file:
# its folded norms stay frozen).
# SCALES picks the widths trained (default "1 1.5"); TRAY_WEIGHT weighs the tray's strips in the
# checker networks' loss (default 1).
#
# Needs python3 with torch (CUDA), onnx, numpy, OpenCV and the referee's own dependencies
# (gpiozero and pyserial are imported with it: put their wheels on PYTHONPATH where they are
# missing); the referee itself is used from this checkout. Writes the four networks (ONNX and
# state dicts) and their training logs to $RESULTS, and all of them in $RESULTS/models.tar. The
# seeds are this script's own, never the measuring sets (1, 3, 4, 5, 11) or the tuning sets
# (41, 61, 62, 63, 64); seed 31 is the checker network's check set, as before.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-out/gpu}
REAL=${REAL:-../shared/real/dice}
WORK=${WORK:-/tmp/nardy-gpu}
JOBS=${JOBS:-$(nproc)}
CHUNK=${CHUNK:-150}
PY=${PY:-python3}
# Seconds from the start to the end of training, leaving time for the export.
BUDGET_S=${BUDGET_S:-500}
DEVICE=${DEVICE:-cuda}
MODELS=${MODELS:-dice checkers}
SEED_OFFSET=${SEED_OFFSET:-0}
INIT=${INIT:-}
LR=${LR:-3e-3}
SCALES=${SCALES:-1 1.5}
TRAY_WEIGHT=${TRAY_WEIGHT:-1}
start=$(date +%s)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} OMP_NUM_THREADS=1
mkdir -p "$RESULTS" "$WORK"

# One chunk: config (or "default"), seed, scenes; 31 chunks and the check set are two rounds on
# 16 cores.
chunks() {
  for s in 201 202 203 204 205 206; do echo "throws $((s + SEED_OFFSET)) $CHUNK"; done
  # Valid throws with dice touching a checker, a wall or each other beside cocked ones: the
  # networks before these never saw a flat die touch anything.
  for s in 251 252; do echo "touching $((s + SEED_OFFSET)) $CHUNK"; done
  for s in 211 212 213 214 215 216; do echo "default $((s + SEED_OFFSET)) $CHUNK"; done
  for s in 221 222 223 224; do echo "hard $((s + SEED_OFFSET)) $CHUNK"; done
  for s in 231 232 233 234 235 236 237 238; do echo "club_overhead $((s + SEED_OFFSET)) $CHUNK"; done
  for s in 241 242 243 244 245; do echo "club_cocked $((s + SEED_OFFSET)) $CHUNK"; done
}

one_chunk() {
  local config=$1 seed=$2 n=$3 dir="$WORK/$1_$2"
  local options=(--width 1280 --height 720)
  [ "$config" = default ] || options=(--config "datasets/$config.json")
  {
    $PY -m referee.cli scenes make --n "$n" --seed "$seed" "${options[@]}" --out "$dir" --quiet
    [[ $MODELS != *dice* ]] || $PY scripts/make_dice_crops.py --scenes "$dir" --out "$dir.crops.npz"
    $PY scripts/make_checker_strips.py "$dir" --out "$dir.strips.npz" --seed "$seed"
  } >"$dir.log" 2>&1
}
export -f one_chunk
export PY WORK CHUNK MODELS

{
  echo "check 31 $((CHUNK * 4 / 3))"
  chunks
} | xargs -P "$JOBS" -L 1 bash -c '
  if [ "$0" = check ]; then
    d="$WORK/check_31"
    $PY -m referee.cli scenes make --n "$2" --seed 31 --width 1280 --height 720 --out "$d" --quiet
    $PY scripts/make_checker_strips.py "$d" --out "$d.strips.npz" --seed 1 >"$d.log" 2>&1
  else
    one_chunk "$0" "$1" "$2"
  fi' &
data=$!
if [[ $MODELS == *dice* ]]; then
  $PY scripts/make_dice_crops.py --yolo "$REAL/d6-tray/train" "$REAL/webcam-desk/Train" \
    --out "$WORK/real.crops.npz" >/dev/null
fi
wait $data
echo "data ready after $(($(date +%s) - start)) s: $(ls "$WORK"/*.npz | wc -l) files"

minutes=$(awk -v s="$BUDGET_S" -v e="$(($(date +%s) - start))" \
  'BEGIN { m = (s - e) / 60; printf "%.2f", m < 1 ? 1 : m }')
echo "training for $minutes min"
pids=()
# The weights in $INIT that checker network $1 starts from.
init_weights() {
  if [ -f "$INIT/$1.pt" ]; then echo "$INIT/$1.pt"; else echo "$INIT/$1.onnx"; fi
}

for scale in $SCALES; do
  if [[ $MODELS == *dice* ]]; then
    name=dice_value_x$scale
    init=()
    [ -z "$INIT" ] || init=(--init "$INIT/$name.pt")
    # The real photos' crops three times over: they are few beside the generated ones.
    real="$WORK/real.crops.npz"
    # shellcheck disable=SC2046
    $PY scripts/train_dice_classifier.py --crops $(ls "$WORK"/*_*.crops.npz) "$real" "$real" \
      "$real" --device "$DEVICE" --batch 256 --epochs 60 --minutes "$minutes" --scale $scale \
      --lr "$LR" "${init[@]}" --out "$RESULTS/$name.onnx" >"$RESULTS/$name.log" 2>&1 &
    pids+=($!)
  fi
  if [[ $MODELS == *checkers* ]]; then
    name=checker_strip_x$scale
    init=()
    [ -z "$INIT" ] || init=(--init "$(init_weights $name)")
    # shellcheck disable=SC2046
    $PY scripts/train_checker_strips.py $(ls "$WORK"/*_*.strips.npz | grep -v check_31) \
      --check "$WORK/check_31.strips.npz" --device "$DEVICE" --batch 256 --epochs 60 \
      --minutes "$minutes" --scale $scale --lr "$LR" --tray-weight "$TRAY_WEIGHT" "${init[@]}" \
      --out "$RESULTS/$name.onnx" >"$RESULTS/$name.log" 2>&1 &
    pids+=($!)
  fi
done
wait "${pids[@]}" || true
# shellcheck disable=SC2046
tar -C "$RESULTS" -cf "$RESULTS/models.tar" $(cd "$RESULTS" && ls ./*.onnx ./*.pt ./*.log)
echo "done after $(($(date +%s) - start)) s"
