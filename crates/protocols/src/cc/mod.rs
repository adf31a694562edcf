//! Congestion controllers: the arithmetic of a window- or rate-based sender,
//! behind `sim_core::Controller`. Loss detection, recovery and retransmission are
//! the transport's (`crate::transport`); a controller only turns ACKs and
//! congestion signals into a window or a rate.
//!
//! Registration is the [`CcConfig`] enum: a new controller is one file plus one arm.

use serde::{Deserialize, Serialize};
use sim_core::{CcHeader, Controller, ParamError, Rate, RateHeader};

pub mod bic;
pub mod cp_tcp;
pub mod cubic;
pub mod emkc;
pub mod highspeed;
pub mod htcp;
pub mod jetmax;
pub mod kelly;
mod loss_window;
pub mod multcp;
pub mod newreno;
pub mod price_estimate;
mod pricing_window;
pub mod qlb;
pub mod rcp;
pub mod sbrm;
pub mod scalable;
pub mod tcp_lp;
pub mod tcp_rm;
pub mod vegas;
pub mod vegas_cp;
pub mod westwood;
pub mod wtp;
pub mod xcp;

pub use bic::{Bic, BicConfig};
pub use cp_tcp::{CpTcp, CpTcpConfig};
pub use cubic::{Cubic, CubicConfig};
pub use emkc::{EmkcCc, EmkcCcConfig, Reference, SwitchRule};
pub use highspeed::{HighSpeed, HighSpeedConfig};
pub use htcp::{Htcp, HtcpConfig};
pub use jetmax::{JetMaxCc, JetMaxCcConfig, JetMaxSwitch};
pub use kelly::{KellyCc, KellyCcConfig};
pub use multcp::{EcnReaction, MulTcp, MulTcpConfig};
pub use newreno::{NewReno, NewRenoConfig, RenoRules};
pub use price_estimate::{PriceEstimator, PriceFeedback, RateRtt};
pub use qlb::{QlbCc, QlbCcConfig};
pub use rcp::{RcpCc, RcpCcConfig};
pub use sbrm::{Sbrm, SbrmConfig, SbrmVariant};
pub use scalable::{Scalable, ScalableConfig};
pub use tcp_lp::{TcpLp, TcpLpConfig};
pub use tcp_rm::{TcpRm, TcpRmConfig};
pub use vegas::{Vegas, VegasConfig};
pub use vegas_cp::{VegasCp, VegasCpConfig};
pub use westwood::{RttSource, Westwood, WestwoodConfig};
pub use wtp::{RttCompensation, Wtp, WtpConfig, WtpVariant};
pub use xcp::{XcpCc, XcpCcConfig};

/// The NewReno config carrying a loss-based controller's slow-start keys
/// (`initial_window`, `initial_ssthresh`): their validation and RFC 5681's
/// initial-window rule are NewReno's.
pub(crate) fn reno_start(
    initial_window: Option<u32>,
    initial_ssthresh: Option<u32>,
) -> NewRenoConfig {
    NewRenoConfig {
        initial_window,
        initial_ssthresh,
        ..Default::default()
    }
}

/// How a sender that follows network feedback (QLB, XCP, RCP) reacts to a loss:
/// the papers' networks never drop, so this is the \[INFERRED\] "Reno-like"
/// recovery the specs suggest, or none.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossReaction {
    /// Reno-like: halve the window (floor one packet; a timeout resets it to
    /// one) or, for a rate-paced sender, the rate.
    #[default]
    Halve,
    /// Keep following the feedback; only a timeout resets the window.
    None,
}

/// The rate header a greedy explicit-rate sender (QLB, RCP) puts on each data
/// packet: an unbounded requested rate (every router lowers it to its own),
/// nothing allowed yet, its smoothed RTT `srtt` in seconds (0: none yet).
pub(crate) fn greedy_rate_header(srtt: f64) -> CcHeader {
    CcHeader::Rate(RateHeader {
        desired: f64::INFINITY,
        allowed: f64::INFINITY,
        rtt: srtt,
        hops: 0,
        congested: false,
    })
}

/// Initial rate of seed 002's rate sources before any feedback (100 kb/s,
/// as in Fig. 21).
pub(crate) fn default_init_rate() -> Rate {
    Rate::from_bps(100_000)
}

/// Floor of seed 002's rate sources (10 kb/s, \[INFERRED\]: their laws can
/// go to or below 0 in a transient).
pub(crate) fn default_min_rate() -> Rate {
    Rate::from_bps(10_000)
}

/// The flow's own rate over a router's priced interval(s), eq. 124: the
/// bytes between two carried byte positions (`from`, then `usr`) over
/// `intervals` router intervals of `delta` seconds, bits/s; `None` when the
/// span is empty, reversed or not measurable. Shared by the MKC/EMKC proper
/// reference and the Kelly source's measured one.
pub(crate) fn interval_rate(usr: f64, from: f64, intervals: u32, delta: f64) -> Option<f64> {
    (delta > 0.0 && intervals > 0 && intervals < u32::MAX / 2 && usr >= from)
        .then(|| (usr - from) * 8.0 / (delta * f64::from(intervals)))
}

/// Check a rate source's floor (> 0) and initial rate (>= the floor).
pub(crate) fn check_rate_floor(init_rate: Rate, min_rate: Rate) -> Result<(), ParamError> {
    if min_rate.bps() == 0 {
        return Err(ParamError::new("min_rate", "must be > 0"));
    }
    if init_rate < min_rate {
        return Err(ParamError::new(
            "init_rate",
            format!("must be >= min_rate ({min_rate})"),
        ));
    }
    Ok(())
}

/// The congestion controller of a flow, as written in a scenario
/// (`cc = { kind = "new_reno", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    /// TCP NewReno (RFC 5681, RFC 6582), ECN-reactive per RFC 3168 (the default).
    NewReno(NewRenoConfig),
    /// WTP weighted window control (seed 001, Eqs. 4-6), per-mark ECN reaction.
    Wtp(WtpConfig),
    /// MulTCP(N): one connection that behaves like N TCP connections.
    Multcp(MulTcpConfig),
    /// Scalable TCP (Kelly 2003): MIMD above a legacy window.
    Scalable(ScalableConfig),
    /// HighSpeed TCP (RFC 3649): a(w), b(w) above Low_Window.
    Highspeed(HighSpeedConfig),
    /// BIC TCP (Xu, Harfoush, Rhee 2004; Linux tcp_bic): binary search increase.
    Bic(BicConfig),
    /// CUBIC (RFC 9438).
    Cubic(CubicConfig),
    /// H-TCP (Leith, Shorten 2004; Linux tcp_htcp): increase by the time
    /// since the last congestion event, RTT_min / RTT_max backoff.
    Htcp(HtcpConfig),
    /// Westwood+ (Grieco, Mascolo 2004; Linux tcp_westwood): NewReno growth,
    /// ssthresh = bandwidth estimate x RTT_min after a congestion signal.
    Westwood(WestwoodConfig),
    /// TCP Vegas (Brakmo & Peterson 1995, as ns-2's Vegas agent): a delay-based
    /// window holding alpha..beta segments of queue.
    Vegas(VegasConfig),
    /// TCP-LP (Kuzmanovic & Knightly 2006; Linux tcp_lp): NewReno that backs
    /// off early on one-way delay, a low-priority sender.
    TcpLp(TcpLpConfig),
    /// Seed 003's queue-length-based explicit-rate sender (needs `qlb` links).
    Qlb(QlbCcConfig),
    /// XCP's window sender (needs `xcp` links).
    Xcp(XcpCcConfig),
    /// RCP's rate-paced sender (needs `rcp` links).
    Rcp(RcpCcConfig),
    /// Classic Kelly control's rate-paced source (needs `kelly` links).
    Kelly(KellyCcConfig),
    /// The MKC/EMKC rate-paced user (needs `emkc` or `emkc_avq` links).
    Emkc(EmkcCcConfig),
    /// JetMax's rate-paced source (needs `jetmax` links).
    Jetmax(JetMaxCcConfig),
    /// CP-TCP (Zimmermann 2005, eq. 4.2.3): the Direct Window Update
    /// `kappa_bar (w RTT / cwnd - p)` per ACK, with an explicit (EPF), 1-bit,
    /// 4-bit or per-ACK price.
    CpTcp(CpTcpConfig),
    /// SBRM's 1-bit source (Zimmermann 2005, Sec. 5.4): Key's rule (also
    /// VQM's source) or the direct update with a 0/1 price per ACK.
    Sbrm(SbrmConfig),
    /// TCP/RM (Zimmermann 2005, Sec. 5.6.3): NewReno whose congestion
    /// avoidance follows SBRM with RFC 3168 ECN-Echo.
    TcpRm(TcpRmConfig),
    /// Vegas/CP (Zimmermann 2005, eq. 5.2.7): Vegas with a once-per-RTT
    /// price test `p_hat x_hat` against `w`.
    VegasCp(VegasCpConfig),
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::NewReno(NewRenoConfig::default())
    }
}

impl CcConfig {
    /// Whether the controller follows a rate the network computes (the
    /// explicit-rate family, judged against max-min fair shares).
    pub fn explicit_rate(&self) -> bool {
        matches!(
            self,
            CcConfig::Qlb(_)
                | CcConfig::Xcp(_)
                | CcConfig::Rcp(_)
                | CcConfig::Emkc(_)
                | CcConfig::Jetmax(_)
        )
    }

    /// The weight w of the controller's utility, in bits/s, for controllers
    /// that declare one (a willingness to pay): the NUM oracle's weight for
    /// the flow (`U(x) = w ln x` at alpha = 1). `pkt_bytes` converts weights
    /// the controller keeps in packets per second.
    pub fn utility_weight(&self, pkt_bytes: f64) -> Option<f64> {
        let pkts = |w: f64| Some(w * 8.0 * pkt_bytes);
        match self {
            CcConfig::Kelly(k) => Some(k.omega.bps_f64()),
            CcConfig::CpTcp(c) => pkts(c.w),
            CcConfig::Sbrm(c) => pkts(c.w),
            CcConfig::TcpRm(c) => pkts(c.w),
            CcConfig::VegasCp(c) => pkts(c.w),
            _ => None,
        }
    }

    /// The scenario name of this controller.
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::NewReno(_) => "new_reno",
            CcConfig::Wtp(_) => "wtp",
            CcConfig::Multcp(_) => "multcp",
            CcConfig::Scalable(_) => "scalable",
            CcConfig::Highspeed(_) => "highspeed",
            CcConfig::Bic(_) => "bic",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::Htcp(_) => "htcp",
            CcConfig::Westwood(_) => "westwood",
            CcConfig::Vegas(_) => "vegas",
            CcConfig::TcpLp(_) => "tcp_lp",
            CcConfig::Qlb(_) => "qlb",
            CcConfig::Xcp(_) => "xcp",
            CcConfig::Rcp(_) => "rcp",
            CcConfig::Kelly(_) => "kelly",
            CcConfig::Emkc(_) => "emkc",
            CcConfig::Jetmax(_) => "jetmax",
            CcConfig::CpTcp(_) => "cp_tcp",
            CcConfig::Sbrm(_) => "sbrm",
            CcConfig::TcpRm(_) => "tcp_rm",
            CcConfig::VegasCp(_) => "vegas_cp",
        }
    }

    /// Check parameter ranges (keys are relative to the `cc` table).
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            CcConfig::NewReno(c) => c.validate(),
            CcConfig::Wtp(c) => c.validate(),
            CcConfig::Multcp(c) => c.validate(),
            CcConfig::Scalable(c) => c.validate(),
            CcConfig::Highspeed(c) => c.validate(),
            CcConfig::Bic(c) => c.validate(),
            CcConfig::Cubic(c) => c.validate(),
            CcConfig::Htcp(c) => c.validate(),
            CcConfig::Westwood(c) => c.validate(),
            CcConfig::Vegas(c) => c.validate(),
            CcConfig::TcpLp(c) => c.validate(),
            CcConfig::Qlb(c) => c.validate(),
            CcConfig::Xcp(c) => c.validate(),
            CcConfig::Rcp(c) => c.validate(),
            CcConfig::Kelly(c) => c.validate(),
            CcConfig::Emkc(c) => c.validate(),
            CcConfig::Jetmax(c) => c.validate(),
            CcConfig::CpTcp(c) => c.validate(),
            CcConfig::Sbrm(c) => c.validate(),
            CcConfig::TcpRm(c) => c.validate(),
            CcConfig::VegasCp(c) => c.validate(),
        }
    }

    /// Check parameters and build the controller for segments of `mss` bytes.
    pub fn build(&self, mss: u32) -> Result<Box<dyn Controller>, ParamError> {
        Ok(match self {
            CcConfig::NewReno(c) => Box::new(NewReno::new(c, mss)?),
            CcConfig::Wtp(c) => Box::new(Wtp::new(c, mss)?),
            CcConfig::Multcp(c) => Box::new(MulTcp::new(c, mss)?),
            CcConfig::Scalable(c) => Box::new(Scalable::new(c, mss)?),
            CcConfig::Highspeed(c) => Box::new(HighSpeed::new(c, mss)?),
            CcConfig::Bic(c) => Box::new(Bic::new(c, mss)?),
            CcConfig::Cubic(c) => Box::new(Cubic::new(c, mss)?),
            CcConfig::Htcp(c) => Box::new(Htcp::new(c, mss)?),
            CcConfig::Westwood(c) => Box::new(Westwood::new(c, mss)?),
            CcConfig::Vegas(c) => Box::new(Vegas::new(c, mss)?),
            CcConfig::TcpLp(c) => Box::new(TcpLp::new(c, mss)?),
            CcConfig::Qlb(c) => Box::new(QlbCc::new(c, mss)?),
            CcConfig::Xcp(c) => Box::new(XcpCc::new(c, mss)?),
            CcConfig::Rcp(c) => Box::new(RcpCc::new(c)?),
            CcConfig::Kelly(c) => Box::new(KellyCc::new(c)?),
            CcConfig::Emkc(c) => Box::new(EmkcCc::new(c)?),
            CcConfig::Jetmax(c) => Box::new(JetMaxCc::new(c, mss)?),
            CcConfig::CpTcp(c) => Box::new(CpTcp::new(c, mss)?),
            CcConfig::Sbrm(c) => Box::new(Sbrm::new(c, mss)?),
            CcConfig::TcpRm(c) => Box::new(TcpRm::new(c, mss)?),
            CcConfig::VegasCp(c) => Box::new(VegasCp::new(c, mss)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_reno_is_the_default_and_parses_from_its_kind() {
        let c: CcConfig = toml::from_str("kind = \"new_reno\"").unwrap();
        assert_eq!(c, CcConfig::default());
        assert_eq!(c.name(), "new_reno");
        let c: CcConfig = toml::from_str("kind = \"new_reno\"\ninitial_window = 10").unwrap();
        assert_eq!(
            c,
            CcConfig::NewReno(NewRenoConfig {
                initial_window: Some(10),
                initial_ssthresh: None,
                ..Default::default()
            })
        );
        assert_eq!(c.build(1500).unwrap().window(), 15_000);
    }

    #[test]
    fn wtp_and_multcp_parse_from_their_kinds() {
        let c: CcConfig =
            toml::from_str("kind = \"wtp\"\nweight = 6.0\nvariant = \"ipd\"").unwrap();
        assert_eq!(c.name(), "wtp");
        assert!(c.validate().is_ok());
        let c: CcConfig = toml::from_str("kind = \"multcp\"\nn = 4.0").unwrap();
        assert_eq!(c.name(), "multcp");
        assert_eq!(c.build(1000).unwrap().window(), 4000);
        let c: CcConfig = toml::from_str("kind = \"wtp\"").unwrap();
        assert_eq!(c.validate().unwrap_err().key, "weight");
    }

    #[test]
    fn htcp_and_westwood_parse_from_their_kinds() {
        let c: CcConfig = toml::from_str("kind = \"htcp\"").unwrap();
        assert_eq!(c, CcConfig::Htcp(HtcpConfig::default()));
        assert_eq!(c.name(), "htcp");
        assert!(c.validate().is_ok());
        assert_eq!(c.build(1500).unwrap().ssthresh(), Some(u64::MAX));
        let c: CcConfig = toml::from_str("kind = \"westwood\"\ninitial_window = 10").unwrap();
        assert_eq!(
            c,
            CcConfig::Westwood(WestwoodConfig {
                initial_window: Some(10),
                ..Default::default()
            })
        );
        assert_eq!(c.name(), "westwood");
        assert_eq!(c.build(1500).unwrap().window(), 15_000);
        let c: CcConfig = toml::from_str("kind = \"htcp\"\nbeta_max = 0.3").unwrap();
        assert_eq!(c.build(1500).err().unwrap().key, "beta_max");
    }

    #[test]
    fn vegas_and_tcp_lp_parse_from_their_kinds() {
        let c: CcConfig = toml::from_str("kind = \"vegas\"").unwrap();
        assert_eq!(c, CcConfig::Vegas(VegasConfig::default()));
        assert_eq!(c.name(), "vegas");
        assert!(c.validate().is_ok());
        assert_eq!(c.build(1500).unwrap().window(), 4500);
        let c: CcConfig = toml::from_str("kind = \"tcp_lp\"").unwrap();
        assert_eq!(c, CcConfig::TcpLp(TcpLpConfig::default()));
        assert_eq!(c.name(), "tcp_lp");
        assert!(c.validate().is_ok());
        assert_eq!(c.build(1500).unwrap().window(), 4500);
    }

    #[test]
    fn unknown_controller_keys_and_kinds_are_rejected() {
        assert!(toml::from_str::<CcConfig>("kind = \"new_reno\"\nbogus = 1").is_err());
        assert!(toml::from_str::<CcConfig>("kind = \"fast_tcp\"").is_err());
    }

    #[test]
    fn build_reports_bad_parameters_with_their_key() {
        let c = CcConfig::NewReno(NewRenoConfig {
            initial_window: Some(0),
            initial_ssthresh: None,
            ..Default::default()
        });
        assert_eq!(c.validate().unwrap_err().key, "initial_window");
        assert_eq!(c.build(1500).err().unwrap().key, "initial_window");
    }
}
