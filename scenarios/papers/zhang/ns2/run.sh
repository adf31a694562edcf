#!/bin/sh
# Table I's 14 cells in ns-2.35 (table1.tcl), 5 seeds each: mean and
# standard deviation of q (packets), p (%) and u (%). About a minute.
# Needs ns-2 (`apt-get install ns2`); extra arguments go to table1.tcl
# after the seed (payload, variant, extra delay).
cd "$(dirname "$0")" || exit 1
command -v ns >/dev/null || { echo "ns-2 not found: apt-get install ns2" >&2; exit 1; }
echo "module b q sd(q) p% sd(p) u% sd(u)"
for m in reno bic cubic highspeed scalable htcp westwood; do
    for b in 100 10; do
        for seed in 1 2 3 4 5; do
            ns table1.tcl "$b" "$m" "$seed" "$@" | grep '^qlim'
        done | awk -v m="$m" -v b="$b" '
            function sd(s, ss, n) { v = (ss - s * s / n) / (n - 1); return v > 0 ? sqrt(v) : 0 }
            { q += $8; qq += $8 * $8; p += 100 * $10; pp += 1e4 * $10 * $10
              u += 100 * $12; uu += 1e4 * $12 * $12; n++ }
            END { printf "%s %d %.2f %.2f %.3f %.3f %.2f %.2f\n", m, b, q / n, sd(q, qq, n),
                  p / n, sd(p, pp, n), u / n, sd(u, uu, n) }'
    done
done
