//! `netsim model`: the seed 002 model runs print the paper's closed forms
//! beside the simulated counts, and bad arguments are messages, not panics.

use assert_cmd::Command;

/// Run `netsim model <args>`; return (exit code, stdout, stderr).
fn model(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("netsim")
        .unwrap()
        .arg("model")
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!stderr.contains("panicked"), "panic:\n{stderr}");
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// The whitespace-separated numeric rows of a table (lines whose first field parses).
fn rows(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .filter_map(|l| {
            let cells: Vec<f64> = l
                .split_whitespace()
                .filter(|c| *c != "|")
                .map_while(|c| c.parse().ok())
                .collect();
            (!cells.is_empty() && cells.len() == l.split_whitespace().filter(|c| *c != "|").count())
                .then_some(cells)
        })
        .collect()
}

#[test]
fn kelly_e5_1_delay_four_diverges_and_prints_eq_54() {
    let (code, out, err) = model(&[
        "kelly",
        "--kappa",
        "0.5",
        "--omega",
        "10",
        "--capacity",
        "1000",
        "--delay",
        "4",
        "--steps",
        "60",
    ]);
    assert_eq!(code, 0, "{err}");
    // Eq. 3: 2 sin(pi/(2(2D-1))) = 0.445 < kappa = 0.5 for D = 4.
    let bound = 2.0 * (std::f64::consts::PI / 14.0).sin();
    assert!(out.contains(&format!("= {bound:.4} -> unstable")), "{out}");
    assert!(out.contains("x* = C + omega = 1010"), "{out}");
    assert!(out.contains("simulated: diverging"), "{out}");
    // The table is eq. 54 from x(0) = 0, every step 0..=60.
    let table = rows(&out);
    assert_eq!(table.len(), 61);
    let mut x = vec![0.0_f64];
    for n in 1..=60 {
        let delayed = if n >= 4 { x[n - 4] } else { 0.0 };
        x.push(x[n - 1] + 0.5 * 10.0 - 0.5 * (delayed - 1000.0));
    }
    for (n, row) in table.iter().enumerate() {
        assert_eq!(row[0], n as f64);
        assert!((row[1] - x[n]).abs() < 1e-3, "n={n}: {row:?} vs {}", x[n]);
        assert!((row[2] - (x[n] - 1010.0)).abs() < 1e-3);
    }

    let (code, out, _) = model(&["kelly", "--delay", "3", "--steps", "400"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("-> stable") && out.contains("simulated: converging"),
        "{out}"
    );
}

#[test]
fn emkc_fairness_prints_eq_108_and_115_beside_the_counts() {
    let (code, out, err) = model(&[
        "emkc-fairness",
        "--capacity",
        "1000",
        "--alpha",
        "10",
        "--beta",
        "0.5",
        "--flows",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let table: Vec<Vec<f64>> = rows(&out).into_iter().filter(|r| r.len() == 7).collect();
    let eps = [0.5, 0.2, 0.1, 0.05, 0.01];
    assert_eq!(table.len(), eps.len(), "{out}");
    let x_star = 1000.0 + 2.0 * 10.0 / 0.5;
    let r = -(0.5_f64).ln() / 0.5;
    for (row, e) in table.iter().zip(eps) {
        assert_eq!(row[0], e);
        // Eq. 108 and eq. 115 (without Theta(N alpha / C)).
        let theta_m = x_star * (2.0_f64.ln() - e.ln()) / 20.0;
        assert!((row[2] - theta_m).abs() <= 0.05, "{row:?}");
        assert!((row[5] - theta_m / r).abs() <= 0.05, "{row:?}");
        // Counts are at most the bounds (up to a step) and the ratio column is theirs.
        assert!(
            row[1] <= theta_m + 1.0 && row[4] <= theta_m / r + 1.0,
            "{row:?}"
        );
        assert!((row[6] - row[1] / row[4]).abs() <= 0.0005, "{row:?}");
    }
}

#[test]
fn jetmax_efficiency_takes_theorem_17_steps_everywhere() {
    let (code, out, err) = model(&["jetmax-steps", "--tau", "0.6", "--eps", "0.01"]);
    assert_eq!(code, 0, "{err}");
    let table = rows(&out);
    assert_eq!(table.len(), 4 * 8, "{out}");
    let six = (0.01_f64.ln() / 0.4_f64.ln()).ceil();
    for row in &table {
        // Eq. 142 for efficiency; eq. 144 for fairness (N - 1 shares away).
        assert_eq!(row[2], six, "{row:?}");
        let n = row[1];
        let fair = if n == 1.0 {
            0.0
        } else {
            ((0.01 / (n - 1.0)).ln() / 0.4_f64.ln()).ceil()
        };
        assert_eq!(row[3], fair, "{row:?}");
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    for (args, msg) in [
        (
            &["kelly", "--kappa", "-1"][..],
            "kappa must be > 0 (got -1)",
        ),
        (&["kelly", "--delay", "0"][..], "delay D must be >= 1"),
        (
            &["emkc-fairness", "--eps", "0.1,1.5"][..],
            "eps must be in (0, 1) (got 1.5)",
        ),
        (&["emkc-fairness", "--flows", "1"][..], "flows must be >= 2"),
        (
            &["jetmax-steps", "--tau", "2.5"][..],
            "tau must be in (0, 2)",
        ),
        (
            &["jetmax-steps", "--flows", "0"][..],
            "flows must be in [1, 1000000]",
        ),
        // 4 x 10^9 flows once aborted on a failed allocation.
        (
            &["emkc-fairness", "--flows", "4000000000"][..],
            "flows must be <= 1000000 (got 4000000000)",
        ),
        // These once printed NaN tables with exit code 0.
        (
            &["kelly", "--capacity", "1e308", "--omega", "1e308"][..],
            "x(3) leaves the range of f64 (kappa 0.5, omega 1e308, C 1e308, x(0) 0)",
        ),
        (
            &["emkc-fairness", "--capacity", "1e300", "--alpha", "1e300"][..],
            "C 1e300 and alpha 1e300 overflow the model's arithmetic",
        ),
    ] {
        let (code, out, err) = model(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
}

#[test]
fn a_closed_form_outside_its_domain_prints_a_dash_not_nan() {
    // C far below alpha: eq. 109's refined index has no value here.
    let (code, out, err) = model(&["emkc-fairness", "--capacity", "1e-300", "--alpha", "1e300"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("NaN"), "{out}");
    // One row per default eps, its `refined` cell a dash.
    let dashed = out
        .lines()
        .filter(|l| l.split_whitespace().nth(3) == Some("-"))
        .count();
    assert_eq!(dashed, 5, "{out}");
}
