//! Zimmermann (2005)'s E1 with SBRM, VQM, CP-TCP/EPF and REM (scenarios/
//! papers/pricing/e1-rate-allocation-{sbrm,vqm,epf,rem}.toml, and the
//! "Dynamics" schedule's e1-dynamics-{sbrm,vqm,rem}.toml) against an
//! independent reference model: are the misses of Tables 5.4.1, 5.1.1, 4.3.3
//! and 5.2.1 (netsim 99.98 % and 99.3 % on the two core links with SBRM, the
//! thesis 97.9 % and 92.0 %; 81.2 % and 83.0 % with VQM, the thesis 94.1 %
//! and 87.8 %; 95.3 % and 98.0 % with EPF, the thesis 93.4 % and 92.6 %;
//! 94.7 % and 95.1 % with REM, the thesis 94.9 % and 93.2 %) netsim's, or
//! the model's as the spec defines it? And section 5.6.4's E3 with SBRM
//! queues (e3-{tcprm,newreno-ecn}-sbrm[-oneway].toml: TCP/RM's 97 %
//! utilisation two-way against Table 5.6.1's 94 %, NewReno-ECN's 23
//! packets against 30.0), and with RED queues (e3-tcprm-red[-oneway].toml:
//! TCP/RM's 95.3 % two-way against Table 5.6.2's 92 %; TCP/RM is not in
//! ns-2, which is NewReno-ECN-over-RED's reference, tests/ns2_e3_reference.rs)?
//!
//! The model is in tests/common/pricing_model.rs.
//!
//! The reference shares no code with the engine, the links, the transport or
//! the controllers. It is a small event-driven model written from the spec
//! (seed-000-zimmermann.md): section 2.6's SBRM marking, each packet leaving
//! a core queue marked with probability 1 - exp(-gamma [b - b0]^+), gamma =
//! ln(100) / (q_max - b0); section 2.5's VQM marking (a virtual queue at
//! f_scale = 0.9 of the capacity and of q_max; from a virtual overflow until
//! it empties, every packet in the real queue is marked); section 2.3's
//! CP-TCP/EPF (REM's PC3 price every T, summed along the path in the header
//! and echoed; per ACK cwnd += kappa_bar (w RTT / cwnd - p)); section 2.4's
//! REM (PC3, each packet leaving marked with probability 1 - phi^-price)
//! with Vegas/CP (eq. 5.2.7 on ns-2 Vegas's rounds and slow start, the price
//! from the last 50 ACKs' marks; see [`VegasCp`]); section 2.5's source
//! (Key's rule, SBRM's variant 1): per unmarked ACK cwnd += kappa w RTT /
//! cwnd, per marked ACK cwnd -= kappa, a real-valued window of which whole
//! segments are sent; section 2.7's TCP/RM and the NewReno-ECN it is
//! compared with, over RFC 3168's classic echo (ECE from a CE until a CWR,
//! one reduction per round trip; see [`Source`]); section 2.1's start (cwnd 1, ssthresh 32, one segment
//! more per ACK in slow start); E1's double bottleneck (section 4, Fig.
//! 4.3.1, the hosts placed as the file's header says) and E3's single
//! bottleneck (routes the fewest hops over the file's links, each flow
//! starting at a uniform time within its `start_jitter`, data both ways
//! where the file has it, so one queue holds data and the other way's ACKs). The choices the spec
//! leaves open are taken as the scenario file and netsim's documented
//! \[INFERRED\] rules state them, so that a difference is a difference of
//! behaviour: b is the queue behind the leaving packet (link/sbrm.rs's
//! header), slow start ends on the first mark, whose rule then applies
//! (cc/sbrm.rs), the RTT is RFC 6298's SRTT from a timestamp on every
//! segment, the window has a floor of one segment, links are duplex FIFOs
//! with the file's capacities and delays, one 40-B ACK per segment echoes
//! its CE bit, all flows start at 0. Time is in integer picoseconds; at one
//! instant a transmission's end comes before an arrival, as in the engine.
//! Its coin flips come from its own generator. Values (capacities, delays,
//! buffers, b0, q_max, kappa, w, phi, history, counts, duration) are read
//! from the scenario file.
//!
//! SBRM and REM: both sides run 8 replications; Welch's test at the 99.99 %
//! level compares the core links' utilisation, mean backlog and marking
//! probability and each flow group's mean throughput. Measured
//! (2026-11-28), SBRM: utilisation 0.99979 / 0.99353 (reference) against
//! 0.99980 / 0.99330 (netsim), backlog 19.93 / 20.90 against 19.97 / 20.84
//! packets, marking probability 0.234 / 0.245 on both sides, the nine
//! groups' throughputs within |t| <= 2.7. The comparison sees small model
//! differences: counting the leaving packet in b moves the reference's
//! backlog by one packet (t -29), a gain 5 % high by 0.7 packets (t 20).
//! REM: utilisation 0.9456 / 0.9532 against 0.9468 / 0.9506, backlog 9.05
//! / 7.72 against 8.92 / 8.00 packets, marking 0.181 / 0.191 against 0.180
//! / 0.192, groups within |t| <= 2.0 (|t| <= 2.1 everywhere). A w 5 % high
//! in the reference moves link 1's marking by t 28, a rate estimate from
//! the minimum RTT instead of SRTT its utilisation by t 27; a history of 45
//! packets instead of 50 stays within the test (|t| <= 4.5).
//! VQM has no random draw (the marking is deterministic, all flows start at
//! 0), so each side runs once and every figure must be within a relative
//! tolerance of netsim's: 0.2 % for utilisation, 2 % for backlog, 1 % for the
//! marking probability. The two trajectories part at the first event the
//! two break differently and their 60-s means then differ by 0.02-0.05 %
//! (utilisation), 0.2-0.4 % (backlog) and 0.01-0.2 % (marking) (measured
//! 2026-11-28, before the tolerances were written; a virtual service rate 1 %
//! high moves the reference's utilisation by 1.25 % and fails).
//! EPF is deterministic and slow (its 60-s means move by up to 8 % when the
//! price updates shift by 1 us), so the reference runs at 8 such phases and
//! netsim must lie within 4 standard deviations of their mean: it does
//! within 0.85 (2026-11-28); a 1 % error in PC3's capacity term fails it, a
//! 5 % change of kappa_bar does not (the equilibrium does not depend on the
//! gain, and its transient is within the phase spread).
//! E3 with SBRM (no drops, no timeouts in either model): 20 replications a side
//! two-way, 8 one-way, Welch's test as above. Measured (2026-11-28),
//! two-way TCP/RM: utilisation 0.9738 / 0.9730 (reference, both
//! directions) against 0.9728 / 0.9720, backlog 22.46 / 22.44 against 22.34
//! / 22.33, marking 0.0161 / 0.0162 against 0.0163 / 0.0163, the six
//! groups within |t| <= 2.1 (the 56-ms path's throughput varies by 30 %
//! between replications on both sides); NewReno-ECN: 0.8788 against 0.8791,
//! 23.06 against 23.10 packets, 0.0469 against 0.0463; one-way TCP/RM
//! 0.9966 against 0.9968, 31.11 against 31.13 packets. It catches TCP/RM's
//! w 10 % high (marking t 8.9) and counting the leaving packet in SBRM's b
//! (backlog t -8.4).
//! E3 with RED (2026-11-28): RED as ns-2's REDQueue in the conventions
//! link/red.rs's header documents (the average on arrivals of the packets
//! waiting, decayed over idle periods; the `old` flag; `count = "classic"`;
//! gentle), marking the data (ECN-capable) and dropping the ACKs it selects
//! (not ECN-capable, RFC 3168), so the model now has cumulative ACKs, RFC
//! 6298's timer (the files' transport defaults) and a timeout's go-back-N,
//! TCP/RM's RTT rule after it (cc/tcp_rm.rs's header), and counts an ACK
//! of n segments n times' worth, at most 2 (cc/pricing_window.rs's header).
//! Two-way TCP/RM, 10 replications a side: utilisation 0.9517 / 0.9500
//! against netsim's 0.9527 / 0.9521, backlog 29.27 / 29.26 against 29.99 /
//! 29.79, marking 0.0133 / 0.0134 against 0.0132 / 0.0132, ACKs dropped
//! 18 369 against 18 368, timeouts 29.7 against 52.7 (|t| 0.84: a few
//! flows time out in bursts in some runs, on both sides; since the model
//! drops the retransmissions RED selects, for E4, 18 754 packets dropped
//! and 30.4 timeouts, and since its timer fires on time after a backoff,
//! below, 18 611 and 31.7, within the test), the six groups
//! within |t| <= 0.6; one-way (8 a side, no ACK is dropped) 0.9966 against
//! 0.9968, 33.50 against 33.52 packets. A reference that marks the ACKs
//! instead of dropping them queues 24.6 packets and fails (t -8.5).
//! Two-way NewReno-ECN over RED (10 a side, since 2026-11-28; ns-2 is its
//! other reference): the model's NewReno grew 1 / cwnd per ACK in
//! congestion avoidance, netsim's counts every byte a stretch ACK covers
//! (cc/newreno.rs's header, `SMSS x N / cwnd`); with netsim's rule the
//! two agree (utilisation 0.8666 / 0.8681 against 0.8668 / 0.8676,
//! backlog 27.2 / 27.3 against 27.7 / 27.9, marking 0.0292 / 0.0292
//! against 0.0291 / 0.0295, timeouts 225.7 against 226.7, drops 21 509
//! against 22 088, |t| <= 2.5), with the old one the marking fails (t
//! -6.4). With the timer fixed (E4, below): backlog 27.6 / 27.6, marking
//! 0.0293 / 0.0292, timeouts 234.0, drops 21 882 (|t| <= 1.3). Where
//! packets are lost, the retransmissions are compared too.
//! E1's "Dynamics" files for SBRM, VQM and REM (e1-dynamics-*.toml: the
//! rate-allocation files' links and sources under the 12 / 24 / 18 / 24 /
//! 12 flows-per-path schedule, each group's `start` and `stop`; the model
//! stops a flow's sending at its `stop` and counts each flow's rate over
//! its own active time, as netsim's goodput), measured 2026-11-28: SBRM
//! (8 a side) 0.99965 / 0.99468 against netsim's 0.99966 / 0.99470, backlog
//! 25.75 / 27.45 against 25.74 / 27.45; REM (8 a side) 0.9466 / 0.9435
//! against 0.9467 / 0.9446; the 36 groups' throughputs within |t| <= 2.1 in
//! both. VQM's one deterministic run first failed the rate-allocation
//! file's 2 % on link 2's backlog (13.06 against 12.77 packets): the
//! arrivals at 20 s and 60 s make the 100-s means depend on tie-breaks, so
//! the reference runs with the late groups' starts moved by 0-7 us (backlog
//! 12.96 +- 0.08 over the eight) and netsim must lie within 4 standard
//! deviations, as for EPF (it does within 2.4; utilisation 0.8316 / 0.8413
//! against 0.8316 / 0.8409).
//! E2's parking lot with few flows and REM's 1-bit marks
//! (e2-parking-lot-few-rem-1bit.toml, Vegas/CP; the model measures queue
//! R3 per 20-s window, netsim's windows are the means of its 10-ms samples
//! as the file's checks read them), 8 runs a side, measured 2026-11-28:
//! utilisation 98.64 / 99.30 / 99.00 / 99.38 / 98.23 % against netsim's
//! 98.62 / 99.40 / 99.05 / 99.32 / 98.26 %, backlog 24.9 / 45.0 / 35.0 /
//! 40.2 / 23.0 against 25.2 / 43.8 / 33.4 / 41.0 / 24.5 packets (|t| <=
//! 2.3). The resolution is coarser than on E1: a reference w 5 % high stays
//! within the test (|t| <= 2.4, the 20-40-s backlog 48.3 packets).
//! The many-flows file (e2-parking-lot-many-rem-1bit.toml, 6400 flows at
//! the peak) in an ignored test (27 minutes on 2 cores for 3 runs a side),
//! run 2026-11-28: utilisation 97.85 / 89.22 / 96.34 / 89.18 / 97.16 %
//! against netsim's 97.85 / 88.66 / 96.37 / 89.10 / 97.52 %, backlog 425 /
//! 1472 / 634 / 1440 / 367 against 427 / 1457 / 628 / 1474 / 370 packets
//! (|t| <= 2.7; with 3 runs a side Welch's test is weak, the agreement is in
//! the numbers: 0.6 points, 2.4 % at most).
//! The 4-bit code (e2-parking-lot-few-rem-4bit.toml; section 5.2.3: each
//! link sets each of four header bits with its own coin, with probability
//! 1 - phi_i^-price, a set bit staying set along the path; the source
//! keeps each bit's fraction over its last 50 ACKs and reads the price
//! from the bit whose fraction is closest to 1/2, ties to the larger phi,
//! as cc/price_estimate.rs's header documents), 8 runs a side, measured
//! 2026-11-28: utilisation 98.76 / 99.29 / 99.16 / 99.36 / 98.40 % against
//! netsim's 98.77 / 99.31 / 99.20 / 99.42 / 98.33 %, backlog 21.6 / 45.9 /
//! 31.5 / 40.6 / 20.8 against 21.2 / 45.3 / 31.4 / 39.3 / 21.0 packets (|t|
//! <= 1.8). Reading the price from one bit only (phi 1.007, the 1-bit
//! file's model) gives 24.9 and 23.0 packets at 0-20 and 80-100 s, far
//! outside the test there.
//! Vegas/CP with EPF and no slow start (e2-parking-lot-few-vegas-cp-epf.toml,
//! the parking lot's other reading; the price the last ACK echoed) is
//! deterministic: netsim's one run against the reference at 8 PC3 phases,
//! as E1's EPF (measured 2026-11-28: utilisation within 0.03 points in
//! every window, backlog within 1.7 %, 3.1 sd at 40-60 s). The many-flows
//! 4-bit and Vegas/CP-EPF files have ignored tests as the 1-bit one; the
//! Vegas/CP-EPF one, run 2026-11-28 (4 PC3 phases, 25 minutes): utilisation
//! 96.40 / 98.41 / 98.80 / 98.39 / 97.72 % against netsim's 96.40 / 98.47 /
//! 98.82 / 98.39 / 97.70 %, backlog 302 / 742 / 446 / 728 / 308 against 305
//! / 751 / 445 / 756 / 304 packets (at most 3.2 sd, at 60-80 s); the
//! 4-bit one (3 runs a side, 43 minutes beside other runs): utilisation
//! 98.25 / 91.46 / 98.40 / 91.73 / 97.85 % against 98.25 / 91.48 / 98.33 /
//! 91.40 / 97.37 %, backlog 480 / 1535 / 686 / 1457 / 423 against 483 /
//! 1494 / 695 / 1532 / 423 packets (|t| <= 2.5).
//! Table 5.4.2's many-flows sweep (e5-table-5-4-2-many.toml; a row's
//! scenario is the file with the row's sweep values written in): row 26,
//! Key's rule over "SBRM + PC3" (REM's PC3 price, base-e marks, REM's
//! documented defaults for the gains the file leaves out), in an ignored
//! test, 3 runs a side, measured 2026-11-28 (38 minutes beside other
//! runs): R3's utilisation 92.22 % against 92.08 %, backlog 1127 against
//! 1120 packets, the 32 groups within |t| <= 3.0; the thesis's "comparably
//! low backlog", read by the file as at most 1081 packets, is missed by
//! the model too. Row 22 (Key's rule over 1-bit VQM) is deterministic:
//! netsim's run of the file (every flow of a group starting at the same
//! instant) queues 155.5 packets at R3, 2.2 % above the reference's 152.1
//! +- 0.15 with each flow's start moved by up to 1 us; netsim with the
//! same jitter gives 152.3 and 152.8 (2026-11-28), so the ignored test
//! jitters both sides: the 1000 flows that start together stay in step
//! longer, in both models (the reference without the jitter: 154.1).
//! Its rates do not vary in either model (Jain 0.9999 on S3 -> S5 and S1
//! -> S12). Row 23 ("VQM n Bit", the file's reading: each VQM link adds 1
//! to the header's price for a packet it would mark; CP-TCP's direct
//! update, at most one segment per ACK, with slow start) on the few-flows
//! sweep (e5-table-5-4-2.toml), both sides jittered, 8 runs a side:
//! utilisation 71.22 / 71.00 % against 71.26 / 70.77 %, backlog 1.90 /
//! 1.12 against 1.90 / 1.09 packets, the 32 groups within |t| <= 2.0,
//! Jain >= 0.9998 everywhere; taking the path's maximum instead of the sum
//! fails (t -6.0 on S3 -> S5), so does w 5 % high (t 7.3); the per-ACK
//! clamp never binds in this row (kappa_bar 0.1, w RTT at most 2
//! segments, at most four marking links: a change of 0.4 at most; the
//! reference without it gives the same numbers).
//! E4 (e4-http-{tcprm,newreno-ecn}.toml: section 5.6.4's HTTP model over
//! E3's SBRM bottleneck, Table 5.6.3): the model's web sessions are the
//! `sequential` page timing as traffic/web.rs's header documents it (its
//! header, not its code; see `Web` in the model), each object a fresh
//! connection of the group's source and transport whose last segment
//! carries what is left, with RFC 3168 section 6.1.2's wait
//! (`tcp.ecn_rto_wait`: an ECN-Echo that reduces a window of at most one
//! segment holds new data for one RTO and restarts the timer if data is
//! outstanding); R1's mean queueing delay counts every packet that started
//! transmission, one that found the link idle with 0, as the links
//! table's. For the data the files lose, the model's receiver holds
//! segments above a hole, a retransmission is not ECN-capable (SBRM leaves
//! it unmarked, RED drops it when selected), a timeout's reduction sets
//! the ECN recovery point as the ECN one does and halves snd_max -
//! snd_una, and an ECN-Echo on a duplicate ACK is acted on (the transport's
//! header); it has no fast recovery, so netsim must enter none (it does
//! not: windows stay at two segments). Eight readings of the files' sweep,
//! 8 runs a side, measured 2026-11-29: each file's own (sequential
//! objects, literal sizes, the wait), both controllers with the literal
//! sizes without the wait, and both with the 1.1-kB sizes, with and
//! without it. TCP/RM's file: 99.86 / 99.86 % utilisation, 67.7 / 67.9
//! packets, 13.9 / 14.0 ms, 65.5 / 65.9 kbit/s per page, 17 125 / 17 144
//! waits, no loss on either side; NewReno-ECN's: 99.86 / 99.86 %, 259.5 /
//! 261.2 packets, 54.6 / 55.1 ms, 53.0 / 53.3 kbit/s, 12 540 / 12 523
//! waits, 3569 / 3691 drops, 3229 / 3331 timeouts, 3471 / 3590
//! retransmissions; without the wait NewReno-ECN drops 13 705 against
//! 13 915 and marks 0.897 against 0.895 (|t| <= 2.3), TCP/RM 4747 against
//! 4837; the 1.1-kB readings lose nothing, within |t| <= 1.4.
//! Until 2026-11-29 the model lost 10-15 % fewer packets than netsim and
//! the no-wait literal readings failed (R1's marking 0.907 against 0.896,
//! t 18): its retransmission timer kept one event in the queue and an
//! event that found the deadline later re-queued itself, but a restart to
//! an earlier deadline (the RTO a new sample brings back down after a
//! backoff) waited for the old event, so the next timeout came up to an
//! RTO late. Traced on 300 long-lived NewReno flows over E3's bottleneck
//! as a DropTail queue, netsim's fast retransmit switched off: 7880
//! timeouts in the old model against 11 020 in netsim; fixed, 11 020
//! against 11 020 (32 runs a side). The engine's timer slot queues an
//! earlier event in that case (sim-core's `TimerSlot`); the model now
//! does the same, the later event being stale. The pages completed with
//! the literal sizes stay 1.5-2 % fewer in netsim (t 1.4-2.5 here): both
//! files share a seed, so their netsim runs draw the same heavy-tailed
//! sizes (the objects requested averaged 10.28 kB in netsim's 32 runs and
//! 9.95 kB in the reference's, against 10 kB); at two other sets of 32
//! seeds the pages, drops and marking agree within |t| <= 1.1.
//! Think times 10 % short in the
//! reference fail (page throughput t -6.7 with the 1.1-kB sizes), so does
//! a wait only below one segment (TCP/RM's queue 282 packets against 68).
//! Then each test checks that the reference itself misses the thesis's
//! table: the utilisations belong to the model as specified (with the
//! files' \[INFERRED\] parameters), not to the engine.
//!
//! Since 2026-11-29 (each scenario check these tests cover names its test
//! in a `cross_check`): every comparison also holds R1's (the first
//! measured link's) mean queueing delay to Welch's test, and in every run
//! with a loss the model counts the times a flow's third duplicate ACK in
//! a row arrives with data outstanding (where NewReno's fast retransmit
//! would start), which must be none, as netsim's zero fast retransmits say;
//! the EPF test holds each group's throughput within its ensemble and reads
//! the file's rate checks on the reference. The model gained REM's PC2
//! (no timer, each leaving packet priced [gamma (b - b0)]^+, fed back as
//! PC3's price is) and PC1 (PC3 with alpha = 0; link/price_law.rs's
//! header) for Table 5.4.2's rows 8, 4 and 11, and SBRM's q_max
//! defaulting to the buffer (link/sbrm.rs's header) for row 25.

use analysis::stats::Summary;
use rayon::prelude::*;
use topology::Resolved;

#[path = "common/reference.rs"]
mod shared;
use shared::{bps, bytes, ps, same_mean};

#[path = "common/pricing_model.rs"]
mod model;
use model::{group_jain, group_means, measured, reference, reference_at, Outcome};

const SBRM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-sbrm.toml");
const VQM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-vqm.toml");
const EPF: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-epf.toml");
const REM: &str = include_str!("../scenarios/papers/pricing/e1-rate-allocation-rem.toml");
const DYN_SBRM: &str = include_str!("../scenarios/papers/pricing/e1-dynamics-sbrm.toml");
const DYN_VQM: &str = include_str!("../scenarios/papers/pricing/e1-dynamics-vqm.toml");
const DYN_REM: &str = include_str!("../scenarios/papers/pricing/e1-dynamics-rem.toml");
const E2_REM_1BIT: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-few-rem-1bit.toml");
const E2_REM_4BIT: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-few-rem-4bit.toml");
const E2_VEGAS_EPF: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-few-vegas-cp-epf.toml");
const E2_MANY_REM_4BIT: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-many-rem-4bit.toml");
const E2_MANY_VEGAS_EPF: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-many-vegas-cp-epf.toml");
const E2_MANY_REM_1BIT: &str =
    include_str!("../scenarios/papers/pricing/e2-parking-lot-many-rem-1bit.toml");
const TABLE_5_4_2: &str = include_str!("../scenarios/papers/pricing/e5-table-5-4-2.toml");
const TABLE_5_4_2_MANY: &str = include_str!("../scenarios/papers/pricing/e5-table-5-4-2-many.toml");
const E3_TCPRM: &str = include_str!("../scenarios/papers/pricing/e3-tcprm-sbrm.toml");
const E3_NEWRENO: &str = include_str!("../scenarios/papers/pricing/e3-newreno-ecn-sbrm.toml");
const E3_TCPRM_ONEWAY: &str = include_str!("../scenarios/papers/pricing/e3-tcprm-sbrm-oneway.toml");
const E3_NEWRENO_ONEWAY: &str =
    include_str!("../scenarios/papers/pricing/e3-newreno-ecn-sbrm-oneway.toml");
const E4_TCPRM: &str = include_str!("../scenarios/papers/pricing/e4-http-tcprm.toml");
const E4_NEWRENO: &str = include_str!("../scenarios/papers/pricing/e4-http-newreno-ecn.toml");
const E3_NEWRENO_RED: &str = include_str!("../scenarios/papers/pricing/e3-newreno-ecn-red.toml");
const E3_TCPRM_RED: &str = include_str!("../scenarios/papers/pricing/e3-tcprm-red.toml");
const E3_TCPRM_RED_ONEWAY: &str =
    include_str!("../scenarios/papers/pricing/e3-tcprm-red-oneway.toml");

/// One netsim run of `file`, replication `rep`.
fn netsim(file: &str, rep: u32) -> Outcome {
    let r = Resolved::parse(file, "pricing").unwrap();
    let out = r.build(r.scenario.run.seed, rep).unwrap().run();
    let mut o = Outcome::default();
    let doc: toml::Table = file.parse().unwrap();
    for (i, n) in measured(&doc).iter().enumerate() {
        let l = out.links.iter().find(|l| &l.name == n).unwrap();
        o.utilisation[i] = l.utilisation();
        o.backlog[i] = l.backlog_mean_pkts();
        o.backlog_sd[i] = l.backlog_sd_pkts();
        o.mark_prob[i] = l.mark_prob();
        o.qdelay[i] = l.qdelay_mean_secs();
    }
    let rates: Vec<(usize, f64)> = out
        .flows
        .iter()
        .map(|f| (f.group.index(), f.goodput_bps().unwrap()))
        .collect();
    o.rate = group_means(rates.iter().copied());
    o.jain = group_jain(&rates);
    o.timeouts = out.flows.iter().map(|f| f.counters.timeouts as f64).sum();
    o.drops = out.links.iter().map(|l| l.total_dropped.pkts as f64).sum();
    o.ecn_waits = out.flows.iter().map(|f| f.counters.ecn_waits as f64).sum();
    o.retx = out.flows.iter().map(|f| f.counters.retx_pkts as f64).sum();
    o.fast_retransmits = out
        .flows
        .iter()
        .map(|f| f.counters.fast_retransmits as f64)
        .sum();
    // Web pages completed in the run: 8 x mean size / mean time, as the
    // groups table's `page_throughput_bps`.
    o.cwnd_sd = netsim_cwnd_sd(&out, &doc);
    o.pages = out.pages.len() as f64;
    let time: f64 = out.pages.iter().map(|p| p.completion_secs()).sum();
    let bytes: f64 = out.pages.iter().map(|p| p.bytes as f64).sum();
    o.page_throughput = 8.0 * bytes / time;
    o
}

/// Each flow group's sampled windows (`cwnd_bytes`, the run's series),
/// pooled over its flows: their standard deviation in segments of the
/// file's packet size (the model's unit), computed here from the samples
/// and not by the analysis crate.
fn netsim_cwnd_sd(out: &sim_core::RunOutput, doc: &toml::Table) -> Vec<f64> {
    let mss = bytes(&doc["flows"][0]["packet_size"]);
    let mut acc: Vec<Vec<f64>> = vec![Vec::new(); group_names(doc).len()];
    for p in &out.series {
        if let (sim_core::Subject::Flow(id), "cwnd_bytes") = (p.subject, p.metric) {
            acc[out.flows[id.index()].group.index()].push(p.value / mss);
        }
    }
    acc.iter()
        .map(|x| {
            let n = x.len() as f64;
            let m = x.iter().sum::<f64>() / n;
            (x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n).sqrt()
        })
        .collect()
}

/// The file's flow groups' names, in order.
fn group_names(doc: &toml::Table) -> Vec<&str> {
    doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect()
}

/// Both sides' `runs` runs of `file`, compared (Welch's test on each
/// measured link's utilisation, backlog and marking probability and on each
/// flow group's throughput); returns the reference's means.
fn compare(file: &str, runs: u32) -> Outcome {
    compare_runs(file, runs).0
}

/// [`compare`], returning also each side's runs (reference, netsim).
fn compare_runs(file: &str, runs: u32) -> (Outcome, Vec<Outcome>, Vec<Outcome>) {
    let doc: toml::Table = file.parse().unwrap();
    let reference: Vec<Outcome> = (0..runs)
        .into_par_iter()
        .map(|k| reference(&doc, 0x5B_0000 + u64::from(k)))
        .collect();
    let engine: Vec<Outcome> = (0..runs).into_par_iter().map(|k| netsim(file, k)).collect();
    let names = group_names(&doc);
    let mut means = Outcome::default();
    for (g, name) in names.iter().enumerate() {
        if doc["flows"][g].get("traffic").is_some() {
            // A web group's flows are its objects, whose rates the two
            // sides define differently (netsim's over each object's life):
            // its pages are compared below.
            means.rate.push(f64::NAN);
            continue;
        }
        means.rate.push(same_mean(
            &format!("{name} throughput"),
            &reference.iter().map(|o| o.rate[g]).collect::<Vec<_>>(),
            &engine.iter().map(|o| o.rate[g]).collect::<Vec<_>>(),
        ));
    }
    (means.utilisation, means.backlog, means.mark_prob) =
        links_same_mean(&doc, &reference, &engine);
    // One figure of every run, both sides, compared.
    let both = |what: &str, f: fn(&Outcome) -> f64| -> f64 {
        let col = |v: &[Outcome]| v.iter().map(f).collect::<Vec<_>>();
        same_mean(what, &col(&reference), &col(&engine))
    };
    let web = reference[0].pages > 0.0;
    means.qdelay[0] = both(&format!("{} queueing delay", measured(&doc)[0]), |o| {
        o.qdelay[0]
    });
    if web {
        means.pages = both("pages", |o| o.pages);
        means.page_throughput = both("page throughput", |o| o.page_throughput);
        means.ecn_waits = both("ECN waits", |o| o.ecn_waits);
    }
    let lossy = reference.iter().chain(&engine).any(|o| o.drops > 0.0);
    if lossy {
        // The model repairs every loss by its timer: netsim must not have
        // entered fast recovery, and the model must never have seen the
        // three duplicate ACKs in a row that would have started one.
        assert!(engine.iter().all(|o| o.fast_retransmits == 0.0));
        let triples: f64 = reference.iter().map(|o| o.triple_dupacks).sum();
        assert_eq!(triples, 0.0, "the model's triple duplicate ACKs");
        means.drops = both("drops", |o| o.drops);
        means.retx = both("retransmissions", |o| o.retx);
    }
    if web || lossy {
        means.timeouts = both("timeouts", |o| o.timeouts);
    }
    (means, reference, engine)
}

/// Welch's test on each measured link's utilisation, backlog and marking
/// probability over both sides' runs; returns the reference's means.
fn links_same_mean(
    doc: &toml::Table,
    reference: &[Outcome],
    engine: &[Outcome],
) -> ([f64; 2], [f64; 2], [f64; 2]) {
    let mut means = ([0.0; 2], [0.0; 2], [0.0; 2]);
    for (i, link) in measured(doc).iter().enumerate() {
        let col = |v: &[Outcome], f: Figure| -> Vec<f64> { v.iter().map(|o| f(o, i)).collect() };
        let same = |what: &str, f: Figure| {
            same_mean(
                &format!("{link} {what}"),
                &col(reference, f),
                &col(engine, f),
            )
        };
        means.0[i] = same("utilisation", |o, i| o.utilisation[i]);
        means.1[i] = same("backlog", |o, i| o.backlog[i]);
        same("backlog sd", |o, i| o.backlog_sd[i]);
        means.2[i] = same("mark_prob", |o, i| o.mark_prob[i]);
    }
    means
}

#[test]
fn e1_sbrm_utilisation_is_the_models_and_misses_table_5_4_1() {
    let u = compare(SBRM, 8).utilisation;
    // Table 5.4.1: 97.9 % and 92.0 %; the file's checks allow 1 point. The
    // model as specified keeps both links busier than that.
    assert!(u[0] > 0.979 + 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.920 + 0.01, "reference link 2 {}", u[1]);
}

/// A deterministic file (no random marking, all flows start at 0): one run
/// on each side, every figure within `tol` (relative) of netsim's. Returns
/// the reference's utilisations.
fn compare_one(file: &str, tol: [f64; 3]) -> [f64; 2] {
    let doc: toml::Table = file.parse().unwrap();
    let (a, b) = (reference(&doc, 0x5B_0000), netsim(file, 0));
    for (i, link) in measured(&doc).iter().enumerate() {
        for (what, x, y, t) in [
            ("utilisation", a.utilisation[i], b.utilisation[i], tol[0]),
            ("backlog", a.backlog[i], b.backlog[i], tol[1]),
            ("mark_prob", a.mark_prob[i], b.mark_prob[i], tol[2]),
        ] {
            eprintln!(
                "{link} {what}: reference {x:.5}, netsim {y:.5}, ratio {:.4}",
                x / y
            );
            assert!(
                (x / y - 1.0).abs() <= t,
                "{link} {what}: reference {x} vs netsim {y}"
            );
        }
    }
    a.utilisation
}

/// One figure of a measured link (by its index) in an outcome.
type Figure = fn(&Outcome, usize) -> f64;

/// netsim's figure `y` within 4 standard deviations of the reference
/// ensemble `xs`'s mean, or within `floor` (relative) of it should the
/// ensemble come out tighter; returns the mean.
fn within_4_sd(what: &str, xs: &[f64], y: f64, floor: f64) -> f64 {
    let Summary { mean: m, sd, .. } = Summary::new(xs);
    eprintln!(
        "{what}: reference {m:.5} (sd {sd:.5} over {} runs), netsim {y:.5}",
        xs.len()
    );
    assert!(
        (y - m).abs() <= (4.0 * sd).max(floor * m),
        "{what}: netsim {y} vs reference {m} +- {sd}"
    );
    m
}

/// netsim's one run `n` of a deterministic file against an ensemble of
/// reference runs `refs` (the same file under tiny perturbations): each
/// measured link's utilisation, backlog and marking probability within 4
/// standard deviations of the ensemble's mean, or within `floor` (relative;
/// utilisation, backlog, marking; NaN: not compared) of it should the
/// ensemble come out tighter. Returns the reference's mean utilisations.
fn within_ensemble(doc: &toml::Table, refs: &[Outcome], n: &Outcome, floor: [f64; 3]) -> [f64; 2] {
    let figures: [(&str, Figure); 3] = [
        ("utilisation", |o, i| o.utilisation[i]),
        ("backlog", |o, i| o.backlog[i]),
        ("mark_prob", |o, i| o.mark_prob[i]),
    ];
    let mut u = [0.0; 2];
    for (i, link) in measured(doc).iter().enumerate() {
        for ((what, f), floor) in figures.into_iter().zip(floor) {
            if floor.is_nan() {
                continue;
            }
            let xs: Vec<f64> = refs.iter().map(|o| f(o, i)).collect();
            let m = within_4_sd(&format!("{link} {what}"), &xs, f(n, i), floor);
            if what == "utilisation" {
                u[i] = m;
            }
        }
    }
    u
}

#[test]
fn e1_epf_is_the_models_and_misses_table_4_3_3_and_the_rate_checks() {
    // CP-TCP/EPF is deterministic too, and slow (kappa_bar 0.01: time
    // constants of 5-10 s), so its 60-s means depend on the phase of the
    // trajectory: moving the reference's price updates by 1 us moves link
    // 2's mean backlog by 8 % and its utilisation by 0.25 %. The reference
    // runs with its updates 0, 1, ..., 7 us after each interval's end, and
    // netsim's one run must lie within 4 standard deviations of that
    // ensemble's mean (for utilisation at least 0.25 % of it, the move a
    // 1-us shift gave, should the ensemble come out tighter).
    let doc: toml::Table = EPF.parse().unwrap();
    let refs: Vec<Outcome> = (0..8u64)
        .into_par_iter()
        .map(|k| reference_at(&doc, 0x5B_0000, k * ps(1e-6)))
        .collect();
    let ours = netsim(EPF, 0);
    let u = within_ensemble(&doc, &refs, &ours, [0.0025, 0.0, f64::NAN]);
    // Table 4.3.3: 93.4 % and 92.6 %; the file's checks allow 1 point. The
    // model as specified keeps both links busier than that.
    assert!(u[0] > 0.934 + 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.926 + 0.01, "reference link 2 {}", u[1]);
    // Each flow group's throughput likewise (at least 1 % of the mean
    // should the ensemble come out tighter), and the file's rate checks
    // read on the reference: path III against its weighted proportionally
    // fair rate and path II's w = 400 flows against path I's. With each
    // path's weights summing to W = 4 (100 + 200 + 400) and both links at
    // one price p, a link carries W / p + W / (2 p) = c: p = 1.5 W / c, a
    // one-link flow w c / (1.5 W), a path III flow half that (section 3.4).
    let names = group_names(&doc);
    let rate = |name: &str| -> f64 {
        let g = names.iter().position(|&n| n == name).unwrap();
        let xs: Vec<f64> = refs.iter().map(|o| o.rate[g]).collect();
        within_4_sd(&format!("{name} throughput"), &xs, ours.rate[g], 0.01)
    };
    let rates: Vec<f64> = names.iter().map(|n| rate(n)).collect();
    let groups = doc["flows"].as_array().unwrap();
    let w = |g: usize| groups[g]["cc"]["w"].as_float().unwrap();
    let total = path_weight(&doc, groups[0]["from"].as_str().unwrap());
    let c = bps(&doc["links"][0]["capacity"]);
    // The file's checks allow 5 %: the model as specified gives path III
    // less than its fair rate by more than that, and path II's w = 400
    // flows less than path I's.
    for (g, name) in names.iter().enumerate() {
        if name.starts_with("III-") {
            let optimum = w(g) * c / (1.5 * total) / 2.0;
            eprintln!("{name}: reference {:.4} of the optimum", rates[g] / optimum);
            assert!(rates[g] < 0.95 * optimum, "reference {name} {}", rates[g]);
        }
    }
    let at = |n: &str| rates[names.iter().position(|&x| x == n).unwrap()];
    let ratio = at("II-w400") / at("I-w400");
    eprintln!("II-w400 / I-w400: reference {ratio:.4}");
    assert!(ratio < 0.95, "reference II / I {ratio}");
}

#[test]
fn e1_vqm_utilisation_is_the_models_and_misses_table_5_1_1() {
    let u = compare_one(VQM, [0.002, 0.02, 0.01]);
    // Table 5.1.1: 94.1 % and 87.8 %; the file's checks allow 1 point. The
    // model as specified leaves link 1 idler than that.
    assert!(u[0] < 0.941 - 0.01, "reference link 1 {}", u[0]);
}

#[test]
fn e1_rem_utilisation_is_the_models_and_misses_table_5_2_1() {
    let Outcome {
        utilisation: u,
        rate: rates,
        ..
    } = compare(REM, 8);
    // Table 5.2.1: 94.9 % and 93.2 %; the file's checks allow 1 point.
    // Link 1 is within it; the model as specified keeps link 2 busier.
    assert!((u[0] - 0.949).abs() <= 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.932 + 0.01, "reference link 2 {}", u[1]);
    // Section 5.2.2: the w = 1 flows on path I get "slightly more" than
    // their weighted proportionally fair rate (cwnd between 1 and 2). With
    // each path's weights summing to the same total (4 x (1 + 2 + 4)), that
    // optimum gives path III c / 3 and paths I and II 2c / 3 each, split in
    // proportion to w: 2/3 x 96 Mb/s / 28 = 2.29 Mb/s for I-w100. The model
    // as specified gives it less, as netsim does (2.13 Mb/s, 0.93 of it,
    // measured 2026-11-28: about 267 packets/s over a 6.9-ms round trip, a
    // window of 1.8 segments, between 1 and 2 as the thesis says).
    let doc: toml::Table = REM.parse().unwrap();
    let groups = doc["flows"].as_array().unwrap();
    let path_w = |from: &str| path_weight(&doc, from);
    let total = path_w("s1");
    assert_eq!((path_w("s4"), path_w("s5")), (total, total));
    let c = bps(&doc["links"][0]["capacity"]);
    assert_eq!(groups[0]["name"].as_str(), Some("I-w100"));
    let optimum = 2.0 / 3.0 * c * groups[0]["cc"]["w"].as_float().unwrap() / total;
    assert!(
        rates[0] < optimum,
        "reference I-w100 {} vs optimum {optimum}",
        rates[0]
    );
}

/// The sum of the weights w of the flows sent from host `from` (a path's
/// total willingness to pay).
fn path_weight(doc: &toml::Table, from: &str) -> f64 {
    doc["flows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["from"].as_str() == Some(from))
        .map(|g| g["count"].as_integer().unwrap() as f64 * g["cc"]["w"].as_float().unwrap())
        .sum()
}

// E1's "Dynamics" schedule (12, 24, 18, 24, 12 flows per path over 0-100
// s, the extra groups' `start` and `stop`) with the rate-allocation files'
// links and sources: the same comparisons, and Tables 5.4.1 / 5.1.1 /
// 5.2.1 read as this scenario's (the dynamics files' checks, 1 point).

#[test]
fn e1_dynamics_sbrm_utilisation_is_the_models_and_misses_table_5_4_1() {
    let u = compare(DYN_SBRM, 8).utilisation;
    assert!(u[0] > 0.979 + 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.920 + 0.01, "reference link 2 {}", u[1]);
}

#[test]
fn e1_dynamics_vqm_utilisation_is_the_models_and_misses_table_5_1_1() {
    // VQM is deterministic, but the arrivals at 20 s and 60 s (each group
    // at one instant) set off bursts whose 100-s means depend on how ties
    // break: the reference runs with the late groups' starts moved by 0,
    // 1, ..., 7 us, and netsim's one run must lie within 4 standard
    // deviations of that ensemble's mean (at least 0.2 % of it for
    // utilisation and marking, 2 % for backlog: the rate-allocation file's
    // tolerances, should the ensemble come out tighter).
    let doc: toml::Table = DYN_VQM.parse().unwrap();
    let refs: Vec<Outcome> = (0..8u32)
        .into_par_iter()
        .map(|k| reference(&later_starts(&doc, f64::from(k) * 1e-6), 0x5B_0000))
        .collect();
    let u = within_ensemble(&doc, &refs, &netsim(DYN_VQM, 0), [0.002, 0.02, 0.002]);
    assert!(u[0] < 0.941 - 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] < 0.878 - 0.01, "reference link 2 {}", u[1]);
}

/// `doc` with every group that starts after 0 starting `dt` seconds later.
fn later_starts(doc: &toml::Table, dt: f64) -> toml::Table {
    let mut d = doc.clone();
    for g in d["flows"].as_array_mut().unwrap() {
        let t = g.get("start").map_or(0.0, shared::secs);
        if t > 0.0 {
            g.as_table_mut()
                .unwrap()
                .insert("start".into(), format!("{:.9}s", t + dt).into());
        }
    }
    d
}

#[test]
fn e1_dynamics_rem_link_2_is_the_models_and_misses_table_5_2_1() {
    let u = compare(DYN_REM, 8).utilisation;
    assert!((u[0] - 0.949).abs() <= 0.01, "reference link 1 {}", u[0]);
    assert!(u[1] > 0.932 + 0.01, "reference link 2 {}", u[1]);
}

/// netsim's queue R3 (r3->r4) per 20-s window of replication `rep`, as the
/// files' windowed checks read it: the means of the sampled departure rate
/// over the capacity and of the sampled queue, samples in (t0, t1].
fn netsim_windows(file: &str, rep: u32) -> Vec<[f64; 2]> {
    let r = Resolved::parse(file, "pricing").unwrap();
    let out = r.build(r.scenario.run.seed, rep).unwrap().run();
    let l = out.links.iter().find(|l| l.name == "r3->r4").unwrap();
    let mean = |metric: &str, t0: f64| -> f64 {
        let xs: Vec<f64> = out
            .series
            .iter()
            .filter(|p| {
                p.subject == sim_core::Subject::Link(l.link)
                    && p.metric == metric
                    && p.time > t0
                    && p.time <= t0 + 20.0
            })
            .map(|p| p.value)
            .collect();
        assert!(xs.len() > 100, "{metric} sampled in the window");
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    (0..5)
        .map(|k| {
            let t0 = 20.0 * f64::from(k);
            [
                mean("rate_bps", t0) / l.capacity_bps,
                mean("queue_pkts", t0),
            ]
        })
        .collect()
}

/// `runs` runs of `file` a side, Welch's test on queue R3's utilisation and
/// backlog in each 20-s window; returns the reference's mean utilisation
/// per window.
fn same_windows(file: &str, runs: u32) -> [f64; 5] {
    let doc: toml::Table = file.parse().unwrap();
    let reference: Vec<Vec<[f64; 2]>> = (0..runs)
        .into_par_iter()
        .map(|k| reference(&doc, 0x5B_0000 + u64::from(k)).windows)
        .collect();
    let engine: Vec<Vec<[f64; 2]>> = (0..runs)
        .into_par_iter()
        .map(|k| netsim_windows(file, k))
        .collect();
    let mut u = [0.0; 5];
    for w in 0..5 {
        for (j, what) in ["utilisation", "backlog"].iter().enumerate() {
            let m = same_mean(
                &format!("r3->r4 {}-{} s {what}", 20 * w, 20 * (w + 1)),
                &reference.iter().map(|o| o[w][j]).collect::<Vec<_>>(),
                &engine.iter().map(|o| o[w][j]).collect::<Vec<_>>(),
            );
            if j == 0 {
                u[w] = m;
            }
        }
    }
    u
}

#[test]
fn e2_few_rem_1bit_utilisation_is_the_models_and_misses_table_5_2_2() {
    // E2's parking lot, few flows, REM with 1-bit marks (Vegas/CP): queue
    // R3's utilisation and backlog in each 20-s window, 8 runs a side
    // (the file runs one), Welch's test as above.
    let u = same_windows(E2_REM_1BIT, 8);
    // Table 5.2.2 (1 bit): 99, 96, 97, 97, 96 %; the file's checks allow 2
    // points. At 20-40, 60-80 and 80-100 s the model as specified keeps R3
    // busier than that (by 0.2-1.3 points beyond the tolerance). At 40-60
    // s it sits at the tolerance's edge on both sides (99.00 % and 99.05 %
    // over 8 runs; the file's one run 99.3 %) and is not asserted.
    for (w, table) in [(1, 0.96), (3, 0.97), (4, 0.96)] {
        assert!(u[w] > table + 0.02, "reference window {w}: {}", u[w]);
    }
}

#[test]
fn e2_few_rem_4bit_utilisation_is_the_models_and_misses_table_5_2_2() {
    // The same with the 4-bit code (Vegas/CP reading the bit whose marked
    // fraction is closest to 1/2).
    let u = same_windows(E2_REM_4BIT, 8);
    // Table 5.2.2 (4 bit): 99, 98, 97, 98, 97 %; the file's checks allow 2
    // points. At 40-60 s the model as specified keeps R3 busier than that
    // (99.16 % over 8 runs, netsim 99.20 %); the other windows are within.
    assert!(u[2] > 0.97 + 0.02, "reference window 2: {}", u[2]);
}

/// netsim's one run `n` of a deterministic file against an ensemble of
/// reference runs `refs` (its PC3 updates shifted by 0, 1, ... us): queue
/// R3's utilisation and backlog in each 20-s window within 4 standard
/// deviations of the ensemble's mean, or within `floor` (relative) of it
/// should the ensemble come out tighter. Returns the reference's mean
/// utilisation per window.
fn windows_within_ensemble(refs: &[Vec<[f64; 2]>], n: &[[f64; 2]], floor: [f64; 2]) -> [f64; 5] {
    let mut u = [0.0; 5];
    for w in 0..5 {
        for (j, what) in ["utilisation", "backlog"].iter().enumerate() {
            let xs: Vec<f64> = refs.iter().map(|o| o[w][j]).collect();
            let what = format!("r3->r4 {}-{} s {what}", 20 * w, 20 * (w + 1));
            let m = within_4_sd(&what, &xs, n[w][j], floor[j]);
            if j == 0 {
                u[w] = m;
            }
        }
    }
    u
}

/// The reference's queue R3 windows for `file` at `phases` PC3 phases (0,
/// 1, ... us), and netsim's one run.
fn phase_windows(file: &str, phases: u64) -> (Vec<Vec<[f64; 2]>>, Vec<[f64; 2]>) {
    let doc: toml::Table = file.parse().unwrap();
    let refs = (0..phases)
        .into_par_iter()
        .map(|k| reference_at(&doc, 0x5B_0000, k * ps(1e-6)).windows)
        .collect();
    (refs, netsim_windows(file, 0))
}

#[test]
fn e2_few_vegas_cp_epf_is_the_models() {
    // Vegas/CP with the price in full (EPF) and no slow start, the
    // parking lot's other reading: deterministic (no coin, no start
    // jitter), so netsim's run against the reference at 8 PC3 phases, as
    // E1's EPF; the floors are E1's (0.25 % utilisation) and VQM's (2 %
    // backlog). Measured (2026-11-28): utilisation within 0.03 points in
    // every window, backlog within 1.7 % (3.1 sd at 40-60 s, 21.12 +- 0.12
    // against 20.77 packets).
    let (refs, n) = phase_windows(E2_VEGAS_EPF, 8);
    let u = windows_within_ensemble(&refs, &n, [0.0025, 0.02]);
    // Table 4.4.3: 98, 100, 99, 100, 98 %, the file's checks +-2 points:
    // the model as specified is within them, as netsim is.
    for (w, table) in [0.98, 1.0, 0.99, 1.0, 0.98].into_iter().enumerate() {
        assert!(
            (u[w] - table).abs() <= 0.02,
            "reference window {w}: {}",
            u[w]
        );
    }
}

/// Each window's reference utilisation `u` above the thesis's `table`
/// value by more than the files' 2-point tolerance.
fn busier_than_table(u: [f64; 5], table: [f64; 5]) {
    for (w, (u, table)) in u.into_iter().zip(table).enumerate() {
        assert!(
            u > table + 0.02,
            "reference window {w}: {u} against {table}"
        );
    }
}

/// The many-flows parking lot (6400 flows at the peak, 4.8 Gb/s) with
/// REM's 1-bit marks: 3 runs a side (10 and 7 minutes each on this
/// project's machine), so not in CI; run with `cargo test --release --test
/// pricing_reference_model -- --ignored`.
#[test]
#[ignore = "the many-flows parking lot: 10 minutes per reference run, 7 per netsim run"]
fn e2_many_rem_1bit_utilisation_is_the_models_and_misses_table_5_2_3() {
    let u = same_windows(E2_MANY_REM_1BIT, 3);
    // Table 5.2.3 (1 bit): 95, 86, 90, 86, 94 %; the file's checks allow 2
    // points. The model as specified keeps R3 busier in every window.
    busier_than_table(u, [0.95, 0.86, 0.90, 0.86, 0.94]);
}

/// The same with the 4-bit code: 3 runs a side (43 minutes on 2 cores
/// beside other runs), not in CI.
#[test]
#[ignore = "the many-flows parking lot: 10 minutes per reference run, 7 per netsim run"]
fn e2_many_rem_4bit_utilisation_is_the_models_and_misses_table_5_2_3() {
    let u = same_windows(E2_MANY_REM_4BIT, 3);
    // Table 5.2.3 (4 bit): 96, 87, 95, 87, 95 %; the file's checks allow 2
    // points. The model as specified keeps R3 busier in every window.
    busier_than_table(u, [0.96, 0.87, 0.95, 0.87, 0.95]);
}

/// The many-flows parking lot with Vegas/CP over EPF (deterministic):
/// netsim's run against the reference at 4 PC3 phases (25 minutes on 2
/// cores), not in CI.
#[test]
#[ignore = "the many-flows parking lot: 10 minutes per reference run, 7 per netsim run"]
fn e2_many_vegas_cp_epf_utilisation_is_the_models_and_misses_table_4_4_4() {
    let (refs, n) = phase_windows(E2_MANY_VEGAS_EPF, 4);
    let u = windows_within_ensemble(&refs, &n, [0.0025, 0.02]);
    // Table 4.4.4: 94, 94, 94, 94, 95 %; the file's checks allow 2 points.
    // The model as specified keeps R3 busier in every window.
    busier_than_table(u, [0.94, 0.94, 0.94, 0.94, 0.95]);
}

#[test]
fn e3_tcprm_sbrm_two_way_utilisation_is_the_models_and_misses_table_5_6_1() {
    // 20 replications a side: the per-path throughputs vary widely between
    // replications (the deterministic ACK clocks lock in phase, README
    // "E3"), and 8 left the comparison weak there.
    let m = compare(E3_TCPRM, 20);
    // Table 5.6.1: TCP/RM 94 %; the file's check allows 2 points. The model
    // as specified keeps the link busier. (Its occupancy, 22.5 packets
    // against 27.7 +- 20 %, is at the tolerance's edge on both sides and is
    // not asserted here.)
    // Its mean queueing delay, 6.6 ms (20 %): half of it on both sides.
    busier_and_quicker_than(&m, 0.94, 0.0066);
}

/// Asserts that a TCP/RM file's reference keeps R1 busier than Table
/// 5.6.1 / 5.6.2's `utilisation` (beyond the files' 2 points) and its
/// packets waiting shorter than the table's `delay` (beyond 20 %). The
/// thesis's delays are its occupancies times one 1000-B service time (0.24
/// ms); two-way, 40-B ACKs are about half the packets waiting.
fn busier_and_quicker_than(m: &Outcome, utilisation: f64, delay: f64) {
    let (u, d) = (m.utilisation[0], m.qdelay[0]);
    assert!(u > utilisation + 0.02, "reference utilisation {u}");
    assert!(d < delay * 0.8, "reference delay {d}");
}

#[test]
fn e3_newreno_ecn_sbrm_two_way_occupancy_is_the_models_and_misses_table_5_6_1() {
    let m = compare(E3_NEWRENO, 20);
    // Table 5.6.1: NewReno-ECN, 30.0 packets; the file's check allows 20 %.
    // The model as specified queues less. (Its utilisation, 87.9 % against
    // 90 +- 2, is at the tolerance's edge and is not asserted here.)
    assert!(
        m.backlog[0] < 30.0 * 0.8,
        "reference occupancy {}",
        m.backlog[0]
    );
    // And its delay (7.2 ms, 20 %) is under half of it, as netsim's.
    assert!(
        m.qdelay[0] < 0.0072 * 0.8,
        "reference delay {}",
        m.qdelay[0]
    );
}

#[test]
fn e3_sbrm_one_way_is_the_models() {
    // The other reading of "bidirectional" (10 one-way connections per
    // path): the link is busier still (99.7 % TCP/RM, 98.0 % NewReno-ECN
    // against the thesis's 94 % and 90 %).
    let mut backlog = [0.0; 2];
    for (k, file) in [E3_TCPRM_ONEWAY, E3_NEWRENO_ONEWAY].into_iter().enumerate() {
        let m = compare(file, 8);
        assert!(
            m.utilisation[0] > 0.94 + 0.02,
            "reference {}",
            m.utilisation[0]
        );
        backlog[k] = m.backlog[0];
    }
    // Section 5.6.4: "the buffer occupancy is lower with TCP/RM" (the
    // TCP/RM file's ratio check, below 1). One-way, TCP/RM holds its fixed
    // point above b0 and NewReno-ECN's queue swings below it: the model as
    // specified misses the claim too.
    let ratio = backlog[0] / backlog[1];
    eprintln!("one-way occupancy TCP/RM / NewReno-ECN: reference {ratio:.3}");
    assert!(ratio > 1.0, "reference occupancy ratio {ratio}");
}

#[test]
fn e3_tcprm_red_utilisation_is_the_models_and_misses_table_5_6_2() {
    // (The two-way file is compared in `e3_red_two_way_is_the_models`.)
    // One-way (the other reading of "bidirectional"): busier still.
    let u = compare(E3_TCPRM_RED_ONEWAY, 8).utilisation;
    assert!(u[0] > 0.92 + 0.02, "reference {}", u[0]);
}

#[test]
fn e3_red_two_way_is_the_models() {
    // Two-way, RED drops the ACKs it selects (they are not ECN-capable) and
    // senders time out; both models do, and agree.
    // TCP/RM over RED: Table 5.6.2's 92 %, the file's check allowing 2
    // points; the model as specified keeps the link busier.
    let (tcprm, tcprm_ref, tcprm_net) = compare_runs(E3_TCPRM_RED, 10);
    // Its delay, 8.6 ms (20 %): under half of it on both sides.
    busier_and_quicker_than(&tcprm, 0.92, 0.0086);
    // NewReno-ECN over RED (ns-2 is its other reference,
    // tests/ns2_e3_reference.rs): the stretch ACKs after a loss count all
    // their bytes in congestion avoidance (cc/newreno.rs's header); the
    // model first grew 1 / cwnd per ACK and timed out and marked less
    // (marking t -6.4, which fails). The file's utilisation check (89 %, 2
    // points) is a documented deviation; the model misses it the same way.
    let (newreno, nr_ref, nr_net) = compare_runs(E3_NEWRENO_RED, 10);
    assert!(
        newreno.utilisation[0] < 0.89 - 0.02,
        "reference {}",
        newreno.utilisation[0]
    );
    // The spread of the windows on the paths Fig. 5.6.6 shows (S1-S4,
    // S3-S6: groups 0 and 2), both sides' runs, and the ratio TCP/RM /
    // NewReno-ECN the TCP/RM file checks (replication k against k).
    for (g, path) in [(0, "S1-S4"), (2, "S3-S6")] {
        let sd = |v: &[Outcome]| v.iter().map(|o| o.cwnd_sd[g]).collect::<Vec<_>>();
        same_mean(
            &format!("TCP/RM {path} window sd"),
            &sd(&tcprm_ref),
            &sd(&tcprm_net),
        );
        same_mean(
            &format!("NewReno-ECN {path} window sd"),
            &sd(&nr_ref),
            &sd(&nr_net),
        );
        let ratio = |a: &[Outcome], b: &[Outcome]| {
            let r: Vec<f64> = sd(a).iter().zip(sd(b)).map(|(x, y)| x / y).collect();
            let s = Summary::new(&r);
            (s.mean, s.sd, r)
        };
        let (rm, rs, rr) = ratio(&tcprm_ref, &nr_ref);
        let (nm, ns, nr) = ratio(&tcprm_net, &nr_net);
        eprintln!("{path} window sd ratio: reference {rm:.3} sd {rs:.3} {rr:.2?}; netsim {nm:.3} sd {ns:.3} {nr:.2?}");
        // The thesis: "the histogram of the congestion windows is narrower
        // in the case of TCP/RM". On S1-S4 both sides give it (0.71 each,
        // 2026-11-29); on S3-S6 neither does (reference 1.29, netsim 1.39:
        // in some runs the 20-ms path's flows time out when RED drops
        // their ACKs and S3-S6's windows grow to take its share): the
        // file's miss there is the model's as the spec gives it.
        if g == 0 {
            assert!(rm < 1.0, "reference {path} ratio {rm}");
        } else {
            assert!(rm > 1.0, "reference {path} ratio {rm}");
        }
    }
}

/// Point `i` (from 0) of a `combine = "zip"` sweep file whose values are
/// lists, as a scenario: each `[[sweep.param]]`'s i-th value written at its
/// key by the sweep's own path setter, the `[sweep]` table removed (the
/// file's seed kept: a point's seed is not the campaign's).
fn sweep_point(file: &str, i: usize) -> String {
    let mut doc: toml::Table = file.parse().unwrap();
    let sweep = doc.remove("sweep").unwrap();
    assert_eq!(sweep["combine"].as_str(), Some("zip"));
    for p in sweep["param"].as_array().unwrap() {
        let key = p["key"].as_str().unwrap();
        topology::sweep::set_path(&mut doc, key, p["values"][i].clone()).unwrap();
    }
    toml::to_string(&doc).unwrap()
}

/// `doc` with every flow group starting within `jitter` seconds of its
/// start (uniform, the reference's own draw).
fn with_start_jitter(doc: &toml::Table, jitter: f64) -> toml::Table {
    let mut d = doc.clone();
    for g in d["flows"].as_array_mut().unwrap() {
        let g = g.as_table_mut().unwrap();
        assert!(g.get("start_jitter").is_none());
        g.insert("start_jitter".into(), format!("{jitter:.9}s").into());
    }
    d
}

/// Section 5.4.4's "significant variation of the resulting rate
/// allocation", as the many-flows file reads it (Jain's index of a base
/// group's flows at most 0.95 on S3 -> S5 and S1 -> S12): asserts that none
/// of the runs of either side varies so, for the rows whose miss is that
/// the rates do not vary.
fn does_not_vary(doc: &toml::Table, refs: &[Outcome], ours: &[Outcome]) {
    varies_on(doc, refs, ours, &["s3-s5-base", "s1-s12-base"], false);
}

/// Asserts that every run of both sides varies (Jain's index below 0.95 on
/// at least one of the base groups `paths`), or with `varies` false, that
/// none does.
fn varies_on(doc: &toml::Table, refs: &[Outcome], ours: &[Outcome], paths: &[&str], varies: bool) {
    let names = group_names(doc);
    let at: Vec<usize> = paths
        .iter()
        .map(|p| names.iter().position(|x| x == p).unwrap())
        .collect();
    for (who, o) in refs
        .iter()
        .map(|o| ("reference", o))
        .chain(ours.iter().map(|o| ("netsim", o)))
    {
        let jain: Vec<f64> = at.iter().map(|&g| o.jain[g]).collect();
        eprintln!("{who}: Jain {paths:?} {jain:.4?}");
        let least = jain.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(least < 0.95, varies, "{who}: Jain {paths:?} {jain:?}");
    }
}

/// Row `row` (from 1) of Table 5.4.2's many-flows sweep with every flow's
/// start moved by up to 1 us (each side's own draw), against the
/// reference: 3 reference runs and 2 netsim runs; first [`does_not_vary`],
/// then each of netsim's runs within the reference's 4 standard deviations
/// or E1 VQM's floors (0.2 % utilisation, 2 % backlog, 1 % marking).
fn many_row_jittered(row: usize) {
    let doc = with_start_jitter(
        &sweep_point(TABLE_5_4_2_MANY, row - 1).parse().unwrap(),
        1e-6,
    );
    let file = toml::to_string(&doc).unwrap();
    let refs: Vec<Outcome> = (0..3u64)
        .into_par_iter()
        .map(|k| reference(&doc, 0x5B_0000 + k))
        .collect();
    let ours: Vec<Outcome> = (0..2u32)
        .into_par_iter()
        .map(|k| netsim(&file, k))
        .collect();
    does_not_vary(&doc, &refs, &ours);
    for n in &ours {
        within_ensemble(&doc, &refs, n, [0.002, 0.02, 0.01]);
    }
}

/// Table 5.4.2's row 22 on the many-flows parking lot (Key's rule over
/// 1-bit VQM, deterministic), with each flow's start moved by up to 1 us
/// on both sides, 25 minutes on 2 cores, not in CI. Without the jitter
/// netsim's run (the file's) queues 2.2 % more at R3 (155.5 packets
/// against 152.3 and 152.8 with it; 2026-11-28), the reference 1.3 % more
/// (154.1 against 152.1 +- 0.15): the 1000 flows that start at the same
/// instant stay in step longer, and how much longer depends on how each
/// model breaks the ties. Key's rule, which reacts to
/// each mark with no estimate of its own, does not vary in either model.
#[test]
#[ignore = "the many-flows parking lot: 10-16 minutes per reference run, 5 per netsim run"]
fn table_5_4_2_many_row_22_does_not_vary_in_the_model_either() {
    many_row_jittered(22);
}

/// Table 5.4.2's row 23 ("Direct Window Update, VQM, n Bit"; the file's
/// reading: CP-TCP's direct update, at most 1 segment per ACK, with slow
/// start, over VQM links that add 1 to the header's price for each packet
/// they would mark) on the few-flows parking lot. Deterministic, so both
/// sides run with each flow's start moved by up to 1 us, 8 draws a side,
/// Welch's test as for SBRM. The rates do not vary in either model.
#[test]
fn table_5_4_2_few_row_23_is_the_models() {
    let doc: toml::Table = sweep_point(TABLE_5_4_2, 22).parse().unwrap();
    let doc = with_start_jitter(&doc, 1e-6);
    let (_, refs, ours) = compare_runs(&toml::to_string(&doc).unwrap(), 8);
    does_not_vary(&doc, &refs, &ours);
}

/// Row 23 on the many-flows parking lot, where section 5.4.4 says every
/// single-bit strategy varies: each flow's start moved by up to 1 us on
/// both sides, 8 reference draws and 4 netsim runs (47 minutes on 2
/// cores), not in CI; [`does_not_vary`], then Welch's test on both
/// measured links' utilisation, backlog and marking. Run 2026-11-29 (47
/// minutes): neither side varies (Jain 0.9993-0.9999 on both paths), R3
/// 70.69 % against netsim's 70.80 %, 152.3 against 151.5 packets, R2
/// 69.94 against 69.89 %, 79.7 against 76.4 packets (|t| <= 1.2). With 3 reference draws
/// and 2 netsim runs (the test until 2026-11-29) netsim's second run's R3
/// utilisation, 71.20 %, was 7.5 of the reference's standard deviations
/// above its 70.62 +- 0.08 % and failed; five more reference draws
/// (2026-11-29) gave 70.74, 71.10, 70.52, 70.73 and 70.60 %, and two
/// more netsim runs 70.53 and 70.75 %: the three draws had understated
/// the spread, as the few-flows file's eight suggested (70.96-71.57 % in
/// the reference, 70.87-71.67 % in netsim).
#[test]
#[ignore = "the many-flows parking lot: 8 reference runs of 10-16 minutes, 4 netsim runs of 5 (47 minutes on 2 cores)"]
fn table_5_4_2_many_row_23_does_not_vary_in_the_model_either() {
    let doc = with_start_jitter(&sweep_point(TABLE_5_4_2_MANY, 22).parse().unwrap(), 1e-6);
    let file = toml::to_string(&doc).unwrap();
    // Reference draws and netsim runs in one pool, the long ones first.
    let runs: Vec<(bool, Outcome)> = (0..12u64)
        .into_par_iter()
        .map(|k| match k {
            0..8 => (true, reference(&doc, 0x5B_0000 + k)),
            _ => (false, netsim(&file, (k - 8) as u32)),
        })
        .collect();
    let (refs, ours): (Vec<_>, Vec<_>) = runs.into_iter().partition(|r| r.0);
    let refs: Vec<Outcome> = refs.into_iter().map(|r| r.1).collect();
    let ours: Vec<Outcome> = ours.into_iter().map(|r| r.1).collect();
    does_not_vary(&doc, &refs, &ours);
    links_same_mean(&doc, &refs, &ours);
}

/// Table 5.4.2's row 18 (Vegas/CP over PC3's price in full, with slow
/// start) on the many-flows parking lot: deterministic, so netsim's one
/// run against the reference at 3 PC3 phases 1 us apart (about 45 minutes
/// of CPU), not in CI. The derived check "the full-price strategies do not
/// vary" misses through slow start's transient; the model as specified
/// varies as much (Jain of S1 -> S12's base group below 0.95 on both
/// sides). Run 2026-11-28 (38 minutes beside another run): R3 98.19 +-
/// 0.02 % and 563 +- 15 packets against netsim's 98.21 % and 569, R2
/// 96.59 +- 0.05 % against 96.56 %; Jain 0.929-0.934 against 0.937.
#[test]
#[ignore = "the many-flows parking lot: 10-16 minutes per reference run, 6 per netsim run"]
fn table_5_4_2_many_row_18_varies_in_the_model_too() {
    let doc: toml::Table = sweep_point(TABLE_5_4_2_MANY, 17).parse().unwrap();
    let refs: Vec<Outcome> = (0..3u64)
        .into_par_iter()
        .map(|k| reference_at(&doc, 0x5B_0000, k * ps(1e-6)))
        .collect();
    let n = netsim(&toml::to_string(&doc).unwrap(), 0);
    within_ensemble(&doc, &refs, &n, [0.0025, 0.02, f64::NAN]);
    varies_on(
        &doc,
        &refs,
        std::slice::from_ref(&n),
        &["s1-s12-base"],
        true,
    );
}

/// Table 5.4.2's rows 4 and 11 (Vegas/CP over the price in full from REM's
/// PC1 or PC2, with slow start) on the few-flows parking lot (CI): both
/// deterministic, so both sides run with each flow's start moved by up to
/// 1 us, 8 draws a side, Welch's test on both measured links and every
/// group's throughput.
#[test]
fn table_5_4_2_few_rows_4_and_11_are_the_models() {
    for point in [3, 10] {
        let doc = with_start_jitter(&sweep_point(TABLE_5_4_2, point).parse().unwrap(), 1e-6);
        compare(&toml::to_string(&doc).unwrap(), 8);
    }
}

/// Rows 4 and 11 on the many-flows parking lot, where the derived check
/// "the full-price strategies do not vary" misses through slow start's
/// transient (with row 18, above): both sides jittered as on the few
/// flows, 2 runs a side each, not in CI. Each run of either side varies
/// (Jain below 0.95) on S3 -> S5 or S1 -> S12, as netsim's sweep run does.
/// Run 2026-11-29 (33 minutes): row 4 S1 -> S12 Jain 0.832 / 0.834 in the
/// reference, 0.834 / 0.844 in netsim; row 11 S3 -> S5 0.896 / 0.910
/// against 0.913 / 0.909. Both links within 0.2 points and 1.2 % (row 11's
/// R2 97.68 against 97.70 %, t -6.9: two runs a side give Welch's test
/// one or two degrees of freedom, so these runs show agreement in size
/// rather than test it finely), the groups within |t| <= 7.0.
#[test]
#[ignore = "the many-flows parking lot: 4 reference runs of 10-16 minutes, 4 netsim runs of 5 (about 70 minutes on 2 cores)"]
fn table_5_4_2_many_rows_4_and_11_vary_in_the_model_too() {
    for point in [3, 10] {
        let doc = with_start_jitter(&sweep_point(TABLE_5_4_2_MANY, point).parse().unwrap(), 1e-6);
        let (_, refs, ours) = compare_runs(&toml::to_string(&doc).unwrap(), 2);
        eprintln!("row {}", point + 1);
        varies_on(&doc, &refs, &ours, &["s3-s5-base", "s1-s12-base"], true);
    }
}

/// Table 5.4.2's row 26 on the many-flows parking lot (Key's rule over
/// "SBRM + PC3": REM's PC3 price marked with base e): 3 runs a side (about
/// 35 minutes on 2 cores), not in CI.
#[test]
#[ignore = "the many-flows parking lot: 10-16 minutes per reference run, 5 per netsim run"]
fn table_5_4_2_many_row_26_backlog_is_the_models() {
    sbrm_backlog_is_the_models(25);
}

/// Sweep point `point` (an SBRM row) of the many-flows file, 3 runs a
/// side: Welch's tests, then the reference's R3 above the file's backlog
/// bound and its utilisation above 90 %.
fn sbrm_backlog_is_the_models(point: usize) {
    let means = compare(&sweep_point(TABLE_5_4_2_MANY, point), 3);
    // Section 5.4.4: SBRM "at comparably low average backlogs"; the file's
    // bound is twice the mean of Table 4.4.4's EPF backlogs, 1081 packets.
    // The model as specified holds R3 above it, as netsim does.
    assert!(
        means.backlog[0] > 2.0 * 540.6,
        "reference {}",
        means.backlog[0]
    );
    // Its utilisation claim (above 90 %) holds in both.
    assert!(
        means.utilisation[0] > 0.90,
        "reference {}",
        means.utilisation[0]
    );
}

/// Table 5.4.2's row 8 (Vegas/CP over 1-bit marks from REM's PC2: no
/// timer, each leaving packet priced gamma (b - b0)) on the few-flows
/// parking lot, 8 runs a side (CI): Welch's test on both measured links and
/// every group's throughput, as for the other rows.
#[test]
fn table_5_4_2_few_row_8_is_the_models() {
    compare(&sweep_point(TABLE_5_4_2, 7), 8);
}

/// Row 8 on the many-flows parking lot, where section 5.4.4 says every
/// single-bit strategy varies: on S3 -> S5 it does (both sides), on S1 ->
/// S12 netsim's run does not (Jain 0.9991 over the whole run). 3 runs a
/// side, not in CI: the model as specified does not vary on S1 -> S12
/// either. Run 2026-11-29 (34 minutes, beside another run): Jain
/// 0.9985-0.9994 in the reference, 0.9979-0.9991 in netsim; R3 98.24
/// against 98.45 % (t -1.3), 2200 against 2188 packets, R2 97.51 against
/// 97.63 % (t -1.8), the 32 groups within |t| <= 4.2 (three runs a side
/// give Welch's test few degrees of freedom).
#[test]
#[ignore = "the many-flows parking lot: 10-16 minutes per reference run, 5 per netsim run"]
fn table_5_4_2_many_row_8_does_not_vary_on_s1_s12_in_the_model_either() {
    let doc: toml::Table = sweep_point(TABLE_5_4_2_MANY, 7).parse().unwrap();
    let (_, refs, ours) = compare_runs(&toml::to_string(&doc).unwrap(), 3);
    varies_on(&doc, &refs, &ours, &["s1-s12-base"], false);
}

/// Table 5.4.2's row 25 on the many-flows parking lot (Key's rule over
/// SBRM, eq. 5.4.1 with b0 = 1800 packets, the EPF runs' b0 as the file
/// scales it, and gamma from the 100000-packet buffer): 3 runs a side, not
/// in CI. SBRM marks nothing below b0, so the queue cannot settle below
/// 1800 packets; the file's bound for "comparably low average backlogs"
/// (1081 packets) misses, in the model as specified too. Run 2026-11-29
/// (34 minutes, beside another run): R3 2244.7 packets against netsim's
/// 2245.5 (t -1.8) at 95.65 % on both sides, R2 88.32 against 88.36 %, the
/// 32 groups' throughputs within |t| <= 2.5.
#[test]
#[ignore = "the many-flows parking lot: 10-16 minutes per reference run, 5 per netsim run"]
fn table_5_4_2_many_row_25_backlog_is_the_models() {
    sbrm_backlog_is_the_models(24);
}

/// `file` (an E4 file) at one of its sweep's readings: the object sizes'
/// Pareto shape and RFC 3168's wait.
fn e4_reading(file: &str, shape: f64, wait: bool) -> String {
    let mut doc: toml::Table = file.parse().unwrap();
    doc.remove("sweep");
    topology::sweep::set_path(&mut doc, "flows[0].traffic.object_size.shape", shape.into())
        .unwrap();
    topology::sweep::set_path(&mut doc, "flows[0].tcp.ecn_rto_wait", wait.into()).unwrap();
    toml::to_string(&doc).unwrap()
}

/// Section 5.6.4's E4 (TCP/RM and NewReno-ECN with the HTTP model over an
/// SBRM queue, Table 5.6.3): both files in their own reading (sequential
/// objects, the literal truncated Pareto sizes, RFC 3168's wait), both
/// controllers with the literal sizes without the wait, and both with the
/// 1.1-kB sizes (shape 1.0101), with and without the wait. 8 runs a side,
/// Welch's test on R1's utilisation, backlog, marking and queueing delay,
/// the pages completed, their throughput, the ECN waits, the timeouts, the
/// drops and the retransmissions (netsim entering no fast recovery, which
/// the model does not have). Then: every reading saturates R1 in the
/// reference too (Table 5.6.3: 85 % and 89 %, +-2 points), and each file's
/// own reading misses its occupancy, delay, page throughput and timeouts
/// in the reference as in netsim (the files' tolerances, 20 %).
#[test]
fn e4_http_is_the_models_and_misses_table_5_6_3() {
    // (file, shape, wait, Table 5.6.3's utilisation, occupancy, delay,
    // throughput, timeouts for the file's own reading).
    let tcprm = [0.85, 91.2, 0.0219, 112_000.0, 6438.0];
    let newreno = [0.89, 95.8, 0.023, 120_000.0, 6590.0];
    for (file, shape, wait, table) in [
        (E4_TCPRM, 0.65355, true, tcprm),
        (E4_NEWRENO, 0.65355, true, newreno),
        (E4_TCPRM, 0.65355, false, tcprm),
        (E4_NEWRENO, 0.65355, false, newreno),
        (E4_TCPRM, 1.0101, true, tcprm),
        (E4_TCPRM, 1.0101, false, tcprm),
        (E4_NEWRENO, 1.0101, true, newreno),
        (E4_NEWRENO, 1.0101, false, newreno),
    ] {
        let doc: toml::Table = file.parse().unwrap();
        eprintln!("-- {} shape {shape} ecn_rto_wait {wait}", doc["name"]);
        let m = compare(&e4_reading(file, shape, wait), 8);
        assert!(
            m.utilisation[0] > table[0] + 0.02,
            "reference {}",
            m.utilisation[0]
        );
        if shape < 1.0 && wait {
            let off = |x: f64, paper: f64| (x / paper - 1.0).abs() > 0.2;
            assert!(off(m.backlog[0], table[1]), "occupancy {}", m.backlog[0]);
            assert!(off(m.qdelay[0], table[2]), "delay {}", m.qdelay[0]);
            assert!(
                off(m.page_throughput, table[3]),
                "throughput {}",
                m.page_throughput
            );
            assert!(off(m.timeouts, table[4]), "timeouts {}", m.timeouts);
        }
    }
}
