//! `netsim slurm`: a campaign as a Slurm job array plus a dependent collect job.
//!
//! The store is prepared exactly as `netsim sweep` prepares it (scenario copy
//! and manifest), then two batch scripts are written into `DIR/slurm/`:
//! `sweep.sbatch`, an array of N tasks where task I runs
//! `netsim sweep DIR/scenario.toml --out DIR --task I --tasks N`, and
//! `collect.sbatch`, which runs `netsim collect DIR`. With `--submit` both are
//! submitted with `sbatch --parsable`, the collect job with
//! `--dependency=afterok:<array job>`. A failed shard is resubmitted alone with
//! `sbatch --array=I DIR/slurm/sweep.sbatch`; it skips the runs that exist.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::say;
use crate::sweep::{load_campaign, manifest, prepare_store};

/// What `netsim slurm` was asked to do.
pub struct SlurmOpts {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Store directory (must be on a file system the compute nodes share).
    pub out: PathBuf,
    /// Array size (default: one task per run, at most 100).
    pub tasks: Option<usize>,
    /// Slurm partition.
    pub partition: Option<String>,
    /// Time limit per array task (Slurm syntax).
    pub time: String,
    /// CPUs per task (threads of each shard).
    pub cpus: usize,
    /// Replications per point override.
    pub replications: Option<u32>,
    /// The netsim executable the jobs run (default: this one).
    pub netsim: Option<PathBuf>,
    /// Format of the collected tables.
    pub format: analysis::Format,
    /// Submit with sbatch.
    pub submit: bool,
}

/// Default cap on the array size when `--tasks` is not given.
pub const DEFAULT_MAX_TASKS: usize = 100;

/// Single-quote `s` for a POSIX shell.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("cannot resolve {}: {e}", p.display()))
}

/// `netsim slurm`.
pub fn cmd_slurm(o: SlurmOpts) -> Result<ExitCode, String> {
    let c = load_campaign(&o.scenario, None, o.replications)?;
    let m = manifest(&c);
    let runs = c.runs();
    let tasks = o.tasks.unwrap_or(runs.min(DEFAULT_MAX_TASKS)).min(runs);
    if tasks == 0 {
        return Err("--tasks must be >= 1".into());
    }
    if o.cpus == 0 {
        return Err("--cpus must be >= 1".into());
    }
    let dir = absolute(&o.out)?;
    prepare_store(&dir, &c, &m)?;
    let exe = match &o.netsim {
        Some(p) => absolute(p)?,
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find the netsim executable: {e}"))?,
    };
    let sdir = dir.join("slurm");
    let logs = sdir.join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
    let d = |p: &Path| p.display().to_string();
    let fmt = o.format.extension();
    let partition = o
        .partition
        .as_ref()
        .map_or(String::new(), |p| format!("#SBATCH --partition={p}\n"));
    let sweep = format!(
        "#!/bin/bash\n\
         # netsim campaign `{name}`: {points} points x {reps} replications = {runs} runs in {tasks} shards.\n\
         # Written by `netsim slurm`; resubmit one shard with: sbatch --array=I {script}\n\
         #SBATCH --job-name=netsim-{name}\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         #SBATCH --time={time}\n\
         #SBATCH --output={logs}/sweep-%A_%a.out\n\
         {partition}\
         set -euo pipefail\n\
         exec {exe} sweep {scenario} --out {dir} --name {qname} --replications {reps} \\\n\
         \x20 --task \"$SLURM_ARRAY_TASK_ID\" --tasks {tasks} --threads {cpus} --quiet\n",
        name = c.name,
        points = c.points.len(),
        reps = c.replications,
        script = d(&sdir.join("sweep.sbatch")),
        last = tasks - 1,
        cpus = o.cpus,
        time = o.time,
        logs = d(&logs),
        exe = sh(&d(&exe)),
        scenario = sh(&d(&dir.join(analysis::campaign::SCENARIO))),
        dir = sh(&d(&dir)),
        qname = sh(&c.name),
    );
    let collect = format!(
        "#!/bin/bash\n\
         # Collects the campaign `{name}` once every shard has succeeded.\n\
         #SBATCH --job-name=netsim-{name}-collect\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --time={time}\n\
         #SBATCH --output={logs}/collect-%j.out\n\
         {partition}\
         set -euo pipefail\n\
         exec {exe} collect {dir} --format {fmt}\n",
        name = c.name,
        time = o.time,
        logs = d(&logs),
        exe = sh(&d(&exe)),
        dir = sh(&d(&dir)),
    );
    let sweep_path = sdir.join("sweep.sbatch");
    let collect_path = sdir.join("collect.sbatch");
    analysis::write_atomic(&sweep_path, sweep.as_bytes()).map_err(|e| e.to_string())?;
    analysis::write_atomic(&collect_path, collect.as_bytes()).map_err(|e| e.to_string())?;
    let mut report = format!(
        "campaign {} | {} runs in {tasks} array tasks | store {}\nwrote {}\nwrote {}\n",
        c.name,
        runs,
        dir.display(),
        sweep_path.display(),
        collect_path.display()
    );
    if o.submit {
        let array = sbatch(&[], &sweep_path)?;
        let col = sbatch(&[format!("--dependency=afterok:{array}")], &collect_path)?;
        report.push_str(&format!(
            "submitted array job {array} and collect job {col} (afterok)\n\
             progress: netsim sweep {} --out {} --status\n",
            dir.join(analysis::campaign::SCENARIO).display(),
            dir.display()
        ));
        report.push_str(&format!("jobs: {array} {col}\n"));
    } else {
        report.push_str(&format!(
            "submit with: sbatch {} and then sbatch --dependency=afterok:<array job id> {}\n",
            sweep_path.display(),
            collect_path.display()
        ));
    }
    say(&report);
    Ok(ExitCode::SUCCESS)
}

/// Submit `script` with `sbatch --parsable`; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String, String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| format!("cannot run sbatch (is Slurm installed and on PATH?): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "sbatch {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    if id.is_empty() || !id.chars().all(|ch| ch.is_ascii_digit()) {
        return Err(format!("sbatch printed no job id: {}", text.trim()));
    }
    Ok(id)
}
