//! `netsim run` warns when every replication gave the same result (no
//! randomness reaches the run, so every interval is +- 0), and only then:
//! two NewReno flows with fixed starts on a drop-tail dumbbell draw nothing;
//! with a random start jitter the replications differ.

#[path = "common/cli.rs"]
mod cli;

fn scenario(jitter: &str) -> String {
    format!(
        r#"
name = "twins"
[run]
duration = "5s"
replications = 3
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = {{ capacity = "10Mbps", delay = "10ms", buffer = "50pkt" }}
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "a"
count = 2
from = "s{{i}}"
to = "d{{i}}"
{jitter}
"#
    )
}

fn run(text: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.toml");
    std::fs::write(&f, text).unwrap();
    let out = dir.path().join("o");
    let (ok, said) = cli::netsim([
        "run".as_ref(),
        f.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(ok, "{said}");
    (
        said,
        std::fs::read_to_string(out.join("report.txt")).unwrap(),
    )
}

#[test]
fn identical_replications_are_flagged_and_random_ones_are_not() {
    let (said, report) = run(&scenario(""));
    for text in [&said, &report] {
        assert!(
            text.contains("all 3 replications gave identical results"),
            "{text}"
        );
        assert!(text.contains("start_jitter"), "{text}");
    }
    let (said, report) = run(&scenario("start_jitter = \"100ms\""));
    assert!(!said.contains("identical results"), "{said}");
    assert!(!report.contains("identical results"), "{report}");
}
