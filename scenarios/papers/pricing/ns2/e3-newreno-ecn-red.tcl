# Zimmermann (2005)'s E3 with NewReno-ECN over RED (../e3-newreno-ecn-red.toml
# and its one-way sibling) in ns-2.35: an independent simulator with loss
# recovery on the file's stated set-up (the thesis ran Ptolemy Classic, so
# this checks netsim's model of the set-up, not the thesis's numbers).
# Written for this project against ns-2's documented Tcl API; ns-2 is not
# part of netsim.
#
#   apt-get install ns2        # Debian's ns2 2.35+dfsg-5: /usr/bin/ns
#   ns e3-newreno-ecn-red.tcl SEED WAYS RULES
#
# WAYS: 2 (ten connections each way on each of the three paths, the file's
# reading) or 1 (one way only, the -oneway file). RULES: "file" (ns-2.35's
# TCP with the file's RFC 6298 timer as near as ns-2 has it: minrto_ 1 s,
# 10-ms ticks) or "ns2" (ns-2.35's defaults, minrto_ 0.2 s, to compare with
# netsim's ns-2 TCP options).
# Set-up as the file's: R1 - R2 33.333 Mb/s, 8 ms, RED both ways (thresh_
# 30, maxthresh_ 90, linterm_ 5 = 1 / p_max 0.2, q_weight_ 0.02, gentle_,
# wait_ false: the classic count correction, packets not bytes, mean packet
# 1000 B, ECN marking of ECT packets, limit 300); access links 100 Mb/s
# with 1, 5 and 10 ms, 1000-packet queues; 1000-B packets on the wire
# (packetSize_ 960 + 40), Agent/TCP/Newreno with ecn_, windowInit_ 1 and
# ssthresh_ 32, no window limit, Agent/TCPSink (one ACK per segment);
# starts at U[0, 1) s; 60 s. Prints the R1 -> R2 utilisation, the mean
# queue (packets, time average) and the mean queueing delay by Little's law
# (mean queue over departures per second).
set seed [lindex $argv 0]
set ways [lindex $argv 1]
set rules [lindex $argv 2]
source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
set uni [seeded_uniform $seed]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 1
Agent/TCP set ecn_ 1
if {$rules == "file"} {
    Agent/TCP set minrto_ 1.0
}
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set thresh_ 30
Queue/RED set maxthresh_ 90
Queue/RED set linterm_ 5
Queue/RED set q_weight_ 0.02
Queue/RED set gentle_ true
Queue/RED set wait_ false
Queue/RED set setbit_ true
Queue/RED set use_mark_p_ false
Queue/RED set mean_pktsize_ 1000
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 33.333333Mb 8ms RED
$ns queue-limit $r1 $r2 300
$ns queue-limit $r2 $r1 300
set qmon [$ns monitor-queue $r1 $r2 ""]
set delays {1 5 10}
set n 0
for {set p 0} {$p < 3} {incr p} {
    set a [$ns node]
    set b [$ns node]
    set d [lindex $delays $p]
    $ns duplex-link $a $r1 100Mb ${d}ms DropTail
    $ns duplex-link $r2 $b 100Mb ${d}ms DropTail
    $ns queue-limit $a $r1 1000
    $ns queue-limit $r1 $a 1000
    $ns queue-limit $r2 $b 1000
    $ns queue-limit $b $r2 1000
    for {set k 0} {$k < 10 * $ways} {incr k} {
        if {$k < 10} { set from $a; set to $b } else { set from $b; set to $a }
        set tcp($n) [new Agent/TCP/Newreno]
        $ns attach-agent $from $tcp($n)
        set sink($n) [new Agent/TCPSink]
        $ns attach-agent $to $sink($n)
        $ns connect $tcp($n) $sink($n)
        $tcp($n) set ssthresh_ 32
        set ftp($n) [new Application/FTP]
        $ftp($n) attach-agent $tcp($n)
        $uni set min_ 0.0
        $uni set max_ 1.0
        $ns at [$uni value] "$ftp($n) start"
        incr n
    }
}
proc finish {} {
    global qmon seed ways rules
    set t 60.0
    set u [expr [$qmon set bdepartures_] * 8.0 / (33.333333e6 * $t)]
    set q [expr [[$qmon get-pkts-integrator] set sum_] / $t]
    set rate [expr [$qmon set pdepartures_] / $t]
    puts "seed $seed ways $ways rules $rules utilisation $u mean_queue $q qdelay_ms [expr 1000.0 * $q / $rate] drops [$qmon set pdrops_]"
    exit 0
}
$ns at 60.0 "finish"
$ns run
