#!/usr/bin/env bash
# Creates the training-only venv .venv-train (never needed by the runtime, the Pi or CI).
# torch is pinned and installed first so pip takes the CPU build; a bare `torch` would pull
# several GB of CUDA libraries. onnx is what torch.onnx.export writes through.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-train
.venv-train/bin/pip install --quiet "torch==2.13.0"
.venv-train/bin/pip install --quiet onnx "numpy>=1.26" "opencv-python-headless>=4.9"
.venv-train/bin/pip install --quiet --no-deps -e .
.venv-train/bin/python -c "import torch, onnx; print('torch', torch.__version__, 'onnx', onnx.__version__)"
