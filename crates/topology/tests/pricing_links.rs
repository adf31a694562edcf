//! Seed 000's pricing links (`rem`, `sbrm`, `adaptive_red`, the
//! `real_queue` virtual queue) from scenario TOML: they parse, build, run
//! and mark ECN-capable TCP; a link that writes price headers refuses a
//! flow that carries none.

use topology::Resolved;

/// A dumbbell whose bottleneck runs `algo`, with two ECN-capable NewReno flows.
fn dumbbell(algo: &str) -> String {
    format!(
        r#"
[run]
duration = "20s"
warmup = "10s"

[topology]
kind = "dumbbell"
pairs = 2
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "300pkt" }}

[topology.bottleneck]
capacity = "10Mbps"
delay = "10ms"
buffer = "300pkt"
algo = {algo}

[[flows]]
name = "tcp"
count = 2
from = "s{{i}}"
to = "d{{i}}"
tcp = {{ ecn = true, min_rto = "200ms" }}
"#
    )
}

#[test]
fn each_pricing_link_marks_ecn_capable_tcp_at_a_busy_bottleneck() {
    for algo in [
        r#"{ kind = "rem" }"#,
        r#"{ kind = "rem", price_rule = "pc2", gamma = 0.05, b0 = 20, mark_at = "arrival" }"#,
        r#"{ kind = "sbrm" }"#,
        r#"{ kind = "sbrm", price_rule = "pc3" }"#,
        r#"{ kind = "adaptive_red", min_th = 25, max_th = 75 }"#,
        r#"{ kind = "virtual_queue", theta = 0.9, variant = "real_queue" }"#,
    ] {
        let r = Resolved::parse(&dumbbell(algo), "d").unwrap_or_else(|e| panic!("{algo}: {e}"));
        let out = r.build(1, 0).unwrap().run();
        let b = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
        assert!(
            b.utilisation() > 0.8,
            "{algo}: utilisation {}",
            b.utilisation()
        );
        assert!(b.counters.marked_total().pkts > 0, "{algo}: no marks");
        let ce: u64 = out.flows.iter().map(|f| f.total.ce_pkts).sum();
        assert!(ce > 0, "{algo}: no CE reached a receiver");
    }
}

#[test]
fn a_price_header_link_rejects_a_flow_without_price_headers() {
    for feedback in ["explicit", "four_bit"] {
        let algo = format!(r#"{{ kind = "rem", feedback = "{feedback}" }}"#);
        let Err(e) = Resolved::parse(&dumbbell(&algo), "d") else {
            panic!("{feedback}: accepted")
        };
        let msg = e.to_string();
        assert!(
            msg.contains("flows[0]") && msg.contains("Price") && msg.contains("`rem`"),
            "{feedback}: {msg}"
        );
    }
}

#[test]
fn a_bad_pricing_parameter_is_named_with_its_place() {
    for (algo, key) in [
        (r#"{ kind = "rem", gamma = -1 }"#, "algo.gamma"),
        (r#"{ kind = "sbrm", b0 = 400 }"#, "algo.q_max"),
        (r#"{ kind = "adaptive_red", top = 2 }"#, "algo.top"),
    ] {
        let Err(e) = Resolved::parse(&dumbbell(algo), "d") else {
            panic!("{algo}: accepted")
        };
        assert!(e.to_string().contains(key), "{algo}: {e}");
    }
}
