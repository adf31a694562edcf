//! Tests of the campaign plots.

use super::*;
use crate::campaign::ManifestPoint;
use crate::tables::col;
use crate::write::{write_frame, Format};

fn param(name: &str, family: &str, unit: &str, log: bool) -> ManifestParam {
    ManifestParam {
        name: name.into(),
        key: format!("links.{name}"),
        family: family.into(),
        unit: unit.into(),
        log,
    }
}

/// A campaign over `params` with one point per entry of `points` (labels,
/// values).
fn manifest(params: Vec<ManifestParam>, points: &[(Vec<&str>, Vec<f64>)]) -> Manifest {
    Manifest {
        netsim_version: "test".into(),
        name: "t".into(),
        source_hash: "0".into(),
        replications: 3,
        seeds: "common".into(),
        params,
        points: points
            .iter()
            .enumerate()
            .map(|(i, (l, v))| ManifestPoint {
                index: i,
                hash: format!("h{i}"),
                seed: i as u64,
                cost: 1.0,
                labels: l.iter().map(|s| s.to_string()).collect(),
                values: v.clone(),
            })
            .collect(),
        keep: Vec::new(),
    }
}

/// A summary with, per point, goodput of groups `high` and `low`, the
/// bottleneck's utilisation and the run's Jain index; `mean(point, row)`
/// gives the means.
fn summary(m: &Manifest, mean: impl Fn(usize, usize) -> f64) -> DataFrame {
    let keys = [
        ("group", "high", "goodput_bps"),
        ("group", "low", "goodput_bps"),
        ("link", "r1->r2", "utilisation"),
        ("run", "all", "jain"),
    ];
    let mut point = Vec::new();
    let mut labels = vec![Vec::new(); m.params.len()];
    let mut values: Vec<Vec<Option<f64>>> = vec![Vec::new(); m.params.len()];
    let (mut scope, mut subject, mut metric) = (Vec::new(), Vec::new(), Vec::new());
    let (mut n, mut means, mut sd, mut half) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (p, pt) in m.points.iter().enumerate() {
        for (r, (s, sub, met)) in keys.iter().enumerate() {
            point.push(p as u32);
            for k in 0..m.params.len() {
                labels[k].push(pt.labels[k].clone());
                values[k].push(Some(pt.values[k]).filter(|v| v.is_finite()));
            }
            scope.push(*s);
            subject.push(*sub);
            metric.push(*met);
            n.push(3u64);
            let mu = mean(p, r);
            means.push(mu);
            sd.push(Some(mu.abs() * 0.1));
            half.push(if p == 0 { None } else { Some(mu.abs() * 0.05) });
        }
    }
    let height = point.len();
    let mut cols = vec![col("point", point)];
    for (k, p) in m.params.iter().enumerate() {
        cols.push(col(&p.name, std::mem::take(&mut labels[k])));
        cols.push(col(
            &format!("{}_value", p.name),
            std::mem::take(&mut values[k]),
        ));
    }
    cols.extend([
        col("scope", scope),
        col("subject", subject),
        col("metric", metric),
        col("n", n),
        col("mean", means),
        col("sd", sd),
        col("ci95_half", half),
    ]);
    DataFrame::new(height, cols).unwrap()
}

fn store(m: &Manifest, df: &DataFrame, format: Format) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    m.write(dir.path()).unwrap();
    let path = dir.path().join(format!("summary.{}", format.extension()));
    write_frame(&path, df, format).unwrap();
    dir
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn svg(dir: &Path, stem: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap()
}

/// Whether the SVG has a text element reading exactly `t`.
fn has_text(svg: &str, t: &str) -> bool {
    svg.split("</text>")
        .filter_map(|chunk| chunk.rsplit_once('>'))
        .any(|(_, text)| text.trim() == t)
}

/// Two capacities by two buffers; goodput grows with capacity.
fn capacity_by_buffer() -> Manifest {
    let mut pts = Vec::new();
    for (c, cv) in [("10Mbps", 10e6), ("100Mbps", 100e6)] {
        for (b, bv) in [("20pkt", 20.0), ("50pkt", 50.0)] {
            pts.push((vec![c, b], vec![cv, bv]));
        }
    }
    manifest(
        vec![
            param("capacity", "rate", "bps", false),
            param("buf", "packets", "pkt", false),
        ],
        &pts,
    )
}

const EXPECTED: [&str; 6] = [
    "sweep_group_goodput_bps.png",
    "sweep_group_goodput_bps.svg",
    "sweep_link_utilisation.png",
    "sweep_link_utilisation.svg",
    "sweep_run_jain.png",
    "sweep_run_jain.svg",
];

fn check(dir: &Path, files: &[PathBuf]) {
    assert_eq!(names(files), EXPECTED);
    for f in files {
        assert_eq!(f.parent().unwrap(), dir);
        let bytes = std::fs::read(f).unwrap();
        assert!(!bytes.is_empty(), "{} is empty", f.display());
        if f.extension().unwrap() == "png" {
            assert_eq!(&bytes[1..4], b"PNG", "{}", f.display());
        }
    }
    let g = svg(dir, "sweep_group_goodput_bps");
    assert!(g.contains("capacity (Mb/s)"), "x label missing");
    assert!(g.contains("goodput (Mb/s)"), "y label missing");
    for legend in [
        "high, buf=20pkt",
        "high, buf=50pkt",
        "low, buf=20pkt",
        "low, buf=50pkt",
    ] {
        assert!(g.contains(legend), "legend {legend} missing");
    }
    let j = svg(dir, "sweep_run_jain");
    assert!(j.contains("all, buf=50pkt"));
}

#[test]
fn charts_per_scope_and_metric_from_parquet_and_csv() {
    let m = capacity_by_buffer();
    let df = summary(&m, |p, r| (p as f64 + 1.0) * (r as f64 + 1.0) * 1e6);
    for format in [Format::Parquet, Format::Csv] {
        let dir = store(&m, &df, format);
        let files = plot_campaign(dir.path()).unwrap();
        check(dir.path(), &files);
    }
}

#[test]
fn a_log_parameter_gives_a_log_axis_chart() {
    let pts: Vec<(Vec<&str>, Vec<f64>)> = [("1ms", 1e-3), ("10ms", 1e-2), ("100ms", 1e-1)]
        .iter()
        .map(|&(l, v)| (vec![l], vec![v]))
        .collect();
    let m = manifest(vec![param("rtt", "duration", "s", true)], &pts);
    let df = summary(&m, |p, _| 1e6 / (p as f64 + 1.0));
    let dir = store(&m, &df, Format::Parquet);
    let rows = Rows::read(&df, &m).unwrap();
    let cs = charts(&m, &rows, &[]);
    assert!(cs.iter().all(|c| c.log));
    let files = plot_campaign(dir.path()).unwrap();
    assert_eq!(files.len(), 6);
    let g = svg(dir.path(), "sweep_group_goodput_bps");
    assert!(g.contains("rtt (ms)"));
    // Decade ticks of a log axis in ms.
    assert!(
        has_text(&g, "10") && has_text(&g, "100"),
        "log ticks missing"
    );
    assert!(has_text(&g, "high") && has_text(&g, "low"));
}

#[test]
fn a_response_function_is_drawn_on_log_log_axes_beside_its_law() {
    // Goodput ~ 1/sqrt(p) over two decades of p: means span a decade, so y
    // is logarithmic too; the law is a black line with its legend.
    let pts: Vec<(Vec<&str>, Vec<f64>)> = [("1e-4", 1e-4), ("1e-3", 1e-3), ("1e-2", 1e-2)]
        .iter()
        .map(|&(l, v)| (vec![l], vec![v]))
        .collect();
    let m = manifest(vec![param("p", "number", "", true)], &pts);
    let df = summary(&m, |p, _| 1e6 / 10f64.powf(p as f64 / 2.0));
    let dir = store(&m, &df, Format::Parquet);
    let rows = Rows::read(&df, &m).unwrap();
    let law = Reference {
        scope: "group".into(),
        metric: "goodput_bps".into(),
        against: "p".into(),
        label: "Mathis et al. (1997)".into(),
        points: (0..=20)
            .map(|k| {
                let p = 1e-4 * 10f64.powf(k as f64 / 10.0);
                (p, 1e4 / p.sqrt())
            })
            .collect(),
    };
    let cs = charts(&m, &rows, std::slice::from_ref(&law));
    let g = cs.iter().find(|c| c.metric == "goodput_bps").unwrap();
    assert!(g.log && g.ylog);
    assert_eq!(g.refs.len(), 1);
    assert_eq!(g.refs[0].1.len(), 21);
    // Other metrics' charts do not get it.
    assert!(cs
        .iter()
        .filter(|c| c.metric != "goodput_bps")
        .all(|c| c.refs.is_empty()));
    let files = plot_campaign_with(dir.path(), &[law], &[]).unwrap();
    assert_eq!(files.len(), 6);
    let svg = svg(dir.path(), "sweep_group_goodput_bps");
    assert!(has_text(&svg, "Mathis et al. (1997)"), "the law's legend");
    // A parameter zipped with p (one run length per p) splits no line; one
    // crossed with it does.
    let zipped: Vec<(Vec<&str>, Vec<f64>)> =
        [("1e-4", "1000s"), ("1e-3", "300s"), ("1e-2", "100s")]
            .iter()
            .map(|&(l, d)| (vec![l, d], vec![l.parse().unwrap(), f64::NAN]))
            .collect();
    let zm = manifest(
        vec![
            param("p", "number", "", true),
            param("duration", "label", "", false),
        ],
        &zipped,
    );
    let rows = Rows::read(&summary(&zm, |p, _| 1.0 + p as f64), &zm).unwrap();
    let g = charts(&zm, &rows, &[]);
    let g = g.iter().find(|c| c.metric == "goodput_bps").unwrap();
    assert_eq!(g.lines.len(), 2, "high and low, not split by duration");
    let crossed: Vec<(Vec<&str>, Vec<f64>)> =
        [("1e-4", "a"), ("1e-4", "b"), ("1e-2", "a"), ("1e-2", "b")]
            .iter()
            .map(|&(l, d)| (vec![l, d], vec![l.parse().unwrap(), f64::NAN]))
            .collect();
    let cm = manifest(
        vec![
            param("p", "number", "", true),
            param("aqm", "label", "", false),
        ],
        &crossed,
    );
    let rows = Rows::read(&summary(&cm, |p, _| 1.0 + p as f64), &cm).unwrap();
    let g = charts(&cm, &rows, &[]);
    let g = g.iter().find(|c| c.metric == "goodput_bps").unwrap();
    assert_eq!(g.lines.len(), 4, "subject x aqm");
    // A linear-x chart never gets a log y.
    let lin = manifest(vec![param("p", "number", "", false)], &pts);
    let rows = Rows::read(&summary(&lin, |p, _| 1e6 / 10f64.powf(p as f64)), &lin).unwrap();
    assert!(charts(&lin, &rows, &[]).iter().all(|c| !c.ylog));
}

#[test]
fn labels_only_use_the_point_index_with_labelled_ticks() {
    let pts: Vec<(Vec<&str>, Vec<f64>)> = ["reno", "cubic"]
        .iter()
        .map(|&l| (vec![l], vec![f64::NAN]))
        .collect();
    let m = manifest(vec![param("cc", "label", "", false)], &pts);
    let df = summary(&m, |p, _| p as f64 + 1.0);
    let dir = store(&m, &df, Format::Csv);
    let files = plot_campaign(dir.path()).unwrap();
    assert_eq!(files.len(), 6);
    let g = svg(dir.path(), "sweep_group_goodput_bps");
    assert!(
        has_text(&g, "reno") && has_text(&g, "cubic"),
        "tick labels missing"
    );
    assert!(has_text(&g, "cc"));
}

#[test]
fn missing_summary_asks_for_collect() {
    let m = capacity_by_buffer();
    let dir = tempfile::tempdir().unwrap();
    m.write(dir.path()).unwrap();
    let e = plot_campaign(dir.path()).unwrap_err();
    assert!(matches!(e, AnalysisError::Input { .. }));
    assert!(e.to_string().contains("netsim collect"), "{e}");
}

#[test]
fn odd_input_does_not_panic() {
    // One point, NaN means in some rows, equal values everywhere else.
    let m = manifest(
        vec![param("capacity", "rate", "bps", true)],
        &[(vec!["10Mbps"], vec![10e6])],
    );
    let df = summary(&m, |_, r| if r == 1 { f64::NAN } else { 5.0 });
    let dir = store(&m, &df, Format::Parquet);
    let files = plot_campaign(dir.path()).unwrap();
    assert_eq!(names(&files), EXPECTED);
    let g = svg(dir.path(), "sweep_group_goodput_bps");
    assert!(has_text(&g, "high") && !has_text(&g, "low"));
    // An empty summary draws nothing.
    let empty = summary(&m, |_, _| 0.0).head(Some(0));
    let dir = store(&m, &empty, Format::Csv);
    assert!(plot_campaign(dir.path()).unwrap().is_empty());
}

#[test]
fn series_beyond_the_cap_are_left_out_with_a_note() {
    let pts: Vec<(Vec<String>, Vec<f64>)> = (0..2)
        .flat_map(|c| {
            (0..8).map(move |b| {
                (
                    vec![format!("{c}"), format!("b{b}")],
                    vec![c as f64 + 1.0, f64::NAN],
                )
            })
        })
        .collect();
    let pts: Vec<(Vec<&str>, Vec<f64>)> = pts
        .iter()
        .map(|(l, v)| (l.iter().map(String::as_str).collect(), v.clone()))
        .collect();
    let m = manifest(
        vec![
            param("flows", "number", "", false),
            param("aqm", "label", "", false),
        ],
        &pts,
    );
    let rows = Rows::read(&summary(&m, |p, _| p as f64), &m).unwrap();
    let cs = charts(&m, &rows, &[]);
    let g = cs.iter().find(|c| c.metric == "goodput_bps").unwrap();
    assert_eq!(g.lines.len(), MAX_SERIES);
    assert!(g.title.contains("4 more series not drawn"), "{}", g.title);
    assert_eq!(g.lines[0].name, "high, aqm=b0");
    assert!(g.lines.iter().all(|l| l.points.len() == 2));
    assert!(g.lines[0].points.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn the_legend_avoids_the_data() {
    let chart = |points: Vec<(f64, f64, f64)>| one_line("goodput_bps", points);
    let rising = chart(vec![(0.0, 0.0, f64::NAN), (1.0, 1.0, f64::NAN)]);
    assert!(matches!(
        rising.legend_corner(|x| x),
        SeriesLabelPosition::UpperLeft
    ));
    let falling = chart(vec![(0.0, 1.0, 0.1), (0.9, 0.9, 0.1), (1.0, 0.0, 0.1)]);
    assert!(matches!(
        falling.legend_corner(|x| x),
        SeriesLabelPosition::LowerLeft
    ));
}

#[test]
fn ticks_are_short() {
    assert_eq!(fmt_tick(100.0), "100");
    assert_eq!(fmt_tick(0.25), "0.25");
    assert_eq!(fmt_tick(12.3456), "12.35");
    assert_eq!(fmt_tick(2e6), "2.0e6");
}

#[test]
fn one_measured_metric_against_another_with_series_by_parameter() {
    use super::xy::{plot_xy, Selector};
    let m = capacity_by_buffer();
    // Rows per point: goodput high, goodput low, utilisation, jain.
    let df = summary(&m, |p, r| match r {
        2 => 0.5 + 0.1 * p as f64,
        _ => (p as f64 + 1.0) * 1e6,
    });
    let dir = store(&m, &df, Format::Csv);
    let sel = |s: &str| s.parse::<Selector>().unwrap();
    let x = sel("link:r1->r2:utilisation");
    let y = sel("group:high:goodput_bps");
    // All parameters are numeric: by default the series are the one with the
    // fewest distinct values (a tie: the first, capacity).
    let files = plot_xy(dir.path(), &x, &y, None).unwrap();
    assert_eq!(
        names(&files),
        [
            "xy_goodput_bps_vs_utilisation.png",
            "xy_goodput_bps_vs_utilisation.svg"
        ]
    );
    let s = svg(dir.path(), "xy_goodput_bps_vs_utilisation");
    assert!(
        s.contains("utilisation (%) (link r1-&gt;r2)")
            || s.contains("utilisation (%) (link r1->r2)"),
        "x label"
    );
    assert!(s.contains("goodput (Mb/s) (group high)"), "y label");
    assert!(
        s.contains("capacity=10Mbps") && s.contains("capacity=100Mbps"),
        "legend"
    );
    // --by names the series explicitly.
    plot_xy(dir.path(), &x, &y, Some(&["buf".to_string()])).unwrap();
    let s = svg(dir.path(), "xy_goodput_bps_vs_utilisation");
    assert!(
        s.contains("buf=20pkt") && !s.contains("capacity=10Mbps"),
        "legend by buf"
    );
    // Errors name what is wrong and what exists.
    let e = plot_xy(dir.path(), &sel("link:r1->r2:nope"), &y, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--x link:r1->r2:nope") && e.contains("utilisation"),
        "{e}"
    );
    let e = plot_xy(dir.path(), &x, &y, Some(&["bogus".to_string()]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--by bogus") && e.contains("capacity, buf"),
        "{e}"
    );
    assert!("link:r1->r2".parse::<Selector>().is_err());
}

#[test]
fn intervals_are_clipped_to_what_the_metric_can_be() {
    let chart = |metric: &str| one_line(metric, vec![(1.0, 86.66, 58.25)]);
    // Utilisation in %: 86.66 +- 58.25 stops at 100 and the axis with it.
    let u = chart("utilisation");
    assert_eq!(u.interval(86.66, 58.25), (86.66 - 58.25, 100.0));
    assert!(u.y_range().1 < 110.0, "{:?}", u.y_range());
    // A delay cannot be negative; an unbounded metric keeps its interval.
    assert_eq!(chart("qdelay_mean_s").interval(2.0, 3.0), (0.0, 5.0));
    assert_eq!(
        chart("overshoot").interval(0.1, 0.3),
        (0.1 - 0.3, 0.1 + 0.3)
    );
    // No half-width: the mean alone.
    assert_eq!(chart("jain").interval(0.9, f64::NAN), (0.9, 0.9));
}

/// A linear chart of `metric` with one line of `points`.
fn one_line(metric: &str, points: Vec<(f64, f64, f64)>) -> SweepChart {
    SweepChart {
        scope: "link".into(),
        metric: metric.into(),
        title: String::new(),
        xdesc: String::new(),
        ydesc: String::new(),
        log: false,
        ylog: false,
        ticks: BTreeMap::new(),
        refs: Vec::new(),
        domain: domain(metric),
        lines: vec![Line {
            name: "a".into(),
            points,
        }],
    }
}

#[test]
fn derived_curves_get_charts_of_their_own_in_the_parameters_units() {
    // A share of goodput over a rate parameter (base unit bit/s, drawn in
    // Mb/s), two subjects, a law of that share; a curve over a parameter
    // the campaign does not have is left out.
    let pts: Vec<(Vec<&str>, Vec<f64>)> = [("1Mbps", 1e6), ("2Mbps", 2e6), ("4Mbps", 4e6)]
        .iter()
        .map(|&(l, v)| (vec![l], vec![v]))
        .collect();
    let m = manifest(vec![param("rate", "rate", "bps", false)], &pts);
    let df = summary(&m, |p, _| 1e6 * (p + 1) as f64);
    let dir = store(&m, &df, Format::Parquet);
    let derived = |label: &str, against: &str, ys: [f64; 3]| Derived {
        scope: "group".into(),
        name: "goodput_bps_share_with_low".into(),
        ydesc: "share of goodput with low".into(),
        fraction: true,
        against: against.into(),
        label: label.into(),
        points: vec![
            (1e6, ys[0], 0.3),
            (2e6, ys[1], f64::NAN),
            (4e6, ys[2], 0.01),
        ],
    };
    let ds = [
        derived("high", "rate", [0.2, 0.4, 0.5]),
        derived("mid", "rate", [0.1, 0.2, 0.3]),
        derived("elsewhere", "delay", [0.1, 0.2, 0.3]),
    ];
    let law = Reference {
        scope: "group".into(),
        metric: "goodput_bps_share_with_low".into(),
        against: "rate".into(),
        label: "share = x / 2".into(),
        points: vec![(1e6, 0.25), (2e6, 0.5)],
    };
    let cs = derived_charts(&m, &ds, std::slice::from_ref(&law));
    assert_eq!(cs.len(), 1, "the delay curve has no parameter here");
    let c = &cs[0];
    assert_eq!(c.file_stem(), "sweep_group_goodput_bps_share_with_low");
    assert_eq!(c.lines.len(), 2);
    assert_eq!(c.lines[0].name, "high");
    // x in Mb/s, as the parameter's axis; y as measured.
    assert_eq!(c.lines[0].points[2].0, 4.0);
    assert_eq!(c.lines[0].points[2].1, 0.5);
    assert_eq!(c.refs.len(), 1);
    assert_eq!(c.refs[0].1, vec![(1.0, 0.25), (2.0, 0.5)]);
    // A share's interval is clipped to [0, 1].
    assert_eq!(c.interval(0.2, 0.3), (0.0, 0.5));
    assert!(c.xdesc.contains("Mb/s"), "{}", c.xdesc);
    // The law of a share is not drawn on the summary's goodput chart.
    let rows = Rows::read(&df, &m).unwrap();
    assert!(charts(&m, &rows, std::slice::from_ref(&law))
        .iter()
        .all(|c| c.refs.is_empty()));
    let files = plot_campaign_with(dir.path(), &[law], &ds).unwrap();
    assert!(files
        .iter()
        .any(|f| f.ends_with("sweep_group_goodput_bps_share_with_low.svg")));
    let svg = svg(dir.path(), "sweep_group_goodput_bps_share_with_low");
    assert!(has_text(&svg, "share = x / 2"), "the law's legend");
    assert!(has_text(&svg, "mid"), "the second line's legend");
}

#[test]
fn a_derived_curve_against_two_parameters_names_each_chart_by_its_parameter() {
    let pts: Vec<(Vec<&str>, Vec<f64>)> = [("1", "5"), ("2", "5"), ("1", "10")]
        .iter()
        .map(|&(a, b)| (vec![a, b], vec![a.parse().unwrap(), b.parse().unwrap()]))
        .collect();
    let m = manifest(
        vec![
            param("n_a", "number", "", false),
            param("n_b", "number", "", false),
        ],
        &pts,
    );
    let d = |against: &str| Derived {
        scope: "group".into(),
        name: "x_share_with_b".into(),
        ydesc: "share of x with b".into(),
        fraction: true,
        against: against.into(),
        label: "a".into(),
        points: vec![(1.0, 0.4, 0.01), (2.0, 0.5, 0.01)],
    };
    let cs = derived_charts(&m, &[d("n_a"), d("n_b")], &[]);
    let stems: Vec<String> = cs.iter().map(|c| c.file_stem()).collect();
    assert_eq!(
        stems,
        [
            "sweep_group_x_share_with_b_vs_n_a",
            "sweep_group_x_share_with_b_vs_n_b"
        ]
    );
    let one = derived_charts(&m, &[d("n_a")], &[]);
    assert_eq!(one[0].file_stem(), "sweep_group_x_share_with_b");
}
