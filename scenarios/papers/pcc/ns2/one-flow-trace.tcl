# One NewReno flow under Bernoulli loss in ns-2.35 with a packet trace of
# its sender's access link, to trace netsim's TCP against ns-2's segment by
# segment (tcp-trace-classes.py in this folder reads both traces). Written
# for this project against ns-2's documented Tcl API; ns-2 is not part of
# netsim.
#
#   ns one-flow-trace.tcl LOSS SEED DURATION_S ERA TRACE_FILE
#   python3 tcp-trace-classes.py ns TRACE_FILE
#
# ERA: "2001" (`tcp_defaults_2001` in ../../ns2-common.tcl) or "2.35".
# Set-up as tcp-random-loss.tcl with one flow starting at 0.5 s: r1 -> r2
# 200 Mb/s, 48 ms, 2000 packets, loss LOSS on its data direction; access
# links 1 Gb/s, 1 ms; 1000-B packets; no window limit. The netsim side:
# tcp-random-loss-2001.toml with `pairs = 1`, `count = 1`, `start = "0.5s"`
# and `netsim run ... --format csv --trace-links 's0->r1,r1->s0'`.
set loss [lindex $argv 0]
set seed [lindex $argv 1]
set dur [lindex $argv 2]
set era [lindex $argv 3]
set trace [lindex $argv 4]
source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
set uni [seeded_uniform $seed]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ 100000
if {$era == "2001"} {
    tcp_defaults_2001
}
set f [open $trace w]
lassign [lossy_bottleneck $ns $loss $seed] r1 r2
set s [$ns node]
set d [$ns node]
$ns duplex-link $s $r1 1000Mb 1ms DropTail
$ns duplex-link $r2 $d 1000Mb 1ms DropTail
$ns trace-queue $s $r1 $f
$ns trace-queue $r1 $s $f
set tcp [new Agent/TCP/Newreno]
$ns attach-agent $s $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $d $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.5 "$ftp start"
proc finish {} {
    global tcp dur f
    flush $f
    puts "packets_per_s [expr [$tcp set ack_] / ($dur - 0.5)] timeouts [$tcp set nrexmit_] retransmitted [$tcp set nrexmitpack_] sent [$tcp set ndatapack_]"
    exit 0
}
$ns at $dur "finish"
$ns run
