#!/usr/bin/env bash
# Installs the independent checkers the corpus tests use into a temporary folder (never into
# ../shared): the Khronos glTF validator and the glTF peers (gltf-transform, gltfpack) from npm,
# and the three-vrm oracle (three.js + @pixiv/three-vrm, pinned by its package-lock.json).
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
mkdir -p "$dir/three-vrm-oracle"
if [ ! -d "$dir/three-vrm-oracle/node_modules/@pixiv/three-vrm" ]; then
  cp "$shared/tools/three-vrm-oracle/package.json" "$shared/tools/three-vrm-oracle/package-lock.json" \
     "$dir/three-vrm-oracle/"
  (cd "$dir/three-vrm-oracle" && npm ci --no-audit --no-fund --silent) >&2
fi
cp "$shared/tools/three-vrm-oracle/oracle.mjs" "$dir/three-vrm-oracle/oracle.mjs"
echo "export HUMANOID_GLTF_VALIDATOR=$dir/gltf-tools/validate.js"
echo "export HUMANOID_GLTF_TOOLS=$dir/gltf-tools/node_modules/.bin"
echo "export HUMANOID_THREE_VRM_ORACLE=$dir/three-vrm-oracle/oracle.mjs"
