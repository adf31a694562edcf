//! `netsim sweep`, `netsim collect` and `netsim slurm` (scripts only; the cluster
//! itself is exercised by `tests/slurm.rs`): the campaign store, resume after a
//! kill, failure records, shards, and agreement with `netsim run`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// 2 capacities x 2 buffers; the base values (5 Mb/s, 30 packets) are point 1.
const SWEEP: &str = r#"
name = "sweep-test"

[run]
duration = "6s"
warmup = "1s"
replications = 3
seed = 11

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

[sweep]
[[sweep.param]]
key = "topology.bottleneck.capacity"
name = "capacity"
values = ["5Mbps", "10Mbps"]
[[sweep.param]]
key = "topology.bottleneck.buffer"
name = "buffer"
values = ["10pkt", "30pkt"]
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn netsim(args: &[&str]) -> Output {
    Command::cargo_bin("netsim")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn sweep(scenario: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sweep", s(scenario), "--out", s(out), "--format", "csv"];
    args.extend_from_slice(extra);
    netsim(&args)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn parts(out: &Path) -> usize {
    std::fs::read_dir(out.join("parts"))
        .map(|d| {
            // Hidden files are temporaries of atomic writes, not parts.
            d.filter(|e| {
                let name = e.as_ref().unwrap().file_name().into_string().unwrap();
                name.ends_with(".parquet") && !name.starts_with('.')
            })
            .count()
        })
        .unwrap_or(0)
}

/// CSV rows as maps from column name to field (no quoted commas in these tables).
fn csv_rows(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn a_sweep_point_equals_netsim_run_of_the_same_values() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    ok(&sweep(&sc, &out, &["--quiet"]));
    assert_eq!(parts(&out), 12);
    let run_out = t.path().join("run");
    ok(&netsim(&[
        "run",
        s(&sc),
        "--out",
        s(&run_out),
        "--format",
        "csv",
        "--quiet",
    ]));
    let camp = csv_rows(&read(&out.join("summary.csv")));
    let single = csv_rows(&read(&run_out.join("summary.csv")));
    // Point 1 is capacity=5Mbps, buffer=30pkt: the file's own values, and with
    // common random numbers the same seeds as `netsim run`.
    let p1: Vec<_> = camp.iter().filter(|r| r["point"] == "1").collect();
    assert!(p1
        .iter()
        .all(|r| r["capacity"] == "5Mbps" && r["buffer"] == "30pkt"));
    assert_eq!(p1[0]["capacity_value"], "5000000.0");
    let key = |r: &BTreeMap<String, String>| {
        (
            r["scope"].clone(),
            r["subject"].clone(),
            r["metric"].clone(),
        )
    };
    let wall = ["wall_s", "events_per_wall_s"];
    let expected: BTreeMap<_, _> = single
        .iter()
        .filter(|r| !wall.contains(&r["metric"].as_str()))
        .map(|r| {
            (
                key(r),
                (r["n"].clone(), r["mean"].clone(), r["ci95_half"].clone()),
            )
        })
        .collect();
    let got: BTreeMap<_, _> = p1
        .iter()
        .map(|r| {
            (
                key(r),
                (r["n"].clone(), r["mean"].clone(), r["ci95_half"].clone()),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // Other points differ: the sweep did change the scenario.
    let util = |p: &str| {
        camp.iter()
            .find(|r| r["point"] == p && r["subject"] == "r1->r2" && r["metric"] == "utilisation")
            .map(|r| r["mean"].clone())
            .unwrap()
    };
    assert_ne!(util("0"), util("1"));
    // Nothing to do the second time, and the tables are unchanged.
    let before = read(&out.join("summary.csv"));
    let again = sweep(&sc, &out, &[]);
    ok(&again);
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 to run, 12 already done"));
    assert_eq!(read(&out.join("summary.csv")), before);
}

#[test]
fn results_do_not_depend_on_threads_or_shards() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let one = t.path().join("one");
    let two = t.path().join("two");
    ok(&sweep(&sc, &one, &["--threads", "1", "--quiet"]));
    ok(&sweep(&sc, &two, &["--threads", "2", "--quiet"]));
    let sharded = t.path().join("sharded");
    let mut seen = 0;
    for task in 0..5 {
        let o = sweep(
            &sc,
            &sharded,
            &["--task", &task.to_string(), "--tasks", "5"],
        );
        ok(&o);
        let now = parts(&sharded);
        // 12 runs over 5 shards: shards 0 and 1 have 3 runs, the others 2.
        assert_eq!(now - seen, if task < 2 { 3 } else { 2 }, "shard {task}");
        seen = now;
        assert!(
            !sharded.join("summary.csv").exists(),
            "a shard does not collect"
        );
    }
    ok(&netsim(&["collect", s(&sharded), "--format", "csv"]));
    for table in ["summary.csv", "metrics.csv"] {
        let a = read(&one.join(table));
        assert_eq!(a, read(&two.join(table)), "{table}: 1 vs 2 threads");
        assert_eq!(a, read(&sharded.join(table)), "{table}: local vs shards");
    }
    let bad = sweep(&sc, &sharded, &["--task", "5", "--tasks", "5"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("0..5"));
}

/// 4 points of longer runs so a kill lands in the middle of the campaign.
fn slow_sweep() -> String {
    SWEEP
        .replace("duration = \"6s\"", "duration = \"40s\"")
        .replace("capacity = \"50Mbps\"", "capacity = \"200Mbps\"")
        .replace(
            "values = [\"5Mbps\", \"10Mbps\"]",
            "values = [\"50Mbps\", \"100Mbps\"]",
        )
}

#[test]
fn a_killed_campaign_resumes_to_the_same_tables() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "slow.toml", &slow_sweep());
    let killed = t.path().join("killed");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("netsim"))
        .args(["sweep", s(&sc), "--out", s(&killed), "--format", "csv"])
        .args(["--threads", "1", "--quiet"])
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while parts(&killed) < 2 {
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = parts(&killed);
    assert!((2..12).contains(&done), "{done} parts at the kill");
    assert!(!killed.join("summary.csv").exists());
    // The run in progress is reported as killed, not as done.
    let st = sweep(&sc, &killed, &["--status"]);
    ok(&st);
    let text = String::from_utf8_lossy(&st.stdout).to_string();
    assert!(text.contains(&format!("done {done} |")), "{text}");
    // The kill almost always lands inside a run (whose `.started` marker stays);
    // between two runs there is no marker and nothing failed. A kill between
    // writing a part and removing its marker leaves a stale marker beside a
    // complete part: that run is done, not killed.
    let dir = killed.join("parts");
    let started = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".started").map(str::to_string))
        .filter(|stem| !stem.starts_with('.'))
        .filter(|stem| !dir.join(format!("{stem}.parquet")).exists())
        .count();
    assert!(started <= 1);
    assert!(text.contains(&format!("failed {started} |")), "{text}");
    assert_eq!(
        text.contains("killed: started by process"),
        started == 1,
        "{text}"
    );
    // collect refuses an incomplete campaign and says what is missing.
    let c = netsim(&["collect", s(&killed)]);
    assert_eq!(c.status.code(), Some(2));
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(
        err.contains(&format!("{} of 12 runs are not done", 12 - done)),
        "{err}"
    );
    assert!(err.contains("--partial"), "{err}");
    // Resume, then compare with an uninterrupted campaign.
    let resumed = sweep(&sc, &killed, &["--threads", "2"]);
    ok(&resumed);
    assert!(String::from_utf8_lossy(&resumed.stdout)
        .contains(&format!("{} to run, {done} already done", 12 - done)));
    let clean = t.path().join("clean");
    ok(&sweep(&sc, &clean, &["--quiet"]));
    for table in ["summary.csv", "metrics.csv"] {
        assert_eq!(
            read(&killed.join(table)),
            read(&clean.join(table)),
            "{table}"
        );
    }
    let leftovers: Vec<_> = std::fs::read_dir(killed.join("parts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.ends_with(".parquet") && !n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_failing_run_is_recorded_and_collect_reports_it() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    let o = Command::cargo_bin("netsim")
        .unwrap()
        .args([
            "sweep",
            s(&sc),
            "--out",
            s(&out),
            "--format",
            "csv",
            "--quiet",
        ])
        .env("NETSIM_FAIL_INJECT", "2:1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 12 runs failed"));
    assert_eq!(parts(&out), 11);
    let st = String::from_utf8_lossy(&sweep(&sc, &out, &["--status"]).stdout).to_string();
    assert!(
        st.contains("replication 1: panicked: injected failure"),
        "{st}"
    );
    let c = netsim(&["collect", s(&out)]);
    assert_eq!(c.status.code(), Some(2));
    let err = String::from_utf8_lossy(&c.stderr);
    assert!(
        err.contains("1 of 12 runs are not done (1 failed)"),
        "{err}"
    );
    assert!(
        err.contains("point 2 (capacity=10Mbps, buffer=10pkt) replication 1"),
        "{err}"
    );
    ok(&netsim(&[
        "collect",
        s(&out),
        "--partial",
        "--format",
        "csv",
    ]));
    let runs = csv_rows(&read(&out.join("runs.csv")));
    let failed: Vec<_> = runs.iter().filter(|r| r["status"] == "failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(
        (
            failed[0]["point"].as_str(),
            failed[0]["replication"].as_str()
        ),
        ("2", "1")
    );
    assert!(failed[0]["error"].contains("injected failure"));
    let summary = csv_rows(&read(&out.join("summary.csv")));
    let n = |p: &str| {
        summary
            .iter()
            .find(|r| r["point"] == p && r["metric"] == "utilisation" && r["subject"] == "r1->r2")
            .map(|r| r["n"].clone())
            .unwrap()
    };
    assert_eq!((n("1"), n("2")), ("3".to_string(), "2".to_string()));
    // Re-running retries the failed run only; the failure record goes away.
    let again = sweep(&sc, &out, &["--quiet"]);
    ok(&again);
    assert_eq!(parts(&out), 12);
    assert!(std::fs::read_dir(out.join("parts")).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".failed")));
}

#[test]
fn more_replications_reuse_the_finished_ones() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    ok(&sweep(&sc, &out, &["--replications", "2", "--quiet"]));
    assert_eq!(parts(&out), 8);
    let o = sweep(&sc, &out, &["--replications", "3"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 to run, 8 already done"));
    let clean = t.path().join("clean");
    ok(&sweep(&sc, &clean, &["--quiet"]));
    assert_eq!(
        read(&out.join("metrics.csv")),
        read(&clean.join("metrics.csv"))
    );
}

/// A kill between writing a run's part and removing its marker leaves a
/// stale `.started` (and possibly `.failed`) beside a complete part; the
/// next sweep counts the run as done and removes them, so the store ends
/// clean.
#[test]
fn a_resumed_sweep_removes_stale_markers_of_done_runs() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    ok(&sweep(&sc, &out, &["--replications", "1", "--quiet"]));
    let dir = out.join("parts");
    let part = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "parquet"))
        .unwrap();
    let started = part.with_extension("started");
    let failed = part.with_extension("failed");
    std::fs::write(&started, "host 1 0\n").unwrap();
    std::fs::write(&failed, "killed\n").unwrap();
    let done = parts(&out);
    let o = sweep(&sc, &out, &["--replications", "1"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("0 to run, {done} already done")));
    assert!(!started.exists());
    assert!(!failed.exists());
    assert!(part.exists());
}

#[test]
fn sweep_errors_name_the_key_path_and_line() {
    let t = tempfile::tempdir().unwrap();
    let text = SWEEP.replace("topology.bottleneck.buffer", "topology.bottleneck.bufer");
    let line = 1 + text.lines().position(|l| l.contains("bufer")).unwrap();
    let sc = write(t.path(), "bad.toml", &text);
    let o = netsim(&["sweep", s(&sc), "--out", s(&t.path().join("x"))]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.toml"), "{err}");
    assert!(err.contains("sweep.param[1]"), "{err}");
    assert!(err.contains(&format!("line {line}")), "{err}");
    assert!(
        !t.path().join("x").exists(),
        "nothing written for a bad file"
    );
}

#[test]
fn slurm_writes_an_array_job_and_a_dependent_collect_job() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    let o = netsim(&[
        "slurm",
        s(&sc),
        "--out",
        s(&out),
        "--tasks",
        "4",
        "--partition",
        "short",
        "--time",
        "00:10:00",
        "--cpus",
        "2",
        "--account",
        "proj42",
        "--qos",
        "long",
        "--mem",
        "4G",
        "--sbatch=--constraint=haswell",
        "--sbatch",
        "--mail-type=END",
    ]);
    ok(&o);
    let sweep = read(&out.join("slurm/sweep.sbatch"));
    for needle in [
        "#SBATCH --array=0-3",
        "#SBATCH --partition=short",
        "#SBATCH --account=proj42",
        "#SBATCH --qos=long",
        "#SBATCH --mem=4G",
        "#SBATCH --constraint=haswell",
        "#SBATCH --mail-type=END",
        "#SBATCH --time=00:10:00",
        "#SBATCH --cpus-per-task=2",
        "--task \"$SLURM_ARRAY_TASK_ID\" --tasks 4 --threads 2 --progress-every 60",
        "scenario.toml",
    ] {
        assert!(sweep.contains(needle), "{needle} missing from\n{sweep}");
    }
    let collect = read(&out.join("slurm/collect.sbatch"));
    assert!(collect.contains(" collect '"), "{collect}");
    assert!(collect.contains("#SBATCH --account=proj42"), "{collect}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("--dependency=afterok:"));
    assert!(out.join("manifest.toml").is_file() && out.join("scenario.toml").is_file());
    // The store is the one `netsim sweep` uses: a shard can run without Slurm.
    ok(&sweep_task(&out));
    assert_eq!(parts(&out), 3);
}

fn sweep_task(out: &Path) -> Output {
    netsim(&[
        "sweep",
        s(&out.join("scenario.toml")),
        "--out",
        s(out),
        "--task",
        "0",
        "--tasks",
        "4",
        "--quiet",
    ])
}

/// A point's hash carries the build's fingerprint (build.rs): runs that a
/// different build left in a store do not count as done, so a campaign
/// resumed after the code changed reruns them instead of mixing two builds'
/// results.
#[test]
fn runs_of_another_build_are_not_reused() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    ok(&sweep(&sc, &out, &["--replications", "1", "--quiet"]));
    assert_eq!(parts(&out), 4);
    let ours = env!("NETSIM_BUILD_ID");
    for e in std::fs::read_dir(out.join("parts")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.contains(ours), "{name} lacks the build id {ours}");
        // As if another build had written it.
        let other = name.replace(ours, "0123456789abcdef");
        std::fs::rename(&p, p.with_file_name(other)).unwrap();
    }
    let o = sweep(&sc, &out, &["--replications", "1"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 to run, 0 already done"));
}

#[test]
fn slurm_estimates_a_time_limit_and_refuses_bad_options() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    let o = netsim(&["slurm", s(&sc), "--out", s(&out), "--tasks", "2"]);
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("estimated:"), "{said}");
    // A tiny campaign gets the floor of 10 minutes.
    let sweep = read(&out.join("slurm/sweep.sbatch"));
    assert!(sweep.contains("#SBATCH --time=00:10:00"), "{sweep}");
    for bad in [
        vec!["--sbatch", "constraint=haswell"],
        vec!["--mem", "4G\n#SBATCH --x"],
    ] {
        let mut args = vec!["slurm", s(&sc), "--out", s(&out)];
        args.extend(bad.iter().copied());
        let o = netsim(&args);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(bad[0]), "{err}");
    }
}

#[test]
fn a_sweep_without_a_terminal_prints_progress_lines() {
    let t = tempfile::tempdir().unwrap();
    let sc = write(t.path(), "s.toml", SWEEP);
    let out = t.path().join("camp");
    // stderr is a pipe here: lines, not a bar, and no bar control characters.
    let o = netsim(&["sweep", s(&sc), "--out", s(&out), "--progress-every", "1"]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains('\u{1b}'), "no terminal escapes: {err:?}");
    // Line mode ends with a line that counts the runs.
    assert!(
        err.contains("netsim sweep: ") && err.contains("| ended | done 12 | failed 0"),
        "{err}"
    );
    // Quiet: no progress lines.
    let again = netsim(&["sweep", s(&sc), "--out", s(&t.path().join("c2")), "--quiet"]);
    ok(&again);
    assert!(!String::from_utf8_lossy(&again.stderr).contains("netsim sweep: "));
    let o = netsim(&["sweep", s(&sc), "--out", s(&out), "--progress-every", "0"]);
    assert!(!o.status.success());
}

#[test]
fn a_campaign_keeps_per_flow_rows_and_series_with_the_points_parameters_when_asked() {
    let t = tempfile::tempdir().unwrap();
    let text = SWEEP
        .replace("replications = 3", "replications = 2")
        .replace(
            "[run]\n",
            "[run]\nsample_interval = \"1s\"\nseries = [\"flow_rate\"]\n",
        );
    // Without `keep`: metrics only.
    let sc = write(t.path(), "s.toml", &text);
    let out = t.path().join("camp");
    ok(&sweep(&sc, &out, &["--quiet"]));
    assert!(!out.join("flows.csv").exists());
    // With it: every run reruns (its hash differs) and keeps both tables.
    let kept = text.replace("[sweep]\n", "[sweep]\nkeep = [\"series\", \"flows\"]\n");
    let sc = write(t.path(), "s.toml", &kept);
    let o = sweep(&sc, &out, &[]);
    ok(&o);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("8 to run, 0 already done"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let flows = csv_rows(&read(&out.join("flows.csv")));
    // 4 points x 2 replications x 2 flows, each row with its point's values.
    assert_eq!(flows.len(), 16);
    for r in &flows {
        let (cap, buf) = match r["point"].as_str() {
            "0" => ("5Mbps", "10pkt"),
            "1" => ("5Mbps", "30pkt"),
            "2" => ("10Mbps", "10pkt"),
            "3" => ("10Mbps", "30pkt"),
            p => panic!("point {p}"),
        };
        assert_eq!((r["capacity"].as_str(), r["buffer"].as_str()), (cap, buf));
        assert_eq!(r["scenario"], "sweep-test");
        assert!(r["goodput_bps"].parse::<f64>().unwrap() > 0.0);
        assert_eq!(
            r["path"],
            format!("s{f}->r1 r1->r2 r2->d{f}", f = r["flow"])
        );
    }
    // The rows of point 3, replication 1 are `netsim run`'s rows for the
    // same values and seed (common random numbers: the file's own seed).
    let p3: Vec<_> = flows
        .iter()
        .filter(|r| r["point"] == "3" && r["replication"] == "1")
        .map(|r| r["goodput_bytes"].clone())
        .collect();
    let single = write(
        t.path(),
        "single.toml",
        &text.replace("capacity = \"5Mbps\"", "capacity = \"10Mbps\""),
    );
    let run_out = t.path().join("run");
    ok(&netsim(&[
        "run",
        s(&single),
        "--out",
        s(&run_out),
        "--format",
        "csv",
        "--quiet",
    ]));
    let run_rows: Vec<_> = csv_rows(&read(&run_out.join("flows.csv")))
        .into_iter()
        .filter(|r| r["replication"] == "1")
        .map(|r| r["goodput_bytes"].clone())
        .collect();
    assert_eq!(p3, run_rows);
    let series = csv_rows(&read(&out.join("series.csv")));
    assert!(series
        .iter()
        .any(|r| r["point"] == "2" && r["buffer"] == "10pkt"));
    // A table that cannot be kept is refused, naming the key.
    let bad = text.replace("[sweep]\n", "[sweep]\nkeep = [\"links\"]\n");
    let sc = write(t.path(), "bad.toml", &bad);
    let o = sweep(&sc, &t.path().join("bad"), &["--quiet"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("sweep.keep"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
