#!/usr/bin/env bash
# Installs the independent checkers the corpus tests use into a temporary folder (never into
# ../shared): the Khronos glTF validator and the glTF peers (gltf-transform, gltfpack) from npm.
# Usage: scripts/install-tools.sh [DIR]   (default: $TMPDIR/humanoid-tools)
# Prints `export ...` lines to eval.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${HUMANOID_SHARED:-$here/../shared}
dir=${1:-${TMPDIR:-/tmp}/humanoid-tools}
mkdir -p "$dir/gltf-tools"
if [ ! -d "$dir/gltf-tools/node_modules/gltf-validator" ]; then
  cp "$shared/tools/gltf-tools/package.json" "$shared/tools/gltf-tools/package-lock.json" \
     "$shared/tools/gltf-tools/validate.js" "$dir/gltf-tools/"
  (cd "$dir/gltf-tools" && npm ci --no-audit --no-fund --silent) >&2
fi
cp "$shared/tools/gltf-tools/validate.js" "$dir/gltf-tools/validate.js"
echo "export HUMANOID_GLTF_VALIDATOR=$dir/gltf-tools/validate.js"
echo "export HUMANOID_GLTF_TOOLS=$dir/gltf-tools/node_modules/.bin"
