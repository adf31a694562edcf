# Zimmermann (2005) E1's NewReno baselines (../e1-rate-allocation-newreno-
# {droptail,red}.toml) in ns-2.35, the simulator the thesis ran: an outside
# check of netsim's numbers (README.md, "E1, the NewReno baselines").
# Written for this project against ns-2's documented Tcl API; ns-2 is not
# part of netsim.
#
#   apt-get install ns2        # Debian's ns2 2.35+dfsg-5: /usr/bin/ns
#   ns e1-newreno.tcl DropTail 20        # e1-rate-allocation-newreno-droptail
#   ns e1-newreno.tcl RED 20 1 rate 0 0  # e1-rate-allocation-newreno-red
#   ns e1-newreno.tcl DropTail 20 0 dynamics   # e1-dynamics-newreno-droptail
#   ns e1-newreno.tcl RED 20 1 dynamics SEED 0 # e1-dynamics-newreno-red
#   ns e1-newreno.tcl QUEUE WINDOW [ECN [SCHEDULE [SEED [MARKP]]]]
#
# The files' set-up: core links r1 -> r2 (96 Mb/s, 1 ms) and r2 -> r3 (96
# Mb/s, 15 ms) with QUEUE (drop-tail, or RED with min_th 5, max_th 15,
# max_p 0.1 (linterm_ 10), w_q 0.002, gentle, in packets (ns-2.35's
# default is bytes), marking ECN-capable packets while RED's probability is
# at most mark_p_ (0.1, ns-2's default since 2.1b9a) and dropping them above
# it, i.e. above max_th: ns-2.28's drop_early applies mark_p_ always, ns-2.35
# only with use_mark_p_ true, its default and MARKP 1 (the default here);
# MARKP 0 marks every early selection, as the files' RED, and drops only
# above 2 max_th),
# 2000-packet queues, drop-tail back; hosts on 1 Gb/s, 1-ms links (S1, S5
# at r1; S3, S4 at r2; S2, S6 at r3); 12 flows on each of paths I (S1 ->
# S3), II (S4 -> S2), III (S5 -> S6), Agent/TCP/Newreno, 1000 B on the wire
# (packetSize_ 960), windowInit_ 1, ssthresh_ 32, Agent/TCP's window_ =
# WINDOW (ns-2's default 20), one ACK per segment, all started at 0; 60 s.
# SCHEDULE "dynamics" is the dynamics files' schedule instead: on each path
# 12 flows from 0 s, 6 more over 20-80 s, 6 over 20-40 s and 6 over 60-80 s
# (12, 24, 18, 24, 12 per path), each stopped by its FTP's `stop` (no new
# data, the window drains, as netsim's `stop`); 100 s. SEED seeds ns-2's
# default generator (RED's drops), 0 = ns-2's fixed default.
# Prints both core links' utilisation, their drops and each path's mean
# per-flow throughput (Mb/s, packets acknowledged; the base flows' only
# with "dynamics"), each base flow's packets acknowledged ("acks", flows 1-36
# in order: paths I, II, III, each w = 100, 200, 400 by four; the Jain
# index of identical flows), then, from the queue trace of r1 -> r2 piped through
# r1-trace.awk (run from this folder), the packets marked there per 20 s
# and in all.
set qtype [lindex $argv 0]
set win [lindex $argv 1]
set ecn 0
if {$argc > 2} { set ecn [lindex $argv 2] }
set sched rate
if {$argc > 3} { set sched [lindex $argv 3] }
if {$argc > 4 && [lindex $argv 4] != 0} { $defaultRNG seed [lindex $argv 4] }
set markp true
if {$argc > 5 && [lindex $argv 5] == 0} { set markp false }
set dur 60.0
if {$sched == "dynamics"} { set dur 100.0 }
set ns [new Simulator]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ $win
Agent/TCP set windowInit_ 1
Agent/TCP set ecn_ $ecn
if {$qtype == "RED"} { Queue/RED set setbit_ true; Queue/RED set thresh_ 5; Queue/RED set maxthresh_ 15; Queue/RED set q_weight_ 0.002; Queue/RED set linterm_ 10; Queue/RED set gentle_ true; Queue/RED set mean_pktsize_ 1000; Queue/RED set bytes_ false; Queue/RED set queue_in_bytes_ false; Queue/RED set use_mark_p_ $markp }
set r1 [$ns node]; set r2 [$ns node]; set r3 [$ns node]
foreach n {s1 s2 s3 s4 s5 s6} { set $n [$ns node] }
$ns simplex-link $r1 $r2 96Mb 1ms $qtype
$ns simplex-link $r2 $r1 96Mb 1ms DropTail
$ns simplex-link $r2 $r3 96Mb 15ms $qtype
$ns simplex-link $r3 $r2 96Mb 15ms DropTail
$ns queue-limit $r1 $r2 2000
$ns queue-limit $r2 $r3 2000
foreach {a b} [list $s1 $r1 $s5 $r1 $r2 $s3 $s4 $r2 $r3 $s2 $r3 $s6] {
  $ns duplex-link $a $b 1000Mb 1ms DropTail
  $ns queue-limit $a $b 2000
  $ns queue-limit $b $a 2000
}
# Base flows (k < 36) first, so that the throughput sums below read them.
set sessions {}
foreach {src dst} [list $s1 $s3 $s4 $s2 $s5 $s6] { for {set i 0} {$i < 12} {incr i} { lappend sessions $src $dst 0.0 0 } }
if {$sched == "dynamics"} {
  foreach {from to n} {20.0 80.0 6 20.0 40.0 6 60.0 80.0 6} {
    foreach {src dst} [list $s1 $s3 $s4 $s2 $s5 $s6] { for {set i 0} {$i < $n} {incr i} { lappend sessions $src $dst $from $to } }
  }
}
set k 0
foreach {src dst from to} $sessions {
  set tcp($k) [new Agent/TCP/Newreno]
  $tcp($k) set ssthresh_ 32
  $ns attach-agent $src $tcp($k)
  set snk($k) [new Agent/TCPSink]
  $ns attach-agent $dst $snk($k)
  $ns connect $tcp($k) $snk($k)
  set ftp($k) [new Application/FTP]
  $ftp($k) attach-agent $tcp($k)
  $ns at $from "$ftp($k) start"
  if {$to > 0} { $ns at $to "$ftp($k) stop" }
  incr k
}
set tf [open "| awk -f r1-trace.awk >@stdout" w]
$ns trace-queue $r1 $r2 $tf
set m1 [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
set m2 [$ns monitor-queue $r2 $r3 [open /dev/null w] 0.1]
proc finish {} {
  global m1 m2 tcp dur tf
  set u1 [expr [$m1 set bdepartures_] * 8.0 / (96e6 * $dur)]
  set u2 [expr [$m2 set bdepartures_] * 8.0 / (96e6 * $dur)]
  set a 0; set b 0; set c 0
  for {set i 0} {$i < 12} {incr i} { set a [expr $a + [$tcp($i) set ack_]] }
  for {set i 12} {$i < 24} {incr i} { set b [expr $b + [$tcp($i) set ack_]] }
  for {set i 24} {$i < 36} {incr i} { set c [expr $c + [$tcp($i) set ack_]] }
  puts "u1 $u1 u2 $u2 drops [$m1 set pdrops_] [$m2 set pdrops_] pathI [expr $a*8000.0/12/$dur/1e6] pathII [expr $b*8000.0/12/$dur/1e6] pathIII [expr $c*8000.0/12/$dur/1e6]"
  set acks {}
  for {set i 0} {$i < 36} {incr i} { lappend acks [$tcp($i) set ack_] }
  puts "acks $acks"
  close $tf
  exit 0
}
$ns at $dur "finish"
$ns run
