# The TCP side of Damm (2001)'s E7 (../e07-random-loss.toml) in ns-2.35:
# 25 NewReno flows alone under Bernoulli loss, to compare netsim's TCP with
# the simulator the thesis ran (README.md, "Former misses", E7). Written for
# this project against ns-2's documented Tcl API; ns-2 is not part of netsim.
#
#   apt-get install ns2        # Debian's ns2 2.35+dfsg-5: /usr/bin/ns
#   ns tcp-random-loss.tcl LOSS SEED ERA WINDOW
#
# LOSS: the packet loss rate on the bottleneck's data direction (ns-2's
# ErrorModel, per packet). ERA: "2.35" (ns-2.35's defaults: 10-ms ticks,
# minrto_ 0.2 s, limited transmit) or "2001" (the defaults of the thesis's
# time, April 2001: `tcp_defaults_2001` in ../../ns2-common.tcl lists them
# with their dates). WINDOW: Agent/TCP's window_ (ns-2's default
# 20; 100000 for none).
# Set-up as the file's: r1 -> r2 200 Mb/s, 48 ms, 2000-packet queue; access
# links 1 Gb/s, 1 ms; 1000-B packets on the wire (packetSize_ 960 + 40);
# Agent/TCP/Newreno with Agent/TCPSink (one ACK per segment); FTP sources
# starting at U[0, 10) s; 300 s. Prints the mean packets acknowledged per
# flow per second and the timeouts (nrexmit_) of all 25 flows.
set loss [lindex $argv 0]
set seed [lindex $argv 1]
set era [lindex $argv 2]
set win [lindex $argv 3]
source [file join [file dirname [info script]] .. .. ns2-common.tcl]
set ns [new Simulator]
set uni [seeded_uniform $seed]
Agent/TCP set packetSize_ 960
Agent/TCP set window_ $win
if {$era == "2001"} {
    tcp_defaults_2001
}
lassign [lossy_bottleneck $ns $loss $seed] r1 r2
for {set i 0} {$i < 25} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 1000Mb 1ms DropTail
    $ns queue-limit $s($i) $r1 2000
    $ns duplex-link $r2 $d($i) 1000Mb 1ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
    $ns attach-agent $s($i) $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $uni set min_ 0.0
    $uni set max_ 10.0
    $ns at [$uni value] "$ftp($i) start"
}
proc finish {} {
    global tcp loss seed era win
    set tot 0
    set timeouts 0
    for {set i 0} {$i < 25} {incr i} {
        set tot [expr $tot + [$tcp($i) set ack_]]
        set timeouts [expr $timeouts + [$tcp($i) set nrexmit_]]
    }
    puts "loss $loss seed $seed era $era window $win pkts_per_flow_per_s [expr $tot / 25.0 / 300.0] timeouts $timeouts"
    exit 0
}
$ns at 300.0 "finish"
$ns run
