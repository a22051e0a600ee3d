#!/usr/bin/env bash
# Train (or continue) the full run of one variant's shipped config and copy its results:
#   scripts/training/run_variant.sh VARIANT [--set KEY=VALUE ...] [--collect-only]
# runs/full/<Variant> -> results/training/<Variant>/ (see scripts/training/full_run.py).
# PYTHON picks the interpreter (default: python).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec "${PYTHON:-python}" scripts/training/full_run.py variant "$@"
