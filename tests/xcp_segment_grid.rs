//! XCP with whole-segment windows: why seed 003's XCP parking lot
//! (scenarios/papers/qlb/xcp-parking-lot.toml) shares link 4 max-min only at
//! some round-trip times (zhang README, suspected issue 4; issue 6 session 30).
//!
//! [DERIVED] XCP's router equalises what the headers claim, cwnd/srtt, but a
//! window-based sender only sends whole segments (in flight + segment <=
//! cwnd), so a window of w packets sends floor(w) per RTT and its flow gets
//! floor(w)/w of its claimed rate. Link 4 of the parking lot (80 Mb/s) has 20
//! long users with ~62-packet windows (they lose about half a segment, 0.8 %)
//! and 20 local users whose max-min window, 2 Mb/s x ~31 ms, is close to 8
//! packets of 1000 B. Where the fair window falls on the segment grid decides
//! the local users' loss, and a fraction of a millisecond of round trip moves
//! it:
//! - If the window that equalises claimed rates lies inside a cell [n, n + 1),
//!   every local user sends n segments per RTT and gets n/w of its claim: the
//!   less the window is above n, the less it loses. With 0.8-ms access links
//!   the round trip grows by 3.2 ms, the max-min window is 8.40 packets, the
//!   windows settle at 8.81 (measured), every local user sends 8 segments per
//!   RTT (91 % of its claim), and the long users, equalised to the local
//!   users' claimed rate, take the rest: 2.094 / 1.905 Mb/s against max-min's
//!   2.
//! - If it would lie just below an integer there is no equilibrium on either
//!   side: below 8 the local users send 7 segments and the link has spare
//!   capacity, at 8 they send 8 and claim more than their share. The windows
//!   are pinned at the boundary (the file as it is: 8.02 +- 0.02 packets), and
//!   the time spent below it sets the loss (24 % of samples, 1.966 Mb/s).
//!
//! The test runs the file with 0.8-ms access links and checks the first case
//! against the quantisation law, and the file as it is for the pinning.

use sim_core::{GroupId, RunOutput, Subject};
use topology::sweep::set_path;
use topology::Resolved;

/// Seed 003's XCP parking lot; the test changes the access links' delay.
const FILE: &str = include_str!("../scenarios/papers/qlb/xcp-parking-lot.toml");

/// One run's figures for link 4's users.
struct Run {
    /// Mean throughput of the long users and of link 4's own users, b/s.
    long_bps: f64,
    local_bps: f64,
    /// Window samples after the warm-up, packets.
    local_windows: Vec<f64>,
    long_windows: Vec<f64>,
    /// The local users' round trip: propagation, transmission of a data
    /// packet and link 4's mean queueing delay, seconds.
    local_rtt: f64,
    /// Packet size, bits.
    packet_bits: f64,
    /// Max-min share on link 4, b/s: its capacity over its users.
    max_min_bps: f64,
}

fn group_index(doc: &toml::Table, name: &str) -> u32 {
    let flows = doc["flows"].as_array().unwrap();
    let i = flows
        .iter()
        .position(|f| f["name"].as_str() == Some(name))
        .unwrap();
    u32::try_from(i).unwrap()
}

/// The max-min share's window for a local user, packets: where it falls on
/// the segment grid decides which case the run is in.
fn fair_window(r: &Run) -> f64 {
    r.max_min_bps * r.local_rtt / r.packet_bits
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn run(access_delay_ms: f64) -> Run {
    let mut doc: toml::Table = FILE.parse().unwrap();
    let set = |doc: &mut toml::Table, path: &str, v: toml::Value| set_path(doc, path, v).unwrap();
    set(
        &mut doc,
        "topology.access.delay",
        format!("{access_delay_ms}ms").into(),
    );
    set(&mut doc, "run.sample_interval", "10ms".into());
    set(&mut doc, "run.series", vec!["flow_window"].into());
    let (long, local) = (group_index(&doc, "long"), group_index(&doc, "local4"));
    let flows = doc["flows"].as_array().unwrap();
    let bytes = |v: &toml::Value| {
        sim_core::units::parse_bytes(v.as_str().unwrap())
            .unwrap()
            .get()
    };
    let packet_bits = 8.0 * bytes(&flows[local as usize]["packet_size"]) as f64;
    assert_eq!(
        bytes(&flows[long as usize]["packet_size"]),
        bytes(&flows[local as usize]["packet_size"])
    );
    let users = (flows[long as usize]["count"].as_integer().unwrap()
        + flows[local as usize]["count"].as_integer().unwrap()) as f64;
    let topo = &doc["topology"];
    let secs = |v: &toml::Value| {
        sim_core::units::parse_duration(v.as_str().unwrap())
            .unwrap()
            .as_secs_f64()
    };
    let bps = |v: &toml::Value| sim_core::parse_rate(v.as_str().unwrap()).unwrap().bps_f64();
    // Link 4's own delay if the file gives one, else every hop's.
    let hop_delay = secs(
        topo["per_hop"][3]
            .get("delay")
            .unwrap_or(&topo["link"]["delay"]),
    );
    let access = &topo["access"];
    let (access_delay, access_bps) = (secs(&access["delay"]), bps(&access["capacity"]));
    let link4_bps = bps(&topo["per_hop"][3]["capacity"]);

    let text = toml::to_string(&doc).unwrap();
    let r = Resolved::parse(&text, "xcp-parking-lot").unwrap();
    let warmup = r.scenario.run.warmup.as_secs_f64();
    let out: RunOutput = r.build(r.scenario.run.seed, 0).unwrap().run();
    let link4 = out.links.iter().find(|l| l.name == "r3->r4").unwrap();
    assert_eq!(link4.capacity_bps, link4_bps);
    let group_rate = |g: u32| {
        let rates: Vec<f64> = out
            .flows
            .iter()
            .filter(|f| f.group == GroupId(g))
            .map(|f| f.throughput_bps().unwrap())
            .collect();
        mean(&rates)
    };
    let windows = |g: u32| -> Vec<f64> {
        let members: Vec<_> = out
            .flows
            .iter()
            .filter(|f| f.group == GroupId(g))
            .map(|f| Subject::Flow(f.flow))
            .collect();
        out.series
            .iter()
            .filter(|s| s.metric == "cwnd_bytes" && s.time >= warmup)
            .filter(|s| members.contains(&s.subject))
            .map(|s| 8.0 * s.value / packet_bits)
            .collect()
    };
    // Source -> access -> link 4 -> access -> sink and back: four access
    // delays and two of link 4's. A data packet's transmission on the two
    // access links and on link 4 is added; the 40-B ACK's (under 10 us in
    // all) is not.
    let local_rtt = 2.0 * hop_delay
        + 4.0 * access_delay
        + 2.0 * packet_bits / access_bps
        + packet_bits / link4_bps
        + link4.qdelay_mean_secs();
    Run {
        long_bps: group_rate(long),
        local_bps: group_rate(local),
        local_windows: windows(local),
        long_windows: windows(long),
        local_rtt,
        packet_bits,
        max_min_bps: link4_bps / users,
    }
}

#[test]
fn local_users_send_whole_segments_of_the_claimed_rate_xcp_equalises() {
    let r = run(0.8);
    let w_local = mean(&r.local_windows);
    let w_long = mean(&r.long_windows);
    let show = format!(
        "long {:.4} / local {:.4} Mb/s, windows {w_local:.3} / {w_long:.3} packets, local RTT {:.3} ms",
        r.long_bps / 1e6,
        r.local_bps / 1e6,
        r.local_rtt * 1e3
    );
    // The fair window lies inside a cell of the grid, [n, n + 1) (measured
    // 8.40 packets, n = 8), away from its boundaries.
    let fair = fair_window(&r);
    let n = fair.floor();
    assert!(
        fair - n > 0.2 && fair - n < 0.8,
        "fair window {fair:.3}: {show}"
    );
    // Every local window lies in [n, n + 1) (measured: mean 8.81 packets).
    let in_band = r
        .local_windows
        .iter()
        .filter(|w| (n..n + 1.0).contains(*w))
        .count();
    assert!(
        in_band as f64 >= 0.99 * r.local_windows.len() as f64,
        "{in_band} of {} local window samples in [{n}, {n} + 1): {show}",
        r.local_windows.len()
    );
    // So each local user sends n segments per round trip: the whole-segment
    // law, within 0.2 % (measured 1.9051 against 1.9053 Mb/s; the RTT leaves
    // out the ACK's transmission and the reverse queues, together ~0.03 %).
    let whole = n * r.packet_bits / r.local_rtt;
    assert!(
        (r.local_bps / whole - 1.0).abs() < 0.002,
        "{n} segments per RTT = {:.4} Mb/s: {show}",
        whole / 1e6
    );
    // XCP equalises claimed rates: the long users claim the local users'
    // w / RTT and send all but about half a segment of their window. Within
    // 1 % (measured 2.094 against 2.083 Mb/s: a ratio of mean windows, and
    // the long windows vary by more than a segment).
    let long = w_local * r.packet_bits / r.local_rtt * (1.0 - 0.5 / w_long);
    assert!(
        (r.long_bps / long - 1.0).abs() < 0.01,
        "claimed-rate equalisation predicts {:.4} Mb/s: {show}",
        long / 1e6
    );
    // Both miss max-min by more than the file's 2 % (measured 2.094 / 1.905).
    assert!(
        r.local_bps < 0.98 * r.max_min_bps && r.long_bps > 1.02 * r.max_min_bps,
        "{show}"
    );
}

#[test]
fn local_windows_are_pinned_at_the_segment_boundary_in_the_file_as_it_is() {
    let r = run(0.0);
    let w = mean(&r.local_windows);
    let sd = (mean(
        &r.local_windows
            .iter()
            .map(|x| (x - w).powi(2))
            .collect::<Vec<_>>(),
    ))
    .sqrt();
    // The fair window lies near a boundary of the grid, n (measured 7.89
    // packets, n = 8), and the windows are pinned there: measured mean 8.016
    // packets, sd 0.021.
    let fair = fair_window(&r);
    let n = fair.round();
    assert!((fair - n).abs() < 0.2, "fair window {fair:.3}");
    assert!(
        (w - n).abs() < 0.05 && sd < 0.1,
        "local windows {w:.4} +- {sd:.4} packets, fair {fair:.3}"
    );
    // Some of the time below n (sending n - 1 segments), most at or above it.
    let below =
        r.local_windows.iter().filter(|x| **x < n).count() as f64 / r.local_windows.len() as f64;
    assert!(
        below > 0.05 && below < 0.5,
        "{below:.3} of samples below {n}"
    );
    // The local users' rate lies between n - 1 and n segments per RTT, as
    // the time below sets it: n - below segments per RTT, within 0.2 %
    // (measured 24.1 % below, 1.9661 against 1.9666 Mb/s).
    let predicted = (n - below) * r.packet_bits / r.local_rtt;
    assert!(
        (r.local_bps / predicted - 1.0).abs() < 0.002,
        "predicted {:.4}, measured {:.4} Mb/s",
        predicted / 1e6,
        r.local_bps / 1e6
    );
}
