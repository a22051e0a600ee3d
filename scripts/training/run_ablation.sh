#!/usr/bin/env bash
# Train (or continue) one ablation setting of a variant and copy its results:
#   scripts/training/run_ablation.sh VARIANT SETTING [--set KEY=VALUE ...] [--collect-only]
# The settings: results/training/ablation/settings.yaml.
# runs/ablation/<Variant>/<setting> -> results/training/ablation/<Variant>/<setting>/
# (see scripts/training/full_run.py). PYTHON picks the interpreter (default: python).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec "${PYTHON:-python}" scripts/training/full_run.py ablation "$@"
