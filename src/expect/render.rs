//! Rendering verdicts: the aligned text table `netsim run --check` and
//! `netsim reproduce` print, the same as Markdown, and CSV for scripts;
//! each table followed by the lists of deviation notes and cross-checked
//! misses.

use super::{display_unit, g, pm, reference_word, verdict_word, Verdict};

/// Render the verdicts of one or more scenarios as one table, then the
/// deviation notes and cross-checked misses.
pub fn render(sets: &[(String, &[Verdict])]) -> String {
    let rows = display_rows(sets);
    let widths: Vec<usize> = (0..8)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(s, w)| format!("{s:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    for (heading, items) in note_lists(sets) {
        out.push_str(&format!("\n{heading}:\n"));
        for n in items {
            out.push_str(&format!("  {n}\n"));
        }
    }
    out
}

/// The table of [`render`] as Markdown: a pipe table (`|` in a cell
/// escaped), then the note lists as Markdown lists.
pub fn render_markdown(sets: &[(String, &[Verdict])]) -> String {
    let rows = display_rows(sets);
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| cell(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if i == 0 {
            out.push_str(&format!("|{}\n", "---|".repeat(r.len())));
        }
    }
    for (heading, items) in note_lists(sets) {
        out.push_str(&format!("\n{heading}:\n\n"));
        for n in items {
            out.push_str(&format!("- {}\n", cell(&n)));
        }
    }
    out
}

/// The verdicts as CSV with numbers unformatted, for scripts: scenario,
/// scope, subject, metric, ratio_to (a subject, a scenario file or a
/// reference rate, empty for none), window_from_s, window_to_s, source,
/// reference, netsim_mean, netsim_ci_halfwidth, level, n, rule, kind,
/// verdict, deviation, cross_check. `reference` and `netsim_mean` are empty
/// where a curve's shape stands in for a number (the text columns of
/// [`render`]).
pub fn render_csv(sets: &[(String, &[Verdict])]) -> String {
    let mut out = String::from(
        "scenario,scope,subject,metric,ratio_to,window_from_s,window_to_s,source,\
         reference,netsim_mean,netsim_ci_halfwidth,level,n,rule,kind,verdict,deviation,\
         cross_check\n",
    );
    let num = |x: f64| {
        if x.is_finite() {
            format!("{x}")
        } else {
            String::new()
        }
    };
    for (scenario, v) in sets
        .iter()
        .flat_map(|(s, vs)| vs.iter().map(move |v| (s, v)))
    {
        let e = &v.expect;
        let ratio = match (&e.ratio_to, &e.ratio_to_scenario, e.relative_to) {
            _ if e.share_with.is_some() => {
                format!("share:{}", e.share_with.as_deref().unwrap_or_default())
            }
            (_, Some(f), _) => f.clone(),
            (_, None, Some(r)) => reference_word(r).to_string(),
            (Some(d), None, None) => d.clone(),
            (None, None, None) => String::new(),
        };
        let [from, to] = e.window.map_or([String::new(), String::new()], |w| {
            w.map(|d| num(d.as_secs_f64()))
        });
        let shaped = v.text.is_some();
        let (mean, half, n) = match v.got {
            Some((m, h, n)) if !shaped => (num(m), num(h), n.to_string()),
            _ => (String::new(), String::new(), String::new()),
        };
        let fields = [
            scenario.clone(),
            e.scope.clone(),
            e.subject.clone(),
            e.metric.clone(),
            ratio,
            from,
            to,
            e.source.clone(),
            if shaped { String::new() } else { num(e.value) },
            mean,
            half,
            num(e.level.unwrap_or(analysis::stats::DEFAULT_LEVEL)),
            n,
            v.rule.clone(),
            e.kind.word().into(),
            verdict_word(v).into(),
            e.deviation.clone().unwrap_or_default(),
            e.cross_check.clone().unwrap_or_default(),
        ];
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// `f` as one CSV field (RFC 4180): quoted, with quotes doubled, when it
/// holds a comma, a quote or a line break.
fn csv_field(f: &str) -> String {
    if f.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", f.replace('"', "\"\""))
    } else {
        f.to_string()
    }
}

/// The lists printed after the table, each with its heading, those that
/// are not empty: the `deviation` notes of every verdict that has one,
/// then the `cross_check` references of each miss (no `deviation` note)
/// whose expectation names them; a line `VERDICT scenario subject metric:
/// text` each.
fn note_lists(sets: &[(String, &[Verdict])]) -> Vec<(&'static str, Vec<String>)> {
    [
        (
            "Known deviations (the scenario's `deviation` notes)",
            annotated(sets, |v| v.expect.deviation.as_ref()),
        ),
        (
            "Misses an independent reference shares (the scenario's \
             `cross_check`: the test that gives netsim's value)",
            annotated(sets, |v| {
                v.failed()
                    .then_some(v.expect.cross_check.as_ref())
                    .flatten()
            }),
        ),
    ]
    .into_iter()
    .filter(|(_, items)| !items.is_empty())
    .collect()
}

/// `VERDICT scenario subject metric: text` for each verdict `text` gives
/// a text for.
fn annotated<'a>(
    sets: &'a [(String, &[Verdict])],
    text: impl Fn(&'a Verdict) -> Option<&'a String>,
) -> Vec<String> {
    sets.iter()
        .flat_map(|(s, vs)| vs.iter().map(move |v| (s, v)))
        .filter_map(|(s, v)| {
            let t = text(v)?;
            Some(format!(
                "{} {s} {} {}: {t}",
                verdict_word(v),
                v.expect.subject,
                v.expect.metric
            ))
        })
        .collect()
}

/// The rows of [`render`], header first, as display strings.
fn display_rows(sets: &[(String, &[Verdict])]) -> Vec<[String; 8]> {
    let mut rows = vec![[
        "scenario".to_string(),
        "quantity".to_string(),
        "source".to_string(),
        "reference".to_string(),
        "netsim".to_string(),
        "rule".to_string(),
        "kind".to_string(),
        "verdict".to_string(),
    ]];
    for (scenario, v) in sets
        .iter()
        .flat_map(|(s, vs)| vs.iter().map(move |v| (s, v)))
    {
        let e = &v.expect;
        let got = match v.got {
            _ if v.text.is_some() => v.text.as_ref().map(|t| t.1.clone()).unwrap_or_default(),
            Some((m, h, n)) if n > 1 && h.is_finite() => {
                let (k, unit) = display_unit(&e.metric);
                let (m, h) = pm(m * k, h * k);
                format!(
                    "{m}{unit} ± {h}{unit} ({}%)",
                    g(e.level.unwrap_or(analysis::stats::DEFAULT_LEVEL) * 100.0)
                )
            }
            Some((m, _, _)) => {
                let (k, unit) = display_unit(&e.metric);
                format!("{}{unit} (n=1)", g(m * k))
            }
            None => "-".into(),
        };
        rows.push([
            scenario.to_string(),
            match (&e.ratio_to, e.relative_to) {
                _ if e.window.is_some() => {
                    let [a, b] = e.window.unwrap_or_default();
                    format!("{} {} {} [{a}, {b}]", e.scope, e.subject, e.metric)
                }
                _ if e.share_with.is_some() => format!(
                    "{} {} {} share with {}",
                    e.scope,
                    e.subject,
                    e.metric,
                    e.share_with.as_deref().unwrap_or_default()
                ),
                _ if e.ratio_to_scenario.is_some() => format!(
                    "{} {} {} / {}",
                    e.scope,
                    e.subject,
                    e.metric,
                    e.ratio_to_scenario.as_deref().unwrap_or_default()
                ),
                (_, Some(r)) => format!(
                    "{} {} {} / {}",
                    e.scope,
                    e.subject,
                    e.metric,
                    reference_word(r)
                ),
                (None, None) => format!("{} {} {}", e.scope, e.subject, e.metric),
                (Some(d), None) => format!("{} {}/{} {}", e.scope, e.subject, d, e.metric),
            },
            e.source.clone(),
            v.text.as_ref().map_or_else(
                || {
                    let (k, unit) = display_unit(&e.metric);
                    format!("{}{unit}", g(e.value * k))
                },
                |t| t.0.clone(),
            ),
            got,
            v.rule.clone(),
            e.kind.word().into(),
            verdict_word(v).into(),
        ]);
    }
    rows
}
