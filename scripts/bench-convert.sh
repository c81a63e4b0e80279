#!/usr/bin/env bash
# Times `humanoid convert big.glb out.glb` against `cp` in one run, input and output on tmpfs,
# and measures the converter's peak memory. Targets: time <= 1.3 x cp, peak RSS <= input + 64 MB.
#   scripts/bench-convert.sh [--joints 60] [--keys 100000]
# Needs python3 and ../shared/tools/gen; uses hyperfine when installed (apt-get install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
joints=60 keys=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --joints) joints=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
shm=${BENCH_DIR:-/dev/shm/humanoid-bench}
mkdir -p "$shm"
big=$shm/big.glb
python3 ../shared/tools/gen/gen_skinned_glb.py --joints "$joints" --keys "$keys" --out "$big" >/dev/null
cargo build --release --quiet
bin=target/release/humanoid
size=$(stat -c %s "$big")
echo "input: $big ($size bytes)"

if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs 20 --export-json "$shm/timing.json" \
    "cp $big $shm/o_cp.glb" \
    "$bin convert --force $big $shm/o_humanoid.glb"
  python3 - "$shm/timing.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
cp, hu = r[0]["mean"], r[1]["mean"]
print(f"cp {cp*1e3:.1f} ms, humanoid convert {hu*1e3:.1f} ms: {hu/cp:.2f} x cp (target <= 1.3)")
PY
else
  best() { local b=999999; for _ in $(seq 10); do s=$(date +%s%N); "$@" >/dev/null; e=$(( ($(date +%s%N)-s)/1000 )); [ $e -lt $b ] && b=$e; done; echo $b; }
  c=$(best cp "$big" "$shm/o_cp.glb"); h=$(best "$bin" convert --force "$big" "$shm/o_humanoid.glb")
  echo "cp best ${c} us, humanoid convert best ${h} us: $(python3 -c "print(f'{$h/$c:.2f}')") x cp (target <= 1.3)"
fi
rss=$(/usr/bin/time -f %M "$bin" convert --force "$big" "$shm/o_humanoid.glb" 2>&1 >/dev/null | tail -1)
limit=$(( size / 1024 + 64 * 1024 ))
echo "peak RSS ${rss} KiB; budget input + 64 MiB = ${limit} KiB: $([ "$rss" -le "$limit" ] && echo ok || echo OVER)"
cmp -s "$big" "$shm/o_humanoid.glb" && echo "output is byte-identical to the input" || echo "output differs from the input in bytes (JSON re-serialised)"
