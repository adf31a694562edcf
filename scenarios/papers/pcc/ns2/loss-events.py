"""Loss events of the CBR flows in cbr-loss-clustering.tcl's queue trace.

A drop of CBR flow i starts a new loss event if it comes more than one
round trip after the start of the flow's last event (TFRC's rule, as PCC's
receiver applies it); the round trip is flow i's propagation round trip
plus the mean queueing delay (the mean queue, packets, at 3200 packets/s).
Prints the drops, the events and the losses per event.
usage: python3 loss-events.py TRACE_FILE MEAN_QUEUE_PKTS
"""
import collections
import sys

trace, mean_queue = sys.argv[1], float(sys.argv[2])
drops = collections.defaultdict(list)
with open(trace) as f:
    for line in f:
        if line.startswith("d "):
            field = line.split()
            if field[4] == "cbr":
                drops[int(field[7])].append(float(field[1]))
queue_delay = mean_queue * 1000 * 8 / 25.6e6
losses = events = 0
for fid, times in drops.items():
    rtt = 2 * (1.0 + 0.1 * (fid % 50) + 45.5 + 1) / 1000 + queue_delay
    start = None
    for t in sorted(times):
        if start is None or t - start > rtt:
            events += 1
            start = t
    losses += len(times)
print(f"queueing delay {queue_delay * 1000:.1f} ms; CBR drops {losses}, "
      f"loss events {events}, losses per event {losses / events:.3f}")
