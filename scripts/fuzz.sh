#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/README.md): scripts/fuzz.sh SECONDS [TARGET...]
#
# Builds fuzz/'s `all` binary with libFuzzer's coverage instrumentation (the flags `cargo fuzz
# build --sanitizer none` passes; all of them stable, so no nightly toolchain is needed),
# seeds each target's corpus from ../shared/corpus and tests/malformed, runs each target for
# SECONDS (JOBS processes at once, default the number of cores), and prints executions,
# coverage, CPU time and peak memory per target. A crash, a timeout over 1 s or an allocation
# over 1 GB stops that target and is kept in fuzz/artifacts/<target>/; the script then exits 1.
#
#   FUZZ_BIN=path   run an already built binary (e.g. carried to a machine with more cores)
#   WORKERS=N       fuzzing processes per target (default 1; WORKERS_read_glb=2 for one target)
#   JOBS=N          targets run at once (default the number of cores)
#   SEEDS=keep      keep fuzz/seeds/ as it is (seeded elsewhere; ../shared absent)
#   FUZZ_TIMEOUT=S  seconds one input may take (default 1; CI's brief run on a loaded 2-core
#                   machine allows 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
all_targets=(read_gltf read_glb read_vrm read_vrma read_x3d read_x3dv read_wrl read_bvh read_fbx read_tres read_table write_back
    fbx_to_glb batch_plan godot_import hanim_texture preview_frames)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
shared=${HUMANOID_SHARED:-$root/../shared}
workers=${WORKERS:-1}
fuzz=$root/fuzz

if [ -z "${FUZZ_BIN:-}" ]; then
    triple=$(rustc -vV | sed -n 's/^host: //p')
    export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
    (cd "$fuzz" && cargo build --release --target "$triple" --bin all >&2)
    FUZZ_BIN=$fuzz/target/$triple/release/all
fi

# Seeds: files of the target's format up to 256 kB.
seed() {
    local target=$1 dir=$fuzz/seeds/$1 patterns=() n=0
    rm -rf "$dir"; mkdir -p "$dir"
    case $target in
        read_gltf) patterns=('*.gltf') ;;
        read_glb) patterns=('*.glb') ;;
        read_vrm) patterns=('*.vrm') ;;
        read_vrma) patterns=('*.vrma') ;;
        read_x3d) patterns=('*.x3d') ;;
        read_x3dv) patterns=('*.x3dv') ;;
        read_wrl) patterns=('*.wrl' '*.wrl.gz') ;;
        read_bvh) patterns=('*.bvh') ;;
        read_fbx) patterns=('*.fbx') ;;
        read_tres) patterns=('*.tres') ;;
        read_table) patterns=('*.toml') ;;
        write_back) patterns=('*.gltf' '*.glb' '*.vrm' '*.x3d' '*.x3dv' '*.wrl' '*.bvh' '*.tres') ;;
        fbx_to_glb) patterns=('*.fbx') ;;
        godot_import) patterns=('*.import' '*.tres') ;;
        hanim_texture) patterns=('*.x3d') ;;
        batch_plan | preview_frames) patterns=() ;;
    esac
    # Hand-made seeds: a texture url for each thing beside the X3D file, .import links to each
    # resource of the project, batches over folders and patterns, and frame requests.
    case $target in
        hanim_texture)
            for url in skin.png textures/skin.png broken.png pipe.png zero.png textures ../skin.png /etc/hostname; do
                n=$((n + 1))
                printf '<X3D><Scene><HAnimHumanoid name="h"><HAnimJoint containerField="skeleton" name="humanoid_root"><HAnimSegment name="s"><Shape><Appearance><ImageTexture url="%s"/></Appearance><IndexedFaceSet coordIndex="0 1 2 -1"><Coordinate point="0 0 0 1 0 0 0 1 0"/><TextureCoordinate point="0 0 1 0 0 1"/></IndexedFaceSet></Shape></HAnimSegment></HAnimJoint></HAnimHumanoid></Scene></X3D>' "$url" > "$dir/$n"
            done ;;
        godot_import)
            for link in res://maps/ue.tres ../maps/ue.tres res://maps/link.tres res://out/x.tres ../out/x.tres ../../outside/x.tres uid://b1 /etc/hostname; do
                n=$((n + 1))
                printf '[remap]\n\nimporter="scene"\ntype="PackedScene"\n\n[params]\n\n_subresources={\n"nodes": {\n"PATH:Skeleton3D": {\n"retarget/bone_map": Resource("%s")\n}\n}\n}\n' "$link" > "$dir/$n"
            done ;;
        batch_plan)
            for batch in 'a.bvh b.glb' '-r .' 'd' 'd/*.bvh' '-r d/**/*.glb' 'a.bvh a.bvh'; do
                n=$((n + 1))
                printf '%s\na.bvh\nb.glb\nd/\nd/a.bvh\nd/e/a.bvh\nd/e/b.GLB\nd/x.txt\n' "$batch" > "$dir/$n"
            done ;;
        preview_frames)
            for k in 1 2 3 4 5 6 7 8; do
                n=$((n + 1))
                head -c 24 /dev/urandom > "$dir/$n"
            done ;;
    esac
    for pattern in "${patterns[@]}"; do
        while IFS= read -r -d '' file; do
            n=$((n + 1))
            if [ "$target" = write_back ]; then
                # Byte 0: the reader (fuzz/src/lib.rs READERS), byte 1: the output format.
                local reader
                case $file in
                    *.gltf) reader=0 ;; *.glb) reader=1 ;; *.vrm) reader=2 ;; *.x3d) reader=4 ;;
                    *.x3dv) reader=5 ;; *.wrl) reader=6 ;; *.bvh) reader=7 ;; *.tres) reader=8 ;;
                esac
                { printf "\\$(printf '%03o' "$reader")\\$(printf '%03o' $((n % 8)))"; cat "$file"; } > "$dir/$n"
            else
                cp "$file" "$dir/$n"
            fi
        # polygon_of_3m_zeros.fbx is refused after ufbx inflates 12 MB of indices: linear, but
        # over the 1 s timeout once instrumented, so it seeds no target.
        done < <(find "$shared/corpus" "$root/tests/malformed" "$root/mappings" -name "$pattern" ! -name 'polygon_of_*' -size -256k -type f -print0 2>/dev/null)
    done
    echo "$n"
}

status=0
summary=$fuzz/logs/summary.txt
mkdir -p "$fuzz/logs"
: > "$summary"
run_target() {
    local target=$1 seeds corpus=$fuzz/corpus/$1 artifacts=$fuzz/artifacts/$1/
    if [ "${SEEDS:-}" = keep ] && [ -d "$fuzz/seeds/$target" ]; then
        seeds=$(find "$fuzz/seeds/$target" -type f | wc -l)
    else
        seeds=$(seed "$target")
    fi
    mkdir -p "$corpus" "$artifacts"
    local pids=() n=WORKERS_$target
    local workers=${!n:-$workers}
    for w in $(seq 1 "$workers"); do
        local timer=()
        [ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%U %S %M" -o "$fuzz/logs/$target.$w.time")
        HUMANOID_FUZZ_TARGET=$target "${timer[@]}" \
            "$FUZZ_BIN" "$corpus" "$fuzz/seeds/$target" -artifact_prefix="$artifacts" \
            -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
            -max_len=262144 -print_final_stats=1 -seed="$w" > "$fuzz/logs/$target.$w.log" 2>&1 &
        pids+=($!)
    done
    local failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    local execs=0 cpu=0 rss=0 cov=0 ft=0
    for w in $(seq 1 "$workers"); do
        local log=$fuzz/logs/$target.$w.log
        execs=$((execs + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 | grep . || echo 0)))
        local c; c=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
        [ "${c:-0}" -gt "$cov" ] && cov=$c
        local f; f=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
        [ "${f:-0}" -gt "$ft" ] && ft=$f
        local user=0 sys=0 maxrss=0
        if [ -s "$fuzz/logs/$target.$w.time" ]; then
            read -r user sys maxrss < <(tail -1 "$fuzz/logs/$target.$w.time") || true
        else
            # No /usr/bin/time: the fuzzer's own count of seconds, and its peak memory in MB.
            user=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1 | grep . || echo 0)
            maxrss=$(( $(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1 | grep . || echo 0) * 1024 ))
        fi
        cpu=$(awk -v a="$cpu" -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN{print a+u+s}')
        [ "${maxrss:-0}" -gt "$rss" ] && rss=$maxrss
    done
    local verdict=ok
    if [ "$failed" -ne 0 ] || [ -n "$(ls -A "$artifacts")" ]; then verdict=FAILED; status=1; fi
    printf '%-11s %s  seeds %5s  execs %10s  cov %6s  ft %6s  cpu %7.1f s  peak %6d MB\n' \
        "$target" "$verdict" "$seeds" "$execs" "$cov" "$ft" "$cpu" $((rss / 1024)) | tee -a "$summary"
}

jobs_at_once=${JOBS:-$(nproc)}
for target in "${targets[@]}"; do
    run_target "$target" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do sleep 1; done
done
wait
if grep -q FAILED "$summary"; then status=1; fi
exit "$status"
