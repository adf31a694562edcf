//! Link changes at run time (issue 59, `[[link_change]]`): loss, capacity,
//! delay and state changes measured against their closed forms on one link
//! `a -> b` carrying a CBR flow, the schedule's validation errors, the
//! `link_changes` table, and determinism across thread counts.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use sim_core::{LinkId, Packet, Reason, RunOutput, SimTime, TraceKind, Tracer};
use topology::Resolved;

#[path = "common/cli.rs"]
mod cli;

/// One trace event: time, link, kind, flow sequence number, send time.
type Ev = (SimTime, LinkId, TraceKind, u64, SimTime);

/// A tracer that keeps every event, shared with the test.
#[derive(Clone, Default)]
struct Keep(Arc<Mutex<Vec<Ev>>>);

impl Tracer for Keep {
    fn on_event(&mut self, now: SimTime, link: LinkId, kind: TraceKind, pkt: &Packet) {
        self.0
            .lock()
            .unwrap()
            .push((now, link, kind, pkt.seq, pkt.sent));
    }
}

/// One duplex link `a <-> b` (`a->b` is link 0) with `link` its extra keys,
/// a CBR flow `a -> b` of 1000-B packets at `rate`, and `changes` appended.
fn scenario(duration: &str, link: &str, rate: &str, changes: &str) -> String {
    format!(
        r#"
[run]
duration = "{duration}"
seed = 3

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "b"
{link}

[[flows]]
name = "cbr"
from = "a"
to = "b"
packet_size = "1000B"
traffic = {{ kind = "cbr", rate = "{rate}" }}
{changes}
"#
    )
}

fn run_traced(src: &str) -> (RunOutput, Vec<Ev>) {
    let r = Resolved::parse(src, "t").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = r.build(r.scenario.run.seed, 0).unwrap();
    let keep = Keep::default();
    sim.set_tracer(Box::new(keep.clone()));
    let out = sim.run();
    let ev = std::mem::take(&mut *keep.0.lock().unwrap());
    (out, ev)
}

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

/// Per-interval wire-loss rates match the scheduled probability within
/// binomial sampling error: |p_hat - p| <= 5 sqrt(p (1 - p) / n) (a false
/// failure has probability < 1e-6 per interval; the seed is fixed anyway).
/// 1250 pkt/s for 40 s: n = 50 000 per interval, so the bound is 0.0022 at
/// 1 % and 0.0067 at 10 %.
#[test]
fn loss_switches_1_to_10_to_1_percent_within_sampling_error() {
    let src = scenario(
        "120s",
        r#"capacity = "100Mbps"
delay = "5ms"
buffer = "100pkt"
loss = 0.01"#,
        "10Mbps",
        r#"
[[link_change]]
link = "a->b"
at = "40s"
loss = 0.10
for = "40s"
"#,
    );
    let (out, ev) = run_traced(&src);
    let bounds = [(0.0, 40.0, 0.01), (40.0, 80.0, 0.10), (80.0, 120.0, 0.01)];
    for (from, to, p) in bounds {
        let inside = |t: SimTime| secs(t) >= from && secs(t) < to;
        let on0 = |e: &&Ev| e.1 == LinkId(0) && inside(e.0);
        let n = ev
            .iter()
            .filter(on0)
            .filter(|e| e.2 == TraceKind::Depart)
            .count() as f64;
        let lost = ev
            .iter()
            .filter(on0)
            .filter(|e| e.2 == TraceKind::Drop(Reason::WireLoss))
            .count() as f64;
        let bound = 5.0 * (p * (1.0 - p) / n).sqrt();
        assert!(n > 49_000.0, "{n} packets in [{from}, {to})");
        assert!(
            (lost / n - p).abs() <= bound,
            "[{from}, {to}): {lost}/{n} = {} vs {p} +- {bound}",
            lost / n
        );
    }
    let log: Vec<_> = out
        .link_changes
        .iter()
        .map(|c| (c.time_secs, c.link, c.quantity, c.old, c.new))
        .collect();
    assert_eq!(
        log,
        [
            (40.0, LinkId(0), "loss", 0.01, 0.10),
            (80.0, LinkId(0), "loss", 0.10, 0.01)
        ]
    );
}

/// A saturating CBR (20 Mb/s into 10 Mb/s) on a link whose capacity halves
/// at t1 = 10 s: the bytes it starts serializing by T = 20 s are C1 t1 + C2
/// (T - t1) within one packet for the change (the packet serializing at t1
/// finishes at the old rate) and one for the packet serializing at T.
#[test]
fn halving_the_capacity_halves_a_saturating_flows_throughput() {
    let src = scenario(
        "20s",
        r#"capacity = "10Mbps"
delay = "5ms"
buffer = "1000pkt""#,
        "20Mbps",
        r#"
[[link_change]]
link = "a->b"
at = "10s"
capacity = "5Mbps"
"#,
    );
    let (out, ev) = run_traced(&src);
    let l = &out.links[0];
    let closed = (10e6 * 10.0 + 5e6 * 10.0) / 8.0;
    let departed = l.counters.departed.bytes as f64;
    assert!(
        (departed - closed).abs() <= 2.0 * 1000.0,
        "departed {departed} B vs C1 t1 + C2 t2 = {closed} B"
    );
    // Each second's departures after the change: 5 Mb/s = 625 packets.
    let per_s = |s: f64| {
        ev.iter()
            .filter(|e| e.1 == LinkId(0) && e.2 == TraceKind::Depart)
            .filter(|e| secs(e.0) >= s && secs(e.0) < s + 1.0)
            .count()
    };
    assert!((1249..=1251).contains(&per_s(5.0)), "{}", per_s(5.0));
    assert!((624..=626).contains(&per_s(15.0)), "{}", per_s(15.0));
    // Utilisation is against the time-weighted capacity, 7.5 Mb/s.
    assert!((l.capacity_bps - 7.5e6).abs() < 1.0, "{}", l.capacity_bps);
    assert!((l.utilisation() - 1.0).abs() < 1e-3, "{}", l.utilisation());
}

/// Down at 10 s, up at 15 s: nothing reaches `b` while the link is down
/// (the wire is cut at 10 s), what it held is dropped as `link_down` and
/// logged, deliveries resume after 15 s, and packets are conserved: sent =
/// delivered + dropped + in flight.
#[test]
fn a_down_link_delivers_nothing_and_conserves_packets() {
    let src = scenario(
        "20s",
        r#"capacity = "10Mbps"
delay = "50ms"
buffer = "100pkt""#,
        "12Mbps",
        r#"
[[link_change]]
link = "a->b"
at = "10s"
state = "down"
for = "5s"
"#,
    );
    let (out, ev) = run_traced(&src);
    let arrivals = |from: f64, to: f64| {
        ev.iter()
            .filter(|e| e.1 == LinkId(0) && e.2 == TraceKind::Arrive)
            .filter(|e| secs(e.0) >= from && secs(e.0) < to)
            .count()
    };
    assert_eq!(arrivals(10.0, 15.0), 0);
    assert!(arrivals(9.0, 10.0) > 800 && arrivals(15.0, 16.0) > 700);
    let l = &out.links[0];
    let down = l.counters.dropped[Reason::LinkDown as usize].pkts;
    // 5 s of 1500 pkt/s arrivals, plus the queue (100) and the wire (~63).
    assert!(down > 7500 && down < 7800, "{down}");
    assert_eq!(l.counters.cut_queued.pkts, 100);
    assert!(
        l.counters.cut_on_wire.pkts >= 60,
        "{:?}",
        l.counters.cut_on_wire
    );
    let traced_down = ev
        .iter()
        .filter(|e| e.2 == TraceKind::Drop(Reason::LinkDown))
        .count() as u64;
    assert_eq!(traced_down, down);
    let rows: Vec<_> = out
        .link_changes
        .iter()
        .map(|c| (c.time_secs, c.quantity, c.old, c.new, c.dropped_pkts))
        .collect();
    let held = l.counters.cut_queued.pkts + l.counters.cut_on_wire.pkts;
    assert_eq!(
        rows,
        [(10.0, "up", 1.0, 0.0, held), (15.0, "up", 0.0, 1.0, 0)]
    );
    let f = &out.flows[0].total;
    let dropped: u64 = out
        .links
        .iter()
        .map(|l| l.counters.dropped_total().pkts)
        .sum();
    let in_flight = f.sent_pkts - f.rx_pkts - dropped;
    // What is queued and on the wire at the end: at most the buffer and a
    // wire's worth (50 ms at 10 Mb/s = 63 packets).
    assert!(in_flight <= 100 + 64, "{in_flight}");
    assert!(f.rx_pkts > 0 && dropped >= down);
}

/// A delay change moves one-way latencies by exactly the change: +20 ms at
/// 5 s, then -25 ms at 10 s. An idle link (100 pkt/s at 100 Mb/s) never
/// queues, so a packet's latency is its serialization plus the delay in
/// force when it started serializing; after the decrease the wire stays FIFO.
#[test]
fn a_delay_change_shifts_latencies_by_exactly_the_change_and_keeps_fifo() {
    let src = scenario(
        "15s",
        r#"capacity = "100Mbps"
delay = "10ms"
buffer = "100pkt""#,
        "800kbps",
        r#"
[[link_change]]
link = "a->b"
at = "5s"
delay = "30ms"

[[link_change]]
link = "a->b"
at = "10s"
delay = "5ms"
"#,
    );
    let (_, ev) = run_traced(&src);
    let tx_ps = 80_000_000; // 1000 B at 100 Mb/s = 80 us
    let delivered: Vec<&Ev> = ev.iter().filter(|e| e.2 == TraceKind::Deliver).collect();
    let latency_ms = |e: &Ev| (e.0.as_ps() - e.4.as_ps()) as f64 / 1e9;
    // The packet ahead's arrival: after the decrease the first packets
    // bunch up behind the last one that left at 30 ms.
    let mut ahead = 0;
    for e in &delivered {
        let sent = secs(e.4);
        let delay_ms = if sent < 5.0 {
            10
        } else if sent < 10.0 {
            30
        } else {
            5
        };
        let own = e.4.as_ps() + tx_ps + delay_ms * 1_000_000_000;
        let expect = own.max(ahead);
        assert_eq!(e.0.as_ps(), expect, "sent {sent} s: {} ms", latency_ms(e));
        if sent >= 10.03 {
            assert_eq!(expect, own, "sent {sent} s: still clamped");
        }
        ahead = expect;
    }
    let seqs: Vec<u64> = delivered.iter().map(|e| e.3).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "reordered");
    assert!(delivered.len() > 1400);
}

/// With a saturating flow the delay decrease cannot reorder: packets that
/// started after it arrive no earlier than the last one that started before.
#[test]
fn a_delay_decrease_under_load_keeps_the_wire_fifo() {
    let src = scenario(
        "4s",
        r#"capacity = "10Mbps"
delay = "100ms"
buffer = "100pkt"
loss = 0.001"#,
        "12Mbps",
        r#"
[[link_change]]
link = "a->b"
at = "2s"
delay = "1ms"
"#,
    );
    let (out, ev) = run_traced(&src);
    let arrive: Vec<&Ev> = ev
        .iter()
        .filter(|e| e.1 == LinkId(0) && e.2 == TraceKind::Arrive)
        .collect();
    assert!(arrive
        .windows(2)
        .all(|w| w[0].3 < w[1].3 && w[0].0 <= w[1].0));
    assert_eq!(out.link_changes.len(), 1);
}

fn parse_err(changes: &str) -> topology::ScenarioError {
    let src = scenario(
        "60s",
        r#"capacity = "10Mbps"
delay = "5ms"
buffer = "100pkt""#,
        "1Mbps",
        changes,
    );
    match Resolved::parse(&src, "t") {
        Ok(_) => panic!("accepted: {changes}"),
        Err(e) => e,
    }
}

#[test]
fn errors_name_the_key_path() {
    let e = parse_err("[[link_change]]\nlink = \"a->c\"\nat = \"1s\"\nloss = 0.1\n");
    assert_eq!(e.path, "link_change[0].link");
    assert!(e.message.contains("a->b"), "{}", e.message);
    let e = parse_err("[[link_change]]\nlink = \"a->b\"\nat = \"61s\"\nloss = 0.1\n");
    assert_eq!(e.path, "link_change[0].at");
    assert!(e.message.contains("run.duration"), "{}", e.message);
    assert!(e.position.is_some());
    let e = parse_err("[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\nloss = 1.5\n");
    assert_eq!(e.path, "link_change[0].loss");
    let e = parse_err("[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\nlos = 0.1\n");
    assert!(e.message.contains("unknown field `los`"), "{e:?}");
    let e = parse_err("[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\n");
    assert_eq!(e.path, "link_change[0]");
    let e = parse_err(
        "[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\nloss = 0.1\nfor = \"10s\"\nevery = \"5s\"\n",
    );
    assert_eq!(e.path, "link_change[0].for");
    // Two changes of one quantity at one instant (a restore counts).
    let e = parse_err(
        "[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\nloss = 0.1\nfor = \"2s\"\n\
         [[link_change]]\nlink = \"a->b\"\nat = \"3s\"\nloss = 0.2\n",
    );
    assert_eq!(e.path, "link_change[1].loss");
    let e = parse_err(
        "[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\nloss = 0.1\nevery = \"20s\"\ncount = 4\n",
    );
    assert_eq!(e.path, "link_change[0].count");
}

#[test]
fn a_capacity_change_on_an_algorithm_that_cannot_follow_it_is_rejected() {
    let src = scenario(
        "10s",
        r#"capacity = "10Mbps"
delay = "5ms"
buffer = "100pkt"
algo = { kind = "rcp" }"#,
        "1Mbps",
        "[[link_change]]\nlink = \"a->b\"\nat = \"1s\"\ncapacity = \"5Mbps\"\n",
    );
    let e = Resolved::parse(&src, "t").expect_err("rejected");
    assert_eq!(e.path, "link_change[0].capacity");
    assert!(e.message.contains("rcp"), "{}", e.message);
}

#[test]
fn the_cli_names_the_place_and_writes_the_link_changes_table() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        scenario(
            "10s",
            "capacity = \"10Mbps\"\ndelay = \"5ms\"\nbuffer = \"100pkt\"",
            "1Mbps",
            "[[link_change]]\nlink = \"b->c\"\nat = \"1s\"\nloss = 0.1\n",
        ),
    )
    .unwrap();
    let (ok, text) = cli::netsim(["check", bad.to_str().unwrap()]);
    assert!(!ok && text.contains("link_change[0].link"), "{text}");
    let out = dir.path().join("out");
    let (ok, text) = cli::netsim([
        "run",
        "scenarios/examples/loss-bursts.toml",
        "--quiet",
        "--format",
        "csv",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    let table = std::fs::read_to_string(out.join("link_changes.csv")).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 1 + 8, "{table}");
    assert!(rows[0].contains("time_s") && rows[0].contains("quantity"));
    assert!(rows[1].contains("60") && rows[1].contains("r1->r2") && rows[1].contains("loss"));
    let resolved = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .filter(|f| f.path().extension().is_some_and(|x| x == "toml"))
        .map(|f| std::fs::read_to_string(f.path()).unwrap())
        .collect::<String>();
    assert!(resolved.contains("[[link_change]]"), "{resolved}");
}

#[test]
fn runs_with_changes_are_identical_at_any_thread_count() {
    let src = scenario(
        "20s",
        r#"capacity = "10Mbps"
delay = "20ms"
buffer = "50pkt"
loss = 0.01"#,
        "12Mbps",
        r#"
[[link_change]]
link = "a->b"
at = "2s"
loss = 0.1
for = "1s"
every = "3s"

[[link_change]]
link = "a->b"
direction = "both"
at = "7s"
state = "down"
for = "1s"

[[link_change]]
link = "a->b"
at = "9s"
capacity = "4Mbps"
delay = "5ms"
"#,
    );
    let r = Resolved::parse(&src, "det").unwrap();
    let digest = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            (0..4u32)
                .into_par_iter()
                .map(|rep| format!("{:?}", r.build(5, rep).unwrap().run()))
                .collect::<Vec<String>>()
        })
    };
    let one = digest(1);
    assert_eq!(one, digest(3));
    assert!(one[0] != one[1], "replications differ");
    assert!(one[0].contains("quantity: \"up\""), "state changes logged");
}

/// `direction = "both"` changes a duplex link's two directions: with a CBR
/// flow each way, each one-way latency grows by exactly the change, so the
/// round trip `a -> b -> a` grows by twice it.
#[test]
fn a_delay_change_on_both_directions_shifts_the_round_trip_by_twice_the_change() {
    let src = scenario(
        "10s",
        r#"capacity = "100Mbps"
delay = "10ms"
buffer = "100pkt""#,
        "800kbps",
        r#"
[[flows]]
name = "back"
from = "b"
to = "a"
packet_size = "1000B"
traffic = { kind = "cbr", rate = "800kbps" }

[[link_change]]
link = "a->b"
direction = "both"
at = "5s"
delay = "25ms"
"#,
    );
    let (out, ev) = run_traced(&src);
    let one_way = |link: u32, after: bool| -> Vec<u64> {
        ev.iter()
            .filter(|e| e.1 == LinkId(link) && e.2 == TraceKind::Deliver)
            .filter(|e| (secs(e.4) >= 5.0) == after)
            .map(|e| e.0.as_ps() - e.4.as_ps())
            .collect()
    };
    let tx_ps = 80_000_000;
    for link in [0, 1] {
        let before = one_way(link, false);
        let after = one_way(link, true);
        assert!(before.len() > 400 && after.len() > 400);
        assert!(before.iter().all(|&x| x == tx_ps + 10_000_000_000));
        assert!(after.iter().all(|&x| x == tx_ps + 25_000_000_000));
    }
    // Round trip: +2 x 15 ms.
    let rtt = |after: bool| one_way(0, after)[0] + one_way(1, after)[0];
    assert_eq!(rtt(true) - rtt(false), 2 * 15_000_000_000);
    assert_eq!(out.link_changes.len(), 2);
}
