//! `[[sweep.expect]]`: expectations about a sweep's curve, judged by
//! `netsim sweep` (exit 1 with `--check` on a miss) and by `netsim reproduce`
//! without `--fast`.
//!
//! The reference is a closed form: a constant-bit-rate source below the
//! bottleneck's capacity loses nothing, so its throughput equals its rate and
//! the curve of throughput against rate is a line of slope 1.

use std::path::Path;

use assert_cmd::Command;

fn scenario(expects: &str) -> String {
    format!(
        r#"
# reproduce: fast
name = "cbr-curve"
[run]
duration = "3s"
warmup = "1s"
replications = 2
seed = 5
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ capacity = "10Mbps", delay = "5ms", buffer = "100pkt" }}
access = {{ capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }}
[[flows]]
name = "cbr"
from = "s0"
to = "d0"
traffic = {{ kind = "cbr", rate = "1Mbps" }}
[[expect]]
scope = "link"
subject = "r1->r2"
metric = "dropped_pkts"
op = "at_most"
value = 0.0
source = "below capacity nothing is lost"
[sweep]
[[sweep.param]]
key = "flows.cbr.traffic.rate"
name = "rate"
values = ["1Mbps", "2Mbps", "4Mbps", "8Mbps"]
[[sweep.param]]
key = "topology.bottleneck.capacity"
name = "capacity"
values = ["10Mbps", "20Mbps"]
{expects}
"#
    )
}

const SLOPE_ONE: &str = r#"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 10000000"
shape = "slope"
value = 1.0
tolerance = 0.01
source = "CBR below capacity: throughput = rate"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "rate <= 4000000 && capacity == 10000000"
shape = "increasing"
source = "more rate, more throughput"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = { scope = "link", subject = "r1->r2", metric = "utilisation" }
where = "capacity == 10000000"
x_min = 0.15
shape = "slope"
value = 1e7
tolerance = 0.01
source = "throughput = utilisation x capacity, over the measured utilisation"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
against = "rate"
where = "capacity == 10000000"
than = "capacity == 20000000"
shape = "above"
source = "the same rate fills more of a smaller link"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 10000000"
than = "capacity == 20000000"
shape = "close"
tolerance = 0.01
source = "below capacity the link's size does not change the throughput"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "dropped_pkts"
against = "rate"
where = "capacity == 10000000"
shape = "all"
op = "at_most"
value = 0.0
source = "below capacity nothing is dropped, at any rate"
"#;

const WRONG: &str = r#"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 20000000"
shape = "decreasing"
source = "deliberately wrong"
"#;

fn netsim(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::cargo_bin("netsim")
        .unwrap()
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

/// The verdict rows of a successful `netsim sweep` of campaign `name` (there
/// must be `n`), as a checker: row `k` contains `has` and ends with `verdict`.
fn verdict_rows(o: &std::process::Output, name: &str, n: usize) -> impl Fn(usize, &str, &str) {
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}");
    let prefix = format!("{name} ");
    let rows: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_string)
        .collect();
    assert_eq!(rows.len(), n, "{stdout}");
    move |k: usize, has: &str, verdict: &str| {
        assert!(
            rows[k].contains(has) && rows[k].ends_with(verdict),
            "{}",
            rows[k]
        );
    }
}

#[test]
fn a_slope_and_a_monotone_curve_pass_and_a_wrong_shape_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cbr.toml");
    std::fs::write(&f, scenario(&format!("{SLOPE_ONE}{WRONG}"))).unwrap();
    let out = dir.path().join("store");
    let args = |check: bool| {
        let mut a = vec!["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()];
        if check {
            a.push("--check");
        }
        a
    };
    let row = verdict_rows(&netsim(&args(false), dir.path()), "cbr-curve", 7);
    row(0, "slope 1 ", "PASS");
    // The increasing curve over the three points the `where` keeps.
    row(1, "3 points", "PASS");
    // Against the measured utilisation, from x_min = 0.15: 0.2, 0.4, 0.8.
    row(2, "slope 9.98", "PASS");
    row(2, "3 points", "PASS");
    row(3, "at all 4 shared x", "PASS");
    row(4, "within ±1% of", "PASS");
    row(5, "<= 0 at all 4 points", "PASS");
    row(6, "fails from x =", "MISS");
    // --check turns the miss into exit code 1 (the runs are reused).
    let o = netsim(&args(true), dir.path());
    assert_eq!(o.status.code(), Some(1));
}

/// A flat curve (nothing dropped at any rate) is not strictly decreasing but
/// is non-increasing; a rising one fails `non_increasing` and passes
/// `non_decreasing`, and a step the wrong way within `abs_tolerance` is a tie.
const TIES: &str = r#"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "dropped_pkts"
against = "rate"
where = "capacity == 10000000"
shape = "decreasing"
source = "flat: not strictly decreasing"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "dropped_pkts"
against = "rate"
where = "capacity == 10000000"
shape = "non_increasing"
source = "flat: non-increasing"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 10000000"
shape = "non_decreasing"
source = "rising: non-decreasing"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 10000000"
shape = "non_increasing"
source = "rising: not non-increasing"
[[sweep.expect]]
scope = "group"
subject = "cbr"
metric = "throughput_bps"
against = "rate"
where = "capacity == 10000000"
shape = "non_increasing"
abs_tolerance = 1e7
source = "rising by less than the tolerance: a tie"
"#;

#[test]
fn non_strict_shapes_let_ties_pass() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cbr.toml");
    std::fs::write(&f, scenario(TIES)).unwrap();
    let out = dir.path().join("store");
    let o = netsim(
        &["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()],
        dir.path(),
    );
    let row = verdict_rows(&o, "cbr-curve", 5);
    row(0, "fails from x =", "MISS");
    row(1, "every step", "PASS");
    row(2, "every step", "PASS");
    row(3, "fails from x =", "MISS");
    row(4, "ties within", "PASS");
    // `tolerance` (relative) is refused: a tie is an absolute step.
    let bad = TIES.replace("abs_tolerance = 1e7", "tolerance = 0.1");
    std::fs::write(&f, scenario(&bad)).unwrap();
    let o = netsim(&["check", f.to_str().unwrap()], dir.path());
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("takes an `abs_tolerance`"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn reproduce_without_fast_judges_the_curves_and_with_fast_does_not() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cbr.toml"), scenario(SLOPE_ONE)).unwrap();
    let d = dir.path().to_str().unwrap();
    let o = netsim(&["reproduce", d], dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("cbr-curve (sweep)"), "{stdout}");
    assert!(
        stdout.contains("7 of 7 paper values reproduced"),
        "{stdout}"
    );
    // The campaign went to the default store, relative to the working directory.
    assert!(dir
        .path()
        .join("out/cbr-curve-sweep/manifest.toml")
        .is_file());
    let o = netsim(&["reproduce", "--fast", d], dir.path());
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(!stdout.contains("(sweep)"), "{stdout}");
    assert!(
        stdout.contains("1 of 1 paper values reproduced"),
        "{stdout}"
    );
}

#[test]
fn a_curve_expectation_naming_no_parameter_is_an_error_with_its_key_path() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SLOPE_ONE.replacen("against = \"rate\"", "against = \"speed\"", 1);
    let f = dir.path().join("bad.toml");
    std::fs::write(&f, scenario(&bad)).unwrap();
    let o = netsim(&["check", f.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("sweep.expect[0].against") && err.contains("unknown parameter `speed`"),
        "{err}"
    );
}

/// A Poisson packet source into a 10 Mb/s link with a large buffer: an M/D/1
/// queue. Its mean wait before service is W = rho / (2 mu (1 - rho))
/// (Pollaczek-Khinchine with deterministic service), convex in the load, and
/// the link's utilisation is rho, which approaches 1 as the rate grows.
fn md1(expects: &str) -> String {
    format!(
        r#"
name = "md1-curve"
[run]
duration = "20s"
warmup = "1s"
replications = 2
seed = 11
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ capacity = "10Mbps", delay = "1ms", buffer = "10000pkt" }}
access = {{ capacity = "10Gbps", delay = "0ms", buffer = "10000pkt" }}
[[flows]]
name = "p"
from = "s0"
to = "d0"
traffic = {{ kind = "poisson_packets", rate = "1Mbps" }}
[sweep]
[[sweep.param]]
key = "flows.p.traffic.rate"
name = "rate"
values = ["1Mbps", "2Mbps", "3Mbps", "4Mbps", "5Mbps", "6Mbps", "7Mbps", "8Mbps"]
{expects}
"#
    )
}

// The points share a seed (common random numbers), so one curve's noise is
// one Poisson path read at eight rates: correlated, which the quadratic's
// interval does not assume; a concave curve, not a noisy line, is the wrong
// `convex` below. rho / (1 - rho) at rho = 0.1 .. 0.8 lies up to 26 % of
// its span away from its least-squares line (0.111 .. 4: the line misses the
// end points), so 10 % cannot pass; the utilisation rho itself is a line.
const MD1: &str = r#"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "qdelay_mean_s"
against = "rate"
shape = "convex"
source = "M/D/1: W = rho / (2 mu (1 - rho)) is convex in rho"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
against = "rate"
shape = "approaching"
value = 1.0
source = "the utilisation rho approaches 1 as the rate grows"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
against = "rate"
shape = "linear"
tolerance = 0.02
source = "the utilisation is rate / capacity"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "qdelay_mean_s"
against = "rate"
shape = "linear"
tolerance = 0.1
source = "deliberately wrong: M/D/1's wait is 26 % of its span off a line"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
against = "rate"
shape = "approaching"
value = 0.0
source = "deliberately wrong: the utilisation moves away from 0"
[[sweep.expect]]
scope = "link"
subject = "r1->r2"
metric = "utilisation"
against = { scope = "link", subject = "r1->r2", metric = "qdelay_mean_s" }
shape = "convex"
source = "deliberately wrong: rho = 2 mu W / (1 + 2 mu W) is concave in W"
"#;

#[test]
fn linear_convex_and_approaching_curves_follow_the_md1_queue() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("md1.toml");
    std::fs::write(&f, md1(MD1)).unwrap();
    let out = dir.path().join("store");
    let o = netsim(
        &["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()],
        dir.path(),
    );
    let row = verdict_rows(&o, "md1-curve", 6);
    row(
        0,
        "x^2 coefficient > 0 at 95% confidence (8 points)",
        "PASS",
    );
    row(1, "the distance shrinks at every step", "PASS");
    row(2, "<= 2% of the span (8 points)", "PASS");
    row(3, "<= 10% of the span", "MISS");
    row(4, "fails from x = 1.0000e6", "MISS");
    row(5, "x^2 coefficient > 0", "MISS");
}

#[test]
fn the_new_shapes_reject_what_they_do_not_take() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "shape = \"linear\"\nabs_tolerance = 0.1",
            "sweep.expect[0].abs_tolerance",
            "relative `tolerance`",
        ),
        (
            "shape = \"linear\"",
            "sweep.expect[0].tolerance",
            "needs `tolerance`",
        ),
        (
            "shape = \"convex\"\ntolerance = 0.1",
            "sweep.expect[0].tolerance",
            "takes no tolerance",
        ),
        (
            "shape = \"approaching\"",
            "sweep.expect[0].value",
            "needs a finite `value`",
        ),
        (
            "shape = \"increasing\"\nop = \"at_least\"",
            "sweep.expect[0].op",
            "takes no `op`",
        ),
        (
            "shape = \"linear\"\ntolerance = 0.1\nlevel = 0.9",
            "sweep.expect[0].level",
            "takes no `level`",
        ),
        (
            "shape = \"linear\"\ntolerance = -0.1",
            "sweep.expect[0].tolerance",
            "not a finite number >= 0",
        ),
    ];
    for (k, (shape, key, msg)) in cases.iter().enumerate() {
        let e = format!(
            "[[sweep.expect]]\nscope = \"link\"\nsubject = \"r1->r2\"\nmetric = \"utilisation\"\nagainst = \"rate\"\n{shape}\nsource = \"x\"\n"
        );
        let f = dir.path().join(format!("bad{k}.toml"));
        std::fs::write(&f, md1(&e)).unwrap();
        let o = netsim(&["check", f.to_str().unwrap()], dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{shape}: {err}");
        assert!(err.contains(key) && err.contains(msg), "{shape}: {err}");
    }
}

/// Two constant-bit-rate groups below capacity lose nothing, so the share of
/// the swept one is `rate / (rate + 1 Mb/s)` exactly (up to the packets in
/// flight at the window's edges): `share_with` forms it per replication.
const SHARES: &str = r#"
name = "cbr-share"
[run]
duration = "4s"
warmup = "1s"
replications = 2
seed = 8
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { capacity = "20Mbps", delay = "5ms", buffer = "100pkt" }
access = { capacity = "100Mbps", delay = "1ms", buffer = "100pkt" }
[[flows]]
name = "a"
from = "s0"
to = "d0"
traffic = { kind = "cbr", rate = "1Mbps" }
[[flows]]
name = "b"
from = "s1"
to = "d1"
traffic = { kind = "cbr", rate = "1Mbps" }
[sweep]
[[sweep.param]]
key = "flows.a.traffic.rate"
name = "rate"
values = ["1Mbps", "3Mbps", "9Mbps"]
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
shape = "law"
law = "rate / (rate + 1000000)"
tolerance = 0.005
source = "CBR below capacity: the share is rate / (rate + 1 Mb/s)"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
shape = "law"
law = "rate / 1000000"
tolerance = 0.005
source = "deliberately wrong: the ratio, not the share"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
ratio_to = "b"
against = "rate"
shape = "law"
law = "rate / 1000000"
tolerance = 0.005
source = "the ratio"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
shape = "change"
value = 0.4
abs_tolerance = 0.01
source = "the share goes from 1/2 at 1 Mb/s to 9/10 at 9 Mb/s"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
x_max = 3000000
shape = "change"
op = "at_most"
value = 0.0
source = "deliberately wrong: from 1/2 to 3/4 is a rise"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
where = "rate >= 3000000"
than = "rate <= 3000000"
x_min = 1000000
shape = "change"
value = -0.6
abs_tolerance = 0.01
source = "self-check of `than`: the same curve's change over [3, 9] Mb/s (0.15) minus over [1, 3] Mb/s (0.25) is -0.1, not -0.6"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
shape = "relative_change"
value = 0.8
abs_tolerance = 0.02
source = "the share rises by 80 % of its first value: (9/10 - 1/2) / (1/2)"
[[sweep.expect]]
scope = "group"
subject = "a"
metric = "throughput_bps"
share_with = "b"
against = "rate"
shape = "relative_change"
value = 0.4
abs_tolerance = 0.02
source = "deliberately wrong: 0.4 is the change in points, not relative"
"#;

#[test]
fn share_with_curves_are_the_per_replication_share() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("share.toml");
    std::fs::write(&f, SHARES).unwrap();
    let out = dir.path().join("store");
    let o = netsim(
        &["sweep", f.to_str().unwrap(), "--out", out.to_str().unwrap()],
        dir.path(),
    );
    let row = verdict_rows(&o, "cbr-share", 8);
    row(0, "share with b", "PASS");
    row(1, "share with b", "MISS");
    row(2, "throughput_bps", "PASS");
    row(3, "change 0.4", "PASS");
    row(4, "(from x = 1.0000e6 to x = 3.0000e6)", "MISS");
    row(5, "change -0.1 ± NaN", "MISS");
    row(6, "relative change 0.8", "PASS");
    row(7, "relative change 0.4", "MISS");
    // `netsim plot` draws the share and the ratio the entries check on
    // charts of their own (one line per point set), the ratio's law on the
    // ratio's chart and not on the throughput's.
    let o = netsim(&["plot", out.to_str().unwrap()], dir.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = |stem: &str| std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
    let share = svg("sweep_group_throughput_bps_share_with_b");
    assert!(share.contains("share of throughput bps with b"));
    assert!(share.contains("a (rate &gt;= 3000000)") || share.contains("a (rate >= 3000000)"));
    let ratio = svg("sweep_group_throughput_bps_ratio_to_b");
    assert!(ratio.contains("the ratio"), "the law's legend");
    assert!(!svg("sweep_group_throughput_bps").contains("the ratio"));
    // `netsim check` refuses SHARES with `from` replaced by `to` (once),
    // naming `key` and saying `why`.
    let refused = |from: &str, to: &str, key: &str, why: &str| {
        std::fs::write(&f, SHARES.replacen(from, to, 1)).unwrap();
        let o = netsim(&["check", f.to_str().unwrap()], dir.path());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success());
        assert!(err.contains(key) && err.contains(why), "{err}");
    };
    // A relative change against another curve.
    refused(
        "shape = \"relative_change\"",
        "shape = \"relative_change\"\nthan = \"rate <= 3000000\"",
        "sweep.expect[6].than",
        "\"relative_change\" not",
    );
    // Both at once, with the key's path.
    refused(
        "share_with = \"b\"",
        "share_with = \"b\"\nratio_to = \"b\"",
        "sweep.expect[0].share_with",
        "one of share_with and ratio_to",
    );
}
