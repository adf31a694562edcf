//! Unit tests of `plot`.

use super::*;
use crate::tables::tests::sample;
use crate::write::{write_tables, Format};

fn check_files(files: &[PathBuf]) {
    for f in files {
        let bytes = std::fs::read(f).unwrap();
        assert!(!bytes.is_empty(), "{} is empty", f.display());
        match f.extension().and_then(|e| e.to_str()) {
            Some("svg") => {
                let s = String::from_utf8(bytes).unwrap();
                assert!(s.contains("<svg"), "{}", f.display());
                assert!(s.contains("<text"), "{} has no text", f.display());
            }
            Some("png") => assert_eq!(&bytes[1..4], b"PNG", "{}", f.display()),
            other => panic!("unexpected file {other:?}"),
        }
    }
    let dir = files[0].parent().unwrap();
    let hidden = std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(hidden, 0, "temporary files left in {}", dir.display());
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn series_charts_are_written_per_kind_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let set = sample();
    let files = plot_series(
        dir.path(),
        &Metrics::new(&set),
        &PlotFormat::ALL,
        &SeriesOptions::default(),
    )
    .unwrap();
    assert_eq!(
        names(&files),
        [
            "series_flow_cwnd_bytes.png",
            "series_flow_cwnd_bytes.svg",
            "series_link_queue_pkts.png",
            "series_link_queue_pkts.svg",
            "hist_flow_cwnd_bytes.png",
            "hist_flow_cwnd_bytes.svg",
            "hist_link_queue_pkts.png",
            "hist_link_queue_pkts.svg"
        ]
    );
    check_files(&files);
    // The histograms' axes: the value, and the share of samples.
    let svg = std::fs::read_to_string(dir.path().join("hist_link_queue_pkts.svg")).unwrap();
    assert!(svg.contains("Queue length (packets)"), "x axis");
    assert!(svg.contains("share of samples (%)"), "y axis");
    assert!(
        svg.contains("Histogram of the queue length per link"),
        "title"
    );
}

#[test]
fn summary_charts_show_groups_with_goodput_and_busy_links() {
    let dir = tempfile::tempdir().unwrap();
    let set = sample();
    let bars = SummaryBars::from_metrics(&Metrics::new(&set));
    let files = plot_summary(dir.path(), bars, &PlotFormat::ALL).unwrap();
    assert_eq!(files.len(), 4);
    check_files(&files);
    let svg = std::fs::read_to_string(dir.path().join("summary_utilisation.svg")).unwrap();
    assert!(svg.contains("r1-&gt;r2") || svg.contains("r1->r2"));
    assert!(!svg.contains("h1-&gt;r1") && !svg.contains("h1->r1"));
}

#[test]
fn plot_dir_redraws_from_csv_tables() {
    let dir = tempfile::tempdir().unwrap();
    let set = sample();
    let m = Metrics::new(&set);
    write_tables(dir.path(), &m, Format::Csv).unwrap();
    let files = plot_dir(dir.path(), &SeriesOptions::default()).unwrap();
    assert_eq!(files.len(), 12);
    check_files(&files);
    let redrawn: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let again = plot_all(dir.path(), &m, &SeriesOptions::default()).unwrap();
    assert_eq!(names(&files), names(&again));
    // The same charts, whether drawn from the run or from its tables.
    for (f, bytes) in again.iter().zip(&redrawn) {
        assert_eq!(&std::fs::read(f).unwrap(), bytes, "{}", f.display());
    }
}

#[test]
fn plot_dir_without_tables_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = plot_dir(dir.path(), &SeriesOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no summary"), "{e}");
}

#[test]
fn thinning_keeps_extremes_and_order() {
    let pts: Vec<(f64, f64, f64, f64)> = (0..10 * MAX_POINTS)
        .map(|i| {
            let v = if i == 12_345 { 1e9 } else { (i % 7) as f64 };
            (i as f64, v, f64::NAN, f64::NAN)
        })
        .collect();
    let t = series::thin(&pts);
    assert!(t.len() <= MAX_POINTS);
    assert!(t.iter().any(|p| p.0 == 12_345.0 && p.1 == 1e9));
    assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
}

fn sample_at<'a>(rep: u32, time: f64, subject: &'a str, group: &'a str, value: f64) -> Sample<'a> {
    Sample {
        rep,
        time,
        kind: "flow",
        subject,
        group: Some(group),
        metric: "cwnd_bytes",
        value,
    }
}

#[test]
fn series_lines_are_means_across_replications_with_a_student_t_band() {
    let mut c = Collect::new(None);
    for (rep, v) in [(0, 1000.0), (1, 3000.0)] {
        c.push(sample_at(rep, 1.0, "f0", "tcp", v));
    }
    let charts = c.finish(&SeriesOptions::default());
    let p = charts[0].lines[0].points[0];
    // Mean 2 kB; sd = 1414 B, t(0.95, 1) = 12.706: half-width 12.706 kB.
    assert_eq!(p.1, 2.0);
    assert!((p.3 - p.1 - 12.706).abs() < 1e-3, "{p:?}");
    assert_eq!(charts[0].lines[0].label, "tcp f0");
    assert!(charts[0]
        .title
        .starts_with("Congestion window per flow (kB)"));
    assert!(charts[0].title.contains("mean of 2 replications"));
}

#[test]
fn one_replication_on_request_has_no_band() {
    let mut c = Collect::new(Some(1));
    for (rep, v) in [(0, 1000.0), (1, 3000.0)] {
        c.push(sample_at(rep, 1.0, "f0", "tcp", v));
    }
    let charts = c.finish(&SeriesOptions {
        warmup_s: None,
        replication: Some(1),
    });
    let p = charts[0].lines[0].points[0];
    assert_eq!(p.1, 3.0);
    assert!(p.2.is_nan() && p.3.is_nan());
    assert!(charts[0].title.contains("replication 1"));
}

#[test]
fn flow_lines_are_ordered_by_id_and_all_zero_lines_hidden() {
    let mut c = Collect::new(None);
    for f in ["f10", "f2", "f0"] {
        c.push(sample_at(0, 0.0, f, "g", 1.0));
    }
    c.push(sample_at(0, 0.0, "f3", "g", 0.0));
    let charts = c.finish(&SeriesOptions::default());
    let order: Vec<&str> = charts[0].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(order, ["g f0", "g f2", "g f10"]);
    assert!(
        charts[0].title.contains("1 flows not drawn"),
        "{}",
        charts[0].title
    );
}

#[test]
fn many_flows_become_one_line_per_group() {
    let names: Vec<String> = (0..12).map(|i| format!("f{i}")).collect();
    let mut c = Collect::new(None);
    for (i, n) in names.iter().enumerate() {
        let g = if i < 10 { "tcp" } else { "cbr" };
        c.push(sample_at(0, 1.0, n, g, 1000.0 * (i + 1) as f64));
    }
    let charts = c.finish(&SeriesOptions::default());
    let labels: Vec<&str> = charts[0].lines.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(labels, ["tcp (mean of 10 flows)", "cbr (mean of 2 flows)"]);
    assert_eq!(charts[0].lines[0].points[0].1, 5.5);
}

#[test]
fn axis_labels_carry_units() {
    assert_eq!(
        axis("throughput_bps"),
        ("throughput (Mb/s)".to_string(), 1e-6)
    );
    assert_eq!(axis("srtt_s"), ("srtt (ms)".to_string(), 1e3));
    assert_eq!(axis("queue_pkts"), ("queue (packets)".to_string(), 1.0));
    assert_eq!(axis("avg_queue"), ("avg queue".to_string(), 1.0));
    assert_eq!(axis("utilisation"), ("utilisation (%)".to_string(), 100.0));
}
