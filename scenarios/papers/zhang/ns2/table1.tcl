# Seed 002 E7.2 (Table I) in ns-2.35: the set-up of ../e7-2-rem-table1.toml
# run by ns-2 itself, as an outside check of netsim's numbers (README.md,
# "E7.2", "ns-2.35 beside netsim"). Written for this project against ns-2's
# documented Tcl API; ns-2 is not part of netsim and is not needed to build
# or test it.
#
#   apt-get install ns2        # Debian's ns2 2.35+dfsg-5: /usr/bin/ns
#   ns table1.tcl QLIM MODULE SEED [PAYLOAD [VARIANT [EXTRA_MAX_MS]]]
#   ./run.sh                   # the whole table, 5 seeds per cell
#
# QLIM: ns-2's queue limit at the bottleneck (100 or 10; ns-2 holds QLIM - 1
# packets waiting, netsim's `buffer` 99pkt / 9pkt). MODULE: TCP-Linux's
# congestion module (reno, bic, cubic, highspeed, scalable, htcp, westwood).
# PAYLOAD: Agent/TCP packetSize_, bytes (default 1460: 1500 B on the wire
# with ns-2's 40-B TCP/IP header, the file's packet_size). VARIANT: "plain"
# (default: Agent/TCP/Linux with timestamps, Agent/TCPSink/Sack1 echoing
# them), "nots" (no timestamps), "delack" (Agent/TCPSink/Sack1/DelAck,
# ns-2's 100-ms delayed ACKs), "native" (ns-2's own Agent/TCP/Sack1, MODULE
# ignored). EXTRA_MAX_MS: each flow's access link adds U[0, EXTRA_MAX_MS] ms
# each way (default 10: RTT U[30, 50] ms).
#
# The file's set-up: 20 flows s_i -> r1 -> r2 -> d_i; r1 - r2 10 Mb/s, 13 ms,
# Queue/REM with pbo_ = q* = 50 and markpkts_ true (ECN marking), every
# other REM parameter ns-2's default; access links 1 Gb/s, 1 ms + extra,
# 2500-packet queues; ECN at the senders (Agent/TCP ecn_ 1); FTP sources
# starting at U[0, 1) s; no receiver-window limit (window_ 100000). Measured
# at the r1 -> r2 queue over [100, 300] s: q = time-average packets waiting,
# p = drops / arrivals, u = bytes departed / (C x 200 s).
set qlim [lindex $argv 0]
set ca [lindex $argv 1]
set seed [lindex $argv 2]
set psize 1460
set variant plain
set emax 10.0
if {$argc > 3} { set psize [lindex $argv 3] }
if {$argc > 4} { set variant [lindex $argv 4] }
if {$argc > 5} { set emax [lindex $argv 5] }

source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
set uni [seeded_uniform $seed]

Queue/REM set pbo_ 50
Queue/REM set markpkts_ true
Agent/TCP set ecn_ 1
Agent/TCP set packetSize_ $psize
Agent/TCP set window_ 100000
Agent/TCPSink/Sack1 set ts_echo_rfc1323_ true

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 13ms REM
$ns queue-limit $r1 $r2 $qlim
$ns queue-limit $r2 $r1 $qlim
for {set i 0} {$i < 20} {incr i} {
    $uni set min_ 0.0
    $uni set max_ $emax
    set extra [$uni value]
    lassign [host_pair $ns $r1 $r2 1000Mb [expr 1.0 + $extra] 2500] s($i) d($i)
    if {$variant == "native"} {
        set tcp($i) [new Agent/TCP/Sack1]
    } else {
        set tcp($i) [new Agent/TCP/Linux]
        if {$variant != "nots"} { $tcp($i) set timestamps_ true }
        $ns at 0 "$tcp($i) select_ca $ca"
    }
    $ns attach-agent $s($i) $tcp($i)
    if {$variant == "delack"} {
        set sink($i) [new Agent/TCPSink/Sack1/DelAck]
    } else {
        set sink($i) [new Agent/TCPSink/Sack1]
    }
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $uni set min_ 0.0
    $uni set max_ 1.0
    $ns at [$uni value] "$ftp($i) start"
}
set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w] 0.1]
set integ [$qmon get-pkts-integrator]
proc reset {} {
    global qmon integ
    $qmon reset
    $integ reset
}
proc finish {} {
    global qmon integ qlim ca seed
    set t 200.0
    set arr [$qmon set parrivals_]
    set q [expr [$integ set sum_] / $t]
    set p [expr double([$qmon set pdrops_]) / double($arr)]
    set u [expr [$qmon set bdepartures_] * 8.0 / (10e6 * $t)]
    puts "qlim $qlim module $ca seed $seed q $q p $p u $u"
    exit 0
}
$ns at 100.0 "reset"
$ns at 300.0 "finish"
$ns run
