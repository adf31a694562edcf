//! `netsim slurm --submit` on a real, throw-away single-node Slurm cluster.
//!
//! `scripts/slurm-cluster.sh start DIR` (which installs the Debian packages
//! `slurm-wlm` and `munge` when they are missing and we are root) starts
//! munged, slurmctld and slurmd on this machine with their config and state in
//! a temporary directory. A small campaign is submitted as an array job plus a
//! dependent collect job; once both finished, the collected tables must equal,
//! byte for byte, the ones `netsim sweep` writes locally for the same scenario.
//! The daemons are stopped by their process ids (`slurm-cluster.sh stop DIR`)
//! from a guard's `Drop`, so also when the test fails.
//!
//! The cluster uses the fixed ports 6817/6818 (override with
//! `SLURM_CLUSTER_CTLD_PORT` / `SLURM_CLUSTER_SLURMD_PORT`), so this file holds
//! a single test: only one cluster exists at a time.
//!
//! Set `NETSIM_SKIP_SLURM=1` to skip it (e.g. on a machine without root).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// `scenarios/sweeps/buffer-utilisation.toml`, shrunk to 2 capacities x 2
/// buffers x 5 replications of 5 s: 20 runs, so the 3 array tasks get unequal
/// shards (7, 7 and 6 runs).
const SCENARIO: &str = r#"
name = "slurm-test"
description = "NewReno utilisation vs bottleneck buffer, two capacities (small)"

[run]
duration = "5s"
warmup = "1s"
replications = 5
seed = 1

[topology]
kind = "dumbbell"
pairs = 4
bottleneck = { capacity = "10Mbps", delay = "20ms", buffer = "40pkt" }
access = { capacity = "100Mbps", delay = "1ms", buffer = "1000pkt" }

[[flows]]
name = "tcp"
count = 4
from = "s{i}"
to = "d{i}"
start_jitter = "1s"
cc = { kind = "new_reno" }
traffic = { kind = "bulk" }

[sweep]
combine = "product"

[[sweep.param]]
key = "topology.bottleneck.capacity"
name = "capacity"
values = ["10Mbps", "20Mbps"]

[[sweep.param]]
key = "topology.bottleneck.buffer"
name = "buffer"
from = "10pkt"
to = "40pkt"
points = 2
scale = "log"
"#;
const POINTS: usize = 4;
const REPLICATIONS: usize = 5;
const TASKS: usize = 3;

/// How long the two jobs may take, from submission to both finished.
const JOB_TIMEOUT: Duration = Duration::from_secs(300);

/// Job states after which a job never changes again (`squeue -o %T`).
const TERMINAL: &[&str] = &[
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-cluster.sh")
}

fn netsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_netsim"))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn show(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn is_root() -> bool {
    // "Uid:\treal\teffective\tsaved\tfs"; the effective uid is what counts.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|st| {
            st.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().nth(1).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// True if every program the cluster needs is on PATH or in /usr/sbin, /sbin
/// (where the daemons live and where the script looks too).
fn slurm_installed() -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin"].map(PathBuf::from))
        .collect();
    [
        "slurmctld",
        "slurmd",
        "sbatch",
        "squeue",
        "munged",
        "mungekey",
    ]
    .iter()
    .all(|prog| dirs.iter().any(|d| d.join(prog).is_file()))
}

/// A running cluster; dropping it stops the daemons recorded in `dir/pids`
/// (by pid) before the temporary directory is removed.
struct Cluster {
    dir: PathBuf,
}

impl Cluster {
    /// Runs `slurm-cluster.sh start dir`. The guard exists before the script
    /// starts anything, so whatever got started is stopped again.
    fn start(dir: &Path) -> (Cluster, PathBuf) {
        let guard = Cluster {
            dir: dir.to_path_buf(),
        };
        let t0 = Instant::now();
        let o = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(dir)
            .output()
            .expect("cannot run bash scripts/slurm-cluster.sh");
        assert!(
            o.status.success(),
            "scripts/slurm-cluster.sh start {} failed\n{}",
            dir.display(),
            show(&o)
        );
        eprint!("{}", String::from_utf8_lossy(&o.stderr));
        eprintln!("cluster started in {:.1?}", t0.elapsed());
        let out = String::from_utf8_lossy(&o.stdout);
        let conf = out
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .unwrap_or_else(|| panic!("no `export SLURM_CONF=` line in the output\n{}", show(&o)));
        let conf = PathBuf::from(conf.trim());
        assert!(conf.is_file(), "{} does not exist", conf.display());
        (guard, conf)
    }

    /// The pids the script recorded, as (name, pid).
    fn recorded(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(self.dir.join("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                Some((f.next()?.to_string(), f.next()?.to_string()))
            })
            .collect()
    }
}

/// `eprint!` that never panics (e.g. on a closed stderr), for use in `Drop`:
/// a panic there while a failed assertion unwinds would abort the test
/// binary and leave the temporary directory behind.
fn note(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let o = Command::new("bash")
            .arg(script())
            .arg("stop")
            .arg(&self.dir)
            .output();
        // `note` is not captured by the test harness: say what happened only
        // when something went wrong (the test or the stop).
        let stopped = match &o {
            Ok(o) if o.status.success() => {
                if std::thread::panicking() {
                    note(&String::from_utf8_lossy(&o.stderr));
                }
                true
            }
            Ok(o) => {
                note(&format!(
                    "scripts/slurm-cluster.sh stop failed\n{}\n",
                    show(o)
                ));
                false
            }
            Err(e) => {
                note(&format!("cannot run scripts/slurm-cluster.sh stop: {e}\n"));
                false
            }
        };
        if stopped {
            return;
        }
        // The script failed: kill the recorded daemons ourselves, by pid, if
        // the pid still belongs to a process of that name.
        for (name, pid) in self.recorded() {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            if comm.trim() == name {
                note(&format!("killing {name} (pid {pid})\n"));
                let _ = Command::new("kill").args(["-KILL", &pid]).status();
            }
        }
    }
}

/// The states of job `id` (one line per array task, or one for a pending
/// array or a plain job).
fn job_states(conf: &Path, id: &str) -> Result<Vec<String>, String> {
    let o = Command::new("squeue")
        .args(["-h", "--states=all", "-j", id, "-o", "%T"])
        .env("SLURM_CONF", conf)
        .output()
        .map_err(|e| format!("cannot run squeue: {e}"))?;
    if !o.status.success() {
        return Err(show(&o));
    }
    Ok(String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect())
}

fn finished(states: &[String]) -> bool {
    !states.is_empty() && states.iter().all(|st| TERMINAL.contains(&st.as_str()))
}

/// Everything that helps to see why the jobs did not do what they should:
/// the queue, the job logs and the cluster's own logs.
fn diagnostics(conf: &Path, job_logs: &Path, cluster_dir: &Path) -> String {
    let mut text = String::new();
    if let Ok(o) = Command::new("squeue")
        .args(["--states=all", "-o", "%i %j %T %r %M"])
        .env("SLURM_CONF", conf)
        .output()
    {
        text.push_str(&format!("\n===== squeue --states=all =====\n{}", show(&o)));
    }
    for dir in [job_logs.to_path_buf(), cluster_dir.join("log")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        if files.is_empty() {
            text.push_str(&format!("\n===== no files in {} =====\n", dir.display()));
        }
        for f in files {
            let body = std::fs::read_to_string(&f).unwrap_or_else(|e| format!("<{e}>"));
            // The head holds a job's error (before any backtrace), the tail
            // a daemon's latest messages.
            let lines: Vec<&str> = body.lines().collect();
            let (head, tail) = (25, 50);
            let excerpt = if lines.len() <= head + tail {
                lines.join("\n")
            } else {
                format!(
                    "{}\n[... {} lines ...]\n{}",
                    lines[..head].join("\n"),
                    lines.len() - head - tail,
                    lines[lines.len() - tail..].join("\n")
                )
            };
            text.push_str(&format!(
                "\n===== {} ({} lines) =====\n{excerpt}\n",
                f.display(),
                lines.len()
            ));
        }
    }
    text
}

/// Finished `.parquet` parts of a store (hidden files are temporaries).
fn parts(store: &Path) -> Vec<String> {
    std::fs::read_dir(store.join("parts"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

/// Byte comparison of two tables, naming the first differing line.
fn assert_same_bytes(a: &Path, b: &Path) {
    let (x, y) = (
        std::fs::read(a).unwrap_or_else(|e| panic!("{}: {e}", a.display())),
        std::fs::read(b).unwrap_or_else(|e| panic!("{}: {e}", b.display())),
    );
    if x == y {
        return;
    }
    let (tx, ty) = (String::from_utf8_lossy(&x), String::from_utf8_lossy(&y));
    let (lx, ly): (Vec<&str>, Vec<&str>) = (tx.lines().collect(), ty.lines().collect());
    let i = lx
        .iter()
        .zip(&ly)
        .position(|(p, q)| p != q)
        .unwrap_or(lx.len().min(ly.len()));
    panic!(
        "{} ({} bytes, {} lines) differs from {} ({} bytes, {} lines) at line {}:\n  {:?}\n  {:?}",
        a.display(),
        x.len(),
        lx.len(),
        b.display(),
        y.len(),
        ly.len(),
        i + 1,
        lx.get(i),
        ly.get(i)
    );
}

/// `runs.csv` without the wall-clock column (and the error column, empty for
/// finished runs): one row of point, replication, hash, seed, status, events.
fn runs_without_wall_time(p: &Path) -> Vec<Vec<String>> {
    let text = read(p);
    let mut lines = text.lines();
    let head: Vec<&str> = lines
        .next()
        .expect("runs.csv is empty")
        .split(',')
        .collect();
    let keep: Vec<usize> = ["point", "replication", "hash", "seed", "status", "events"]
        .iter()
        .map(|c| {
            head.iter()
                .position(|h| h == c)
                .unwrap_or_else(|| panic!("no column {c} in {}: {head:?}", p.display()))
        })
        .collect();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            keep.iter()
                .map(|&i| f.get(i).unwrap_or(&"").to_string())
                .collect()
        })
        .collect()
}

#[test]
fn a_campaign_on_a_slurm_cluster_equals_the_local_sweep() {
    if std::env::var("NETSIM_SKIP_SLURM").as_deref() == Ok("1") {
        eprintln!("NETSIM_SKIP_SLURM=1: skipping the Slurm cluster test");
        return;
    }
    let root = is_root();
    assert!(
        root || slurm_installed(),
        "Slurm is not installed and this test is not running as root, so it cannot \
         install it: run `apt-get install slurm-wlm munge` as root (or run the tests as \
         root), or set NETSIM_SKIP_SLURM=1 to skip this test"
    );
    assert!(
        root,
        "the throw-away Slurm cluster's daemons (munged, slurmctld, slurmd) run as root: \
         run the tests as root, or set NETSIM_SKIP_SLURM=1 to skip this test"
    );
    let t0 = Instant::now();

    // Short path: the munge socket under the cluster dir must fit sun_path.
    let tmp = tempfile::Builder::new()
        .prefix("nsl")
        .tempdir_in("/tmp")
        .unwrap();
    let cluster_dir = tmp.path().join("c");
    let scenario = tmp.path().join("s.toml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    let store = tmp.path().join("camp");
    let local = tmp.path().join("local");
    let job_logs = store.join("slurm/logs");

    // Declared after `tmp`, so it is dropped (daemons stopped) first.
    let (_cluster, conf) = Cluster::start(&cluster_dir);

    let o = netsim()
        .args(["slurm", s(&scenario), "--out", s(&store)])
        .args([
            "--tasks",
            &TASKS.to_string(),
            "--cpus",
            "1",
            "--time",
            "00:10:00",
        ])
        .args(["--format", "csv", "--submit"])
        .env("SLURM_CONF", &conf)
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "netsim slurm --submit failed\n{}{}",
        show(&o),
        diagnostics(&conf, &job_logs, &cluster_dir)
    );
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let ids: Vec<String> = stdout
        .lines()
        .find_map(|l| l.strip_prefix("jobs: "))
        .unwrap_or_else(|| panic!("no `jobs: ` line\n{}", show(&o)))
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert!(
        ids.len() == 2 && ids.iter().all(|id| id.chars().all(|c| c.is_ascii_digit())),
        "bad `jobs:` line: {ids:?}\n{}",
        show(&o)
    );
    let (array, collect) = (&ids[0], &ids[1]);
    eprintln!("submitted array job {array} and collect job {collect}");

    // Wait until both jobs are finished, whatever their outcome.
    let submitted = Instant::now();
    let (mut array_states, mut collect_states) = (Vec::new(), Vec::new());
    let mut last_error = String::new();
    loop {
        match (job_states(&conf, array), job_states(&conf, collect)) {
            (Ok(a), Ok(c)) => {
                (array_states, collect_states) = (a, c);
                if finished(&array_states) && finished(&collect_states) {
                    break;
                }
            }
            (Err(e), _) | (_, Err(e)) => last_error = e,
        }
        if submitted.elapsed() > JOB_TIMEOUT {
            panic!(
                "jobs not finished after {JOB_TIMEOUT:?}: array {array} {array_states:?}, \
                 collect {collect} {collect_states:?}; last squeue error: {last_error}\n{}",
                diagnostics(&conf, &job_logs, &cluster_dir)
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "jobs finished {:.1?} after submission: array {array_states:?}, collect {collect_states:?}",
        submitted.elapsed()
    );
    assert!(
        array_states.len() == TASKS
            && array_states
                .iter()
                .chain(&collect_states)
                .all(|st| st == "COMPLETED"),
        "expected {TASKS} COMPLETED array tasks and a COMPLETED collect job, got \
         array {array} {array_states:?}, collect {collect} {collect_states:?}\n{}",
        diagnostics(&conf, &job_logs, &cluster_dir)
    );

    // Every array task and the collect job wrote its log; every run has its part.
    for task in 0..TASKS {
        let log = job_logs.join(format!("sweep-{array}_{task}.out"));
        assert!(log.is_file(), "{} missing", log.display());
    }
    let collect_log = read(&job_logs.join(format!("collect-{collect}.out")));
    let runs = POINTS * REPLICATIONS;
    assert!(
        collect_log.contains(&format!("collected {runs} runs")),
        "{collect_log}"
    );
    let names = parts(&store);
    let done: BTreeSet<&String> = names.iter().filter(|n| n.ends_with(".parquet")).collect();
    assert_eq!(done.len(), runs, "parts: {names:?}");
    assert_eq!(
        names.len(),
        runs,
        "leftover markers among the parts: {names:?}"
    );

    // The same campaign run locally gives the same tables, byte for byte.
    let o = netsim()
        .args(["sweep", s(&scenario), "--out", s(&local)])
        .args(["--format", "csv", "--quiet"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "local netsim sweep failed\n{}",
        show(&o)
    );
    for table in ["summary.csv", "metrics.csv"] {
        assert_same_bytes(&store.join(table), &local.join(table));
    }
    let cluster_runs = runs_without_wall_time(&store.join("runs.csv"));
    assert_eq!(cluster_runs.len(), runs);
    assert!(
        cluster_runs.iter().all(|r| r[4] == "done"),
        "{cluster_runs:?}"
    );
    assert_eq!(
        cluster_runs,
        runs_without_wall_time(&local.join("runs.csv"))
    );
    eprintln!(
        "Slurm campaign equals the local sweep; {:.1?} in all",
        t0.elapsed()
    );
}
