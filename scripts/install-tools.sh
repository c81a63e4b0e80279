#!/usr/bin/env bash
# Installs the independent checkers the corpus tests use into a temporary folder (never into
# ../shared): the Khronos glTF validator and the glTF peers (gltf-transform, gltfpack) from npm,
# the three-vrm oracle (three.js + @pixiv/three-vrm, pinned by its package-lock.json) and
# X_ITE (H-Anim).
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
# Our copy of the shared validate.js, with every issue counted (the shared one stops at 50
# issues, so infos can hide errors): tests/peers/validate.js says why.
cp "$here/tests/peers/validate.js" "$dir/gltf-tools/validate.js"
mkdir -p "$dir/three-vrm-oracle"
if [ ! -d "$dir/three-vrm-oracle/node_modules/@pixiv/three-vrm" ]; then
  cp "$shared/tools/three-vrm-oracle/package.json" "$shared/tools/three-vrm-oracle/package-lock.json" \
     "$dir/three-vrm-oracle/"
  (cd "$dir/three-vrm-oracle" && npm ci --no-audit --no-fund --silent) >&2
fi
cp "$shared/tools/three-vrm-oracle/oracle.mjs" "$dir/three-vrm-oracle/oracle.mjs"
# X_ITE (H-Anim peer): skia-canvas's postinstall download is skipped and shimmed, as the
# peer's README says.
mkdir -p "$dir/hanim-peers"
if [ ! -d "$dir/hanim-peers/node_modules/x_ite-node" ]; then
  cp -r "$shared/tools/hanim-peers/." "$dir/hanim-peers/" && chmod -R u+w "$dir/hanim-peers"
  (cd "$dir/hanim-peers" && npm install --ignore-scripts --no-audit --no-fund --silent \
     x3d-tidy@3.0.10 x_ite-node@2.0.16 \
   && rm -rf node_modules/skia-canvas && cp -r shims/skia-canvas node_modules/skia-canvas) >&2
fi
echo "export HUMANOID_XITE=$dir/hanim-peers/hanim-tree.js"
echo "export HUMANOID_GLTF_VALIDATOR=$dir/gltf-tools/validate.js"
echo "export HUMANOID_GLTF_TOOLS=$dir/gltf-tools/node_modules/.bin"
echo "export HUMANOID_THREE_VRM_ORACLE=$dir/three-vrm-oracle/oracle.mjs"
