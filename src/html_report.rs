//! `netsim report PATH`: one self-contained HTML page for a run's output
//! directory, a campaign store (after `netsim collect`) or a `netsim
//! reproduce --out` CSV file.
//!
//! The page needs nothing beside itself (no script, no style sheet, no image
//! file: the plots are inlined SVG), so it can be mailed, archived with a
//! paper's artefacts, or opened from a cluster's file system. A run's page
//! holds its provenance (netsim version and build fingerprint, seed,
//! replications, the report's header line), its reference values with their
//! verdicts, the groups' and the busiest links' metrics as mean ± 95 %
//! Student-t half-width across replications, every plot, and the resolved
//! scenario. A campaign's page holds its parameters, its summary (mean ±
//! half-width per point) and its plots; a reproduction's page its verdicts
//! and their totals. The plots are those of `netsim plot`, rendered first
//! when the directory has none.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use analysis::read::{find_table, read_table};
use polars::prelude::{AnyValue, DataFrame};

/// At most this many rows of a long table are shown; the rest are in the
/// table's file, and the page says so.
const MAX_ROWS: usize = 400;

/// Links shown in a run's page: those with the highest utilisation, at most
/// this many (every link is in the links table).
const MAX_LINKS: usize = 40;

/// Write the page for `path` to `out` (default: `report.html` in the
/// directory, or beside the CSV file); returns where it went.
pub fn write_report(path: &Path, out: Option<&Path>) -> Result<PathBuf, String> {
    let (page, default_out) = if path.is_file() {
        (reproduce_page(path)?, path.with_extension("html"))
    } else if analysis::campaign::is_campaign(path) {
        (campaign_page(path)?, path.join("report.html"))
    } else if path.join("scenario.resolved.toml").is_file() {
        (run_page(path)?, path.join("report.html"))
    } else {
        return Err(format!(
            "{}: not a run's output directory (no scenario.resolved.toml: the run did not \
             finish), a campaign store (no manifest.toml) or a `netsim reproduce --out` CSV file",
            path.display()
        ));
    };
    let out = out.map_or(default_out, Path::to_path_buf);
    analysis::write_atomic(&out, page.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(out)
}

/// `s` with `&`, `<`, `>` and `"` escaped for HTML text and attributes.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

/// The page around `body`, with its title and the style sheet inline.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{t}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n{body}\
         <footer>Written by netsim {} (build {}).</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        crate::sweep::BUILD_ID,
        t = esc(title),
    )
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;\
color:#111;padding:0 1em}\
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}\
th,td{border:1px solid #bbb;padding:0.25em 0.6em;text-align:left;vertical-align:top}\
th{background:#eee}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
div.scroll{overflow-x:auto}\
td.pass{background:#d8f0d8}td.miss{background:#f6d0d0}td.deviates{background:#fbe9c8}\
figure{margin:1em 0;border:1px solid #ddd;padding:0.5em}figure svg{max-width:100%;height:auto}\
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:0.85em}\
p.note{color:#555;font-size:0.9em}footer{margin-top:3em;color:#666;font-size:0.8em}\n";

/// An `<h2>` section with an id (for links and tests).
fn section(out: &mut String, id: &str, title: &str, content: &str) {
    let _ = write!(
        out,
        "<section id=\"{id}\">\n<h2>{}</h2>\n{content}</section>\n",
        esc(title)
    );
}

/// One table cell's text for a value of a table read back.
fn cell(v: &AnyValue<'_>) -> String {
    match v {
        AnyValue::Null => String::new(),
        AnyValue::String(s) => (*s).to_string(),
        AnyValue::StringOwned(s) => s.to_string(),
        AnyValue::Float64(x) => crate::expect::g(*x),
        AnyValue::Float32(x) => crate::expect::g(f64::from(*x)),
        other => other.to_string(),
    }
}

/// An HTML table of `rows` under `head`; numeric-looking cells right-aligned,
/// a `verdict` column's cells classed by their word.
fn html_table(id: &str, head: &[String], rows: &[Vec<String>]) -> String {
    let mut o = format!("<div class=\"scroll\"><table id=\"{id}\">\n");
    if head.iter().any(|h| !h.is_empty()) {
        o.push_str("<thead><tr>");
        for h in head {
            let _ = write!(o, "<th>{}</th>", esc(h));
        }
        o.push_str("</tr></thead>\n");
    }
    o.push_str("<tbody>\n");
    let verdict = head.iter().position(|h| h == "verdict");
    for r in rows.iter().take(MAX_ROWS) {
        o.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if Some(i) == verdict {
                match c.as_str() {
                    "PASS" | "PASS*" => " class=\"pass\"",
                    "MISS" => " class=\"miss\"",
                    "DEVIATES" => " class=\"deviates\"",
                    _ => "",
                }
            } else if c.parse::<f64>().is_ok() || c.contains(" ± ") {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(o, "<td{class}>{}</td>", esc(c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table></div>\n");
    if rows.len() > MAX_ROWS {
        let _ = writeln!(
            o,
            "<p class=\"note\">The first {MAX_ROWS} of {} rows; all are in the table's file.</p>",
            rows.len()
        );
    }
    o
}

/// A whole data frame as header and display rows.
fn frame_rows(df: &DataFrame) -> (Vec<String>, Vec<Vec<String>>) {
    let head: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let cols = df.columns();
    let rows = (0..df.height())
        .map(|i| {
            cols.iter()
                .map(|c| c.get(i).map(|v| cell(&v)).unwrap_or_default())
                .collect()
        })
        .collect();
    (head, rows)
}

/// The unit a metric is shown in, for column headers, and its scale from
/// the tables' base units: rates in Mb/s, utilisation in %, the rest as
/// stored (seconds, packets, bytes, counts, ratios), as the text report.
fn display(metric: &str) -> (f64, &'static str) {
    if metric.ends_with("_bps") {
        (1e-6, "Mb/s")
    } else if metric == "utilisation" {
        (100.0, "%")
    } else {
        (1.0, "")
    }
}

/// A metric's column header: its name with the display unit.
fn header(metric: &str) -> String {
    match display(metric) {
        (_, "") => metric.to_string(),
        (_, unit) => format!("{metric} ({unit})"),
    }
}

/// `mean ± half` in the report's number style and the metric's display
/// unit ([`display`]; a bare mean when there is no interval).
fn pm_text(metric: &str, mean: f64, half: Option<f64>) -> String {
    let (k, _) = display(metric);
    match half.filter(|h| h.is_finite()) {
        Some(h) => {
            let (m, h) = crate::expect::pm(mean * k, h * k);
            format!("{m} ± {h}")
        }
        None => crate::expect::g(mean * k),
    }
}

/// The summary rows of one scope as a table: subjects down, metrics across
/// (in first-seen order; a metric zero in every subject and every
/// replication is left out), `mean ± half-width`.
fn pivot(summary: &DataFrame, scope: &str, subjects: Option<&[String]>) -> Option<String> {
    let str_col = |n: &str| summary.column(n).ok()?.str().ok().cloned();
    let f64_col = |n: &str| {
        summary
            .column(n)
            .ok()?
            .cast(&polars::prelude::DataType::Float64)
            .ok()?
            .f64()
            .ok()
            .cloned()
    };
    let (sc, su, me) = (str_col("scope")?, str_col("subject")?, str_col("metric")?);
    let (mean, half) = (f64_col("mean")?, f64_col("ci95_half")?);
    let mut metrics: Vec<String> = Vec::new();
    let mut nonzero: BTreeMap<String, bool> = BTreeMap::new();
    let mut cells: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for i in 0..summary.height() {
        if sc.get(i) != Some(scope) {
            continue;
        }
        let (Some(s), Some(m), Some(x)) = (su.get(i), me.get(i), mean.get(i)) else {
            continue;
        };
        if subjects.is_some_and(|keep| !keep.iter().any(|k| k == s)) {
            continue;
        }
        if !nonzero.contains_key(m) {
            metrics.push(m.to_string());
        }
        *nonzero.entry(m.to_string()).or_default() |= x != 0.0;
        if !order.iter().any(|o| o == s) {
            order.push(s.to_string());
        }
        cells.insert((s.to_string(), m.to_string()), pm_text(m, x, half.get(i)));
    }
    if order.is_empty() {
        return None;
    }
    metrics.retain(|m| nonzero[m]);
    let mut head = vec![scope.to_string()];
    head.extend(metrics.iter().map(|m| header(m)));
    let rows: Vec<Vec<String>> = order
        .iter()
        .map(|s| {
            let mut r = vec![s.clone()];
            r.extend(metrics.iter().map(|m| {
                cells
                    .get(&(s.clone(), m.clone()))
                    .cloned()
                    .unwrap_or_default()
            }));
            r
        })
        .collect();
    Some(html_table(&format!("{scope}-table"), &head, &rows))
}

/// The links worth a look, as the text report picks them: utilisation of
/// at least 50 %, or drops, marks or a queue; the busiest first, at most
/// [`MAX_LINKS`] (the five busiest when none qualifies).
fn busiest_links(summary: &DataFrame) -> Vec<String> {
    let mut links: Vec<(String, f64)> = Vec::new();
    let mut active: std::collections::HashSet<String> = std::collections::HashSet::new();
    let (Ok(sc), Ok(su), Ok(me)) = (
        summary.column("scope").and_then(|c| c.str().cloned()),
        summary.column("subject").and_then(|c| c.str().cloned()),
        summary.column("metric").and_then(|c| c.str().cloned()),
    ) else {
        return links.into_iter().map(|l| l.0).collect();
    };
    let Ok(mean) = summary
        .column("mean")
        .and_then(|c| c.cast(&polars::prelude::DataType::Float64))
    else {
        return Vec::new();
    };
    let Ok(mean) = mean.f64().cloned() else {
        return Vec::new();
    };
    for i in 0..summary.height() {
        let (Some("link"), Some(s), Some(m), Some(x)) =
            (sc.get(i), su.get(i), me.get(i), mean.get(i))
        else {
            continue;
        };
        match m {
            "utilisation" => {
                links.push((s.to_string(), x));
                if x >= 0.5 {
                    active.insert(s.to_string());
                }
            }
            "dropped_pkts" | "marked_pkts" | "backlog_mean_pkts" if x > 0.01 => {
                active.insert(s.to_string());
            }
            _ => {}
        }
    }
    // A campaign has a row per point: keep each link's highest.
    links.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut seen = std::collections::HashSet::new();
    links.retain(|l| seen.insert(l.0.clone()));
    if links.iter().any(|l| active.contains(&l.0)) {
        links.retain(|l| active.contains(&l.0));
    } else {
        links.truncate(5);
    }
    links.truncate(MAX_LINKS);
    links.into_iter().map(|l| l.0).collect()
}

/// Every SVG file in `dir`, by name, inlined in a figure with its file name.
fn figures(dir: &Path) -> Result<String, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    files.sort();
    let mut o = String::new();
    for f in &files {
        let svg =
            std::fs::read_to_string(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let start = svg.find("<svg").unwrap_or(0);
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let _ = write!(
            o,
            "<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
            svg[start..].trim_end(),
            esc(&name)
        );
    }
    Ok(o)
}

/// Whether `dir` holds an SVG file.
fn has_svg(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "svg"))
    })
}

/// The page of a run's output directory.
fn run_page(dir: &Path) -> Result<String, String> {
    let resolved_path = dir.join("scenario.resolved.toml");
    let resolved = std::fs::read_to_string(&resolved_path)
        .map_err(|e| format!("cannot read {}: {e}", resolved_path.display()))?;
    let summary_path =
        find_table(dir, "summary").ok_or_else(|| format!("{}: no summary table", dir.display()))?;
    let summary = read_table(&summary_path).map_err(|e| e.to_string())?;
    let parsed = topology::Resolved::parse(&resolved, "run").ok();
    let name = parsed
        .as_ref()
        .map_or_else(|| dir.display().to_string(), |r| r.name.clone());
    if !has_svg(dir) {
        let warmup_s = parsed.as_ref().map(|r| r.scenario.run.warmup.as_secs_f64());
        analysis::plot::plot_dir(
            dir,
            &analysis::plot::SeriesOptions {
                warmup_s,
                replication: None,
            },
        )
        .map_err(|e| e.to_string())?;
    }
    let mut body = String::new();
    // Provenance.
    let mut prov: Vec<Vec<String>> = Vec::new();
    if let Some(first) = resolved.lines().next() {
        prov.push(vec![
            "resolved by".into(),
            first.trim_start_matches("# ").into(),
        ]);
    }
    if let Some(r) = &parsed {
        let run = &r.scenario.run;
        prov.push(vec!["scenario".into(), r.name.clone()]);
        if let Some(d) = &r.scenario.description {
            prov.push(vec!["description".into(), d.clone()]);
        }
        prov.push(vec!["seed".into(), run.seed.to_string()]);
        prov.push(vec!["replications".into(), run.replications.to_string()]);
        prov.push(vec![
            "duration (warm-up)".into(),
            format!("{} ({})", run.duration, run.warmup),
        ]);
    }
    if let Ok(report) = std::fs::read_to_string(dir.join("report.txt")) {
        if let Some(first) = report.lines().next() {
            prov.push(vec!["run".into(), first.to_string()]);
        }
    }
    section(
        &mut body,
        "provenance",
        "Provenance",
        &html_table("provenance-table", &["".into(), "".into()], &prov),
    );
    // Reference values.
    let verdicts = dir.join("expectations.csv");
    if verdicts.is_file() {
        let df = read_table(&verdicts).map_err(|e| e.to_string())?;
        section(
            &mut body,
            "expectations",
            "Reference values",
            &verdict_table(&df),
        );
    }
    let note = "<p class=\"note\">Mean ± half-width of the 95 % Student-t interval across \
                replications; metrics zero everywhere are left out.</p>\n";
    if let Some(t) = pivot(&summary, "group", None) {
        section(&mut body, "groups", "Flow groups", &format!("{note}{t}"));
    }
    let busiest = busiest_links(&summary);
    if let Some(t) = pivot(&summary, "link", Some(&busiest)) {
        let note = format!(
            "<p class=\"note\">{} link(s) with a utilisation of at least 50 %, drops, marks \
             or a queue, the busiest first; every link is in the links table.</p>\n",
            busiest.len()
        );
        section(&mut body, "links", "Links", &format!("{note}{t}"));
    }
    if let Some(path) = find_table(dir, "fct_bins") {
        let df = read_table(&path).map_err(|e| e.to_string())?;
        let (head, rows) = frame_rows(&df);
        section(
            &mut body,
            "fct-bins",
            "Completion times by flow size",
            &html_table("fct-bins-table", &head, &rows),
        );
    }
    section(&mut body, "plots", "Plots", &figures(dir)?);
    section(
        &mut body,
        "scenario",
        "Resolved scenario",
        &format!("<pre>{}</pre>\n", esc(&resolved)),
    );
    Ok(page(&format!("netsim report: {name}"), &body))
}

/// A verdict table read back (`netsim run`'s `expectations.csv` or a
/// reproduction's CSV), with the columns a reader needs.
fn verdict_table(df: &DataFrame) -> String {
    let (head, rows) = frame_rows(df);
    let want = [
        "scenario",
        "scope",
        "subject",
        "metric",
        "ratio_to",
        "source",
        "reference",
        "netsim_mean",
        "netsim_ci_halfwidth",
        "n",
        "rule",
        "kind",
        "verdict",
        "deviation",
        "cross_check",
    ];
    let idx: Vec<usize> = want
        .iter()
        .filter_map(|w| head.iter().position(|h| h == w))
        .collect();
    // The reference and netsim's mean ± half-width in the metric's display
    // unit, as the printed table, in one column each.
    let at = |name: &str| head.iter().position(|h| h == name);
    let (metric, mean, half) = (at("metric"), at("netsim_mean"), at("netsim_ci_halfwidth"));
    let reference = at("reference");
    let shown: Vec<usize> = idx.iter().copied().filter(|&i| Some(i) != half).collect();
    let titles: Vec<String> = shown
        .iter()
        .map(|&i| match head[i].as_str() {
            "netsim_mean" => "netsim (mean ± 95 % CI)".into(),
            h => h.into(),
        })
        .collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let m = metric.map_or("", |i| r[i].as_str());
            let unit = display(m).1;
            let with_unit = |x: String| {
                if x.is_empty() || unit.is_empty() {
                    x
                } else {
                    format!("{x} {unit}")
                }
            };
            shown
                .iter()
                .map(|&i| {
                    if Some(i) == mean {
                        let h = half.and_then(|h| r[h].parse().ok());
                        match r[i].parse::<f64>() {
                            Ok(x) => with_unit(pm_text(m, x, h)),
                            Err(_) => r[i].clone(),
                        }
                    } else if Some(i) == reference {
                        match r[i].parse::<f64>() {
                            Ok(x) => with_unit(pm_text(m, x, None)),
                            Err(_) => r[i].clone(),
                        }
                    } else {
                        r[i].clone()
                    }
                })
                .collect()
        })
        .collect();
    html_table("verdicts", &titles, &rows)
}

/// The page of a reproduction's CSV file (`netsim reproduce --out`).
fn reproduce_page(csv: &Path) -> Result<String, String> {
    let df = read_table(csv).map_err(|e| e.to_string())?;
    let verdicts = df
        .column("verdict")
        .and_then(|c| c.str().cloned())
        .map_err(|_| {
            format!(
                "{}: no `verdict` column: not a `netsim reproduce --out` CSV file",
                csv.display()
            )
        })?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in verdicts.iter().flatten() {
        *counts.entry(v).or_default() += 1;
    }
    let totals: Vec<Vec<String>> = counts
        .iter()
        .map(|(k, n)| vec![k.to_string(), n.to_string()])
        .collect();
    let mut body = String::new();
    section(
        &mut body,
        "totals",
        "Totals",
        &html_table("totals-table", &["verdict".into(), "count".into()], &totals),
    );
    // The printed totals sentence, from the Markdown file beside it.
    if let Ok(md) = std::fs::read_to_string(csv.with_extension("md")) {
        if let Some(last) = md.lines().rev().find(|l| !l.trim().is_empty()) {
            let _ = writeln!(body, "<p>{}</p>", esc(last));
        }
    }
    section(
        &mut body,
        "expectations",
        "Reference values",
        &verdict_table(&df),
    );
    let name = csv
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into());
    Ok(page(&format!("netsim reproduction: {name}"), &body))
}

/// The group metrics a campaign's table shows per point.
const CAMPAIGN_GROUP_METRICS: [&str; 6] = [
    "goodput_sum_bps",
    "goodput_bps",
    "jain",
    "fct_p50_s",
    "fct_p99_s",
    "timeouts",
];

/// The link metrics a campaign's table shows per point, for the links
/// [`busiest_links`] picks.
const CAMPAIGN_LINK_METRICS: [&str; 5] = [
    "utilisation",
    "backlog_mean_pkts",
    "qdelay_mean_s",
    "drop_prob",
    "mark_prob",
];

/// A campaign's summary as one row per point (its parameter labels) and a
/// column per headline quantity: the groups' [`CAMPAIGN_GROUP_METRICS`] and
/// the busiest links' [`CAMPAIGN_LINK_METRICS`], each `mean ± half-width`,
/// columns zero at every point left out. `None` if `summary` lacks the
/// collected columns.
fn campaign_table(summary: &DataFrame) -> Option<String> {
    let (head, rows) = frame_rows(summary);
    let at = |name: &str| head.iter().position(|h| h == name);
    let (pi, sc, su, me) = (at("point")?, at("scope")?, at("subject")?, at("metric")?);
    let (mi, hi) = (at("mean")?, at("ci95_half")?);
    let fixed = [
        "point",
        "scope",
        "subject",
        "metric",
        "n",
        "mean",
        "sd",
        "ci95_half",
    ];
    let labels: Vec<usize> = (0..head.len())
        .filter(|&i| !fixed.contains(&head[i].as_str()) && !head[i].ends_with("_value"))
        .collect();
    let links = busiest_links(summary);
    let mut columns: Vec<(String, String, String)> = Vec::new();
    let mut nonzero: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let mut points: Vec<(String, Vec<String>)> = Vec::new();
    let mut cells: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for r in &rows {
        let (scope, subject, metric) = (&r[sc], &r[su], &r[me]);
        let shown = match scope.as_str() {
            "group" => CAMPAIGN_GROUP_METRICS.contains(&metric.as_str()),
            "link" => CAMPAIGN_LINK_METRICS.contains(&metric.as_str()) && links.contains(subject),
            _ => false,
        };
        if !shown {
            continue;
        }
        let key = (scope.clone(), subject.clone(), metric.clone());
        let c = columns.iter().position(|k| *k == key).unwrap_or_else(|| {
            columns.push(key);
            columns.len() - 1
        });
        let p = points
            .iter()
            .position(|(id, _)| *id == r[pi])
            .unwrap_or_else(|| {
                points.push((
                    r[pi].clone(),
                    labels.iter().map(|&i| r[i].clone()).collect(),
                ));
                points.len() - 1
            });
        let mean: f64 = r[mi].parse().unwrap_or(f64::NAN);
        if mean != 0.0 && mean.is_finite() {
            nonzero.insert(c);
        }
        cells.insert((p, c), pm_text(metric, mean, r[hi].parse().ok()));
    }
    let kept: Vec<usize> = (0..columns.len()).filter(|c| nonzero.contains(c)).collect();
    let mut titles = vec!["point".to_string()];
    titles.extend(labels.iter().map(|&i| head[i].clone()));
    titles.extend(kept.iter().map(|&c| {
        format!(
            "{} {} {}",
            columns[c].0,
            columns[c].1,
            header(&columns[c].2)
        )
    }));
    let table_rows: Vec<Vec<String>> = points
        .iter()
        .enumerate()
        .map(|(p, (id, lab))| {
            let mut o = vec![id.clone()];
            o.extend(lab.iter().cloned());
            o.extend(
                kept.iter()
                    .map(|&c| cells.get(&(p, c)).cloned().unwrap_or_default()),
            );
            o
        })
        .collect();
    Some(format!(
        "<p class=\"note\">Mean ± half-width of the 95 % Student-t interval across \
         replications, per point; the groups' and the busiest links' headline metrics (every \
         metric is in the campaign's summary table).</p>\n{}",
        html_table("campaign-summary", &titles, &table_rows)
    ))
}

/// The page of a campaign store (collected).
fn campaign_page(dir: &Path) -> Result<String, String> {
    let summary_path = find_table(dir, "summary").ok_or_else(|| {
        format!(
            "{}: no collected summary: run `netsim collect {}` first",
            dir.display(),
            dir.display()
        )
    })?;
    let summary = read_table(&summary_path).map_err(|e| e.to_string())?;
    if !has_svg(dir) {
        let (refs, derived) = crate::curve::overlays(dir);
        analysis::plot_sweep::plot_campaign_with(dir, &refs, &derived)
            .map_err(|e| e.to_string())?;
    }
    let scenario = std::fs::read_to_string(dir.join("scenario.toml")).unwrap_or_default();
    let manifest = std::fs::read_to_string(dir.join("manifest.toml")).unwrap_or_default();
    let mut body = String::new();
    section(
        &mut body,
        "summary",
        "Summary per point",
        &campaign_table(&summary)
            .ok_or_else(|| format!("{}: not a campaign summary", summary_path.display()))?,
    );
    section(&mut body, "plots", "Plots", &figures(dir)?);
    section(
        &mut body,
        "scenario",
        "Campaign scenario",
        &format!("<pre>{}</pre>\n", esc(&scenario)),
    );
    section(
        &mut body,
        "manifest",
        "Manifest (points, seeds, build)",
        &format!("<pre>{}</pre>\n", esc(&manifest)),
    );
    let name = dir
        .file_name()
        .map_or_else(String::new, |s| s.to_string_lossy().into());
    Ok(page(&format!("netsim campaign: {name}"), &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_verdicts_are_classed() {
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        let t = html_table(
            "t",
            &["name".into(), "x".into(), "verdict".into()],
            &[vec!["r1->r2".into(), "0.5".into(), "MISS".into()]],
        );
        assert!(t.contains("<td>r1-&gt;r2</td>"), "{t}");
        assert!(t.contains("<td class=\"num\">0.5</td>"), "{t}");
        assert!(t.contains("<td class=\"miss\">MISS</td>"), "{t}");
    }

    #[test]
    fn utilisation_reads_in_percent_and_other_metrics_as_they_are() {
        assert_eq!(pm_text("utilisation", 0.9, Some(0.01)), "90.00 ± 1.00");
        assert_eq!(header("utilisation"), "utilisation (%)");
        assert_eq!(pm_text("goodput_bps", 2.5e6, Some(1.1e4)), "2.500 ± 0.011");
        assert_eq!(header("goodput_bps"), "goodput_bps (Mb/s)");
        assert_eq!(pm_text("jain", 0.5, None), "0.5");
    }
}
