//! `[[expect]] window = [from, to]`: the mean of a sampled series over part
//! of the run (Zimmermann (2005) reports utilisation and backlog per 20-s
//! interval). Closed forms: constant-bit-rate sources of 3 and 4 Mb/s on a
//! 10-Mb/s link, the second on from 1 s to 2 s: the link's sampled
//! utilisation is 0.3 before 1 s, 0.7 between 1 and 2 s, 0.3 after; each
//! group's sampled throughput is its rate. Misuse names the key.

#[path = "common/cli.rs"]
mod cli;

fn scenario(expects: &str) -> String {
    format!(
        r#"
name = "windows"
[run]
duration = "3s"
sample_interval = "10ms"
series = ["link_rate", "link_queue", "flow_rate"]
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = {{ capacity = "10Mbps", delay = "1ms", buffer = "100pkt" }}
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "a"
from = "s0"
to = "d0"
packet_size = "1000B"
traffic = {{ kind = "cbr", rate = "3Mbps" }}
[[flows]]
name = "b"
from = "s1"
to = "d1"
packet_size = "1000B"
start = "1s"
stop = "2s"
traffic = {{ kind = "cbr", rate = "4Mbps" }}
{expects}
"#
    )
}

fn expect(scope: &str, subject: &str, metric: &str, window: &str, value: f64, tol: f64) -> String {
    format!(
        "[[expect]]\nscope = \"{scope}\"\nsubject = \"{subject}\"\nmetric = \"{metric}\"\n\
         window = {window}\nvalue = {value}\nabs_tolerance = {tol}\nsource = \"closed form\"\n"
    )
}

fn run(text: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, text).unwrap();
    let out = dir.path().join("o");
    cli::netsim([
        "run".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--check".as_ref(),
    ])
}

#[test]
fn window_means_follow_the_schedule() {
    // The first and last 20 ms of a phase straddle packet boundaries; the
    // windows keep 100 ms clear of each change.
    let mut e = String::new();
    // One 1000-B packet per 10-ms sample is 0.8 Mb/s = 0.08 of the link:
    // a sample holds a whole number of packets, so the mean is exact to
    // within one packet over the window (0.08 / samples).
    e += &expect(
        "link",
        "r1->r2",
        "utilisation",
        "[\"0.1s\", \"0.9s\"]",
        0.3,
        0.005,
    );
    e += &expect(
        "link",
        "r1->r2",
        "utilisation",
        "[\"1.1s\", \"1.9s\"]",
        0.7,
        0.005,
    );
    e += &expect(
        "link",
        "r1->r2",
        "utilisation",
        "[\"2.1s\", \"2.9s\"]",
        0.3,
        0.005,
    );
    e += &expect(
        "link",
        "r1->r2",
        "rate_bps",
        "[\"1.1s\", \"1.9s\"]",
        7e6,
        5e4,
    );
    e += &expect(
        "group",
        "b",
        "throughput_bps",
        "[\"1.1s\", \"1.9s\"]",
        4e6,
        5e4,
    );
    // Below capacity, constant-rate packets never wait behind a whole packet.
    e += &expect(
        "link",
        "r1->r2",
        "queue_pkts",
        "[\"0.1s\", \"2.9s\"]",
        0.0,
        1.0,
    );
    let (ok, text) = run(&scenario(&e));
    assert!(ok, "{text}");
    assert_eq!(text.matches("PASS").count(), 6, "{text}");
    assert!(
        text.contains("link r1->r2 utilisation [1.1s, 1.9s]"),
        "{text}"
    );
    // And the same expectation fails when the value is wrong.
    let wrong = expect(
        "link",
        "r1->r2",
        "utilisation",
        "[\"1.1s\", \"1.9s\"]",
        0.3,
        0.005,
    );
    let (ok, text) = run(&scenario(&wrong));
    assert!(!ok && text.contains("MISS"), "{text}");
}

#[test]
fn misuse_names_the_key() {
    for (e, place) in [
        (
            expect(
                "link",
                "r1->r2",
                "utilisation",
                "[\"2s\", \"1s\"]",
                0.3,
                0.01,
            ),
            "expect[0].window",
        ),
        (
            expect(
                "link",
                "r1->r2",
                "utilisation",
                "[\"1s\", \"4s\"]",
                0.3,
                0.01,
            ),
            "expect[0].window",
        ),
        (
            expect("link", "r1->r2", "drop_prob", "[\"1s\", \"2s\"]", 0.3, 0.01),
            "expect[0].metric",
        ),
        (
            expect("group", "a", "srtt_s", "[\"1s\", \"2s\"]", 0.3, 0.01),
            "flow_rtt",
        ),
        (
            expect("group", "a", "p_on", "[\"1s\", \"2s\"]", 0.3, 0.01),
            "flow_control",
        ),
    ] {
        let (ok, text) = run(&scenario(&e));
        assert!(!ok, "{e}: accepted\n{text}");
        assert!(text.contains(place), "{e}: {text}");
    }
}
