# One RED link with N ECN NewReno flows, the E1 RED files' settings cut
# down (README.md, "Traced: the senders"): hosts on 1 Gb/s, 1-ms links; the
# RED link r1 -> r2 of 96 Mb/s and DELAYMS ms, ns-2's default RED in
# packets (min_th 5, max_th 15, max_p 0.1, w_q 0.002, gentle, mean packet
# 1000 B), use_mark_p_ MARKP; Agent/TCP/Newreno with ECN, 1000 B on the
# wire, windowInit_ 1, ssthresh_ 32, window_ WINDOW, all started at 0.
# Written for this project against ns-2's documented Tcl API.
#
#   ns red-one-link.tcl N WINDOW DELAYMS DURATION SEED MARKP
#   ns red-one-link.tcl 48 20 1 30 1 0
#
# netsim's side: one `red` link (`mode = "mark"`, `mean_pkt_size =
# "1000B"`, `mark_p = 1.0` for MARKP 0) and one flow group of N with the
# dynamics file's `cc` and `tcp`.
# Prints the flows' ECN reactions per flow and second and their
# utilisation, then r1-trace.awk's count of the marks (its 20-s lines).
set N [lindex $argv 0]; set win [lindex $argv 1]; set dms [lindex $argv 2]; set dur [lindex $argv 3]
if {[lindex $argv 4] != 0} { $defaultRNG seed [lindex $argv 4] }
set markp true
if {[lindex $argv 5] == 0} { set markp false }
set ns [new Simulator]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ $win
Agent/TCP set windowInit_ 1
Agent/TCP set ecn_ 1
Queue/RED set setbit_ true; Queue/RED set thresh_ 5; Queue/RED set maxthresh_ 15; Queue/RED set q_weight_ 0.002; Queue/RED set linterm_ 10; Queue/RED set gentle_ true; Queue/RED set mean_pktsize_ 1000; Queue/RED set bytes_ false; Queue/RED set queue_in_bytes_ false; Queue/RED set use_mark_p_ $markp
# r1 and r2 first: nodes 0 and 1, as r1-trace.awk reads them.
set r1 [$ns node]; set r2 [$ns node]; set s [$ns node]; set d [$ns node]
$ns simplex-link $r1 $r2 96Mb ${dms}ms RED
$ns simplex-link $r2 $r1 96Mb ${dms}ms DropTail
$ns queue-limit $r1 $r2 2000
$ns duplex-link $s $r1 1000Mb 1ms DropTail
$ns duplex-link $r2 $d 1000Mb 1ms DropTail
foreach {a b} [list $s $r1 $r1 $s $r2 $d $d $r2] { $ns queue-limit $a $b 2000 }
for {set k 0} {$k < $N} {incr k} {
  set tcp($k) [new Agent/TCP/Newreno]
  $tcp($k) set ssthresh_ 32
  $ns attach-agent $s $tcp($k)
  set snk($k) [new Agent/TCPSink]
  $ns attach-agent $d $snk($k)
  $ns connect $tcp($k) $snk($k)
  set ftp($k) [new Application/FTP]
  $ftp($k) attach-agent $tcp($k)
  $ns at 0.0 "$ftp($k) start"
}
set tf [open "| awk -f r1-trace.awk >@stdout" w]
$ns trace-queue $r1 $r2 $tf
proc finish {} {
  global tcp N tf dur
  set x 0; set a 0
  for {set i 0} {$i < $N} {incr i} { set x [expr $x + [$tcp($i) set necnresponses_]]; set a [expr $a + [$tcp($i) set ack_]] }
  puts "ecn_reactions_per_flow_s [expr $x * 1.0 / $N / $dur] utilisation [expr $a * 8000.0 / 96e6 / $dur]"
  close $tf
  exit 0
}
$ns at $dur "finish"
$ns run
