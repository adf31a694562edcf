//! Benchmarks of the whole `netsim run` process, as a user runs it.
//!
//! - B1: N long-lived NewReno flows over a 100 Mb/s dumbbell
//!   (`scenarios/bench/dumbbell-n{N}.toml`, N = 10, 100, 1000, 10 000,
//!   100 000): the same bottleneck and about 500 000 bottleneck packets at
//!   every N, starts spread over the first second.
//! - S1: 10^6 short flows with Pareto sizes arriving as a Poisson process
//!   over a 1 Gb/s dumbbell (`scenarios/bench/short-flows.toml`).
//!
//! Each is run as a child process, `netsim run S --threads 1 --quiet`, one
//! replication, with Parquet tables (the defaults): the table gives the
//! event loop's time and the process's peak memory as the run reports them
//! on its header line, the whole process's wall-clock time as measured here
//! (start to exit: parsing, building, simulating, tables, report), their
//! ratio, and the engine's rates per second of event loop. With `--repeat K`
//! each row is the median of K runs (by whole-process time).
//!
//! Then two replications of B1 at N = 100 run in this process on one and on
//! two threads, for the speed-up of parallel replications (results must not
//! depend on the thread count).
//!
//! ```text
//! cargo bench --bench b1_dumbbell                        # everything
//! cargo bench --bench b1_dumbbell -- 10 1000 --repeat 5  # two B1 sizes, medians of 5
//! cargo bench --bench b1_dumbbell -- short --no-scaling  # S1 only
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rayon::prelude::*;
use topology::Resolved;

/// The B1 sizes run when none is named.
const SIZES: [u32; 5] = [10, 100, 1000, 10_000, 100_000];

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios/bench")
        .join(format!("{name}.toml"))
}

/// One whole-process run: what the header line says and the wall clock.
#[derive(Clone, Debug)]
struct Measured {
    loop_s: f64,
    whole_s: f64,
    peak_mb: f64,
    events_per_s: f64,
    bneck_pkts_per_s: f64,
}

/// The number after `key` in `line` (`"event loop 0.49 s"` -> 0.49).
fn after(line: &str, key: &str) -> Option<f64> {
    let rest = &line[line.find(key)? + key.len()..];
    rest.split_whitespace().next()?.parse().ok()
}

/// Run `netsim run` on `path` once, as a child process.
fn run_once(path: &Path, out: &Path) -> Measured {
    let t = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_netsim"))
        .arg("run")
        .arg(path)
        .args(["--threads", "1", "--quiet", "--out"])
        .arg(out)
        .status()
        .expect("start netsim");
    let whole_s = t.elapsed().as_secs_f64();
    assert!(status.success(), "netsim run {} failed", path.display());
    let report = std::fs::read_to_string(out.join("report.txt")).expect("report.txt");
    let head = report.lines().next().unwrap_or_default();
    let get = |k: &str| after(head, k).unwrap_or_else(|| panic!("no `{k}` in: {head}"));
    Measured {
        loop_s: get("event loop "),
        whole_s,
        peak_mb: after(head, "peak memory ").unwrap_or(f64::NAN),
        events_per_s: get("simulated s/s | "),
        bneck_pkts_per_s: after(head, ": ").unwrap_or(f64::NAN),
    }
}

/// The median of `k` runs by whole-process time.
fn measure(path: &Path, k: usize) -> Measured {
    let out = std::env::temp_dir().join(format!("netsim-bench-{}", std::process::id()));
    let mut runs: Vec<Measured> = (0..k.max(1)).map(|_| run_once(path, &out)).collect();
    let _ = std::fs::remove_dir_all(&out);
    runs.sort_by(|a, b| a.whole_s.total_cmp(&b.whole_s));
    runs[runs.len() / 2].clone()
}

fn row(name: &str, m: &Measured) {
    println!(
        "{:>14} {:>8.2} {:>8.2} {:>7.2} {:>9.0} {:>11.3e} {:>11.3e} {:>9.1}",
        name,
        m.loop_s,
        m.whole_s,
        m.whole_s / m.loop_s,
        m.peak_mb,
        m.events_per_s,
        m.bneck_pkts_per_s,
        m.events_per_s / m.bneck_pkts_per_s,
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let scaling = !args.iter().any(|a| a == "--no-scaling");
    let repeat = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .and_then(|k| k.parse().ok())
        .unwrap_or(1usize);
    let named: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--repeat"))
        .map(|(_, a)| a)
        .collect();
    let sizes: Vec<u32> = if named.is_empty() {
        SIZES.to_vec()
    } else {
        named.iter().filter_map(|a| a.parse().ok()).collect()
    };
    let short = named.is_empty() || named.iter().any(|a| a.as_str() == "short");
    println!("netsim run, one replication, one thread; whole = the process, start to exit");
    println!(
        "{:>14} {:>8} {:>8} {:>7} {:>9} {:>11} {:>11} {:>9}",
        "benchmark", "loop s", "whole s", "whole/", "peak MB", "events/s", "bneck pkt/s", "events/"
    );
    println!(
        "{:>14} {:>8} {:>8} {:>7} {:>9} {:>11} {:>11} {:>9}",
        "", "", "", "loop", "", "(loop)", "(loop)", "bneck pkt"
    );
    for n in sizes {
        row(
            &format!("B1 N={n}"),
            &measure(&scenario(&format!("dumbbell-n{n}")), repeat),
        );
    }
    if short {
        row("S1 10^6 flows", &measure(&scenario("short-flows"), repeat));
    }
    if scaling {
        let src = std::fs::read_to_string(scenario("dumbbell-n100")).expect("bench scenario");
        let r = Resolved::parse(&src, "bench").expect("B1 N=100");
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let t = Instant::now();
            let outs: Vec<_> = pool.install(|| {
                (0..2u32)
                    .into_par_iter()
                    .map(|rep| r.build(1, rep).expect("build").run().events)
                    .collect()
            });
            (t.elapsed().as_secs_f64(), outs)
        };
        let (t1, e1) = run(1);
        let (t2, e2) = run(2);
        assert_eq!(e1, e2, "results must not depend on the thread count");
        println!(
            "replication scaling (B1 N=100, 2 replications): 1 thread {t1:.2} s, 2 threads {t2:.2} s, speed-up {:.2}x",
            t1 / t2
        );
    }
}
