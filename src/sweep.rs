//! `netsim sweep` and `netsim collect`: a campaign of runs into a store.
//!
//! Every (point, replication) is one run. Runs are ordered by estimated cost,
//! longest first (then point, then replication); with `--task I --tasks N` a
//! process takes the runs whose position in that order is I modulo N, so every
//! run belongs to exactly one shard whatever is already done. Each worker thread
//! takes the next run of the list, marks it started, runs it, and writes its part
//! or its failure record (a panic is caught and recorded). Finished runs are
//! skipped, so re-running the same command resumes a killed campaign.

use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use analysis::campaign::collect::{collect, incomplete_message, remove_collected, write_collected};
use analysis::campaign::{
    self, status_counts, statuses, Manifest, ManifestParam, ManifestPoint, RunFiles, RunKey,
    RunStatus, MANIFEST, PARTS, SCENARIO,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sim_core::SimDuration;
use topology::sweep::values::Scale;
use topology::sweep::{Campaign, Point, SeedMode};

use crate::say;

/// Environment variable that makes chosen runs panic (`"P:R,P:R"`), so that the
/// failure path can be tested end to end.
pub const FAIL_INJECT_ENV: &str = "NETSIM_FAIL_INJECT";

/// What `netsim sweep` was asked to do.
pub struct SweepOpts {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Store directory (default `out/<name>-sweep`).
    pub out: Option<PathBuf>,
    /// Campaign name override.
    pub name: Option<String>,
    /// Replications per point override.
    pub replications: Option<u32>,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// This process's shard and the shard count.
    pub shard: Option<(usize, usize)>,
    /// Only report what is done and missing.
    pub status: bool,
    /// Format of the collected tables.
    pub format: analysis::Format,
    /// No progress bar and no report.
    pub quiet: bool,
    /// Progress lines every this many seconds instead of a bar.
    pub progress_every: Option<u64>,
    /// Exit 1 when a `[[sweep.expect]]` entry is missed.
    pub check: bool,
}

/// Read and expand a scenario file into a campaign (errors name file, line, key).
pub fn load_campaign(
    path: &Path,
    name: Option<&str>,
    replications: Option<u32>,
) -> Result<Campaign, String> {
    let (src, stem) = crate::read_scenario(path)?;
    let mut c = Campaign::parse(&src, stem).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(n) = name {
        c.name = n.to_string();
    }
    if let Some(r) = replications {
        if r == 0 {
            return Err("--replications must be >= 1".into());
        }
        c.replications = r;
    }
    // The code is part of what determines a point's results: with the build's
    // fingerprint in its hash, a store resumed by another build reruns the
    // point instead of mixing the two builds' runs (build.rs).
    // A run keeps its flows or series tables only when asked: a point whose
    // runs were made without them must run again (its hash differs).
    let kept: String = c.keep.iter().map(|k| format!("-{}", k.name())).collect();
    for p in &mut c.points {
        p.hash = format!("{}-{}{kept}", p.hash, BUILD_ID);
    }
    Ok(c)
}

/// This build's fingerprint (build.rs).
pub const BUILD_ID: &str = env!("NETSIM_BUILD_ID");

/// The manifest describing `c`.
pub fn manifest(c: &Campaign) -> Manifest {
    Manifest {
        netsim_version: env!("CARGO_PKG_VERSION").to_string(),
        name: c.name.clone(),
        source_hash: c.source_hash.clone(),
        replications: c.replications,
        seeds: match c.seeds {
            SeedMode::Common => "common",
            SeedMode::Independent => "independent",
        }
        .to_string(),
        params: c
            .params
            .iter()
            .map(|p| ManifestParam {
                name: p.name.clone(),
                key: p.key.clone(),
                family: format!("{:?}", p.family).to_lowercase(),
                unit: p.family.unit().to_string(),
                log: p.scale == Scale::Log,
            })
            .collect(),
        points: c
            .points
            .iter()
            .map(|p| ManifestPoint {
                index: p.index,
                hash: p.hash.clone(),
                seed: p.seed,
                cost: p.cost,
                labels: p.values.iter().map(|v| v.label()).collect(),
                values: p.values.iter().map(|v| v.num.unwrap_or(f64::NAN)).collect(),
            })
            .collect(),
        keep: c.keep.iter().map(|k| k.name().to_string()).collect(),
    }
}

/// The default store of a campaign.
pub fn default_out(c: &Campaign) -> PathBuf {
    Path::new("out").join(format!("{}-sweep", c.name))
}

/// Create the store and write the scenario copy and the manifest. Collected
/// tables of an earlier state are removed: they would not describe this one.
pub fn prepare_store(dir: &Path, c: &Campaign, m: &Manifest) -> Result<(), String> {
    let parts = dir.join(PARTS);
    std::fs::create_dir_all(&parts)
        .map_err(|e| format!("cannot create {}: {e}", parts.display()))?;
    let scenario = dir.join(SCENARIO);
    let same = std::fs::read_to_string(&scenario).is_ok_and(|s| s == c.source);
    if !same {
        analysis::write_atomic(&scenario, c.source.as_bytes()).map_err(|e| e.to_string())?;
    }
    let old = Manifest::read(dir).ok();
    if old.as_ref() != Some(m) {
        remove_collected(dir).map_err(|e| e.to_string())?;
        m.write(dir).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Every run, longest first: (cost desc, point, replication).
pub fn ordered_runs(c: &Campaign) -> Vec<RunKey> {
    let mut runs: Vec<RunKey> = c
        .points
        .iter()
        .flat_map(|p| {
            (0..c.replications).map(move |r| RunKey {
                point: p.index,
                replication: r,
            })
        })
        .collect();
    runs.sort_by(|a, b| {
        let (ca, cb) = (c.points[a.point].cost, c.points[b.point].cost);
        cb.total_cmp(&ca).then(a.cmp(b))
    });
    runs
}

/// The runs of shard `task` of `tasks` (every run is in exactly one shard).
pub fn shard(runs: &[RunKey], task: usize, tasks: usize) -> Vec<RunKey> {
    runs.iter()
        .enumerate()
        .filter(|(k, _)| k % tasks == task)
        .map(|(_, r)| *r)
        .collect()
}

/// The runs of `runs` that are not done in store `dir`, in order. A done
/// run's stale marker or failure record (a kill between writing its part
/// and removing them) is removed, so a resumed store ends clean.
fn pending(dir: &Path, c: &Campaign, runs: &[RunKey]) -> Result<Vec<RunKey>, String> {
    let mut todo = Vec::with_capacity(runs.len());
    for k in runs {
        let f = files(dir, c, *k);
        if f.status() == RunStatus::Done {
            f.clear_stale().map_err(|e| e.to_string())?;
        } else {
            todo.push(*k);
        }
    }
    Ok(todo)
}

/// `netsim sweep`.
pub fn cmd_sweep(o: SweepOpts) -> Result<ExitCode, String> {
    if let Some((task, tasks)) = o.shard {
        if tasks == 0 || task >= tasks {
            return Err(format!(
                "--task {task} --tasks {tasks}: the task index must be in 0..{tasks}"
            ));
        }
    }
    let c = load_campaign(&o.scenario, o.name.as_deref(), o.replications)?;
    let m = manifest(&c);
    let dir = o.out.clone().unwrap_or_else(|| default_out(&c));
    if o.status {
        say(&status_report(&dir, &m));
        return Ok(ExitCode::SUCCESS);
    }
    prepare_store(&dir, &c, &m)?;
    let all = ordered_runs(&c);
    let mine = match o.shard {
        Some((task, tasks)) => shard(&all, task, tasks),
        None => all,
    };
    let todo = pending(&dir, &c, &mine)?;
    if !o.quiet {
        let shard_note = o
            .shard
            .map_or(String::new(), |(t, n)| format!(" | shard {t} of {n}"));
        say(&format!(
            "campaign {} | {} points x {} replications = {} runs{shard_note} | {} to run, {} already done | store {}\n",
            c.name,
            c.points.len(),
            c.replications,
            c.runs(),
            todo.len(),
            mine.len() - todo.len(),
            dir.display()
        ));
    }
    let progress = match o.progress_every {
        Some(0) => return Err("--progress-every must be >= 1 second".into()),
        Some(s) => Progress::Lines(Duration::from_secs(s)),
        None if o.quiet => Progress::Off,
        None if std::io::stderr().is_terminal() => Progress::Bar,
        None => Progress::Lines(Duration::from_secs(DEFAULT_PROGRESS_EVERY)),
    };
    let failed = execute(&dir, &c, &todo, o.threads, progress)?;
    if failed > 0 {
        eprintln!(
            "{failed} of {} runs failed; `netsim sweep {} --status --out {}` lists them",
            todo.len(),
            o.scenario.display(),
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    if o.shard.is_none() {
        let col = collect(&dir, &m, false).map_err(|e| e.to_string())?;
        let written = write_collected(&dir, &col, o.format).map_err(|e| e.to_string())?;
        if !o.quiet {
            say(&written_note(&written, &col));
        }
        if !c.curves.is_empty() {
            let verdicts = crate::curve::evaluate(&c, &dir)?;
            if !o.quiet {
                let refs: Vec<&crate::expect::Verdict> = verdicts.iter().collect();
                say(&format!(
                    "\nCurves ([[sweep.expect]]):\n{}{}\n",
                    crate::expect::render(&[(c.name.clone(), &verdicts)]),
                    crate::expect::tally(&refs)
                ));
            }
            if o.check && verdicts.iter().any(|v| v.failed()) {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Run (or resume) the campaign of `path` in its default store, quietly, and
/// judge its `[[sweep.expect]]` entries: `netsim reproduce` without `--fast`.
/// Returns the campaign's name and the verdicts (none without entries).
pub fn run_curves(
    path: &Path,
    threads: usize,
    replications: Option<u32>,
) -> Result<(String, Vec<crate::expect::Verdict>), String> {
    let c = load_campaign(path, None, replications)?;
    if c.curves.is_empty() {
        return Ok((c.name, Vec::new()));
    }
    let m = manifest(&c);
    let dir = default_out(&c);
    prepare_store(&dir, &c, &m)?;
    let todo = pending(&dir, &c, &ordered_runs(&c))?;
    let failed = execute(&dir, &c, &todo, threads, Progress::Off)?;
    if failed > 0 {
        return Err(format!(
            "{}: {failed} runs of its sweep failed; `netsim sweep {} --status` lists them",
            path.display(),
            path.display()
        ));
    }
    Ok((c.name.clone(), crate::curve::evaluate(&c, &dir)?))
}

fn files(dir: &Path, c: &Campaign, k: RunKey) -> RunFiles {
    RunFiles::new(dir, &c.points[k.point].hash, k.replication)
}

fn written_note(written: &[PathBuf], col: &campaign::collect::Collected) -> String {
    let mut s = format!(
        "collected {} runs: {} summary rows, {} metric values\n",
        col.runs.height(),
        col.summary.height(),
        col.metrics.height()
    );
    for w in written {
        s.push_str(&format!("wrote {}\n", w.display()));
    }
    s
}

/// Live counts shown on the progress bar.
struct Counts {
    done: AtomicUsize,
    failed: AtomicUsize,
    total: usize,
}

impl Counts {
    fn message(&self) -> String {
        let d = self.done.load(Ordering::Relaxed);
        let f = self.failed.load(Ordering::Relaxed);
        format!(
            "done {d} | failed {f} | remaining {}",
            self.total.saturating_sub(d + f)
        )
    }
}

/// Progress units per unit of estimated cost, so that the bar (and its ETA)
/// advances with simulated work rather than with the number of runs.
const UNITS: f64 = 1e6;

/// How a campaign shows its progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Progress {
    /// Nothing (failures are still reported).
    Off,
    /// A bar on a terminal.
    Bar,
    /// A line every so often: a batch job's log (Slurm) or a redirected stderr.
    Lines(Duration),
}

/// Seconds between progress lines when standard error is not a terminal.
const DEFAULT_PROGRESS_EVERY: u64 = 30;

/// Run `todo` on `threads` workers, longest first; returns the number that failed.
fn execute(
    dir: &Path,
    c: &Campaign,
    todo: &[RunKey],
    threads: usize,
    progress: Progress,
) -> Result<usize, String> {
    if todo.is_empty() {
        return Ok(0);
    }
    let total_cost: f64 = todo.iter().map(|k| c.points[k.point].cost.max(0.0)).sum();
    let scale = if total_cost > 0.0 {
        UNITS / total_cost
    } else {
        0.0
    };
    let bar = if progress == Progress::Bar {
        let b = ProgressBar::with_draw_target(
            Some(UNITS as u64),
            ProgressDrawTarget::stderr_with_hz(4),
        );
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {percent:>3}% | {msg} | ETA {eta}",
            )
            .expect("static template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let counts = Counts {
        done: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
        total: todo.len(),
    };
    bar.set_message(counts.message());
    let inject = fail_injections()?;
    let keep: Vec<String> = c.keep.iter().map(|k| k.name().to_string()).collect();
    let next = AtomicUsize::new(0);
    let io_error: Mutex<Option<String>> = Mutex::new(None);
    let workers = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .min(todo.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| format!("cannot start {workers} threads: {e}"))?;
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if let Progress::Lines(every) = progress {
            let (bar, counts, finished) = (&bar, &counts, &finished);
            scope.spawn(move || {
                let t0 = Instant::now();
                let mut next = every;
                while !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    if t0.elapsed() >= next {
                        next += every;
                        let frac = bar.position() as f64 / UNITS;
                    let spent = t0.elapsed().as_secs_f64();
                    let eta = if frac > 0.0 {
                        format!("{:.0} s", spent * (1.0 - frac) / frac)
                    } else {
                        "unknown".into()
                    };
                    eprintln!(
                        "netsim sweep: {spent:.0} s | {:.1} % of the estimated work | {} | ETA {eta}",
                        100.0 * frac,
                        counts.message(),
                    );
                    }
                }
                // The log's last line says the shard ended, and how.
                eprintln!(
                    "netsim sweep: {:.0} s | ended | {}",
                    t0.elapsed().as_secs_f64(),
                    counts.message()
                );
            });
        }
        pool.broadcast(|_| loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&key) = todo.get(i) else { break };
            if io_error.lock().map_or(true, |g| g.is_some()) {
                break;
            }
            let point = &c.points[key.point];
            let weight = point.cost.max(0.0) * scale;
            let f = files(dir, c, key);
            let result = f.mark_started().map_err(|e| e.to_string()).and_then(|()| {
                let mut shown = 0u64;
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    if inject.contains(&key) {
                        panic!(
                            "injected failure ({FAIL_INJECT_ENV}) at point {} replication {}",
                            key.point, key.replication
                        );
                    }
                    run_one(point, key.replication, &mut |frac| {
                        let target = (weight * frac) as u64;
                        bar.inc(target.saturating_sub(shown));
                        shown = shown.max(target);
                    })
                }));
                bar.inc((weight as u64).saturating_sub(shown));
                let written = match outcome {
                    Ok(Ok(set)) => {
                        let m = analysis::Metrics::new(&set);
                        f.write_kept(&m, &keep)
                            .and_then(|()| f.write_part(&m, 0))
                            .map(|()| true)
                    }
                    Ok(Err(e)) => f.write_failed(&e).map(|()| false),
                    Err(payload) => f
                        .write_failed(&format!("panicked: {}", panic_text(&payload)))
                        .map(|()| false),
                };
                written.map_err(|e| e.to_string())
            });
            match result {
                Ok(true) => {
                    counts.done.fetch_add(1, Ordering::Relaxed);
                }
                Ok(false) => {
                    counts.failed.fetch_add(1, Ordering::Relaxed);
                    if progress != Progress::Bar {
                        eprintln!(
                            "run failed: point {} ({}) replication {}",
                            key.point,
                            point.describe(&c.params),
                            key.replication
                        );
                    }
                }
                Err(e) => {
                    if let Ok(mut g) = io_error.lock() {
                        g.get_or_insert(e);
                    }
                }
            }
            bar.set_message(counts.message());
        });
        finished.store(true, Ordering::Relaxed);
    });
    bar.finish_and_clear();
    if let Some(e) = io_error.into_inner().ok().flatten() {
        return Err(format!("the campaign store failed: {e}"));
    }
    Ok(counts.failed.load(Ordering::Relaxed))
}

/// One run: build and simulate it, as a set of one replication. `progress`
/// receives the fraction of simulated time done.
fn run_one(
    point: &Point,
    rep: u32,
    progress: &mut dyn FnMut(f64),
) -> Result<analysis::RunSet, String> {
    let r = &point.resolved;
    let sim = r.build(point.seed, rep).map_err(|e| e.to_string())?;
    let duration = r.scenario.run.duration.as_secs_f64().max(1e-12);
    let t = Instant::now();
    let out = sim.run_observed(SimDuration::from_millis(100), &mut |now| {
        progress((now.as_secs_f64() / duration).min(1.0));
    });
    if let Some(o) = &out.overload {
        return Err(crate::runner::overload_error(r, rep, o));
    }
    let wall = t.elapsed().as_secs_f64();
    Ok(analysis::RunSet {
        meta: crate::runner::run_meta(r),
        runs: vec![out],
        wall_secs: vec![wall],
    })
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".into())
}

/// The runs named by [`FAIL_INJECT_ENV`].
fn fail_injections() -> Result<Vec<RunKey>, String> {
    let Ok(spec) = std::env::var(FAIL_INJECT_ENV) else {
        return Ok(Vec::new());
    };
    spec.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            let (p, r) = s
                .trim()
                .split_once(':')
                .ok_or_else(|| format!("{FAIL_INJECT_ENV}: `{s}` is not `point:replication`"))?;
            let bad = |_| format!("{FAIL_INJECT_ENV}: `{s}` is not `point:replication`");
            Ok(RunKey {
                point: p.parse().map_err(bad)?,
                replication: r.parse().map_err(bad)?,
            })
        })
        .collect()
}

/// `netsim sweep --status`: per point, what is done, failed, running, missing.
pub fn status_report(dir: &Path, m: &Manifest) -> String {
    let st = statuses(dir, m);
    let mut s = format!(
        "campaign {} in {} | {} points x {} replications\n",
        m.name,
        dir.display(),
        m.points.len(),
        m.replications
    );
    if !dir.join(MANIFEST).is_file() {
        s.push_str("(no store yet: nothing has run)\n");
    }
    s.push_str(&format!(
        "{:>5}  {:>4} {:>6} {:>7} {:>7}  {}\n",
        "point", "done", "failed", "running", "missing", "values"
    ));
    for (p, chunk) in m
        .points
        .iter()
        .zip(st.chunks(m.replications.max(1) as usize))
    {
        let n = |w: &str| chunk.iter().filter(|(_, x)| x.word() == w).count();
        s.push_str(&format!(
            "{:>5}  {:>4} {:>6} {:>7} {:>7}  {}\n",
            p.index,
            n("done"),
            n("failed"),
            n("running"),
            n("missing"),
            m.describe(p)
        ));
        for (k, x) in chunk {
            if let RunStatus::Failed(e) = x {
                s.push_str(&format!(
                    "       replication {}: {}\n",
                    k.replication,
                    e.lines().next().unwrap_or("")
                ));
            }
        }
    }
    let c = status_counts(&st);
    s.push_str(&format!(
        "total: {} runs | {}\n",
        st.len(),
        c.iter()
            .map(|(w, n)| format!("{w} {n}"))
            .collect::<Vec<_>>()
            .join(" | ")
    ));
    s
}

/// `netsim collect DIR`.
pub fn cmd_collect(
    dir: &Path,
    format: analysis::Format,
    partial: bool,
) -> Result<ExitCode, String> {
    let m = Manifest::read(dir).map_err(|e| e.to_string())?;
    let col = collect(dir, &m, partial).map_err(|e| e.to_string())?;
    if !col.incomplete.is_empty() {
        eprintln!(
            "warning: {}",
            incomplete_message(&m, &col.incomplete, m.runs())
        );
    }
    let written = write_collected(dir, &col, format).map_err(|e| e.to_string())?;
    say(&written_note(&written, &col));
    Ok(ExitCode::SUCCESS)
}
