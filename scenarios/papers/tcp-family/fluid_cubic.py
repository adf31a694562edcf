#!/usr/bin/env python3
"""A per-round fluid model of RFC 9438's CUBIC, to size the tolerance of
cubic.toml's law check: how far the average window moves from RFC 9438's
periodic-loss response function when losses are Bernoulli per packet.

Each round (one RTT, 0.1 s) sends W packets; with periodic loss the round
that completes 1/p packets since the last loss has one, with random loss a
round has one with probability 1 - (1 - p)^W. A loss sets W_max (fast
convergence: W (1 + beta) / 2 when W is below the previous W_max), K =
cbrt(W_max (1 - beta) / C) and W = beta W; otherwise the window is the
cubic C (t - K)^3 + W_max at the round's t, or (Reno-friendly) the
estimate growing by 3 (1 - beta) / (1 + beta) per round (1 above W_max),
whichever is larger. The average is over rounds (time), after the first
tenth. No timeouts, so it overstates the window at p >= 0.01.

    python3 scenarios/papers/tcp-family/fluid_cubic.py
"""
import math
import random

C, BETA, RTT = 0.4, 0.7, 0.1
ALPHA = 3 * (1 - BETA) / (1 + BETA)


def average_window(p, periodic, full, rounds=400_000, seed=1):
    rng = random.Random(seed)
    w = w_max = w_last = w_est = 10.0
    t = k = 0.0
    sent = total = 0.0
    counted = 0
    for r in range(rounds):
        if periodic:
            sent += w
            lost = sent >= 1 / p
            if lost:
                sent -= 1 / p
        else:
            lost = rng.random() < 1 - (1 - p) ** w
        if r > rounds // 10:
            total += w
            counted += 1
        if lost:
            w_max = w * (1 + BETA) / 2 if full and w < w_last else w
            w_last = w
            w = max(BETA * w, 2.0)
            t, k, w_est = 0.0, (w_max * (1 - BETA) / C) ** (1 / 3), w
        else:
            t += RTT
            cubic = C * (t - k) ** 3 + w_max
            w_est += ALPHA if w_est < w_max else 1.0
            w = max(cubic, w_est) if full else cubic
    return total / counted


def main():
    law = lambda p: (C * (3 + BETA) / (4 * (1 - BETA))) ** 0.25 * RTT**0.75 / p**0.75
    print("p         law   Reno  periodic/law  random/law  full random/max(law, Reno)")
    for i in range(7):
        p = 1e-4 * 500 ** (i / 8)
        reno = math.sqrt(1.5 / p)
        per = average_window(p, True, False)
        rnd = average_window(p, False, False)
        full = average_window(p, False, True)
        print(f"{p:.3g}  {law(p):6.1f} {reno:6.1f}  {per / law(p):.3f}  "
              f"{rnd / law(p):.3f}  {full / max(law(p), reno):.3f}")


if __name__ == "__main__":
    main()
