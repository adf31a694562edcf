# Zhang (2008)'s E7.1 (Fig. 45; ../e7-1-buffer-sweep.toml) in ns-2.35 with
# ns-2's TCP-Linux (Agent/TCP/Linux running the Linux congestion-control
# modules): the bottleneck's loss rate and utilisation against its buffer,
# to check netsim's curves (the open MISSes: HTCP's and BIC's loss rising
# at large buffers) with an independent simulator. Written for this project
# against ns-2's documented Tcl API; ns-2 is not part of netsim.
#
#   apt-get install ns2        # Debian's ns2 2.35+dfsg-5: /usr/bin/ns
#   ns e7-1.tcl QLIM MODULE SEED       # MODULE: reno, bic, cubic, highspeed,
#                                      # htcp, scalable, westwood, lp
#
# Set-up as the file's: r1 -> r2 100 Mb/s, 13 ms, drop-tail, QLIM packets;
# 10 flows, each with host links of 1 Gb/s, 1 + U[0, 10) ms and 1 ms,
# 2500-packet queues (so round trips are U[30, 50) ms); 1500-B packets
# (packetSize_ 1460 + 40), no window limit, timestamps, SACK receivers, one
# ACK per segment; starts at U[0, 1) s; ns-2.35's timer (minrto_ 0.2 s, the
# file's min_rto); the modules' Linux defaults. Measured over (20, 100] s
# as the file: drops / arrivals at the bottleneck, and utilisation.
set qlim [lindex $argv 0]
set ca [lindex $argv 1]
set seed [lindex $argv 2]
source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
set uni [seeded_uniform $seed]
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100000
Agent/TCPSink/Sack1 set ts_echo_rfc1323_ true
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 100Mb 13ms DropTail
$ns queue-limit $r1 $r2 $qlim
$ns queue-limit $r2 $r1 $qlim
for {set i 0} {$i < 10} {incr i} {
    $uni set min_ 0.0
    $uni set max_ 10.0
    set extra [$uni value]
    lassign [host_pair $ns $r1 $r2 1000Mb [expr 1.0 + $extra] 2500] s($i) d($i)
    set tcp($i) [new Agent/TCP/Linux]
    $tcp($i) set timestamps_ true
    $ns at 0 "$tcp($i) select_ca $ca"
    $ns attach-agent $s($i) $tcp($i)
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $uni set min_ 0.0
    $uni set max_ 1.0
    $ns at [$uni value] "$ftp($i) start"
}
set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
proc reset {} {
    global qmon
    $qmon reset
}
proc finish {} {
    global qmon qlim ca seed
    set arr [$qmon set parrivals_]
    set p [expr double([$qmon set pdrops_]) / double($arr)]
    set u [expr [$qmon set bdepartures_] * 8.0 / (100e6 * 80.0)]
    puts "qlim $qlim module $ca seed $seed p $p u $u"
    exit 0
}
$ns at 20.0 "reset"
$ns at 100.0 "finish"
$ns run
