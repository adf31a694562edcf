//! `[[sweep.expect]]`: expectations about a sweep's curve, judged by
//! `netsim sweep` (exit 1 with `--check` on a miss) and by `netsim reproduce`
//! without `--fast`.
//!
//! The reference is a closed form: a constant-bit-rate source below the
//! bottleneck's capacity loses nothing, so its throughput equals its rate and
//! the curve of throughput against rate is a line of slope 1.

use std::path::Path;

use assert_cmd::Command;

fn scenario(expects: &str) -> String {
    format!(
        r#"
# reproduce: fast
name = "cbr-curve"
[run]
duration = "3s"
warmup = "1s"
replications = 2
seed = 5
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ capacity = "10Mbps", delay = "5ms", buffer = "100pkt" }}
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "cbr"
from = "s0"
to = "d0"
traffic = {{ kind = "cbr", rate = "1Mbps" }}
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "dropped_pkts"
op = "at_most"
value = 0.0
source = "below capacity nothing is lost"
[sweep]
[[sweep.param]]
key = "flows.cbr.traffic.rate"
name = "rate"
values = ["1Mbps", "2Mbps", "4Mbps", "8Mbps"]
{expects}
"#
    )
}

const SLOPE_ONE: &str = r#"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
shape = "slope"
value = 1.0
tolerance = 0.01
source = "CBR below capacity: throughput = rate"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "rate <= 4000000"
shape = "increasing"
source = "more rate, more throughput"
"#;

const WRONG: &str = r#"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
shape = "decreasing"
source = "deliberately wrong"
"#;

fn netsim(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::cargo_bin("netsim")
        .unwrap()
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_slope_and_a_monotone_curve_pass_and_a_wrong_shape_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cbr.toml");
    std::fs::write(&f, scenario(&format!("{SLOPE_ONE}{WRONG}"))).unwrap();
    let out = dir.path().join("store");
    let args = |check: bool| {
        let mut a = vec!["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()];
        if check {
            a.push("--check");
        }
        a
    };
    let o = netsim(&args(false), dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}");
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("cbr-curve "))
        .collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(
        rows[0].contains("slope 1 ") && rows[0].ends_with("PASS"),
        "{}",
        rows[0]
    );
    // The increasing curve over the three points the `where` keeps.
    assert!(
        rows[1].contains("(3 points)") && rows[1].ends_with("PASS"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains("fails from rate") && rows[2].ends_with("MISS"),
        "{}",
        rows[2]
    );
    // --check turns the miss into exit code 1 (the runs are reused).
    let o = netsim(&args(true), dir.path());
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn reproduce_without_fast_judges_the_curves_and_with_fast_does_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cbr.toml"), scenario(SLOPE_ONE)).unwrap();
    let d = dir.path().to_str().unwrap();
    let o = netsim(&["reproduce", d], dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("cbr-curve (sweep)"), "{stdout}");
    assert!(
        stdout.contains("3 of 3 reference values reproduced"),
        "{stdout}"
    );
    // The campaign went to the default store, relative to the working directory.
    assert!(dir
        .path()
        .join("out/cbr-curve-sweep/manifest.toml")
        .is_file());
    let o = netsim(&["reproduce", "--fast", d], dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(!stdout.contains("(sweep)"), "{stdout}");
    assert!(
        stdout.contains("1 of 1 reference values reproduced"),
        "{stdout}"
    );
}

#[test]
fn a_curve_expectation_naming_no_parameter_is_an_error_with_its_key_path() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SLOPE_ONE.replacen("against = \"rate\"", "against = \"speed\"", 1);
    let f = dir.path().join("bad.toml");
    std::fs::write(&f, scenario(&bad)).unwrap();
    let o = netsim(&["check", f.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("sweep.expect[0].against") && err.contains("unknown parameter `speed`"),
        "{err}"
    );
}
