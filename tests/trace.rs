//! `netsim run --trace` and `--pcap`: the per-packet trace agrees with the
//! links and flows tables, its filters select what they say, it is
//! deterministic, bad `[trace]` values are errors naming the key, and the
//! pcap capture reads back with independent parsers (pcap-file, etherparse).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// One ECN TCP flow with SACK and one CBR flow over a 5 Mb/s bottleneck
/// that ECN-marks (the TCP flow's packets) or drops (the CBR's, which are
/// not ECN-capable) above 8 packets, overflows at 20 and loses 1 % on the
/// wire: every kind of event, drops and marks with reasons, in 3 simulated
/// seconds.
const SCENARIO: &str = r#"
name = "trace-test"

[run]
duration = "3s"
warmup = "0s"
seed = 11

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { capacity = "5Mbps", delay = "10ms", buffer = "20pkt", loss = 0.01, algo = { kind = "threshold", k_pkts = 8 } }
access = { capacity = "50Mbps", delay = "1ms", buffer = "100pkt" }

[[flows]]
name = "tcp"
from = "s0"
to = "d0"
start_jitter = "200ms"
tcp = { ecn = true, sack = true, min_rto = "200ms" }

[[flows]]
name = "cbr"
from = "s1"
to = "d1"
traffic = { kind = "cbr", rate = "3Mbps" }
"#;

fn write_scenario(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn run(scenario: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("netsim")
        .unwrap()
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap()
}

fn run_ok(scenario: &Path, out: &Path, extra: &[&str]) {
    let o = run(scenario, out, extra);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A CSV file as a header and rows of fields (netsim's tables quote nothing
/// these tests read).
struct Csv {
    cols: BTreeMap<String, usize>,
    rows: Vec<Vec<String>>,
}

impl Csv {
    fn read(p: &Path) -> Csv {
        let text = std::fs::read_to_string(p).unwrap();
        let mut lines = text.lines();
        let cols = lines
            .next()
            .unwrap()
            .split(',')
            .enumerate()
            .map(|(i, c)| (c.to_string(), i))
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        Csv { cols, rows }
    }
    fn get<'a>(&self, row: &'a [String], col: &str) -> &'a str {
        &row[*self
            .cols
            .get(col)
            .unwrap_or_else(|| panic!("no column {col}"))]
    }
    fn count(&self, pred: impl Fn(&dyn Fn(&str) -> String) -> bool) -> usize {
        self.rows
            .iter()
            .filter(|r| pred(&|c: &str| self.get(r, c).to_string()))
            .count()
    }
}

/// The links table's value of `col` for link `name`.
fn link_value(links: &Csv, name: &str, col: &str) -> u64 {
    let row = links
        .rows
        .iter()
        .find(|r| links.get(r, "name") == name)
        .unwrap();
    links.get(row, col).parse().unwrap()
}

#[test]
fn the_trace_counts_agree_with_the_links_and_flows_tables() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let out = dir.path().join("out");
    run_ok(&s, &out, &["--format", "csv", "--trace"]);
    let t = Csv::read(&out.join("trace-r0.csv"));
    let links = Csv::read(&out.join("links.csv"));
    let flows = Csv::read(&out.join("flows.csv"));
    assert!(t.rows.len() > 1000, "{} rows", t.rows.len());
    let mut marks = 0;
    let mut threshold_drops = 0;
    for l in &links.rows {
        let name = links.get(l, "name").to_string();
        let n = |kind: &str| t.count(|c| c("link") == name && c("event") == kind) as u64;
        let v = |col: &str| link_value(&links, &name, col);
        assert_eq!(n("depart"), v("departed_pkts"), "{name} departures");
        assert_eq!(n("drop"), v("dropped_pkts"), "{name} drops");
        assert_eq!(n("mark"), v("marked_pkts"), "{name} marks");
        let wire = t.count(|c| c("link") == name && c("reason") == "wire_loss") as u64;
        assert_eq!(
            n("enqueue") + n("drop") - wire,
            v("arrived_pkts"),
            "{name} arrivals"
        );
        for reason in ["overflow", "threshold", "wire_loss"] {
            let k = t.count(|c| c("link") == name && c("event") == "drop" && c("reason") == reason);
            assert_eq!(
                k as u64,
                v(&format!("drop_{reason}_pkts")),
                "{name} {reason}"
            );
        }
        let k =
            t.count(|c| c("link") == name && c("event") == "mark" && c("reason") == "threshold");
        assert_eq!(k as u64, v("mark_threshold_pkts"), "{name} marks");
        marks += k;
        threshold_drops += v("drop_threshold_pkts");
    }
    assert!(
        marks > 0 && threshold_drops > 0,
        "the scenario marks and drops"
    );
    for f in &flows.rows {
        let id = flows.get(f, "flow").to_string();
        let sent = t.count(|c| {
            c("flow") == id && c("packet") == "data" && c("event") == "enqueue" && c("hop") == "0"
        }) + t.count(|c| {
            c("flow") == id && c("packet") == "data" && c("event") == "drop" && c("hop") == "0"
        });
        assert_eq!(
            sent.to_string(),
            flows.get(f, "sent_pkts"),
            "flow {id} sent"
        );
        let rx: u64 = t
            .rows
            .iter()
            .filter(|r| {
                t.get(r, "flow") == id
                    && t.get(r, "packet") == "data"
                    && t.get(r, "event") == "deliver"
            })
            .map(|r| t.get(r, "size_bytes").parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            rx.to_string(),
            flows.get(f, "rx_bytes"),
            "flow {id} received"
        );
    }
    // Every delivery is an arrival at the same instant, link and hop.
    let key = |r: &Vec<String>| {
        ["time_s", "link", "flow", "packet", "seq", "ack", "hop"].map(|c| t.get(r, c).to_string())
    };
    let arrivals: std::collections::BTreeSet<_> = t
        .rows
        .iter()
        .filter(|r| t.get(r, "event") == "arrive")
        .map(key)
        .collect();
    let delivers: Vec<_> = t
        .rows
        .iter()
        .filter(|r| t.get(r, "event") == "deliver")
        .collect();
    assert!(!delivers.is_empty());
    for r in delivers {
        assert!(arrivals.contains(&key(r)), "{r:?}");
    }
    // The TCP flow's ACKs carry SACK blocks at some point, and marks are echoed.
    assert!(
        t.count(|c| !c("sack").is_empty()) > 0,
        "SACK blocks in the trace"
    );
    assert!(t.count(|c| c("ece") == "true" && c("packet") == "ack") > 0);
    assert!(t.count(|c| c("ecn") == "ce") > 0);
}

#[test]
fn filters_select_exactly_the_matching_rows_of_the_full_trace() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let all = dir.path().join("all");
    run_ok(&s, &all, &["--format", "csv", "--trace"]);
    let full = Csv::read(&all.join("trace-r0.csv"));
    let keep = |c: &dyn Fn(&str) -> String| {
        let t: f64 = c("time_s").parse().unwrap();
        c("link") == "r1->r2"
            && ["drop", "mark", "depart"].contains(&c("event").as_str())
            && c("flow") == "0"
            && (0.5..2.0).contains(&t)
    };
    let want: Vec<&Vec<String>> = full
        .rows
        .iter()
        .filter(|r| keep(&|c: &str| full.get(r, c).to_string()))
        .collect();
    assert!(want.len() > 100, "{}", want.len());

    // On the command line.
    let cli = dir.path().join("cli");
    run_ok(
        &s,
        &cli,
        &[
            "--format",
            "csv",
            "--trace-links",
            "r1->r2",
            "--trace-kinds",
            "drop,mark,depart",
            "--trace-flows",
            "0",
            "--trace-window",
            "500ms,2s",
        ],
    );
    let got = Csv::read(&cli.join("trace-r0.csv"));
    assert_eq!(got.rows.iter().collect::<Vec<_>>(), want);

    // In the scenario.
    let text = format!(
        "{SCENARIO}\n[trace]\nlinks = [\"r1->r2\"]\nkinds = [\"drop\", \"mark\", \"depart\"]\n\
         flows = [0]\nwindow = [\"500ms\", \"2s\"]\n"
    );
    let s2 = dir.path().join("s2.toml");
    std::fs::write(&s2, text).unwrap();
    let sc = dir.path().join("sc");
    run_ok(&s2, &sc, &["--format", "csv"]);
    let got = Csv::read(&sc.join("trace-r0.csv"));
    assert_eq!(got.rows.iter().collect::<Vec<_>>(), want);
    run_ok(&s2, &sc, &["--format", "csv", "--no-trace"]);
    assert!(
        !sc.join("trace-r0.csv").exists(),
        "--no-trace overrides [trace]"
    );

    // The resolved scenario records what was traced.
    let resolved = std::fs::read_to_string(cli.join("scenario.resolved.toml")).unwrap();
    assert!(
        resolved.contains("[trace]") && resolved.contains("\"500ms\""),
        "{resolved}"
    );

    // The command line overrides the scenario's filter key by key.
    let over = dir.path().join("over");
    run_ok(&s2, &over, &["--format", "csv", "--trace-flows", "1"]);
    let got = Csv::read(&over.join("trace-r0.csv"));
    assert!(!got.rows.is_empty());
    assert!(got
        .rows
        .iter()
        .all(|r| got.get(r, "flow") == "1" && got.get(r, "link") == "r1->r2"));
}

#[test]
fn the_same_seed_gives_identical_trace_and_pcap_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let files = ["trace-r0.parquet", "pcap-r1-r2-r0.pcap"];
    let mut runs = Vec::new();
    for (k, threads) in ["1", "2"].iter().enumerate() {
        let out = dir.path().join(format!("o{k}"));
        run_ok(
            &s,
            &out,
            &[
                "--trace",
                "--pcap",
                "r1->r2",
                "--replications",
                "2",
                "--threads",
                threads,
            ],
        );
        runs.push(files.map(|f| std::fs::read(out.join(f)).unwrap()));
        assert!(
            !out.join("trace-r1.parquet").exists(),
            "replication 0 only by default"
        );
    }
    assert!(runs[0] == runs[1], "same seed, same bytes");
    let back = analysis::read_table(&dir.path().join("o0/trace-r0.parquet")).unwrap();
    assert!(back.height() > 1000);

    // Every replication on request, each its own; a new run without tracing
    // removes the old traces.
    let out = dir.path().join("o0");
    run_ok(
        &s,
        &out,
        &["--trace-all-replications", "--replications", "2"],
    );
    let a = std::fs::read(out.join("trace-r0.parquet")).unwrap();
    let b = std::fs::read(out.join("trace-r1.parquet")).unwrap();
    assert_ne!(a, b);
    run_ok(&s, &out, &[]);
    assert!(!out.join("trace-r0.parquet").exists());
    assert!(!out.join("pcap-r1-r2-r0.pcap").exists());
    assert!(!out.join("pcap-hosts.txt").exists());
}

#[test]
fn a_killed_run_leaves_no_trace_that_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let long = write_scenario(
        dir.path(),
        &SCENARIO.replace("duration = \"3s\"", "duration = \"100000s\""),
    );
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("netsim"))
        .arg("run")
        .arg(&long)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--trace", "--pcap", "r1->r2"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the long run should still be going"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    // At most hidden temporary files (the trace streams into them), never
    // a file under a final name, and no completion marker.
    assert!(
        names.iter().any(|n| n.starts_with(".trace-r0.tmp-")),
        "{names:?}"
    );
    assert!(names.iter().all(|n| n.starts_with('.')), "{names:?}");
}

#[test]
fn bad_trace_values_are_errors_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "links = [\"r1->r2\", \"nowhere\"]",
            "trace.links[1]",
            "unknown link `nowhere`",
        ),
        ("pcap = [\"x\"]", "trace.pcap[0]", "unknown link `x`"),
        ("kinds = [\"teleport\"]", "trace.kinds", "teleport"),
        (
            "window = [\"2s\", \"1s\"]",
            "trace.window",
            "must be after its start",
        ),
        (
            "window = [\"5s\", \"6s\"]",
            "trace.window",
            "after the run's end",
        ),
        ("colour = \"red\"", "trace", "unknown field `colour`"),
        ("replications = \"some\"", "trace.replications", "some"),
    ];
    for (line, key, msg) in cases {
        let s = dir.path().join("bad.toml");
        std::fs::write(&s, format!("{SCENARIO}\n[trace]\n{line}\n")).unwrap();
        let o = Command::cargo_bin("netsim")
            .unwrap()
            .arg("check")
            .arg(&s)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        assert!(err.contains(key) && err.contains(msg), "{line}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let s = write_scenario(dir.path(), SCENARIO);
    let flags: [(&[&str], &str); 4] = [
        (
            &["--trace-links", "nope"],
            "--trace-links: unknown link `nope`",
        ),
        (&["--pcap", "nope"], "--pcap: unknown link `nope`"),
        (
            &["--trace-kinds", "enqueue,teleport"],
            "--trace-kinds: unknown event kind `teleport`",
        ),
        (
            &["--trace-window", "2s,1s"],
            "--trace-window: the window's end",
        ),
    ];
    for (args, msg) in flags {
        let out = dir.path().join("o");
        let o = run(&s, &out, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!out.join("trace-r0.parquet").exists());
    }
}

/// The headers of one captured frame.
struct Frame {
    orig_len: u32,
    ip: etherparse::Ipv4Header,
    tcp: Option<etherparse::TcpHeader>,
    udp: Option<etherparse::UdpHeader>,
}

fn read_pcap(p: &Path) -> Vec<Frame> {
    let file = std::fs::File::open(p).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(file).unwrap();
    assert_eq!(r.header().datalink, pcap_file::DataLink::ETHERNET);
    let mut out = Vec::new();
    let mut last = std::time::Duration::ZERO;
    while let Some(pkt) = r.next_packet() {
        let pkt = pkt.unwrap();
        assert!(pkt.timestamp >= last, "time runs forward");
        last = pkt.timestamp;
        let (eth, rest) = etherparse::Ethernet2Header::from_slice(&pkt.data).unwrap();
        assert_eq!(eth.ether_type, etherparse::EtherType::IPV4);
        assert_eq!(eth.source[0..2], [2, 0]);
        let (ip, rest) = etherparse::Ipv4Header::from_slice(rest).unwrap();
        assert_eq!(pkt.orig_len, 14 + u32::from(ip.total_len));
        let (tcp, udp) = match ip.protocol {
            etherparse::IpNumber::TCP => {
                let (t, rest) = etherparse::TcpHeader::from_slice(rest).unwrap();
                assert!(rest.is_empty(), "only headers are captured");
                (Some(t), None)
            }
            etherparse::IpNumber::UDP => {
                let (u, _) = etherparse::UdpHeader::from_slice(rest).unwrap();
                (None, Some(u))
            }
            p => panic!("protocol {p:?}"),
        };
        out.push(Frame {
            orig_len: pkt.orig_len,
            ip,
            tcp,
            udp,
        });
    }
    out
}

#[test]
fn the_pcap_capture_reads_back_with_independent_parsers() {
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let only = dir.path().join("only");
    run_ok(&s, &only, &["--pcap", "r1->r2"]);
    assert!(only.join("pcap-r1-r2-r0.pcap").exists());
    assert!(
        !only.join("trace-r0.parquet").exists(),
        "--pcap alone writes no table"
    );
    let s2 = dir.path().join("s2.toml");
    let text = format!("{SCENARIO}\n[trace]\ntable = false\npcap = [\"r1->r2\"]\n");
    std::fs::write(&s2, text).unwrap();
    let only2 = dir.path().join("only2");
    run_ok(&s2, &only2, &[]);
    assert!(!only2.join("trace-r0.parquet").exists(), "table = false");
    assert_eq!(
        std::fs::read(only2.join("pcap-r1-r2-r0.pcap")).unwrap(),
        std::fs::read(only.join("pcap-r1-r2-r0.pcap")).unwrap(),
    );
    let out = dir.path().join("out");
    run_ok(
        &s,
        &out,
        &["--format", "csv", "--trace", "--pcap", "r1->r2,r2->r1"],
    );
    let links = Csv::read(&out.join("links.csv"));
    let trace = Csv::read(&out.join("trace-r0.csv"));
    let hosts = std::fs::read_to_string(out.join("pcap-hosts.txt")).unwrap();
    assert!(hosts.contains("10.0.0.1\ts0\n"), "{hosts}");
    assert_eq!(
        std::fs::read(out.join("pcap-r1-r2-r0.pcap")).unwrap(),
        std::fs::read(only.join("pcap-r1-r2-r0.pcap")).unwrap(),
        "the capture does not depend on the table"
    );
    let data = read_pcap(&out.join("pcap-r1-r2-r0.pcap"));
    let acks = read_pcap(&out.join("pcap-r2-r1-r0.pcap"));
    assert_eq!(
        data.len() as u64,
        link_value(&links, "r1->r2", "departed_pkts")
    );
    assert_eq!(
        acks.len() as u64,
        link_value(&links, "r2->r1", "departed_pkts")
    );

    // Data: the TCP flow (0) from s0 to d0, the CBR flow (1) as UDP
    // datagrams of the simulated size.
    let tcp: Vec<&Frame> = data.iter().filter(|f| f.tcp.is_some()).collect();
    let udp: Vec<&Frame> = data.iter().filter(|f| f.udp.is_some()).collect();
    assert!(!tcp.is_empty() && !udp.is_empty());
    for f in &udp {
        let u = f.udp.as_ref().unwrap();
        assert_eq!((u.source_port, u.destination_port), (10_001, 60_000));
        assert_eq!(f.ip.total_len, 1500);
        assert_eq!(f.orig_len, 1514);
    }
    let mut ce = 0;
    let mut highest = 0u32;
    let mut below_highest = 0;
    for f in &tcp {
        let t = f.tcp.as_ref().unwrap();
        assert_eq!((t.source_port, t.destination_port), (10_000, 60_000));
        assert_eq!(
            (f.ip.source, f.ip.destination),
            (tcp[0].ip.source, tcp[0].ip.destination)
        );
        assert_eq!(f.ip.source[0], 10);
        assert!(!t.ack);
        assert_eq!(
            u32::from(f.ip.total_len),
            40 + 1500,
            "payload = simulated size"
        );
        ce += usize::from(f.ip.ecn.value() == 3);
        if t.sequence_number < highest {
            below_highest += 1; // a retransmission
        }
        highest = highest.max(t.sequence_number);
    }
    let ce_departs =
        trace.count(|c| c("link") == "r1->r2" && c("event") == "depart" && c("ecn") == "ce");
    assert!(ce > 0);
    assert_eq!(ce, ce_departs, "CE in the IP header as in the trace");
    let ect = tcp.iter().filter(|f| f.ip.ecn.value() == 2).count();
    let ect_departs =
        trace.count(|c| c("link") == "r1->r2" && c("event") == "depart" && c("ecn") == "ect");
    assert_eq!(ect, ect_departs, "ECT(0) for ECT");
    assert!(
        below_highest < tcp.len() / 10,
        "sequence numbers mostly rise"
    );
    // ACKs: cumulative, so non-decreasing in the order they leave; some
    // echo congestion (ECE) and some carry SACK blocks above the ACK.
    let mut last = 0u32;
    let (mut ece, mut sacks) = (0, 0);
    let (src, dst) = (tcp[0].ip.source, tcp[0].ip.destination);
    assert_ne!(src, dst);
    for f in &acks {
        let t = f.tcp.as_ref().expect("only the TCP flow sends ACKs");
        assert!(t.ack);
        assert_eq!((t.source_port, t.destination_port), (60_000, 10_000));
        assert_eq!(
            (f.ip.source, f.ip.destination),
            (dst, src),
            "back to the sender"
        );
        assert!(t.acknowledgment_number >= last, "cumulative ACKs");
        last = t.acknowledgment_number;
        ece += usize::from(t.ece);
        for o in t.options_iterator() {
            if let Ok(etherparse::TcpOptionElement::SelectiveAcknowledgement(first, _)) = o {
                assert!(first.0 > t.acknowledgment_number && first.1 > first.0);
                sacks += 1;
            }
        }
        assert_eq!(usize::from(f.ip.total_len), 20 + t.header_len());
    }
    assert!(ece > 0 && sacks > 0, "ece {ece}, sack {sacks}");
}

#[test]
fn tshark_reads_the_capture_when_installed() {
    // Optional: Wireshark's own dissectors, where tshark is on the machine.
    if std::process::Command::new("tshark")
        .arg("-v")
        .output()
        .is_err()
    {
        eprintln!("tshark not installed: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = write_scenario(dir.path(), SCENARIO);
    let out = dir.path().join("out");
    run_ok(&s, &out, &["--pcap", "r2->r1"]);
    let o = std::process::Command::new("tshark")
        .arg("-r")
        .arg(out.join("pcap-r2-r1-r0.pcap"))
        .args(["-T", "fields", "-e", "tcp.ack_raw", "-e", "tcp.flags.ece"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.lines().count() > 100);
    assert!(text
        .lines()
        .any(|l| l.ends_with("\t1") || l.ends_with("\tTrue")));
}
