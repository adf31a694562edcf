//! `netsim model`: the numerical (no packets) experiments of seed 002
//! (Zhang's dissertation, Ch. V-VI) as small discrete-time model runs, each
//! printed as a table beside the paper's closed form, so that model and
//! packet-level simulation can be compared. The models live in
//! `analysis::models`; this file parses arguments, checks ranges (bad values
//! are error messages, never panics) and formats tables.
//!
//! ```text
//! netsim model kelly [--kappa K] [--omega W] [--capacity C] [--delay D] [--x0 X] [--steps S]
//! netsim model emkc-fairness [--capacity C] [--alpha A] [--beta B] [--flows N] [--eps E,...]
//! netsim model emkc-scaling [--capacities C,...] [--flows N] [--capacity-per-flow K] [--eps E]
//! netsim model jetmax-steps [--tau T] [--eps E] [--gamma G] [--capacities C,...] [--flows N,...]
//! ```

use std::process::ExitCode;

use analysis::models::emkc::{self, Aimd, Emkc};
use analysis::models::jetmax::{self, JetMax};
use analysis::models::kelly::Kelly;
use analysis::models::{Envelope, SingleLink};
use clap::{Args, Subcommand};

use crate::say;

/// Largest run a command will do, in flow-steps (a few seconds).
const MAX_FLOW_STEPS: f64 = 2e8;

/// The most flows a model run may have (each has its own state).
const MAX_FLOWS: usize = 1_000_000;

#[derive(Subcommand)]
pub enum ModelCmd {
    /// Classic Kelly control of one flow, eq. 54 (Fig. 14): trajectory and
    /// stable/unstable verdict against eq. 3's bound 2 sin(pi/(2(2D-1))).
    #[command(allow_negative_numbers = true)]
    Kelly(KellyArgs),
    /// EMKC and AIMD steps to eps-fairness from the maximally unfair start
    /// against theta_M (eq. 108) and theta_A (eq. 115), and their ratio
    /// (Fig. 16(a), 17(a)).
    #[command(allow_negative_numbers = true)]
    EmkcFairness(FairnessArgs),
    /// EMKC and AIMD steps to eps-fairness as the capacity grows, with N fixed
    /// (linear) and N = ceil(C/K) (logarithmic) (Fig. 16(b), 17(b)).
    #[command(allow_negative_numbers = true)]
    EmkcScaling(ScalingArgs),
    /// JetMax fluid model: steps to (1-eps)-efficiency and (1-eps)-fairness
    /// against capacity and flow count (Theorem 17, Figs. 41-42).
    #[command(allow_negative_numbers = true)]
    JetmaxSteps(JetmaxArgs),
}

#[derive(Args)]
pub struct KellyArgs {
    /// Gain kappa (> 0).
    #[arg(long, default_value_t = 0.5)]
    kappa: f64,
    /// Willingness to pay omega (>= 0, rate units, e.g. mb/s).
    #[arg(long, default_value_t = 10.0)]
    omega: f64,
    /// Link capacity C (> 0, same unit).
    #[arg(long, default_value_t = 1000.0)]
    capacity: f64,
    /// Feedback delay D in steps (>= 1; 1 = immediate feedback).
    #[arg(long, default_value_t = 1)]
    delay: usize,
    /// Initial rate x(0) (also the history before step 0).
    #[arg(long, default_value_t = 0.0)]
    x0: f64,
    /// Steps to run (>= 8: the verdict compares the last two quarters).
    #[arg(long, default_value_t = 60)]
    steps: usize,
    /// Print every K-th step (default: all steps up to 60 rows).
    #[arg(long)]
    every: Option<usize>,
}

#[derive(Args)]
pub struct FairnessArgs {
    /// Link capacity C (> 0, e.g. kb/s).
    #[arg(long, default_value_t = 1000.0)]
    capacity: f64,
    /// Additive gain alpha (> 0, same unit per RTT).
    #[arg(long, default_value_t = 10.0)]
    alpha: f64,
    /// Gain beta, in (0, 1) (EMKC's beta and AIMD's decrease fraction).
    #[arg(long, default_value_t = 0.5)]
    beta: f64,
    /// Number of flows N (>= 2).
    #[arg(long, default_value_t = 2)]
    flows: usize,
    /// Fairness levels eps, each in (0, 1).
    #[arg(long, value_delimiter = ',', default_value = "0.5,0.2,0.1,0.05,0.01")]
    eps: Vec<f64>,
}

#[derive(Args)]
pub struct ScalingArgs {
    /// Link capacities C (> 0, kb/s for the N = ceil(C/K) column).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,2000,4000,8000,16000,32000"
    )]
    capacities: Vec<f64>,
    /// Additive gain alpha (> 0).
    #[arg(long, default_value_t = 10.0)]
    alpha: f64,
    /// Gain beta, in (0, 1).
    #[arg(long, default_value_t = 0.5)]
    beta: f64,
    /// The fixed flow count (>= 2).
    #[arg(long, default_value_t = 2)]
    flows: usize,
    /// K in the variable flow count N = max(2, ceil(C/K)) (> 0).
    #[arg(long, default_value_t = 500.0)]
    capacity_per_flow: f64,
    /// Fairness level eps, in (0, 1).
    #[arg(long, default_value_t = 0.1)]
    eps: f64,
}

#[derive(Args)]
pub struct JetmaxArgs {
    /// Gain tau, in (0, 2).
    #[arg(long, default_value_t = 0.6)]
    tau: f64,
    /// Neighbourhood eps, in (0, 1).
    #[arg(long, default_value_t = 0.01)]
    eps: f64,
    /// Target utilisation gamma, in (0, 1].
    #[arg(long, default_value_t = 1.0)]
    gamma: f64,
    /// Link capacities in Mb/s (> 0).
    #[arg(long, value_delimiter = ',', default_value = "16,160,1600,16000")]
    capacities: Vec<f64>,
    /// Flow counts N (>= 1).
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4,16,64,256,1024")]
    flows: Vec<usize>,
    /// Round-trip delay D of every flow, in steps (>= 1).
    #[arg(long, default_value_t = 1)]
    delay: usize,
}

/// Runs one `netsim model` command.
pub fn cmd_model(cmd: ModelCmd) -> Result<ExitCode, String> {
    let text = match cmd {
        ModelCmd::Kelly(a) => kelly_table(&a)?,
        ModelCmd::EmkcFairness(a) => fairness_table(&a)?,
        ModelCmd::EmkcScaling(a) => scaling_table(&a)?,
        ModelCmd::JetmaxSteps(a) => jetmax_table(&a)?,
    };
    say(&text);
    Ok(ExitCode::SUCCESS)
}

fn kelly_table(a: &KellyArgs) -> Result<String, String> {
    let k = Kelly::new(a.kappa, a.omega, a.capacity, a.delay).map_err(|e| e.to_string())?;
    if !a.x0.is_finite() {
        return Err(format!("x0 must be finite (got {})", a.x0));
    }
    if a.steps < 8 {
        return Err(format!(
            "steps must be >= 8 (got {}): the verdict compares the last two quarters of the run",
            a.steps
        ));
    }
    if a.steps > 10_000_000 {
        return Err(format!("steps must be <= 10000000 (got {})", a.steps));
    }
    let every = match a.every {
        Some(0) => return Err("every must be >= 1 (got 0)".into()),
        Some(e) => e,
        None => a.steps.div_ceil(60).max(1),
    };
    let x = k.trajectory(a.x0, a.steps);
    if let Some(n) = x.iter().position(|v| !v.is_finite()) {
        return Err(format!(
            "x({n}) leaves the range of f64 (kappa {}, omega {}, C {}, x(0) {}): use smaller values",
            sim_core::fmt_num(a.kappa),
            sim_core::fmt_num(a.omega),
            sim_core::fmt_num(a.capacity),
            sim_core::fmt_num(a.x0)
        ));
    }
    let star = k.equilibrium();
    let bound = k.gain_bound();
    let mut out = format!(
        "Kelly control, eq. 54: x(n) = x(n-1) + kappa omega - kappa (x(n-D) - C)\n\
         kappa {} | omega {} | C {} | D {} | x(0) {} | {} steps\n\
         fixed point x* = C + omega = {star}\n\
         eq. 3: kappa < 2 sin(pi/(2(2D-1))) = {bound:.4} -> {}\n",
        a.kappa,
        a.omega,
        a.capacity,
        a.delay,
        a.x0,
        a.steps,
        if k.stable_by_eq3() {
            "stable"
        } else {
            "unstable"
        },
    );
    out.push_str(&match k.envelope(&x) {
        Some(e) => verdict_line(&e),
        None => "simulated: too few steps for a verdict\n".into(),
    });
    out.push_str(&format!(
        "\n{:>8} {:>16} {:>16}\n",
        "n", "x(n)", "x(n) - x*"
    ));
    for (n, v) in x.iter().enumerate() {
        if n % every == 0 || n == a.steps {
            out.push_str(&format!("{n:>8} {v:>16.4} {:>16.4}\n", v - star));
        }
    }
    Ok(out)
}

fn verdict_line(e: &Envelope) -> String {
    format!(
        "simulated: {} (max |x - x*|/x* over the last two {}-step windows: {:.3e} -> {:.3e}, x{:.4} per step)\n",
        e.verdict(),
        e.window,
        e.earlier,
        e.later,
        e.growth_per_step()
    )
}

/// Checks the shared EMKC/AIMD parameters by building both models.
fn emkc_models(c: f64, alpha: f64, beta: f64, n: usize) -> Result<(Emkc, Aimd), String> {
    if n < 2 {
        return Err(format!(
            "flows must be >= 2 (got {n}): eps-fairness compares flows"
        ));
    }
    // 4 x 10^9 once aborted on a failed allocation.
    if n > MAX_FLOWS {
        return Err(format!("flows must be <= {MAX_FLOWS} (got {n})"));
    }
    if !(c * (1.0 + alpha)).is_finite() || !(n as f64 * alpha).is_finite() {
        return Err(format!(
            "C {} and alpha {} overflow the model's arithmetic (f64); use smaller values",
            sim_core::fmt_num(c),
            sim_core::fmt_num(alpha)
        ));
    }
    let m = Emkc::uniform(c, alpha, beta, n, 1).map_err(|e| e.to_string())?;
    let a = Aimd::uniform(c, alpha, beta, n, 1).map_err(|e| e.to_string())?;
    Ok((m, a))
}

fn check_eps(eps: f64) -> Result<(), String> {
    if eps > 0.0 && eps < 1.0 {
        Ok(())
    } else {
        Err(format!("eps must be in (0, 1) (got {eps})"))
    }
}

/// EMKC's and AIMD's steps to each eps from the maximally unfair start.
type Counts = (Vec<usize>, Vec<usize>);

fn fairness_counts(m: &Emkc, a: &Aimd, eps: &[f64]) -> Result<Counts, String> {
    let n = m.delays.len();
    let min_eps = eps.iter().copied().fold(1.0, f64::min);
    let horizon = emkc::fairness_horizon(m.capacity, m.alpha, m.beta, n, min_eps, 1);
    if horizon as f64 * n as f64 > MAX_FLOW_STEPS {
        return Err(format!(
            "C {} with N {n} and alpha {} needs about {horizon} steps of {n} flows \
             (theta_M grows like C/(N alpha)); lower the capacity or eps, or raise alpha",
            m.capacity, m.alpha
        ));
    }
    let x0 = emkc::maximally_unfair(n, m.capacity);
    let run = |model: &dyn SingleLink| -> Result<Vec<usize>, String> {
        emkc::fairness_steps(model, &x0, eps, horizon)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|s| s.ok_or_else(|| format!("not eps-fair within {horizon} steps")))
            .collect()
    };
    Ok((run(m)?, run(a)?))
}

fn fairness_table(a: &FairnessArgs) -> Result<String, String> {
    let (m, aimd) = emkc_models(a.capacity, a.alpha, a.beta, a.flows)?;
    if a.eps.is_empty() {
        return Err("eps: give at least one value".into());
    }
    for &e in &a.eps {
        check_eps(e)?;
    }
    let (sm, sa) = fairness_counts(&m, &aimd, &a.eps)?;
    let (c, al, be, n) = (a.capacity, a.alpha, a.beta, a.flows);
    let mut out = format!(
        "Steps (RTTs) to eps-fairness, eq. 107, from x_1..x_{{N-1}} = 0, x_N = C (Fig. 16(a), 17(a))\n\
         C {c} | alpha {al} | beta {be} | N {n}: X* = {:.4}, x* = {:.4}, p* = {:.4}\n\
         theta_M: eq. 108, theta_A: eq. 115 (both without Theta(N alpha/C));\n\
         refined: eq. 109 with the exact index instead of eq. 110's bound, plus p's transient\n\
         Corollary 6: theta_M/theta_A = -ln(1-beta)/beta = {:.4}; for N alpha/X* = {:.4}: {:.4}\n\n",
        m.equilibrium_aggregate(),
        m.equilibrium_rate(),
        m.equilibrium_price(),
        emkc::corollary6_ratio(be),
        n as f64 * al / m.equilibrium_aggregate(),
        emkc::asymptotic_ratio(c, al, be, n),
    );
    out.push_str(&format!(
        "{:>8} {:>7} {:>9} {:>9} {:>7} {:>9} {:>10}\n",
        "eps", "EMKC", "theta_M", "refined", "AIMD", "theta_A", "EMKC/AIMD"
    ));
    for (k, &e) in a.eps.iter().enumerate() {
        let refined = emkc::theta_m_refined(c, al, be, n, e)
            .filter(|v| v.is_finite())
            .map_or_else(|| "-".to_string(), |v| format!("{v:.1}"));
        out.push_str(&format!(
            "{e:>8} {:>7} {:>9.1} {refined:>9} {:>7} {:>9.1} {:>10.3}\n",
            sm[k],
            emkc::theta_m(c, al, be, n, e),
            sa[k],
            emkc::theta_a(c, al, be, n, e),
            sm[k] as f64 / sa[k] as f64,
        ));
    }
    Ok(out)
}

fn scaling_table(a: &ScalingArgs) -> Result<String, String> {
    check_eps(a.eps)?;
    if a.capacities.is_empty() {
        return Err("capacities: give at least one value".into());
    }
    if !(a.capacity_per_flow > 0.0 && a.capacity_per_flow.is_finite()) {
        return Err(format!(
            "capacity-per-flow must be > 0 (got {})",
            a.capacity_per_flow
        ));
    }
    let (al, be, e) = (a.alpha, a.beta, a.eps);
    let mut out = format!(
        "Steps (RTTs) to {e}-fairness vs capacity (Fig. 16(b), 17(b)): alpha {al}, beta {be}\n\
         left: N = {} fixed (eq. 108 linear in C); right: N = max(2, ceil(C/{})) (logarithmic)\n\n\
         {:>10} | {:>6} {:>9} {:>6} {:>9} {:>6} | {:>5} {:>6} {:>9} {:>6} {:>9} {:>6}\n",
        a.flows,
        a.capacity_per_flow,
        "C",
        "EMKC",
        "theta_M",
        "AIMD",
        "theta_A",
        "ratio",
        "N",
        "EMKC",
        "theta_M",
        "AIMD",
        "theta_A",
        "ratio",
    );
    for &c in &a.capacities {
        let n_var = ((c / a.capacity_per_flow).ceil().max(2.0)) as usize;
        let mut cells = Vec::new();
        for n in [a.flows, n_var] {
            let (m, aimd) = emkc_models(c, al, be, n)?;
            let (sm, sa) = fairness_counts(&m, &aimd, &[e])?;
            cells.push(format!(
                "{:>6} {:>9.1} {:>6} {:>9.1} {:>6.3}",
                sm[0],
                emkc::theta_m(c, al, be, n, e),
                sa[0],
                emkc::theta_a(c, al, be, n, e),
                sm[0] as f64 / sa[0] as f64
            ));
        }
        out.push_str(&format!(
            "{c:>10} | {} | {n_var:>5} {}\n",
            cells[0], cells[1]
        ));
    }
    Ok(out)
}

fn jetmax_table(a: &JetmaxArgs) -> Result<String, String> {
    if !(a.tau > 0.0 && a.tau < 2.0) {
        return Err(format!(
            "tau must be in (0, 2) (got {}): otherwise |1 - tau| >= 1 and JetMax never converges",
            a.tau
        ));
    }
    check_eps(a.eps)?;
    if a.capacities.is_empty() || a.flows.is_empty() {
        return Err("capacities and flows: give at least one value each".into());
    }
    if let Some(&n) = a.flows.iter().find(|&&n| n == 0 || n > MAX_FLOWS) {
        return Err(format!("flows must be in [1, {MAX_FLOWS}] (got {n})"));
    }
    if a.delay > 100_000 {
        return Err(format!("delay must be <= 100000 (got {})", a.delay));
    }
    let rtts = jetmax::theorem17_steps(a.tau, a.eps).ok_or("tau out of range")?;
    let widest = a.flows.iter().copied().max().unwrap_or(1);
    let most = jetmax::fairness_steps_closed_form(a.tau, a.eps, widest).unwrap_or(rtts);
    let work = (2 * rtts.max(most) + 20) as f64 * a.delay as f64 * widest as f64;
    if work > MAX_FLOW_STEPS {
        return Err(format!(
            "tau {} with eps {} needs about {} RTTs per run ({} flows, D {}); \
             raise tau towards 1 or lower the flows or the delay",
            a.tau,
            a.eps,
            rtts.max(most),
            widest,
            a.delay
        ));
    }
    let mut out = format!(
        "JetMax fluid model, eq. 134: x_r(n) = (1-tau) x_r(n-D) + tau (gamma C)/N\n\
         tau {} | eps {} | gamma {} | D {} step(s); all counts in steps, k RTTs = (k-1) D + 1 steps\n\
         Thm 17 (eq. 142): ceil(log_|1-tau| eps) = {rtts} RTTs, for efficiency and fairness;\n\
         eq. 144: fairness from the maximally unfair start, ceil(log_|1-tau| (eps/(N-1))) RTTs\n\n\
         {:>10} {:>8} {:>11} {:>9} {:>9} {:>9}\n",
        a.tau, a.eps, a.gamma, a.delay, "C (Mb/s)", "N", "efficiency", "fairness", "Thm 17", "eq. 144",
    );
    for &c in &a.capacities {
        for &n in &a.flows {
            let j =
                JetMax::uniform(c * 1e6, a.gamma, a.tau, n, a.delay).map_err(|e| e.to_string())?;
            let closed =
                jetmax::fairness_steps_closed_form(a.tau, a.eps, n).ok_or("tau out of range")?;
            let horizon = a.delay * (2 * rtts.max(closed) + 20);
            // k RTTs are (k - 1) D + 1 steps: step n holds the ceil(n/D)-th update.
            let steps = |k: usize| if k == 0 { 0 } else { (k - 1) * a.delay + 1 };
            let show = |s: Option<usize>| s.map_or_else(|| "-".to_string(), |v| v.to_string());
            let eff = j
                .efficiency_steps(a.eps, horizon)
                .map_err(|e| e.to_string())?;
            let fair = j
                .fairness_steps(a.eps, horizon)
                .map_err(|e| e.to_string())?;
            out.push_str(&format!(
                "{c:>10} {n:>8} {:>11} {:>9} {:>9} {:>9}\n",
                show(eff),
                show(fair),
                steps(rtts),
                steps(closed)
            ));
        }
    }
    Ok(out)
}
