"""Loss events in cbr-loss-clustering.tcl's queue trace.

A drop of flow i starts a new loss event if it comes more than one round
trip after the start of the flow's last event (TFRC's rule, as PCC's
receiver applies it); the round trip is flow i's propagation round trip
plus the mean queueing delay (the mean queue, packets, at 3200 packets/s).
Prints, for the CBR flows (fids 0-49) and the TCP flows (50-99) apart, the
packets that reached the bottleneck, the drops, the loss events, the losses
per event and the loss events per packet; for the CBR flows also the
TCP-friendly rate TFRC's equation (b = 1, RTO = 4 RTT, 1000-B packets)
gives for their loss event rate and the mean round trip, which is the rate
PCC's receiver would estimate.
usage: python3 loss-events.py TRACE_FILE MEAN_QUEUE_PKTS [DELAY_MS SPREAD_MS]
(DELAY_MS and SPREAD_MS as given to cbr-loss-clustering.tcl; default 45.5
and 0.1.)
"""
import collections
import math
import sys

trace, mean_queue = sys.argv[1], float(sys.argv[2])
delay_ms = float(sys.argv[3]) if len(sys.argv) > 3 else 45.5
spread_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
drops = collections.defaultdict(list)
arrivals = collections.Counter()
with open(trace) as f:
    for line in f:
        field = line.split()
        if field[0] == "+":
            arrivals[int(field[7])] += 1
        elif field[0] == "d":
            drops[int(field[7])].append(float(field[1]))
queue_delay = mean_queue * 1000 * 8 / 25.6e6


def rtt(fid):
    return 2 * (1.0 + spread_ms * (fid % 50) + delay_ms + 1) / 1000 + queue_delay


def tfrc_rate_bps(p, r):
    """Padhye's equation with b = 1 and RTO = 4 RTT, bits/s, 1000-B packets."""
    t = r * math.sqrt(2 * p / 3) + 4 * r * 3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p)
    return 8000 / t


print(f"queueing delay {queue_delay * 1000:.1f} ms")
for name, fids in (("CBR", range(0, 50)), ("TCP", range(50, 100))):
    losses = events = pkts = 0
    for fid in fids:
        start = None
        for t in sorted(drops[fid]):
            if start is None or t - start > rtt(fid):
                events += 1
                start = t
        losses += len(drops[fid])
        pkts += arrivals[fid]
    ler = events / pkts
    line = (f"{name}: packets {pkts}, drops {losses}, loss events {events}, "
            f"losses per event {losses / max(events, 1):.3f}, "
            f"loss events per packet {ler:.6f}")
    if name == "CBR":
        mean_rtt = sum(rtt(f) for f in fids) / len(fids)
        line += f", TFRC rate {tfrc_rate_bps(ler, mean_rtt) / 1e3:.1f} kbit/s"
    print(line)
