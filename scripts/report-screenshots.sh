#!/usr/bin/env bash
# Renders the demo sweep's PDF report and its pages into docs/screenshots/report-page-N.png (pdftoppm, 72 dpi).
# Usage: scripts/report-screenshots.sh   (needs poppler-utils and a Chromium; about a minute)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export CAPLAB_DATA_DIR="$tmp" CAPLAB_SIM_STATE_DIR="$tmp/sim" CAPLAB_DB="$tmp/lab.db"
node "$root/bin/caplab.mjs" sweep "$root/resources/plans/demo-sim.yaml" >/dev/null
node "$root/bin/caplab.mjs" report 1 --author "CapLab demo" --pdf "$tmp/demo-report.pdf"
rm -f "$root"/docs/screenshots/report-page-*.png
pdftoppm -r 72 -png "$tmp/demo-report.pdf" "$root/docs/screenshots/report-page"
ls "$root"/docs/screenshots/report-page-*.png
