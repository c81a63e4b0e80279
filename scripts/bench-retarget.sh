#!/usr/bin/env bash
# Issue 6's speed figures, in one run: full-skeleton pose sampling of idle_loop.vrma on
# debug_robot.vrm (1000 samples) by humanoid (cargo bench) and by the three-vrm oracle
# (--bench 1000), and the 100 000-key bake (target <= 100 ms).
#   scripts/bench-retarget.sh
# Needs ../shared and the oracle: eval "$(scripts/install-tools.sh)" first (it sets
# HUMANOID_THREE_VRM_ORACLE).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
: "${HUMANOID_THREE_VRM_ORACLE:?run eval \"\$(scripts/install-tools.sh)\" first}"
ours=$(cargo bench --quiet --bench retarget 2>/dev/null | tee /dev/stderr)
theirs=$(node "$HUMANOID_THREE_VRM_ORACLE" --vrm "$corpus/vrm/debug_robot.vrm" \
  --vrma "$corpus/vrma/idle_loop.vrma" --bench 1000)
python3 - "$theirs" "$ours" <<'PY'
import json, re, sys
theirs = json.loads(sys.argv[1])["bench"]["usPerSampleBest"]
units = {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
def row(name):
    for line in sys.argv[2].splitlines():
        if name in line:
            return [c.strip() for c in line.split("│")]
    sys.exit(f"{name} not in the cargo bench output")
def microseconds(cell):
    value, unit = cell.split()[-2:]
    return float(value) * units[unit]
# divan's columns: name and fastest (one cell), slowest, median, mean.
def fastest(name):
    return microseconds(row(name)[0])
def median(name):
    return microseconds(row(name)[2])
ours, ours_best = median("pose_idle_loop_on_debug_robot") / 1000.0, fastest("pose_idle_loop_on_debug_robot") / 1000.0
bake, bake_best = median("retarget_100k_keys") / 1000.0, fastest("retarget_100k_keys") / 1000.0
print(f"pose idle_loop on debug_robot: humanoid {ours:.2f} us/sample (median; fastest {ours_best:.2f}), three-vrm {theirs:.1f} us/sample (best): {theirs / ours:.1f}x (target >= 20x)")
print(f"bake 100 000 keys x 55 bones: {bake:.0f} ms (median; fastest {bake_best:.0f} ms) (target <= 100 ms)")
PY
