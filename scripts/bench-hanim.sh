#!/usr/bin/env bash
# H-Anim parse speed side by side with the peers, in one run, end to end on the same files
# (process start included for all three): `humanoid inspect` (parse + read into the model),
# X_ITE's hanim-tree.js (Node) and Castle's tovrmlx3d (convert to X3D XML). Best of 5 runs.
#   scripts/bench-hanim.sh [FILE...]   (default: the largest corpus file of each syntax)
# Needs HUMANOID_XITE (eval "$(scripts/install-tools.sh)") and tovrmlx3d (apt view3dscene).
# The in-process figures (no process start, generated 50 MB files) are `cargo bench --bench hanim`.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus/hanim
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$corpus/JinLOA4.x3d" "$corpus/JoeDemo5JoeSkin5.x3dv")
cargo build --release --quiet
bin=target/release/humanoid
best() { # best wall time in seconds of 5 runs of "$@"
  python3 - "$@" <<'PY'
import subprocess, sys, time
best = float("inf")
for _ in range(5):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    best = min(best, time.perf_counter() - t)
print(f"{best:.4f}")
PY
}
xite_dir=$(dirname "${HUMANOID_XITE:-/nonexistent/x}")
for f in "${files[@]}"; do
  mb=$(python3 -c "import os,sys; print(os.path.getsize(sys.argv[1]) / 1e6)" "$f")
  ours=$(best "$bin" inspect "$f")
  line="$(basename "$f") (${mb} MB): humanoid ${ours} s"
  if [ -n "${HUMANOID_XITE:-}" ]; then
    xite=$(best node -r "$xite_dir/f16-polyfill.js" "$HUMANOID_XITE" "$f")
    line="$line, X_ITE ${xite} s ($(python3 -c "print(f'{$xite / $ours:.1f}')")x)"
  fi
  if command -v tovrmlx3d >/dev/null; then
    castle=$(best tovrmlx3d "$f" --encoding=xml)
    line="$line, tovrmlx3d ${castle} s ($(python3 -c "print(f'{$castle / $ours:.1f}')")x)"
  fi
  echo "$line"
done
