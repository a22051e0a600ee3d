#!/usr/bin/env bash
# Serve the documentation site locally, rebuilt on every change of docs/ or mkdocs.yml
# (restart it after editing docstrings): http://127.0.0.1:8000 (DOCS_ADDR=HOST:PORT for another address).
# Needs the docs extra: pip install -e ".[docs]". Extra arguments go to `mkdocs serve`.
# `mkdocs build --strict` (what the tests run) writes the static site to site/ instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_MKDOCS_2_WARNING=1  # Material's notice about MkDocs 2.0, printed on every build
mkdocs=mkdocs
if [ -x .venv/bin/mkdocs ]; then mkdocs=.venv/bin/mkdocs; fi
if ! command -v "$mkdocs" >/dev/null; then
    echo "serve_docs.sh: error: mkdocs is not installed; install the docs extra: pip install -e \".[docs]\"" >&2
    exit 2
fi
exec "$mkdocs" serve --strict --dev-addr "${DOCS_ADDR:-127.0.0.1:8000}" "$@"
