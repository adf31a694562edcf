//! Presets expand to the documented structures and scenarios build and run.

use topology::Resolved;

const DUMBBELL: &str = r#"
[run]
duration = "20s"
warmup = "5s"

[topology]
kind = "dumbbell"
pairs = 3
bottleneck = { capacity = "10Mbps", delay = "20ms", buffer = "50pkt", reverse = { loss = 0.1 } }
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }

[[flows]]
name = "tcp"
count = 3
from = "s{i}"
to = "d{i}"
tcp = { min_rto = "200ms" }
"#;

#[test]
fn a_dumbbell_has_two_routers_and_duplex_links() {
    let r = Resolved::parse(DUMBBELL, "d").unwrap();
    // 3 senders + 2 routers + 3 receivers; 1 bottleneck + 3 access + 3 egress, duplex.
    assert_eq!(r.graph.nodes.len(), 8);
    assert_eq!(r.graph.links.len(), 14);
    assert_eq!(r.graph.links[0].name, "r1->r2");
    assert_eq!(r.graph.links[1].name, "r2->r1");
    assert_eq!(r.graph.links[1].loss, 0.1);
    let names: Vec<_> = r.groups[0].routes[2]
        .0
        .iter()
        .map(|&l| r.graph.links[l].name.clone())
        .collect();
    assert_eq!(names, ["s2->r1", "r1->r2", "r2->d2"]);
}

#[test]
fn three_newreno_flows_fill_the_dumbbell_bottleneck() {
    let mut r = Resolved::parse(DUMBBELL, "d").unwrap();
    r.scenario.topology = match r.scenario.topology.take() {
        Some(topology::scenario::Preset::Dumbbell(mut d)) => {
            d.bottleneck.reverse = None;
            Some(topology::scenario::Preset::Dumbbell(d))
        }
        other => other,
    };
    let r = Resolved::from_scenario(r.scenario, "d").unwrap();
    let out = r.build(1, 0).unwrap().run();
    let b = out.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert!(b.utilisation() > 0.95, "utilisation {}", b.utilisation());
    let goodput: f64 = out.flows.iter().map(|f| f.goodput_bps().unwrap()).sum();
    // Goodput cannot exceed capacity; with a 50-packet buffer it is close to it.
    assert!(goodput <= 10e6 * 1.001 && goodput > 9.0e6, "{goodput}");
}

#[test]
fn a_parking_lot_chains_routers_and_attaches_cross_hosts() {
    let src = r#"
[run]
duration = "5s"

[topology]
kind = "parking_lot"
hops = 3
link = { capacity = "10Mbps", delay = "5ms", buffer = "50pkt" }
per_hop = [{}, { capacity = "5Mbps" }]
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }

[[flows]]
name = "long"
from = "src"
to = "dst"

[[flows]]
name = "cross"
count = 3
from = ["cs1", "cs2", "cs3"]
to = ["cd1", "cd2", "cd3"]
"#;
    let r = Resolved::parse(src, "p").unwrap();
    let long: Vec<_> = r.groups[0].routes[0]
        .0
        .iter()
        .map(|&l| r.graph.links[l].name.clone())
        .collect();
    assert_eq!(long, ["src->r0", "r0->r1", "r1->r2", "r2->r3", "r3->dst"]);
    let cross: Vec<_> = r.groups[1].routes[1]
        .0
        .iter()
        .map(|&l| r.graph.links[l].name.clone())
        .collect();
    assert_eq!(cross, ["cs2->r1", "r1->r2", "r2->cd2"]);
    let hop2 = r.graph.links.iter().find(|l| l.name == "r1->r2").unwrap();
    assert_eq!(hop2.capacity.bps(), 5_000_000);
    let out = r.build(1, 0).unwrap().run();
    assert!(out.flows.iter().all(|f| f.total.goodput_bytes > 0));
}

#[test]
fn poisson_arrivals_create_finite_flows_that_complete() {
    let src = r#"
[run]
duration = "30s"

[[nodes]]
name = "a"
[[nodes]]
name = "b"

[[links]]
from = "a"
to = "b"
capacity = "10Mbps"
delay = "10ms"
buffer = "100pkt"

[[flows]]
name = "mice"
from = "a"
to = "b"
stop = "20s"
traffic = { kind = "poisson_arrivals", rate = 2.0, size = { dist = "exponential", mean = "50KB" } }
"#;
    let r = Resolved::parse(src, "m").unwrap();
    let out = r.build(3, 0).unwrap().run();
    // 2 flows/s for 20 s: Poisson(40), sd 6.3; accept 5 sd.
    let n = out.flows.len() as f64;
    assert!((n - 40.0).abs() < 5.0 * 40f64.sqrt(), "{n} flows");
    // Light load (mean 0.8 Mb/s on 10 Mb/s): every flow finishes, with all its bytes.
    for f in &out.flows {
        assert!(f.finish.is_some(), "flow {:?} did not finish", f.flow);
        assert!(f.fct_secs().unwrap() > 0.02);
    }
}

#[test]
fn access_delays_can_grow_by_a_step_per_pair() {
    let src = DUMBBELL.replace(
        "access = { capacity = \"100Mbps\", delay = \"1ms\", buffer = \"100pkt\" }",
        "access = { capacity = \"100Mbps\", delay = \"20ms\", buffer = \"100pkt\" }\naccess_delay_step = \"0.5ms\"",
    );
    let r = Resolved::parse(&src, "d").unwrap();
    let delay = |name: &str| {
        let l = r.graph.links.iter().find(|l| l.name == name).unwrap();
        l.delay.as_secs_f64() * 1e3
    };
    // Seed 003: user i's access link is 20 + 0.5 i ms (both directions).
    for (i, want) in [20.0, 20.5, 21.0].iter().enumerate() {
        assert!((delay(&format!("s{i}->r1")) - want).abs() < 1e-9);
        assert!((delay(&format!("r1->s{i}")) - want).abs() < 1e-9);
    }
    let both = src.replace(
        "access_delay_step = \"0.5ms\"",
        "access_delay_step = \"0.5ms\"\naccess_delays = [\"1ms\"]",
    );
    let e = Resolved::parse(&both, "d").unwrap_err().to_string();
    assert!(e.contains("topology.access_delay_step"), "{e}");
}
