//! `netsim run` prints each explicit-rate group's rate beside its max-min fair
//! share (issue 5). Closed form: a 2-hop parking lot with one long flow and
//! one local flow per link, links of 10 and 20 Mb/s: water-filling gives the
//! long flow and link 1's local flow 5 Mb/s each, link 2's local flow 15 Mb/s;
//! QLB converges to them (seed 003's max-min claim on a multi-link path).

use assert_cmd::Command;

const SCENARIO: &str = r#"
name = "maxmin-2hop"
[run]
duration = "20s"
warmup = "10s"
replications = 1
seed = 1
[topology]
kind = "parking_lot"
hops = 2
link = { capacity = "20Mbps", delay = "5ms", buffer = "500pkt", algo = { kind = "qlb", q_ref = "20pkt" }, reverse = { algo = { kind = "drop_tail" } } }
per_hop = [{ capacity = "10Mbps" }]
access = { capacity = "1Gbps", delay = "0ms", buffer = "500pkt" }
[[flows]]
name = "long"
from = "src"
to = "dst"
cc = { kind = "qlb" }
[[flows]]
name = "local1"
from = "cs1"
to = "cd1"
cc = { kind = "qlb" }
[[flows]]
name = "local2"
from = "cs2"
to = "cd2"
cc = { kind = "qlb" }
"#;

#[test]
fn explicit_rate_groups_are_reported_beside_their_max_min_shares() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, SCENARIO).unwrap();
    let out = Command::cargo_bin("netsim")
        .unwrap()
        .args([
            "run",
            f.to_str().unwrap(),
            "--out",
            dir.path().join("o").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let section: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("Max-min fair shares"))
        .take(5)
        .collect();
    assert!(section.len() >= 5, "{stdout}");
    let share = |group: &str| -> f64 {
        let row = section.iter().find(|l| l.starts_with(group)).unwrap();
        row.split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    assert_eq!(share("long "), 5.0);
    assert_eq!(share("local1"), 5.0);
    assert_eq!(share("local2"), 15.0);
    // And QLB reaches them: measured/max-min within 2 % for every group.
    for g in ["long ", "local1", "local2"] {
        let row = section.iter().find(|l| l.starts_with(g)).unwrap();
        let ratio: f64 = row.split_whitespace().nth(4).unwrap().parse().unwrap();
        assert!((ratio - 1.0).abs() < 0.02, "{row}");
    }
}
