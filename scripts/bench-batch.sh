#!/usr/bin/env bash
# Batch conversion benchmark (issue 19): 200 inputs made of the corpus BVH, VRM, glTF and
# H-Anim files repeated under different names, converted to GLB in one run with -j 1 and -j 2;
# every output compared with converting its file alone; per-file overhead on 200 small BVH
# files; a run killed half-way and resumed with the same command gives the same outputs.
# Prints CPU count, load average and CPU use beside the figures (quiet the machine first).
#
#   scripts/bench-batch.sh [path/to/humanoid]   (default target/release/humanoid; needs ../shared)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/target/release/humanoid}
shared=${HUMANOID_SHARED:-$root/../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/in" "$work/small"
mapfile -t sources < <(find "$shared/corpus" \( -name '*.bvh' -o -name '*.vrm' -o -name '*.glb' -o -name '*.x3d' -o -name '*.x3dv' -o -name '*.wrl' \) -type f | sort)
n=0
while [ "$n" -lt 200 ]; do
    for f in "${sources[@]}"; do
        [ "$n" -ge 200 ] && break
        cp "$f" "$work/in/$(printf '%03d' "$n")_$(basename "$f")"
        n=$((n + 1))
    done
done
for i in $(seq -w 1 200); do cp "$root/tests/malformed/bvh/plain.bvh" "$work/small/walk$i.bvh"; done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "inputs: 200 files, $(du -sh "$work/in" | cut -f1), from ${#sources[@]} corpus files"

timed() { # label, command...: wall seconds and CPU use
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$work/time" "$@" > "$work/last.json" || true
    end=$(date +%s.%N)
    read -r user sys < <(tail -1 "$work/time")
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')
    printf '%-32s %6.2f s  %6.1f files/s  CPU %5.0f%%  (%s)\n' "$label" "$wall" \
        "$(awk -v w="$wall" 'BEGIN{print 200/w}')" "$(awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN{print 100*(u+s)/w}')" \
        "$(tail -1 "$work/last.json" | sed 's/.*"ok":\([0-9]*\).*"refused":\([0-9]*\).*"failed":\([0-9]*\).*/ok \1, refused \2, failed \3/')"
}
# Best of three, -j 1 and -j 2 taking turns (each into a fresh folder, so nothing is skipped).
wall1=999999 wall2=999999
for round in 1 2 3; do
    rm -rf "$work/out1" "$work/out2"
    timed "-j 1 (round $round)" "$bin" convert "$work/in" -o "$work/out1" --to glb -j 1 --json
    wall1=$(awk -v a="$wall1" -v b="$wall" 'BEGIN{print (b<a)?b:a}')
    timed "-j 2 (round $round)" "$bin" convert "$work/in" -o "$work/out2" --to glb -j 2 --json
    wall2=$(awk -v a="$wall2" -v b="$wall" 'BEGIN{print (b<a)?b:a}')
done
echo "best: -j 1 $wall1 s, -j 2 $wall2 s; speed-up -j 2 over -j 1: $(awk -v a="$wall1" -v b="$wall2" 'BEGIN{printf "%.2f", a/b}')x"
# The floor: what two cores give two independent processes, each converting every other input
# with -j 1 (no shared pool, no shared memory). -j 2 cannot beat this speed-up.
mkdir -p "$work/half0" "$work/half1"
i=0
for f in "$work"/in/*; do ln "$f" "$work/half$((i % 2))/"; i=$((i + 1)); done
floor=999999
for round in 1 2 3; do
    rm -rf "$work/outh0" "$work/outh1"
    start=$(date +%s.%N)
    "$bin" convert "$work/half0" -o "$work/outh0" --to glb -j 1 --quiet > /dev/null &
    "$bin" convert "$work/half1" -o "$work/outh1" --to glb -j 1 --quiet > /dev/null &
    wait
    end=$(date +%s.%N)
    floor=$(awk -v a="$floor" -v s="$start" -v e="$end" 'BEGIN{w=e-s; print (w<a)?w:a}')
done
echo "floor: two -j 1 processes on half the inputs each, best $floor s: speed-up $(awk -v a="$wall1" -v b="$floor" 'BEGIN{printf "%.2f", a/b}')x over -j 1 (-j 2 reaches $(awk -v f="$floor" -v b="$wall2" 'BEGIN{printf "%.0f", 100*f/b}')% of it)"
timed "200 small BVH, -j 1" "$bin" convert "$work/small" -o "$work/small-out" --to glb -j 1 --json
# The batch's own cost a file: the wall time a file less the time its conversion took (the
# JSON's `milliseconds`, measured around the library call).
converting=$(python3 -c 'import json, sys
records = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ms = [r["milliseconds"] for r in records if "milliseconds" in r]
print(sum(ms) / len(ms))' "$work/last.json")
echo "per small file: $(awk -v w="$wall" 'BEGIN{printf "%.2f", 1000*w/200}') ms wall (one process for all), of which $(awk -v c="$converting" 'BEGIN{printf "%.2f", c}') ms converting it: batch overhead $(awk -v w="$wall" -v c="$converting" 'BEGIN{printf "%.2f", 1000*w/200-c}') ms a file"

# Each output against converting its input alone.
same=0 differ=0
for f in "$work"/in/*; do
    name=$(basename "${f%.*}").glb
    [ -f "$work/out2/$name" ] || continue
    if "$bin" convert "$f" "$work/alone.glb" --force --quiet > /dev/null 2>&1 && cmp -s "$work/alone.glb" "$work/out2/$name"; then
        same=$((same + 1))
    else
        differ=$((differ + 1)); echo "differs: $name"
    fi
done
echo "outputs byte-identical to converting alone: $same of $((same + differ))"

# Kill half-way, resume with the same command.
"$bin" convert "$work/in" -o "$work/out3" --to glb -j 2 --quiet > /dev/null 2>&1 &
pid=$!
sleep "$(awk -v w="$wall2" 'BEGIN{print w/2}')"
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
written=$(find "$work/out3" -name '*.glb' | wc -l)
temps=$(find "$work/out3" -name '.humanoid-*' | wc -l)
"$bin" convert "$work/in" -o "$work/out3" --to glb -j 2 --quiet > /dev/null 2>&1 || true
find "$work/out3" -name '.humanoid-*' -delete
if diff -r "$work/out2" "$work/out3" > /dev/null; then verdict=same; else verdict=DIFFERENT; fi
echo "killed after $written outputs ($temps temporary files left by the kill); resumed: outputs $verdict as the uninterrupted run"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
