//! `netsim report`: the self-contained HTML page of a run, a reproduction's
//! CSV file and a campaign, read as text and rendered by headless Chromium
//! (Debian's package; `scripts/chromium.sh` installs it where missing): the
//! DOM the browser builds holds the sections, tables, verdicts and one SVG
//! element per plot, and the screenshot is a page with content, not a
//! blank one.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/cli.rs"]
mod cli;

/// The quickstart, shortened: 3 replications of 6 s.
const RUN: &str = r#"
name = "report-run"
description = "Three NewReno flows on a 10 Mb/s dumbbell"
[run]
duration = "6s"
warmup = "1s"
replications = 3
sample_interval = "100ms"
series = ["flow_window", "link_queue"]
[topology]
kind = "dumbbell"
pairs = 3
bottleneck = { capacity = "10Mbps", delay = "20ms", buffer = "40pkt" }
access = { capacity = "100Mbps", delay = "1ms", buffer = "1000pkt" }
[[flows]]
name = "tcp"
count = 3
from = "s{i}"
to = "d{i}"
start_jitter = "500ms"
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
op = "at_least"
value = 0.9
source = "a BDP buffer keeps the bottleneck busy"
[[expect]]
scope = "group"
subject = "tcp"
metric = "goodput_sum_bps"
value = 1e6
tolerance = 0.01
source = "deliberately wrong <b>reference</b>"
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn netsim_ok(args: &[&std::ffi::OsStr]) -> String {
    let (ok, text) = cli::netsim(args.iter().copied());
    assert!(ok, "netsim {args:?} failed:\n{text}");
    text
}

fn svg_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "svg"))
        .count()
}

/// `RUN` run into `dir/out`; that directory.
fn run_into(dir: &Path) -> PathBuf {
    let f = write(dir, "s.toml", RUN);
    let out = dir.join("out");
    netsim_ok(&[
        "run".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    out
}

/// What every page must be: one file, nothing loaded from elsewhere.
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..100]);
    for needle in ["<script", " src=", " href=", "<link", "@import", "url("] {
        assert!(
            !html.contains(needle),
            "the page refers elsewhere: {needle}"
        );
    }
}

/// A headless Chromium, installed by the project's script where missing.
fn chromium() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/chromium.sh");
    let out = Command::new("bash").arg(&script).output().unwrap();
    assert!(
        out.status.success(),
        "scripts/chromium.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Chromium's headless run of `page` with `extra` flags (a fresh profile,
/// no network chatter, as the machine's notes say).
fn browse(page: &Path, profile: &Path, extra: &[String]) -> std::process::Output {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(extra)
    .arg(format!("file://{}", page.display()));
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "chromium failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_runs_page_renders_in_chromium_with_its_tables_verdicts_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_into(dir.path());
    // No plots yet: the report draws them.
    assert_eq!(svg_files(&out), 0);
    let printed = netsim_ok(&["report".as_ref(), out.as_os_str()]);
    let page = out.join("report.html");
    assert!(printed.contains("report.html"), "{printed}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let plots = svg_files(&out);
    assert!(plots >= 3, "{plots} plots");
    assert_eq!(html.matches("<svg").count(), plots);
    // The reference's markup is text, not markup.
    assert!(html.contains("deliberately wrong &lt;b&gt;reference&lt;/b&gt;"));
    assert!(!html.contains("<b>reference"));

    // The DOM Chromium builds from it.
    let profile = tempfile::tempdir().unwrap();
    let dom = browse(&page, profile.path(), &["--dump-dom".into()]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    for id in [
        "provenance",
        "expectations",
        "groups",
        "links",
        "plots",
        "scenario",
    ] {
        assert!(dom.contains(&format!("<section id=\"{id}\">")), "no {id}");
    }
    assert_eq!(dom.matches("<svg").count(), plots, "one SVG per plot");
    assert!(dom.contains("<td class=\"pass\">PASS</td>"), "no PASS cell");
    assert!(dom.contains("<td class=\"miss\">MISS</td>"), "no MISS cell");
    // Rates in Mb/s in the group table, with an interval.
    assert!(dom.contains("goodput_sum_bps (Mb/s)"));
    let groups = &dom[dom.find("id=\"group-table\"").unwrap()..];
    let row = &groups[groups.find("<td>tcp</td>").unwrap()..];
    assert!(row[..row.find("</tr>").unwrap()].contains(" ± "));
    assert!(dom.contains("r1-&gt;r2"), "the bottleneck is listed");

    // The screenshot: a page of that width with text, tables and plots on
    // it (many colours, a good share of non-white pixels).
    let shot = dir.path().join("shot.png");
    browse(
        &page,
        profile.path(),
        &[
            "--window-size=1200,2400".into(),
            format!("--screenshot={}", shot.display()),
        ],
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 2400));
    let px = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let ink = pixels
        .iter()
        .filter(|p| p[..3].iter().any(|&c| c < 200))
        .count();
    let colours: std::collections::HashSet<&[u8]> = pixels.iter().map(|p| &p[..3]).collect();
    let share = ink as f64 / pixels.len() as f64;
    assert!(share > 0.02, "{share} of the page is ink");
    assert!(colours.len() > 50, "{} colours", colours.len());
}

#[test]
fn a_reproductions_csv_and_a_campaign_get_their_pages() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_into(dir.path());
    // The run's verdict table has the reproduction CSV's columns.
    let csv = dir.path().join("verdicts.csv");
    std::fs::copy(out.join("expectations.csv"), &csv).unwrap();
    netsim_ok(&["report".as_ref(), csv.as_os_str()]);
    let html = std::fs::read_to_string(dir.path().join("verdicts.html")).unwrap();
    assert_self_contained(&html);
    let totals = &html[html.find("id=\"totals-table\"").unwrap()..];
    assert!(
        totals.contains("<td class=\"miss\">MISS</td><td class=\"num\">1</td>"),
        "{totals}"
    );
    assert!(
        totals.contains("<td class=\"pass\">PASS</td><td class=\"num\">1</td>"),
        "{totals}"
    );

    // A campaign of two points.
    let sweep = RUN.replace("replications = 3", "replications = 2")
        + "[sweep]\n[[sweep.param]]\nkey = \"topology.bottleneck.buffer\"\nname = \"buffer\"\nvalues = [\"10pkt\", \"40pkt\"]\n";
    let f = write(dir.path(), "sweep.toml", &sweep);
    let store = dir.path().join("store");
    netsim_ok(&[
        "sweep".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        store.as_os_str(),
        "--quiet".as_ref(),
    ]);
    netsim_ok(&["report".as_ref(), store.as_os_str()]);
    let html = std::fs::read_to_string(store.join("report.html")).unwrap();
    assert_self_contained(&html);
    let summary = &html[html.find("id=\"campaign-summary\"").unwrap()..];
    let summary = &summary[..summary.find("</table>").unwrap()];
    for buffer in ["10pkt", "40pkt"] {
        assert!(
            summary.contains(&format!("<td>{buffer}</td>")),
            "no point {buffer}"
        );
    }
    assert!(html.matches("<svg").count() >= 1);

    // Anything else is refused, naming the path.
    let (ok, text) = cli::netsim(["report".as_ref(), dir.path().as_os_str()]);
    assert!(!ok);
    assert!(text.contains("not a run's output directory"), "{text}");
}
