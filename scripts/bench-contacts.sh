#!/usr/bin/env bash
# Foot contacts of `retarget`, measured apart from the product (issue "Motion that looks right
# on any body"): every corpus clip onto every corpus body, with `--contacts auto` and `off`.
#
#   scripts/bench-contacts.sh [OUT_DIR]
#
# Sources: the three corpus BVH, Soldier's Walk and Run, the mannequin's walk, test.vrma and
# idle_loop.vrma. Bodies: Godette and debug_robot (VRM), the mannequin, the Kenney FBX
# character and the mannequin with its legs at half length (each made a VRM 1.0 by `convert`,
# so that three-vrm can play the output). Each output `.vrma` is played by three-vrm (the
# oracle's --times mode) at the source's frame times; the source's plants come from
# ../shared/tools/motion-metrics/contacts.py (its own BVH reader: a glTF or VRMA source is
# written as BVH by `convert` for it). Printed per pair and in all: the target foot's drift
# beyond the source's own drift in the same plant (p95, worst), the depth of any foot or toe
# joint below its rest height, the float during plants, and the upper body relative to the
# hips against `--contacts off` (p95, worst).
#
# Needs ../shared, node and the oracle: eval "$(scripts/install-tools.sh)" first. Uses
# $HUMANOID_BIN, else builds the release binary. Writes OUT_DIR/summary.json.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
shared=${HUMANOID_SHARED:-$here/../shared}
corpus=$shared/corpus
metrics=$shared/tools/motion-metrics
: "${HUMANOID_THREE_VRM_ORACLE:?run eval \"\$(scripts/install-tools.sh)\" first}"
bin=${HUMANOID_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=$here/target/release/humanoid
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out/bodies" "$out/sources" "$out/runs"
oracle() { node "$HUMANOID_THREE_VRM_ORACLE" "$@"; }

# Bodies, as VRM 1.0.
cp "$corpus/vrm/Godette_vrm_v4.vrm" "$out/bodies/godette.vrm"
cp "$corpus/vrm/debug_robot.vrm" "$out/bodies/debug_robot.vrm"
"$bin" demo -o "$out/demo" --force >/dev/null
"$bin" convert "$out/demo/mannequin.glb" "$out/bodies/mannequin.vrm" --to vrm1 --force --quiet >/dev/null
"$bin" convert "$corpus/fbx/maya_kenney_character_7700_binary.fbx" "$out/bodies/kenney.vrm" --to vrm1 --force --quiet >/dev/null
python3 "$here/scripts/half_legs.py" "$out/demo/mannequin.glb" "$out/demo/half_legs.glb"
"$bin" convert "$out/demo/half_legs.glb" "$out/bodies/half_legs.vrm" --to vrm1 --force --quiet >/dev/null

# Sources: NAME|FILE|--clip or empty. A source that is not BVH is also written as BVH, for
# the independent contact measure.
sources=(
  "mocapbank_walk|$corpus/bvh/mocapbank_walk.bvh|"
  "mixamo_freebvh|$corpus/bvh/mixamo_freebvh.bvh|"
  "cmu_131_01|$corpus/bvh/cmu_131_01_3dsmax.bvh|"
  "soldier_walk|$corpus/gltf/Soldier.glb|Walk"
  "soldier_run|$corpus/gltf/Soldier.glb|Run"
  "mannequin_walk|$out/demo/mannequin.glb|walk"
  "test_vrma|$corpus/vrma/test.vrma|"
  "idle_loop|$corpus/vrma/idle_loop.vrma|"
)
for body in "$out"/bodies/*.vrm; do
  oracle --vrm "$body" --rest --rotate-vrm0 --out "$out/bodies/$(basename "$body" .vrm).rest.json"
done
for entry in "${sources[@]}"; do
  IFS='|' read -r name file clip <<<"$entry"
  clip_args=()
  [ -n "$clip" ] && clip_args=(--clip "$clip")
  bvh=$out/sources/$name.bvh
  case $file in
    *.bvh) cp "$file" "$bvh" ;;
    *) "$bin" convert "$file" "$bvh" "${clip_args[@]}" --force --quiet >/dev/null ;;
  esac
  "$bin" map "$bvh" --json >"$out/sources/$name.map.json" 2>/dev/null
  times=$(python3 -c "import sys; sys.path.insert(0, '$metrics'); from bvh_fk import parse; j, f, ft, n, v = parse('$bvh'); print(','.join(f'{i * ft:.6f}' for i in range(f)))")
  for body in "$out"/bodies/*.vrm; do
    b=$(basename "$body" .vrm)
    for mode in auto off; do
      run=$out/runs/$name.$b.$mode
      "$bin" retarget "$file" --onto "$body" -o "$run.vrma" --contacts "$mode" "${clip_args[@]}" --force --quiet >/dev/null
      oracle --vrm "$body" --vrma "$run.vrma" --times "$times" --rotate-vrm0 --no-extras --out "$run.play.json"
      python3 "$metrics/contacts.py" "$bvh" "$out/sources/$name.map.json" "$out/bodies/$b.rest.json" "$run.play.json" >"$run.contacts.json"
    done
  done
done

python3 - "$out" <<'PY'
import glob, json, math, os, sys
out = sys.argv[1]
UPPER = ["spine", "chest", "upperChest", "neck", "head", "leftShoulder", "rightShoulder",
         "leftUpperArm", "rightUpperArm", "leftLowerArm", "rightLowerArm", "leftHand", "rightHand"]
def pct(values, q):
    if not values: return 0.0
    s = sorted(values); return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]
def upper_body(auto, off):
    a, o = json.load(open(auto))["samples"], json.load(open(off))["samples"]
    d = []
    for sa, so in zip(a, o):
        ha, ho = sa["bones"]["hips"]["p"], so["bones"]["hips"]["p"]
        for b in UPPER:
            if b in sa["bones"] and b in so["bones"]:
                pa, po = sa["bones"][b]["p"], so["bones"][b]["p"]
                d.append(1000 * math.dist([x - y for x, y in zip(pa, ha)], [x - y for x, y in zip(po, ho)]))
    return d
rows, every = [], {"auto": {"beyond": [], "pen": [], "float": []}, "off": {"beyond": [], "pen": [], "float": []}, "upper": []}
for auto in sorted(glob.glob(f"{out}/runs/*.auto.contacts.json")):
    stem = auto[: -len(".auto.contacts.json")]
    name = os.path.basename(stem)
    row = {"pair": name}
    for mode in ("auto", "off"):
        m = json.load(open(f"{stem}.{mode}.contacts.json"))
        beyond = [max(0.0, d - s) for d, s in zip(m["drift_mm"], m["src_drift_mm"])]
        row[mode] = {"plants": m["plants"], "beyond_p95": round(pct(beyond, 0.95), 1), "beyond_max": round(max(beyond, default=0.0), 1),
                     "pen": m["pen_mm"], "float_p95": round(pct(m["float_mm"], 0.95), 1)}
        every[mode]["beyond"] += beyond; every[mode]["pen"].append(m["pen_mm"]); every[mode]["float"] += m["float_mm"]
    up = upper_body(f"{stem}.auto.play.json", f"{stem}.off.play.json")
    every["upper"] += up
    row["upper_p95_mm"], row["upper_max_mm"] = round(pct(up, 0.95), 2), round(max(up, default=0.0), 2)
    rows.append(row)
    print(f"{name:32} plants {row['auto']['plants']:3}  beyond p95/max {row['auto']['beyond_p95']:6.1f}/{row['auto']['beyond_max']:6.1f} mm (off {row['off']['beyond_p95']:6.1f}/{row['off']['beyond_max']:6.1f})"
          f"  below floor {row['auto']['pen']:5.1f} mm (off {row['off']['pen']:5.1f})  float p95 {row['auto']['float_p95']:5.1f}  upper body p95 {row['upper_p95_mm']:.2f} mm")
total = {mode: {"plants": len(every[mode]["beyond"]), "beyond_p95": round(pct(every[mode]["beyond"], 0.95), 1), "beyond_max": round(max(every[mode]["beyond"], default=0.0), 1),
                "pen_max": round(max(every[mode]["pen"], default=0.0), 1), "float_p95": round(pct(every[mode]["float"], 0.95), 1)} for mode in ("auto", "off")}
total["upper_p95_mm"], total["upper_max_mm"] = round(pct(every["upper"], 0.95), 2), round(max(every["upper"], default=0.0), 2)
print("all:", json.dumps(total))
json.dump({"pairs": rows, "all": total}, open(f"{out}/summary.json", "w"), indent=1)
PY
