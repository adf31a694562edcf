//! `netsim reproduce DIR`: run every scenario of a paper's folder that has
//! `[[expect]]` reference values and print one table of experiment, quantity,
//! paper value, netsim mean ± CI and verdict.
//!
//! Each scenario file says how long it takes in a header comment line,
//! `# reproduce: fast` (seconds: run in CI) or `# reproduce: slow` (on demand);
//! `--fast` runs only the fast ones. A scenario with a `[sweep]` contributes its
//! base values, as `netsim run` does; without `--fast` its `[[sweep.expect]]`
//! curve expectations are judged too, on its campaign in the default store
//! (`out/<name>-sweep`, resumed if it exists, as `netsim sweep` would).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::{expect, read_scenario, runner, say};

/// Options of `netsim reproduce`.
pub struct ReproduceOpts {
    /// The folder of scenario files.
    pub dir: PathBuf,
    /// Run only the scenarios marked `# reproduce: fast`.
    pub fast: bool,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// Override every scenario's replication count.
    pub replications: Option<u32>,
    /// Also write the table to this file.
    pub out: Option<PathBuf>,
}

/// The runtime class a scenario file declares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// Seconds: part of the CI subset.
    Fast,
    /// Minutes: on demand.
    Slow,
}

/// The class declared by a `# reproduce: fast|slow` comment line, if any.
pub fn declared_class(text: &str) -> Result<Option<Class>, String> {
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix('#') else {
            continue;
        };
        let Some(value) = rest.trim().strip_prefix("reproduce:") else {
            continue;
        };
        return match value.trim() {
            "fast" => Ok(Some(Class::Fast)),
            "slow" => Ok(Some(Class::Slow)),
            other => Err(format!(
                "line {}: `# reproduce: {other}`: expected `fast` or `slow`",
                i + 1
            )),
        };
    }
    Ok(None)
}

/// The `.toml` files of `dir`, sorted by name.
fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .path();
        if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Run the paper's expectations and print the table.
pub fn cmd_reproduce(o: ReproduceOpts) -> Result<ExitCode, String> {
    if o.replications == Some(0) {
        return Err("--replications must be >= 1".into());
    }
    let files = scenario_files(&o.dir)?;
    // Parse every selected file first: a broken one fails the command before any run.
    let mut selected = Vec::new();
    for path in &files {
        let (text, stem) = read_scenario(path)?;
        let class = declared_class(&text)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .unwrap_or(Class::Slow);
        if o.fast && class != Class::Fast {
            continue;
        }
        let mut resolved = topology::Resolved::parse(&text, stem)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let curves = !o.fast
            && resolved
                .scenario
                .sweep
                .as_ref()
                .is_some_and(|s| !s.expect.is_empty());
        if resolved.scenario.expect.is_empty() && !curves {
            continue;
        }
        if let Some(r) = o.replications {
            resolved.scenario.run.replications = r;
        }
        selected.push((path.clone(), resolved));
    }
    if selected.is_empty() {
        return Err(format!(
            "no scenario with [[expect]] entries{} in {}",
            if o.fast {
                " marked `# reproduce: fast`"
            } else {
                ""
            },
            o.dir.display()
        ));
    }
    let t0 = Instant::now();
    let mut results = Vec::new();
    for (i, (path, resolved)) in selected.iter().enumerate() {
        let t = Instant::now();
        let compared = runner::compared_scenarios(resolved, path)?;
        let (set, _, _) = runner::run_set(resolved, o.threads, false, None)?;
        let compared_sets = runner::run_compared(&compared, o.threads)?;
        let compared_metrics: Vec<(String, analysis::Metrics)> = compared_sets
            .iter()
            .map(|(n, s)| (n.clone(), analysis::Metrics::new(s)))
            .collect();
        let oracles = crate::oracle::Oracles::compute(resolved);
        let verdicts = expect::evaluate(
            &resolved.scenario.expect,
            &analysis::Metrics::new(&set),
            &crate::oracle::lookup(resolved, &oracles),
            &compared_metrics,
        );
        let passed = verdicts.iter().filter(|v| v.pass).count();
        eprintln!(
            "[{}/{}] {}: {passed}/{} reference values ({:.1} s)",
            i + 1,
            selected.len(),
            path.display(),
            verdicts.len(),
            t.elapsed().as_secs_f64()
        );
        results.push((resolved.name.clone(), verdicts));
        if !o.fast {
            let t = Instant::now();
            let (name, curves) = crate::sweep::run_curves(path, o.threads, o.replications)?;
            if !curves.is_empty() {
                eprintln!(
                    "[{}/{}] {} (sweep): {}/{} curve expectations ({:.1} s)",
                    i + 1,
                    selected.len(),
                    path.display(),
                    curves.iter().filter(|v| v.pass).count(),
                    curves.len(),
                    t.elapsed().as_secs_f64()
                );
                results.push((format!("{name} (sweep)"), curves));
            }
        }
    }
    let sets: Vec<(String, &[expect::Verdict])> = results
        .iter()
        .map(|(n, v)| (n.clone(), v.as_slice()))
        .collect();
    let all: Vec<&expect::Verdict> = results.iter().flat_map(|(_, v)| v).collect();
    let missed = all.iter().filter(|v| v.failed()).count();
    let footer = format!(
        "{} ({} scenarios, {:.0} s)",
        expect::tally(&all),
        results.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut table = expect::render(&sets);
    table.push_str(&format!("\n{footer}\n"));
    if let Some(out) = &o.out {
        write_outputs(out, &table, &sets, &footer)?;
    }
    say(&table);
    Ok(if missed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Write the table to `out` and beside it in the two other formats: the
/// format of each file follows its extension (`.csv`: one row per verdict
/// with plain numbers, [`expect::render_csv`]; `.md`: a Markdown table and
/// the totals, [`expect::render_markdown`]; anything else: the printed
/// text). `results/pricing.txt` also gives `results/pricing.csv` and
/// `results/pricing.md`; each file is written whole or not at all.
fn write_outputs(
    out: &Path,
    text: &str,
    sets: &[(String, &[expect::Verdict])],
    footer: &str,
) -> Result<(), String> {
    let csv = expect::render_csv(sets);
    let md = format!("{}\n{footer}\n", expect::render_markdown(sets));
    let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut files = vec![(
        out.to_path_buf(),
        match ext {
            "csv" => csv.as_str(),
            "md" => md.as_str(),
            _ => text,
        },
    )];
    for (x, body) in [("txt", text), ("csv", csv.as_str()), ("md", md.as_str())] {
        let is_main = ext == x || (x == "txt" && !matches!(ext, "csv" | "md"));
        if !is_main {
            files.push((out.with_extension(x), body));
        }
    }
    for (path, body) in files {
        analysis::write_atomic(&path, body.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_comes_from_the_first_reproduce_comment() {
        assert_eq!(
            declared_class("# E7\n# reproduce: fast\nname = \"x\"").unwrap(),
            Some(Class::Fast)
        );
        assert_eq!(
            declared_class("  #reproduce:   slow  ").unwrap(),
            Some(Class::Slow)
        );
        assert_eq!(declared_class("name = \"x\"").unwrap(), None);
        let e = declared_class("\n# reproduce: quick").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
    }
}
