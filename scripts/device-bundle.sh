#!/usr/bin/env bash
# Builds .device/: a self-contained CapLab for a GPU machine that has no Node and no network.
# DEVICE_OUT=DIR builds it elsewhere (e.g. into the checkout that the GPU tool sends: /work/main/.device).
#   .device/node.xz            this machine's Node 20 binary, xz-compressed (unpack: xz -dc .device/node.xz > node)
#   .device/caplab-bundle.mjs  esbuild bundle of the CLI (src/main/cli/main.ts)
#   .device/caplab.mjs         wrapper: node .device/caplab.mjs devices --backend nvml --json
#   .device/record.mjs         bench/gpu/record.ts bundled (observe-only NVML recorder for the bench)
#   .device/tune-acceptance.mjs bench/tune-acceptance.ts bundled (simulated GPUs only; run from the checkout root)
#   .device/node_modules/      the native externals with their built parts: better-sqlite3 (+ bindings,
#                              file-uri-to-path), node-pty, koffi + @koromix/koffi-linux-x64
#   .device/resources/         workload definitions and demo data
#   .device/bench/gpu/*.py     the Python side of the bench
# Keep it under ~40 MB: it travels with the working tree (64 MiB limit). /.device/ is git-ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${DEVICE_OUT:-$ROOT/.device}
NODE_BIN=${NODE_BIN:-$(command -v node)}

# .gitignore lists /.device/ already; nothing else to exclude.

"$NODE_BIN" -e 'if (!process.version.startsWith("v20.")) { console.error("device-bundle: need Node 20, got " + process.version); process.exit(1); }'
# Everything but the compressed Node is rebuilt; node.xz is kept while it is newer than the Node binary (xz takes minutes).
mkdir -p "$OUT"
find "$OUT" -mindepth 1 -maxdepth 1 ! -name node.xz -exec rm -rf {} +
mkdir -p "$OUT/node_modules/@koromix" "$OUT/bench/gpu"
if [ ! -s "$OUT/node.xz" ] || [ "$NODE_BIN" -nt "$OUT/node.xz" ]; then
  xz -T2 -6 -c "$NODE_BIN" > "$OUT/node.xz.tmp" && mv "$OUT/node.xz.tmp" "$OUT/node.xz"
fi

EXTERNALS=(--external:better-sqlite3 --external:node-pty --external:koffi --external:electron)
BANNER="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
npx esbuild src/main/cli/main.ts --bundle --platform=node --format=esm --target=node20 "${EXTERNALS[@]}" \
  --banner:js="$BANNER" --outfile="$OUT/caplab-bundle.mjs" --log-level=warning
npx esbuild bench/gpu/record.ts --bundle --platform=node --format=esm --target=node20 "${EXTERNALS[@]}" \
  --banner:js="$BANNER" --outfile="$OUT/record.mjs" --log-level=warning
# The tune acceptance (simulated GPUs: it sets no real limit) runs there on the spare cores: CAPLAB_CLI_ENTRY=.device/caplab.mjs.
npx esbuild bench/tune-acceptance.ts --bundle --platform=node --format=esm --target=node20 "${EXTERNALS[@]}" \
  --banner:js="$BANNER" --outfile="$OUT/tune-acceptance.mjs" --log-level=warning

cat > "$OUT/caplab.mjs" <<'EOF'
#!/usr/bin/env node
// CapLab CLI from the bundle (scripts/device-bundle.sh).
process.env.CAPLAB_BUNDLED = '1';
const { main } = await import('./caplab-bundle.mjs');
process.exitCode = await main(process.argv.slice(2));
EOF

# Native externals, pruned to what runs on linux-x64.
copy() { mkdir -p "$OUT/node_modules/$1"; (cd "node_modules/$1" && tar cf - "${@:2}") | (cd "$OUT/node_modules/$1" && tar xf -); }
copy better-sqlite3 package.json lib build/Release/better_sqlite3.node
copy bindings package.json bindings.js
copy file-uri-to-path package.json index.js
copy node-pty package.json lib build/Release/pty.node
find "$OUT/node_modules/node-pty/lib" \( -name '*.map' -o -name '*.test.js' -o -name 'windows*' -o -name 'conpty*' \) -delete
copy koffi package.json index.js index.cjs indirect.js indirect.cjs src
copy @koromix/koffi-linux-x64 package.json index.js linux_x64

cp -r resources "$OUT/resources"
cp bench/gpu/*.py bench/gpu/*.sh "$OUT/bench/gpu/" 2>/dev/null || true

# Smoke test here: the bundle starts and lists (simulated) devices without the source tree.
(cd "$OUT" && CAPLAB_DATA_DIR=$(mktemp -d) "$NODE_BIN" caplab.mjs --version >/dev/null)
du -sh "$OUT"
du -sh "$OUT"/* "$OUT"/node_modules/* "$OUT"/node_modules/@koromix/* | sort -h | tail -12
