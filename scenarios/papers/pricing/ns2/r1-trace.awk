# Reads ns-2's queue trace of r1 -> r2 (nodes 0 -> 1) from e1-newreno.tcl
# and prints, per 20-s interval, the packets that left the queue, those of
# them marked CE (flag "E", the fifth of the trace's flags), the drops and
# the time-averaged queue (packets waiting or in service).
$3 == 0 && $4 == 1 {
  b = int($2 / 20)
  area[b] += len * ($2 - last); last = $2
  if ($1 == "+") len++
  else if ($1 == "-") { len--; n[b]++; if (substr($7, 5, 1) == "E") m[b]++ }
  else if ($1 == "d") { d[b]++; len-- }
}
END {
  for (b = 0; b * 20 < last; b++) {
    w = (last - b * 20 < 20) ? last - b * 20 : 20
    printf "r1 %d-%d s: departed %d marked %d dropped %d queue %.2f\n", b * 20, b * 20 + w, n[b], m[b], d[b], area[b] / w
    tm += m[b]
  }
  printf "r1 marked %d\n", tm
}
