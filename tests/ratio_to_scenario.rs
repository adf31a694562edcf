//! `[[expect]] ratio_to_scenario`: a metric over the same metric of another
//! scenario file's runs, replication by replication (Zimmermann (2005)
//! compares REM's backlog with EPF's from two separate runs). Closed form: a
//! 3-Mb/s constant-bit-rate source on a 10-Mb/s link uses 0.3 of it, the same
//! source on a 20-Mb/s link 0.15: the ratio is 2 in every replication. The
//! compared file is found relative to the scenario's own directory, run with
//! the scenario's replication count, and a missing or broken one is an error
//! naming the expectation.

#[path = "common/cli.rs"]
mod cli;

fn scenario(capacity: &str, expects: &str) -> String {
    format!(
        r#"
name = "cbr-{capacity}"
[run]
duration = "3s"
replications = 2
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ capacity = "{capacity}", delay = "1ms", buffer = "100pkt" }}
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "a"
from = "s0"
to = "d0"
packet_size = "1000B"
traffic = {{ kind = "cbr", rate = "3Mbps" }}
{expects}
"#
    )
}

fn expect(file: &str, value: f64) -> String {
    format!(
        r#"
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
ratio_to_scenario = "{file}"
value = {value}
tolerance = 0.001
source = "closed form"
"#
    )
}

/// Write `main` as `dir/main.toml` and `other` (if any) as
/// `dir/sub/other.toml`; run `netsim <cmd>` on main: (success, output).
fn run(cmd: &str, main: &str, other: Option<&str>) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let f = dir.path().join("main.toml");
    std::fs::write(&f, main).unwrap();
    if let Some(o) = other {
        std::fs::write(dir.path().join("sub/other.toml"), o).unwrap();
    }
    let mut args = vec![cmd.to_string(), f.to_str().unwrap().to_string()];
    if cmd == "run" {
        args.extend([
            "--out".into(),
            dir.path().join("out").to_str().unwrap().to_string(),
            "--check".into(),
            "--format".into(),
            "csv".into(),
        ]);
    }
    cli::netsim(&args)
}

#[test]
fn the_ratio_to_another_scenario_is_formed_per_replication() {
    let other = scenario("20Mbps", "");
    let (ok, text) = run(
        "run",
        &scenario("10Mbps", &expect("sub/other.toml", 2.0)),
        Some(&other),
    );
    assert!(ok, "{text}");
    assert!(
        text.contains("r1->r2 utilisation / sub/other.toml"),
        "{text}"
    );
    assert!(text.contains("PASS"), "{text}");
    // A wrong reference fails --check.
    let (ok, text) = run(
        "run",
        &scenario("10Mbps", &expect("sub/other.toml", 1.5)),
        Some(&other),
    );
    assert!(!ok && text.contains("MISS"), "{text}");
    // `netsim check` names the compared file.
    let (ok, text) = run(
        "check",
        &scenario("10Mbps", &expect("sub/other.toml", 2.0)),
        Some(&other),
    );
    assert!(
        ok && text.contains("compared with sub/other.toml"),
        "{text}"
    );
}

#[test]
fn a_missing_or_broken_compared_file_names_the_expectation() {
    for (name, other) in [
        ("missing", None),
        ("broken", Some("[run]\nduration = \"soon\"\n")),
    ] {
        for cmd in ["check", "run"] {
            let (ok, text) = run(
                cmd,
                &scenario("10Mbps", &expect("sub/other.toml", 2.0)),
                other,
            );
            assert!(!ok, "{name} {cmd}: {text}");
            assert!(
                text.contains("expect[0].ratio_to_scenario"),
                "{name} {cmd}: {text}"
            );
        }
    }
    // Only one kind of ratio at a time.
    let both = expect("sub/other.toml", 2.0).replace(
        "ratio_to_scenario",
        "ratio_to = \"s0->r1\"\nratio_to_scenario",
    );
    let (ok, text) = run("check", &scenario("10Mbps", &both), None);
    assert!(
        !ok && text.contains("expect[0].ratio_to_scenario"),
        "{text}"
    );
}
