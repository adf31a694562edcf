"""Classify a TCP sender's retransmissions from a packet trace of its access
link, for ns-2's `trace-queue` output (one-flow-trace.tcl) or netsim's CSV
trace (`--format csv --trace-links 's0->r1,r1->s0'`), so that the two
simulators' loss recovery can be compared class by class. Written for this
project.

    python3 tcp-trace-classes.py ns TRACE      # ns-2 trace-queue file
    python3 tcp-trace-classes.py netsim TRACE  # netsim trace-r0.csv

Prints: segments sent, distinct segments, retransmissions split by whether
they left at an ACK's arrival (fast retransmit, partial ACK, go-back-N after
a timeout) or on their own (the retransmission timer), by where they are
against the cumulative ACK (the first unacknowledged segment or above it)
and by how often the segment had been sent; the timer's gaps after the last
ACK (tenths of a second); and the mean flight when new data leaves.
Sequence numbers are in segments (netsim's byte offsets over 1000 B).
"""
import collections
import csv
import sys


def load_ns2(path):
    sends, acks = [], []
    for line in open(path):
        f = line.split()
        if f[0] == "+" and f[4] == "tcp":
            sends.append((float(f[1]), int(f[10])))
        elif f[0] == "r" and f[4] == "ack":
            acks.append((float(f[1]), int(f[10]) + 1))  # next segment expected
    return sends, acks


def load_netsim(path, size=1000):
    sends, acks = [], []
    for r in csv.DictReader(open(path)):
        if r["event"] == "enqueue" and r["packet"] == "data" and r["hop"] == "0":
            sends.append((float(r["time_s"]), int(r["seq"]) // size + 1))
        elif r["event"] == "deliver" and r["packet"] == "ack":
            acks.append((float(r["time_s"]), int(r["ack"]) // size + 1))
    return sends, acks


def main():
    which, path = sys.argv[1], sys.argv[2]
    sends, acks = load_ns2(path) if which == "ns" else load_netsim(path)
    events = [(t, 1, x) for t, x in acks] + [(t, 0, x) for t, x in sends]
    events.sort(key=lambda e: (e[0], -e[1]))
    ack_times = set(round(t, 7) for t, _ in acks)
    sent = collections.Counter()
    classes = collections.Counter()
    timer_gaps = collections.Counter()
    una, last_ack, top, flight_sum, new_sends = 1, 0.0, 0, 0, 0
    for t, is_ack, x in events:
        if is_ack:
            una = max(una, x)
            last_ack = t
            continue
        if sent[x]:
            at_ack = round(t, 7) in ack_times
            where = "una" if x == una else ("above" if x > una else "below")
            classes[("at ACK" if at_ack else "timer", where, min(sent[x], 3))] += 1
            if not at_ack:
                timer_gaps[round(t - last_ack, 1)] += 1
        if x > top:
            top = x
            flight_sum += x - una + 1
            new_sends += 1
        sent[x] += 1
    print(f"sent {sum(sent.values())}, distinct {len(sent)}, cumulative ACK {una}")
    for k, v in sorted(classes.items()):
        print(f"  retransmission {k[0]:6} {k[1]:5} (sent {k[2]} time(s) before): {v}")
    print("  timer gaps after the last ACK (s: count):", sorted(timer_gaps.items())[:20])
    print(f"  mean flight at a new segment: {flight_sum / max(new_sends, 1):.2f}")


if __name__ == "__main__":
    main()
