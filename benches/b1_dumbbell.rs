//! Benchmark B1 (issue 2): long-lived NewReno flows over a 100 Mb/s dumbbell.
//!
//! For N = 10, 100, 1000 it runs `scenarios/bench/dumbbell-n{N}.toml` once on one
//! thread and reports bottleneck packets per wall-clock second, events per second
//! and the process's peak resident memory; then it runs two replications of the
//! N = 100 scenario on one and on two threads and reports the speed-up.
//!
//! `cargo bench --bench b1_dumbbell` runs all of it; `-- 10 100` picks sizes;
//! `-- --no-scaling` skips the thread-scaling part. Peak memory is per process, so
//! run one size per invocation for a clean per-size figure.

use std::time::Instant;

use rayon::prelude::*;
use topology::Resolved;

fn load(n: u32) -> Resolved {
    let path = format!(
        "{}/scenarios/bench/dumbbell-n{n}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).expect("bench scenario");
    Resolved::parse(&src, "bench").unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn bottleneck_pkts(out: &sim_core::RunOutput) -> u64 {
    out.links
        .iter()
        .find(|l| l.name == "r1->r2")
        .map(|l| l.counters.departed.pkts)
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let scaling = !args.iter().any(|a| a == "--no-scaling");
    let sizes: Vec<u32> = {
        let v: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
        if v.is_empty() {
            vec![10, 100, 1000]
        } else {
            v
        }
    };
    println!("B1 dumbbell, NewReno, 60 simulated seconds, one thread");
    println!(
        "{:>6} {:>12} {:>14} {:>14} {:>10} {:>10}",
        "N", "wall s", "bneck pkt/s", "events/s", "util", "peak MB"
    );
    for &n in &sizes {
        let r = load(n);
        let sim = r.build(r.scenario.run.seed, 0).expect("build");
        let t = Instant::now();
        let out = sim.run();
        let wall = t.elapsed().as_secs_f64();
        // The bench scenarios have no warm-up: the window is the whole run.
        let pkts = bottleneck_pkts(&out) as f64;
        let util = out
            .links
            .iter()
            .find(|l| l.name == "r1->r2")
            .map(|l| l.utilisation())
            .unwrap_or(0.0);
        println!(
            "{:>6} {:>12.2} {:>14.3e} {:>14.3e} {:>10.4} {:>10.1}",
            n,
            wall,
            pkts / wall,
            out.events as f64 / wall,
            util,
            peak_rss_mb().unwrap_or(f64::NAN)
        );
    }
    if scaling {
        let r = load(100);
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
        println!("replication scaling (N=100, 2 replications): 1 thread {t1:.2} s, 2 threads {t2:.2} s, speed-up {:.2}x", t1 / t2);
    }
}
