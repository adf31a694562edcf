#!/usr/bin/env bash
# Benchmark B1 side by side with htsim on this machine.
#
#   scripts/b1-vs-htsim.sh [-r RUNS] [N ...]      (default: 10 100 1000 10000 100000, 5 runs)
#
# htsim's B1 driver (../shared/anchors/htsim/b1_dumbbell.cpp, built against a
# stock htsim library as its build.sh says) is found at $HTSIM_B1, else at
# ../shared/anchors/htsim/b1_dumbbell. Without it the script says how to build
# it and exits 2. netsim is built in release mode first.
#
# For each N the two programs run alternately, RUNS times each (so that drift
# in the machine's speed hits both alike): netsim as `netsim run
# scenarios/bench/dumbbell-n$N.toml --threads 1 --quiet` (its event loop's time
# and peak memory from its report header), htsim as `b1_dumbbell -n N` (its
# run_loop_s). Whole-process times are wall clock around each process; peak
# memory of htsim from GNU time when /usr/bin/time exists. Printed: medians,
# and the ratios htsim / netsim (above 1: netsim is faster or smaller).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
sizes=()
while [ $# -gt 0 ]; do
    case "$1" in
        -r) runs="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) sizes+=("$1"); shift ;;
    esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(10 100 1000 10000 100000)

htsim="${HTSIM_B1:-../shared/anchors/htsim/b1_dumbbell}"
if [ ! -x "$htsim" ]; then
    cat >&2 <<EOF
no htsim B1 driver at $htsim
build it: fetch github.com/Broadcom/csg-htsim, then
  (cd <csg-htsim>/sim && make -j2 libhtsim.a)
  HTSIM_SIM=<csg-htsim>/sim sh ../shared/anchors/htsim/build.sh /tmp/b1_dumbbell
and run this script with HTSIM_B1=/tmp/b1_dumbbell
EOF
    exit 2
fi

cargo build --release --quiet
netsim=target/release/netsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

now() { date +%s.%N; }
gnu_time=""
[ -x /usr/bin/time ] && gnu_time=/usr/bin/time

median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

printf "%8s  %21s  %21s  %21s\n" "" "event loop (s)" "whole process (s)" "peak memory (MB)"
printf "%8s  %6s %6s %7s  %6s %6s %7s  %6s %6s %7s\n" N netsim htsim ratio netsim htsim ratio netsim htsim ratio
for n in "${sizes[@]}"; do
    scenario="scenarios/bench/dumbbell-n$n.toml"
    [ -f "$scenario" ] || { echo "no $scenario" >&2; exit 2; }
    : > "$out/nl"; : > "$out/nw"; : > "$out/nm"; : > "$out/hl"; : > "$out/hw"; : > "$out/hm"
    for ((r = 0; r < runs; r++)); do
        t0=$(now)
        "$netsim" run "$scenario" --threads 1 --quiet --out "$out/run" > /dev/null
        t1=$(now)
        head=$(head -1 "$out/run/report.txt")
        echo "$head" | sed -E 's/.*event loop ([0-9.]+) s.*/\1/' >> "$out/nl"
        echo "$head" | sed -E 's/.*peak memory ([0-9.]+) MB.*/\1/' >> "$out/nm"
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$out/nw"

        t0=$(now)
        if [ -n "$gnu_time" ]; then
            "$gnu_time" -f "%M" -o "$out/hrss" "$htsim" -n "$n" > "$out/hout"
        else
            "$htsim" -n "$n" > "$out/hout"
        fi
        t1=$(now)
        grep -o 'run_loop_s=[0-9.]*' "$out/hout" | cut -d= -f2 >> "$out/hl"
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >> "$out/hw"
        if [ -n "$gnu_time" ]; then
            awk '{ print $1 / 1024 }' "$out/hrss" >> "$out/hm"
        fi
    done
    nl=$(median < "$out/nl"); hl=$(median < "$out/hl")
    nw=$(median < "$out/nw"); hw=$(median < "$out/hw")
    nm=$(median < "$out/nm"); hm=$(median < "$out/hm")
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a == a + 0) printf "%.2fx", a / b; else printf "-" }'; }
    printf "%8s  %6.3f %6.3f %7s  %6.2f %6.2f %7s  %6.0f %6s %7s\n" "$n" \
        "$nl" "$hl" "$(ratio "$hl" "$nl")" \
        "$nw" "$hw" "$(ratio "$hw" "$nw")" \
        "$nm" "$(printf '%.1f' "$hm" 2>/dev/null || echo -)" "$(ratio "$hm" "$nm")"
done
