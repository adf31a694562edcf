//! `netsim reproduce`: the fast subset of every paper folder reproduces the
//! paper's numbers (CI runs this; the slow rest runs on demand), and the command
//! reports a miss with exit code 1 and a table row.

use std::path::Path;

use assert_cmd::Command;

fn netsim() -> Command {
    Command::cargo_bin("netsim").unwrap()
}

#[test]
fn the_fast_subset_of_seed_001_reproduces() {
    fast_subset_reproduces("scenarios/papers/wtp-multcp");
}

#[test]
fn the_fast_subset_of_seed_003_reproduces() {
    fast_subset_reproduces("scenarios/papers/qlb");
}

#[test]
fn the_fast_subset_of_seed_002_reproduces() {
    fast_subset_reproduces("scenarios/papers/zhang");
}

#[test]
fn the_fast_subset_of_the_tcp_response_functions_reproduces() {
    fast_subset_reproduces("scenarios/papers/tcp-family");
}

#[test]
fn the_fast_subset_of_the_congestion_pricing_thesis_reproduces() {
    fast_subset_reproduces("scenarios/papers/pricing");
}

#[test]
fn the_fast_subset_of_the_pcc_thesis_reproduces() {
    fast_subset_reproduces("scenarios/papers/pcc");
}

fn fast_subset_reproduces(folder: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let out = netsim()
        .args(["reproduce", "--fast"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "netsim reproduce --fast failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("PASS"), "{stdout}");
    assert!(!stdout.contains("MISS"), "{stdout}");
}

/// The `deviation` notes in a folder's scenario files (`[[expect]]` and
/// `[[sweep.expect]]`).
fn deviation_notes(folder: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let doc: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        let notes = |list: Option<&toml::Value>| {
            list.and_then(|v| v.as_array()).map_or(0, |a| {
                a.iter().filter(|e| e.get("deviation").is_some()).count()
            })
        };
        n += notes(doc.get("expect"));
        n += notes(doc.get("sweep").and_then(|s| s.get("expect")));
    }
    n
}

#[test]
fn each_paper_folder_carries_exactly_its_committed_number_of_deviation_notes() {
    let papers = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/papers");
    let committed = std::fs::read_to_string(papers.join("deviation-counts.txt")).unwrap();
    let mut listed = Vec::new();
    for line in committed.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (folder, count) = line.split_once(char::is_whitespace).unwrap();
        let count: usize = count.trim().parse().unwrap();
        let found = deviation_notes(&papers.join(folder));
        assert!(
            found <= count,
            "{folder}: {found} deviation notes, more than the {count} committed in \
             scenarios/papers/deviation-counts.txt; a new deviation needs its finding \
             in the folder's README and the count raised on purpose"
        );
        assert!(
            found >= count,
            "{folder}: {found} deviation notes, fewer than the {count} committed; \
             lower the count in scenarios/papers/deviation-counts.txt"
        );
        listed.push(folder.to_string());
    }
    // Every paper folder is listed.
    for entry in std::fs::read_dir(&papers).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                listed.contains(&name),
                "scenarios/papers/{name} is missing from deviation-counts.txt"
            );
        }
    }
}

#[test]
fn set_up_checks_are_counted_apart_from_paper_values_and_still_fail_on_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tiny.toml"),
        tiny("kind = \"setup\"", "kind = \"setup\""),
    )
    .unwrap();
    let out = netsim()
        .args(["reproduce", "--fast"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("1 of 2 set-up checks hold, 1 missed"),
        "{stdout}"
    );
    assert!(!stdout.contains("paper values"), "{stdout}");
    std::fs::write(dir.path().join("tiny.toml"), tiny("kind = \"setup\"", "")).unwrap();
    let out = netsim()
        .args(["reproduce", "--fast"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "0 of 1 paper values reproduced, 1 missed, 0 known deviation(s); \
             1 of 1 set-up checks hold, 0 missed"
        ),
        "{stdout}"
    );
    let e = netsim()
        .args(["reproduce", "--fast"])
        .arg({
            std::fs::write(dir.path().join("tiny.toml"), tiny("kind = \"set-up\"", "")).unwrap();
            dir.path()
        })
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&e.stderr);
    assert!(stderr.contains("kind"), "{stderr}");
}

/// A one-flow scenario with two expectations: a true one (`good` appended to
/// it) and a deliberately wrong one (`bad` appended).
fn tiny(good: &str, bad: &str) -> String {
    format!(
        r#"
# reproduce: fast
name = "tiny"
[run]
duration = "4s"
warmup = "1s"
replications = 2
seed = 3
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ capacity = "5Mbps", delay = "10ms", buffer = "30pkt" }}
access = {{ capacity = "50Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "tcp"
from = "s0"
to = "d0"
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
op = "at_least"
value = 0.5
source = "one NewReno flow fills a 5 Mb/s link"
{good}
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
op = "at_most"
value = 0.1
source = "deliberately wrong"
{bad}
"#
    )
}

#[test]
fn a_missed_reference_value_is_a_row_and_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), tiny("", "")).unwrap();
    // A slow file is skipped by --fast (it would fail to parse if it were run).
    std::fs::write(
        dir.path().join("slow.toml"),
        "# reproduce: slow\nname = \"slow\"\n[run]\nduration = \"1s\"\n",
    )
    .unwrap();
    let table = dir.path().join("table.txt");
    let out = netsim()
        .args(["reproduce", "--fast", "--out"])
        .arg(&table)
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("PASS") && stdout.contains("MISS"),
        "{stdout}"
    );
    assert!(stdout.contains("deliberately wrong"), "{stdout}");
    assert!(stdout.contains("1 of 2 paper values reproduced, 1 missed"));
    assert_eq!(std::fs::read_to_string(&table).unwrap(), stdout);
    // The same verdicts beside it as CSV (plain numbers) and Markdown.
    let csv = std::fs::read_to_string(dir.path().join("table.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let wrong: Vec<&str> = lines
        .iter()
        .find(|l| l.contains("deliberately wrong"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(wrong[at("reference")], "0.1");
    assert_eq!(wrong[at("verdict")], "MISS");
    assert!(wrong[at("netsim_mean")].parse::<f64>().is_ok(), "{csv}");
    let md = std::fs::read_to_string(dir.path().join("table.md")).unwrap();
    assert!(md.starts_with("| scenario | quantity |"), "{md}");
    assert_eq!(md.lines().nth(1), Some("|---|---|---|---|---|---|---|---|"));
    assert_eq!(md.lines().filter(|l| l.contains("| MISS |")).count(), 1);
    assert!(
        md.contains("1 of 2 paper values reproduced, 1 missed"),
        "{md}"
    );
}

#[test]
fn a_noted_deviation_is_reported_with_its_reason_and_does_not_fail() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = tiny(
        "deviation = \"stale note on a value that holds\"",
        "deviation = \"the reference is wrong on purpose\"",
    );
    std::fs::write(dir.path().join("tiny.toml"), scenario).unwrap();
    let out = netsim()
        .args(["reproduce", "--fast"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("MISS"), "{stdout}");
    // The miss is a DEVIATES row with its reason under the table; the note on
    // the passing value is flagged PASS* for re-examination.
    assert!(
        stdout.contains("DEVIATES tiny r1->r2 utilisation: the reference is wrong on purpose"),
        "{stdout}"
    );
    assert!(
        stdout.contains("PASS* tiny r1->r2 utilisation: stale note"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 of 2 paper values reproduced, 0 missed, 1 known deviation(s), 1 noted as deviating but now passing"),
        "{stdout}"
    );
    // `netsim run --check` agrees: a noted deviation does not fail the check.
    let out = netsim()
        .args(["run", "--check", "--quiet", "--out"])
        .arg(dir.path().join("out"))
        .arg(dir.path().join("tiny.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
