//! `netsim run`'s reference allocations.
//!
//! Max-min: each explicit-rate group's rate beside its max-min fair share.
//! Closed form: a 2-hop parking lot with one long flow and
//! one local flow per link, links of 10 and 20 Mb/s: water-filling gives the
//! long flow and link 1's local flow 5 Mb/s each, link 2's local flow 15 Mb/s;
//! QLB converges to them (seed 003's max-min claim on a multi-link path).

//!
//! NUM optimum: the weighted alpha-fair allocation over the same kind of
//! network, against closed forms (Zimmermann 2005 section 3.2.6: on two equal
//! links with one local flow each and one flow over both, proportional
//! fairness gives the local flows 2/3 of a link and the long flow 1/3; with
//! alpha = 2 the long flow gets c / (1 + sqrt 2)); weights change the split
//! in proportion; `[[expect]] relative_to` divides by the reference, and
//! misuse is refused with the key's place.

#[path = "common/cli.rs"]
mod cli;

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

/// Run `scenario`; (success, stdout + stderr).
fn run(scenario: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, scenario).unwrap();
    let out = dir.path().join("o");
    cli::netsim([
        "run".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ])
}

/// The table rows under the line starting with `title`: group -> (measured
/// Mb/s, reference Mb/s).
fn section(text: &str, title: &str) -> Vec<(String, f64, f64)> {
    text.lines()
        .skip_while(|l| !l.starts_with(title))
        .skip(2)
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('('))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[0].to_string(),
                w[2].parse().unwrap(),
                w[3].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn explicit_rate_groups_are_reported_beside_their_max_min_shares() {
    let (ok, stdout) = run(SCENARIO);
    assert!(ok, "{stdout}");
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

/// Two 10-Mb/s links in a row, one local flow on each, one long flow over
/// both; NewReno senders (the oracle does not depend on the controller).
fn double_bottleneck(extra: &str) -> String {
    format!(
        r#"
name = "num-2hop"
[run]
duration = "4s"
warmup = "1s"
[topology]
kind = "parking_lot"
hops = 2
link = {{ capacity = "10Mbps", delay = "5ms", buffer = "100pkt" }}
access = {{ capacity = "1Gbps", delay = "0ms", buffer = "500pkt" }}
[[flows]]
name = "long"
from = "src"
to = "dst"
[[flows]]
name = "local1"
from = "cs1"
to = "cd1"
[[flows]]
name = "local2"
from = "cs2"
to = "cd2"
{extra}
"#
    )
}

fn close(a: f64, b: f64) -> bool {
    // The report prints Mb/s with 3 decimals.
    (a - b).abs() <= 0.0015
}

#[test]
fn the_num_optimum_is_the_proportionally_fair_split() {
    let (ok, text) = run(&double_bottleneck("[oracle]\n"));
    assert!(ok, "{text}");
    assert!(
        text.contains("NUM optimum (weighted proportional fairness, alpha = 1"),
        "{text}"
    );
    let rows = section(&text, "NUM optimum");
    assert_eq!(rows.len(), 3, "{text}");
    for (g, _, opt) in &rows {
        let want = if g == "long" { 10.0 / 3.0 } else { 20.0 / 3.0 };
        assert!(close(*opt, want), "{g}: {opt} vs {want}\n{text}");
    }
}

#[test]
fn alpha_two_gives_the_minimum_potential_delay_split() {
    let (ok, text) = run(&double_bottleneck("[oracle]\nalpha = 2.0\n"));
    assert!(ok, "{text}");
    let rows = section(&text, "NUM optimum");
    let long = 10.0 / (1.0 + 2f64.sqrt());
    for (g, _, opt) in &rows {
        let want = if g == "long" { long } else { 10.0 - long };
        assert!(close(*opt, want), "{g}: {opt} vs {want}\n{text}");
    }
}

#[test]
fn relative_to_divides_by_the_reference_and_is_judged() {
    // NewReno is not proportionally fair: the ratio is judged, not assumed.
    let expect = r#"
[oracle]
[[expect]]
scope = "group"
subject = "local1"
metric = "throughput_bps"
relative_to = "num_optimum"
value = 1.0
op = "at_least"
source = "a local flow gets at least its proportionally fair share"
[[expect]]
scope = "group"
subject = "long"
metric = "throughput_bps"
relative_to = "max_min_share"
value = 1.0
op = "at_most"
source = "the long flow gets at most its max-min share (5 Mb/s)"
"#;
    let (_, text) = run(&double_bottleneck(expect));
    let rows = section(&text, "NUM optimum");
    let (_, got, opt) = rows.iter().find(|r| r.0 == "local1").unwrap().clone();
    let row = text
        .lines()
        .find(|l| l.contains("group local1 throughput_bps / NUM optimum"))
        .unwrap_or_else(|| panic!("{text}"));
    // The verdict's value is measured / optimum.
    let shown: f64 = row
        .split_whitespace()
        .find_map(|w| {
            w.parse::<f64>()
                .ok()
                .filter(|x| (x - got / opt).abs() < 0.01)
        })
        .unwrap_or_else(|| panic!("{row}: no {}", got / opt));
    assert!(shown > 0.0);
    assert_eq!(row.contains("PASS"), got / opt >= 1.0, "{row}");
    assert!(
        text.contains("group long throughput_bps / max-min share"),
        "{text}"
    );
    assert!(text.contains("Max-min fair shares (every group"), "{text}");
}

#[test]
fn misuse_names_the_key() {
    for (extra, place) in [
        ("[oracle]\nalpha = 0.0\n", "oracle.alpha"),
        ("[oracle]\nalfa = 1.0\n", "alfa"),
        (
            "[[expect]]\nscope = \"link\"\nsubject = \"r1->r2\"\nmetric = \"throughput_bps\"\nrelative_to = \"num_optimum\"\nvalue = 1.0\nsource = \"x\"\n",
            "expect[0].relative_to",
        ),
        (
            "[[expect]]\nscope = \"group\"\nsubject = \"long\"\nmetric = \"drops\"\nrelative_to = \"num_optimum\"\nvalue = 1.0\nsource = \"x\"\n",
            "expect[0].metric",
        ),
        (
            "[[expect]]\nscope = \"group\"\nsubject = \"long\"\nmetric = \"throughput_bps\"\nrelative_to = \"nash\"\nvalue = 1.0\nsource = \"x\"\n",
            "nash",
        ),
    ] {
        let (ok, text) = run(&double_bottleneck(extra));
        assert!(!ok, "{extra}: accepted\n{text}");
        assert!(text.contains(place), "{extra}: {text}");
    }
}
