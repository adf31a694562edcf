# Damm (2001)'s standard scenario (../e08-correlated-adjust.toml's set-up)
# in ns-2.35 with the PCC flows replaced by always-on constant-bit-rate
# flows dithered as PCC's sender is (Application/Traffic/CBR random_ 1:
# each gap uniform in [0.5, 1.5] x size / rate): how clustered are a CBR
# flow's drop-tail losses among 50 TCP flows? (README.md, "Deviations",
# E8.) Written for this project against ns-2's documented Tcl API; ns-2 is
# not part of netsim.
#
#   apt-get install ns2
#   ns cbr-loss-clustering.tcl SEED DURATION_S TRACE_FILE [ERA [DELAY_MS BUFFER SPREAD_MS [QUEUE [TCP]]]]
#   python3 loss-events.py TRACE_FILE MEAN_QUEUE_PKTS [DELAY_MS SPREAD_MS]
#
# Set-up: r1 -> r2 25.6 Mb/s, 45.5 ms, drop-tail, 320 packets; pair i's
# access link 100 Mb/s with 1 + 0.1 (i mod 50) ms, egress 100 Mb/s 1 ms,
# 1000-packet queues; 50 CBR flows at 256 kbit/s (1000-B packets, UDP) and
# 50 Agent/TCP/Newreno flows (1000 B on the wire, no window limit, one ACK
# per segment), each starting at U[0, 10) s. Prints the CBR flows' loss
# rate, TCP's packets per flow per second and the mean queue; writes the
# bottleneck's queue trace (drops included) to TRACE_FILE. ERA: none for
# ns-2.35's TCP defaults, "2001" for those of April 2001
# (`tcp_defaults_2001` in ../../ns2-common.tcl). DELAY_MS, BUFFER and
# SPREAD_MS replace the bottleneck's 45.5 ms, its 320 packets and the
# access links' 0.1-ms step (E13's set-up, ../e13-rtd.toml: DELAY_MS its
# bottleneck delay d, BUFFER its buffer, SPREAD_MS 0, so every round trip
# is 2 (1 + d + 1) ms). QUEUE is the bottleneck's queue, DropTail (the
# default) or RED: ns-2's RED of April 2001, dropping (E14,
# ../e14-red.toml; `red_defaults_2001` in ../../ns2-common.tcl). TCP is
# the TCP agent, Newreno (the default) or Sack1 (with Agent/TCPSink/Sack1:
# the SACK reading of E20, ../e20-t-off.toml).
set seed [lindex $argv 0]
set dur [lindex $argv 1]
set trace [lindex $argv 2]
set era [lindex $argv 3]
set delay_ms 45.5
set buffer 320
set spread_ms 0.1
set queue DropTail
if {$argc >= 7} {
    set delay_ms [lindex $argv 4]
    set buffer [lindex $argv 5]
    set spread_ms [lindex $argv 6]
}
if {$argc >= 8} {
    set queue [lindex $argv 7]
}
set tcpvar Newreno
if {$argc >= 9} {
    set tcpvar [lindex $argv 8]
}
source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
red_defaults_2001
set uni [seeded_uniform $seed]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ 100000
if {$era == "2001"} {
    tcp_defaults_2001
}
set r1 [$ns node]
set r2 [$ns node]
$ns simplex-link $r1 $r2 25.6Mb ${delay_ms}ms $queue
$ns simplex-link $r2 $r1 25.6Mb ${delay_ms}ms DropTail
$ns queue-limit $r1 $r2 $buffer
$ns queue-limit $r2 $r1 $buffer
set tf [open $trace w]
$ns trace-queue $r1 $r2 $tf
for {set i 0} {$i < 100} {incr i} {
  set a [expr 1.0 + $spread_ms * ($i % 50)]
  set s($i) [$ns node]
  set d($i) [$ns node]
  $ns duplex-link $s($i) $r1 100Mb ${a}ms DropTail
  $ns queue-limit $s($i) $r1 1000
  $ns queue-limit $r1 $s($i) 1000
  $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
  $ns queue-limit $r2 $d($i) 1000
  $ns queue-limit $d($i) $r2 1000
  $uni set min_ 0.0
  $uni set max_ 10.0
  set t0 [$uni value]
  if {$i < 50} {
    set udp($i) [new Agent/UDP]
    $udp($i) set fid_ $i
    $ns attach-agent $s($i) $udp($i)
    set lm($i) [new Agent/LossMonitor]
    $ns attach-agent $d($i) $lm($i)
    $ns connect $udp($i) $lm($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set packetSize_ 1000
    $cbr($i) set rate_ 256kb
    $cbr($i) set random_ 1
    $cbr($i) attach-agent $udp($i)
    $ns at $t0 "$cbr($i) start"
  } else {
    set tcp($i) [new Agent/TCP/$tcpvar]
    $tcp($i) set fid_ $i
    $ns attach-agent $s($i) $tcp($i)
    if {$tcpvar == "Sack1"} {
      set snk($i) [new Agent/TCPSink/Sack1]
    } else {
      set snk($i) [new Agent/TCPSink]
    }
    $ns attach-agent $d($i) $snk($i)
    $ns connect $tcp($i) $snk($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at $t0 "$ftp($i) start"
  }
}
set qm [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
set integ [$qm get-pkts-integrator]
proc finish {} {
  global lm tcp dur qm integ tf
  set l 0; set n 0
  for {set i 0} {$i < 50} {incr i} { set l [expr $l + [$lm($i) set nlost_]]; set n [expr $n + [$lm($i) set npkts_]] }
  set t 0
  for {set i 50} {$i < 100} {incr i} { set t [expr $t + [$tcp($i) set ack_]] }
  puts "cbr_loss [expr double($l)/($l+$n)] tcp_pkts_per_flow_s [expr $t/50.0/$dur] meanq [expr [$integ set sum_]/$dur]"
  close $tf
  exit 0
}
$ns at $dur "finish"
$ns run
