//! Per-flow descriptors and completion-time statistics, against closed
//! forms on an idle path: finite flows of five 1000-B segments with an
//! initial window of 10 on a dumbbell (access 1 Gb/s and 1 ms, bottleneck
//! 100 Mb/s and 10 ms) have a base RTT of 2 (1 + 10 + 1) = 24 ms, a path
//! capacity of 100 Mb/s, an ideal completion time of 24 ms + 5000 B at
//! 100 Mb/s = 24.4 ms, and complete in one round trip plus the segments'
//! transmissions: 24 ms + 8 us + 5 x 80 us + 8 us + an ACK's 4 us =
//! 24.4198 ms, a slowdown of 1.0008 (flows that overlap wait at most another
//! five transmissions, 0.4 ms).

#[path = "common/cli.rs"]
mod cli;

const SCENARIO: &str = r#"
name = "idle-fct"
[run]
duration = "20s"
replications = 3
fct_bins = ["4KB", "10KB"]
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { capacity = "100Mbps", delay = "10ms", buffer = "100pkt" }
access = { capacity = "1Gbps", delay = "1ms", buffer = "100pkt" }
[[flows]]
name = "short"
from = "s0"
to = "d0"
packet_size = "1000B"
cc = { kind = "new_reno", initial_window = 10 }
tcp = { min_rto = "300ms" }
traffic = { kind = "poisson_arrivals", rate = 2.0, count = 20, size = { dist = "fixed", size = "5000B" } }
"#;

/// The CSV table `name` of `dir`: header and rows.
fn table(dir: &std::path::Path, name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(dir.join(format!("{name}.csv"))).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (head, rows)
}

fn column<'a>(head: &[String], rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let i = head
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("{name}"));
    rows.iter().map(|r| r[i].as_str()).collect()
}

#[test]
fn idle_path_flows_have_their_closed_form_descriptors_and_slowdown() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, SCENARIO).unwrap();
    let out = dir.path().join("o");
    let (ok, text) = cli::netsim([
        "run".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--format".as_ref(),
        "csv".as_ref(),
    ]);
    assert!(ok, "{text}");
    let (head, rows) = table(&out, "flows");
    assert_eq!(rows.len(), 60);
    for (((size, rtt), path), slow) in column(&head, &rows, "size_bytes")
        .into_iter()
        .zip(column(&head, &rows, "base_rtt_s"))
        .zip(column(&head, &rows, "path_bps"))
        .zip(column(&head, &rows, "slowdown"))
    {
        assert_eq!(size, "5000");
        assert!((rtt.parse::<f64>().unwrap() - 0.024).abs() < 1e-12, "{rtt}");
        assert_eq!(path.parse::<f64>().unwrap(), 1e8);
        let s: f64 = slow.parse().unwrap();
        assert!((1.0008..=1.0008 + 0.0004 / 0.0244).contains(&s), "{s}");
    }
    // Each flow's ends, path and packet size; its RTO after every sample is
    // the 300-ms floor (SRTT + 4 RTTVAR stays below it on a 24-ms path).
    for c in [
        "src",
        "dst",
        "path",
        "packet_size_bytes",
        "rto_min_s",
        "rto_max_s",
    ] {
        let v = column(&head, &rows, c);
        let want = match c {
            "src" => "s0",
            "dst" => "d0",
            "path" => "s0->r1 r1->r2 r2->d0",
            "packet_size_bytes" => "1000",
            _ => "0.3",
        };
        assert!(v.iter().all(|x| *x == want), "{c}: {v:?}");
    }
    // Every flow is in the [4 KB, 10 KB) bin: 20 per replication.
    let (bh, brows) = table(&out, "fct_bins");
    let flows = brows
        .iter()
        .find(|r| r[bh.iter().position(|h| h == "metric").unwrap()] == "flows")
        .unwrap();
    let at = |name: &str| flows[bh.iter().position(|h| h == name).unwrap()].as_str();
    assert_eq!(
        (
            at("size_min_bytes"),
            at("size_max_bytes"),
            at("mean"),
            at("n")
        ),
        ("4000", "10000", "20.0", "3")
    );
    assert_eq!(brows.len(), 7, "one bin, seven statistics");
    let (head, rows) = table(&out, "summary");
    let value = |metric: &str| -> f64 {
        let i = column(&head, &rows, "metric")
            .iter()
            .position(|m| *m == metric)
            .unwrap_or_else(|| panic!("no {metric}"));
        column(&head, &rows, "mean")[i].parse().unwrap()
    };
    for q in ["fct_p50_s", "fct_p90_s", "fct_p99_s"] {
        let t = value(q);
        assert!((0.0244198..=0.0248199).contains(&t), "{q} = {t}");
    }
    assert!(value("fct_p50_s") <= value("fct_p99_s"));
    let mean = value("slowdown_mean");
    assert!((1.0008..1.017).contains(&mean), "{mean}");
}

#[test]
fn fct_bin_edges_that_do_not_increase_are_an_error_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(
        &f,
        SCENARIO.replace(
            r#"fct_bins = ["4KB", "10KB"]"#,
            r#"fct_bins = ["10KB", "4KB"]"#,
        ),
    )
    .unwrap();
    let (ok, text) = cli::netsim(["check".as_ref(), f.as_os_str()]);
    assert!(!ok);
    assert!(text.contains("run.fct_bins[1]"), "{text}");
}
