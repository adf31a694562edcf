//! Every scenario in `scenarios/` parses, validates (every sweep point too) and
//! runs briefly.

use std::path::{Path, PathBuf};

use sim_core::SimDuration;
use topology::Resolved;

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_scenario_parses_and_runs_two_simulated_seconds() {
    let mut files = Vec::new();
    scenario_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"),
        &mut files,
    );
    files.sort();
    assert!(files.len() >= 4, "found {files:?}");
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let mut r = Resolved::parse(&src, "t").unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if r.scenario.sweep.is_some() {
            // Every point of a sweep is a valid scenario.
            let c = topology::sweep::Campaign::parse(&src, "t")
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            assert!(c.runs() > 0, "{}: an empty campaign", f.display());
        }
        let run = &mut r.scenario.run;
        let short = SimDuration::from_secs(2);
        if run.duration > short {
            run.duration = short;
            run.warmup = run.warmup.min(SimDuration::from_secs(1));
        }
        let seed = run.seed;
        let out = r.build(seed, 0).unwrap().run();
        assert!(out.events > 0, "{}: no events", f.display());
        let sent: u64 = out.flows.iter().map(|x| x.total.sent_pkts).sum();
        assert!(sent > 0, "{}: nothing sent", f.display());
    }
}
