# Shared by the ns-2 cross-check scripts in the paper folders' ns2/
# directories (sourced, not run): ns-2's random streams seeded from the
# command line's seed. Written for this project against ns-2's documented
# Tcl API.

# Seed ns-2's default stream with `seed` and return a uniform random
# variable on its own stream with the same seed (callers set min_ and max_).
proc seeded_uniform {seed} {
    global defaultRNG
    $defaultRNG seed $seed
    set rng [new RNG]
    $rng seed $seed
    set uni [new RandomVariable/Uniform]
    $uni use-rng $rng
    return $uni
}

# Agent/TCP and Agent/TCP/Newreno with the defaults of April 2001, when
# Damm (2001) was submitted, from ns-2.35's tcl/lib/ns-default.tcl dated
# comments and CHANGES.html: tcpTick_ 0.1 s (until 2002/03/07), no minrto_
# (added 2001/05/27; the floor is two ticks), rtxcur_init_ 6 s (until
# 2006/01/21), maxrto_ 64 s (until 2007/03/28), windowInit_ 1 (until
# 2001/05/26), singledup_ 0 (no limited transmit until 2001/11/28),
# precisionReduce_ false (whole-segment window reductions until
# 2006/01/24), timerfix_ false (the timer restarted before the RTT update;
# the variable was added 2001/05/11), Newreno's newreno_changes1_ 0 and
# partial_window_deflation_ 0 (every partial ACK restarts the timer and
# drops the inflation; until 2003/05/05).
proc tcp_defaults_2001 {} {
    Agent/TCP set tcpTick_ 0.1
    Agent/TCP set minrto_ 0
    Agent/TCP set rtxcur_init_ 6.0
    Agent/TCP set maxrto_ 64
    Agent/TCP set windowInit_ 1
    Agent/TCP set singledup_ 0
    Agent/TCP set precisionReduce_ false
    Agent/TCP set timerfix_ false
    Agent/TCP/Newreno set newreno_changes1_ 0
    Agent/TCP/Newreno set partial_window_deflation_ 0
}

# Queue/RED with the defaults of April 2001 (ns-2.35's
# tcl/lib/ns-default.tcl dated comments): thresholds 5 and 15 packets and
# q_weight_ 0.002 (automatic configuration from 2001/12/29), gentle_ false
# (true from 2001/04/23, four days before Damm (2001) was submitted),
# packet-mode averages and queue (bytes_, queue_in_bytes_ true from
# 2004/10/11), max_p = 1 / linterm_ = 0.1 (use_mark_p_ added 2005/11/23).
proc red_defaults_2001 {} {
    Queue/RED set thresh_ 5
    Queue/RED set maxthresh_ 15
    Queue/RED set q_weight_ 0.002
    Queue/RED set gentle_ false
    Queue/RED set bytes_ false
    Queue/RED set queue_in_bytes_ false
    Queue/RED set use_mark_p_ false
    Queue/RED set linterm_ 10
}

# A host pair on a dumbbell: a sender s attached to r1 by a link of `bw`
# and `access_ms` ms, a receiver d attached to r2 by one of `bw` and 1 ms,
# both links with `qlen`-packet queues each way; returns {s d}.
proc host_pair {ns r1 r2 bw access_ms qlen} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 $bw ${access_ms}ms DropTail
    $ns queue-limit $s $r1 $qlen
    $ns queue-limit $r1 $s $qlen
    $ns duplex-link $r2 $d $bw 1ms DropTail
    $ns queue-limit $r2 $d $qlen
    $ns queue-limit $d $r2 $qlen
    return [list $s $d]
}

# The random-loss bottleneck of the TCP cross-checks: r1 -> r2 200 Mb/s,
# 48 ms, 2000-packet drop-tail queue, whose data direction loses each
# packet with probability `loss` (an ErrorModel on its own stream seeded
# `seed` + 1000); returns {r1 r2}.
proc lossy_bottleneck {ns loss seed} {
    set r1 [$ns node]
    set r2 [$ns node]
    $ns duplex-link $r1 $r2 200Mb 48ms DropTail
    $ns queue-limit $r1 $r2 2000
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $loss
    set erng [new RNG]
    $erng seed [expr $seed + 1000]
    set ev [new RandomVariable/Uniform]
    $ev use-rng $erng
    $em ranvar $ev
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $r1 $r2
    return [list $r1 $r2]
}
