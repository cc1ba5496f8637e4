#!/usr/bin/env bash
# Creates the training-only venv .venv-train (never needed by the runtime, the Pi or CI).
# torch is pinned and installed first so pip takes the CPU build; a bare `torch` would pull
# several GB of CUDA libraries. onnx is what torch.onnx.export writes through. ultralytics (the
# dice detector) comes with a constraint that keeps that CPU torch: the newest torchvision would
# replace it with a CUDA build. PyPI's torchvision still lacks its C++ operators beside the CPU
# torch; scripts/train_dice_detector.py supplies the NMS it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-train
.venv-train/bin/pip install --quiet "torch==2.13.0"
.venv-train/bin/pip install --quiet onnx onnxruntime pyserial gpiozero "numpy>=1.26" "opencv-python-headless>=5.0"
constraints=$(mktemp)
printf 'torch==2.13.0\ntorchvision==0.28.0\n' > "$constraints"
.venv-train/bin/pip install --quiet -c "$constraints" "ultralytics==8.4.190"
rm -f "$constraints"
.venv-train/bin/pip install --quiet --no-deps -e .
.venv-train/bin/python -c "import torch, onnx, ultralytics; print('torch', torch.__version__, 'onnx', onnx.__version__, 'ultralytics', ultralytics.__version__)"
