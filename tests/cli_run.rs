//! `netsim run`: outputs, determinism across thread counts, expectations, plots.

use std::path::Path;

use assert_cmd::Command;

const SCENARIO: &str = r#"
name = "cli-test"

[run]
duration = "6s"
warmup = "1s"
replications = 3
seed = 5
sample_interval = "250ms"
series = ["flow_window", "flow_rate", "link_queue"]

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { capacity = "5Mbps", delay = "10ms", buffer = "30pkt" }
access = { capacity = "50Mbps", delay = "1ms", buffer = "100pkt" }

[[flows]]
name = "tcp"
count = 2
from = "s{i}"
to = "d{i}"
start_jitter = "500ms"
tcp = { min_rto = "200ms" }

[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
op = "at_least"
value = 0.5
source = "two NewReno flows keep a 30-packet buffer busy"
"#;

fn write_scenario(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn run(scenario: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("netsim")
        .unwrap()
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--format", "csv"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn run_writes_every_table_and_the_resolved_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let out = dir.path().join("out");
    let o = run(&s, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "runs.csv",
        "flows.csv",
        "links.csv",
        "summary.csv",
        "series.csv",
        "report.txt",
        "scenario.resolved.toml",
    ] {
        let p = out.join(f);
        assert!(
            p.exists() && std::fs::metadata(&p).unwrap().len() > 0,
            "{f} missing"
        );
    }
    // No temporary files are left behind.
    for e in std::fs::read_dir(&out).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(!name.starts_with('.'), "leftover {name}");
    }
    // The resolved scenario is itself a valid scenario with the defaults filled in.
    let resolved = std::fs::read_to_string(out.join("scenario.resolved.toml")).unwrap();
    assert!(resolved.contains("min_rto = \"200ms\""));
    assert!(resolved.contains("dupack_threshold = 3"));
    let again = dir.path().join("again.toml");
    std::fs::write(&again, &resolved).unwrap();
    let c = Command::cargo_bin("netsim")
        .unwrap()
        .arg("check")
        .arg(&again)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
}

#[test]
fn outputs_are_identical_on_one_two_and_a_hundred_thousand_threads() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    assert!(run(&s, &a, &["--threads", "1"]).status.success());
    assert!(run(&s, &b, &["--threads", "2"]).status.success());
    // More threads than the 3 replications start only 3 (100 000 once spent
    // minutes starting idle threads).
    assert!(run(&s, &c, &["--threads", "100000"]).status.success());
    for f in ["flows.csv", "links.csv", "series.csv"] {
        let x = std::fs::read(a.join(f)).unwrap();
        for (other, n) in [(&b, 2), (&c, 100_000)] {
            let y = std::fs::read(other.join(f)).unwrap();
            assert!(x == y, "{f} differs between 1 and {n} threads");
        }
    }
}

#[test]
fn a_missed_expectation_fails_only_with_check() {
    let dir = tempfile::tempdir().unwrap();
    let text = SCENARIO.replace(
        "op = \"at_least\"\nvalue = 0.5",
        "op = \"at_least\"\nvalue = 1.5",
    );
    let s = write_scenario(dir.path(), &text);
    let out = dir.path().join("out");
    assert!(run(&s, &out, &[]).status.success());
    let o = run(&s, &out, &["--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 of 1 paper values reproduced, 1 missed"));
}

#[test]
fn the_report_prints_confidence_intervals_and_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let o = Command::cargo_bin("netsim")
        .unwrap()
        .arg("run")
        .arg(&s)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("±"), "{text}");
    assert!(text.contains("PASS"), "{text}");
    assert!(text.contains("r1->r2"), "{text}");
}

#[test]
fn plots_are_rendered_by_run_and_by_plot() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let out = dir.path().join("out");
    let o = run(&s, &out, &["--plot", "--replications", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let count = |ext: &str| {
        std::fs::read_dir(&out)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == ext)
            })
            .count()
    };
    assert!(count("png") >= 2 && count("svg") >= 2);
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "png" || x == "svg") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let o = Command::cargo_bin("netsim")
        .unwrap()
        .arg("plot")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(count("png") >= 2 && count("svg") >= 2);
}

#[test]
fn a_killed_run_leaves_the_previous_complete_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let out = dir.path().join("out");
    assert!(run(&s, &out, &[]).status.success());
    let before = std::fs::read(out.join("flows.csv")).unwrap();
    // A long run of the same scenario into the same directory, killed mid-way.
    let long = write_scenario(
        dir.path(),
        &SCENARIO.replace("duration = \"6s\"", "duration = \"100000s\""),
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("netsim"))
        .arg("run")
        .arg(&long)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--format", "csv"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the long run should still be going"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(std::fs::read(out.join("flows.csv")).unwrap(), before);
    assert!(out.join("scenario.resolved.toml").exists());
    for e in std::fs::read_dir(&out).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(!name.starts_with('.'), "leftover {name}");
    }
}
