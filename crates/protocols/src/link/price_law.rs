//! The link shadow-price laws of Random Exponential Marking (REM), shared by
//! the `rem` link ([`super::rem`]) and the "SBRM + PCk" links of
//! [`super::sbrm`]: a price `lambda >= 0` per link, computed from the link's
//! input rate, its queue, or both.
//!
//! Provenance: Zimmermann (2005), the seed-000 thesis, Sec. 4.2.2 eqs.
//! 4.2.4-4.2.5 and Sec. 5.2.1 eqs. 5.2.3-5.2.5 (spec `seed-000-zimmermann.md`
//! §2.3.2, §2.4), after Athuraliya & Low, "REM: active queue management",
//! IEEE Network 15(3), 2001, and their ns-2 code (`queue/rem.cc`):
//! - \[PAPER\] PC1 `lambda(t+1) = [lambda(t) + gamma (yhat(t) - c)]^+`;
//!   PC2 `lambda(t) = [gamma (b(t) - b0)]^+`;
//!   PC3 `lambda(t+1) = [lambda(t) + gamma (alpha (b(t) - b0) + yhat(t) - c)]^+`,
//!   with `b` the instantaneous queue in packets, `b0` the target queue,
//!   `c` the capacity and `yhat` the input rate, both in mean-size packets per
//!   sample interval T; the update is periodic, every T (1 ms in the thesis).
//! - [PAPER, eq. 4.2.5] `yhat(t+T) = (1 - delta) yhat(t) + delta (bytes
//!   arrived in the interval / mean packet size)`, `delta` = 0.9 weighting
//!   the newest sample. INFERRED: the printed "/T" of eq. 4.2.5 is read as
//!   "per sample interval", the unit the thesis's text gives `yhat` and `c`
//!   (and ns-2 `rem.cc`'s per-interval count), not packets per second.
//! - INFERRED (the thesis leaves it open): the "mean packet size" is a fixed
//!   configured size (`mean_pkt_size`, default 1000 B, the thesis's packet
//!   size), as ns-2 `rem.cc`'s `mean_pktsize_`, not a running average of the
//!   sizes seen: `yhat` and `c = C T / (8 mean_pkt_size)` then share one
//!   unit whatever the mix of sizes, and with one packet size they count
//!   packets exactly.
//! - [EXTERNAL ns-2 `rem.cc` `run_updaterule`] at the end of an interval the
//!   EWMA takes the interval's sample first and the price update uses that
//!   new `yhat` and the queue at that instant; every arriving byte counts,
//!   those the buffer then drops included (the offered load).
//! - INFERRED: `b` is the queue in packets without the packet in
//!   transmission (ns-2's `q_->length()`), as `LinkView::backlog_pkts`.
//! - INFERRED: PC2 is memoryless, so it is evaluated from the queue at each
//!   packet decision rather than once per interval: then "SBRM + PC2" of
//!   Table 5.4.2 is exactly SBRM's eq. 5.4.1, as the spec (§2.8) reads it.
//!   PC1 and PC3 hold their price between interval ends.

use serde::{Deserialize, Serialize};
use sim_core::{Bytes, ParamError, Rate, SimDuration};

/// Which shadow-price computation rule a link runs (thesis eqs. 5.2.3-5.2.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceRule {
    /// `lambda += gamma (yhat - c)`, projected to `>= 0`: input rate only.
    Pc1,
    /// `lambda = [gamma (b - b0)]^+`: the queue only, memoryless.
    Pc2,
    /// `lambda += gamma (alpha (b - b0) + yhat - c)`, projected to `>= 0`.
    Pc3,
}

/// The parameters of a price law, as a scenario gives them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PriceLawParams {
    /// The rule.
    pub rule: PriceRule,
    /// Step size gamma (> 0): per packet per interval (PC1, PC3), per packet (PC2).
    pub gamma: f64,
    /// Weight alpha of the queue term in PC3 (> 0).
    pub alpha: f64,
    /// Target queue b0, packets (>= 0).
    pub b0: f64,
    /// EWMA weight delta of the newest rate sample, in (0, 1].
    pub delta: f64,
    /// Sample interval T (> 0).
    pub interval: SimDuration,
    /// The packet size rates are counted in (>= 1 B).
    pub mean_pkt_size: Bytes,
}

/// A link's price law and its state.
#[derive(Clone, Debug)]
pub struct PriceLaw {
    rule: PriceRule,
    gamma: f64,
    alpha: f64,
    b0: f64,
    delta: f64,
    interval: SimDuration,
    /// Bytes per mean-size packet.
    mean_pkt_size: f64,
    /// Capacity c, mean-size packets per interval.
    c: f64,
    /// The price of the last interval end (PC1, PC3).
    lambda: f64,
    /// The EWMA input rate, mean-size packets per interval.
    yhat: f64,
    /// Bytes that arrived in the current interval.
    bytes: f64,
}

/// `x` must be finite and > 0.
fn positive(key: &str, x: f64) -> Result<(), ParamError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(ParamError::new(key, format!("{x} must be finite and > 0")))
    }
}

impl PriceLaw {
    /// Validate `p` and build the law for a link of `capacity`.
    pub fn new(p: &PriceLawParams, capacity: Rate) -> Result<Self, ParamError> {
        positive("gamma", p.gamma)?;
        positive("alpha", p.alpha)?;
        if !(p.b0.is_finite() && p.b0 >= 0.0) {
            return Err(ParamError::new(
                "b0",
                format!("{} must be finite and >= 0 packets", p.b0),
            ));
        }
        if !(p.delta.is_finite() && p.delta > 0.0 && p.delta <= 1.0) {
            return Err(ParamError::new(
                "delta",
                format!("{} must be in (0, 1]", p.delta),
            ));
        }
        if p.interval == SimDuration::ZERO {
            return Err(ParamError::new("interval", "must be > 0"));
        }
        let mean = p.mean_pkt_size.get() as f64;
        if mean < 1.0 {
            return Err(ParamError::new("mean_pkt_size", "must be >= 1 byte"));
        }
        let c = capacity.bps_f64() * p.interval.as_secs_f64() / (8.0 * mean);
        Ok(PriceLaw {
            rule: p.rule,
            gamma: p.gamma,
            alpha: p.alpha,
            b0: p.b0,
            delta: p.delta,
            interval: p.interval,
            mean_pkt_size: mean,
            c,
            lambda: 0.0,
            yhat: 0.0,
            bytes: 0.0,
        })
    }

    /// The rule.
    pub fn rule(&self) -> PriceRule {
        self.rule
    }

    /// Whether the law needs the periodic update (PC1, PC3; not PC2).
    pub fn is_periodic(&self) -> bool {
        self.rule != PriceRule::Pc2
    }

    /// The sample interval T.
    pub fn interval(&self) -> SimDuration {
        self.interval
    }

    /// The capacity c, mean-size packets per interval.
    pub fn capacity(&self) -> f64 {
        self.c
    }

    /// The EWMA input rate yhat, mean-size packets per interval.
    pub fn yhat(&self) -> f64 {
        self.yhat
    }

    /// The price at the last interval end (PC1, PC3; 0 under PC2).
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Overwrite the periodic price (tests and tools): the next interval end
    /// updates from it. Negative values are projected to 0.
    pub fn set_lambda(&mut self, lambda: f64) {
        self.lambda = lambda.max(0.0);
    }

    /// Count a packet of `size` bytes arriving at the link.
    #[inline]
    pub fn on_arrival(&mut self, size: u32) {
        self.bytes += f64::from(size);
    }

    /// The interval ended with `b` packets queued: take the interval's rate
    /// sample into `yhat`, then update the price (PC1, PC3).
    pub fn on_interval_end(&mut self, b: u32) {
        let sample = self.bytes / self.mean_pkt_size;
        self.bytes = 0.0;
        self.yhat = (1.0 - self.delta) * self.yhat + self.delta * sample;
        let excess = self.yhat - self.c;
        let step = match self.rule {
            PriceRule::Pc1 => excess,
            PriceRule::Pc3 => self.alpha * (f64::from(b) - self.b0) + excess,
            PriceRule::Pc2 => return,
        };
        self.lambda = (self.lambda + self.gamma * step).max(0.0);
    }

    /// The price in force with `b` packets queued: PC2's `[gamma (b - b0)]^+`,
    /// or the periodic price of the last interval end.
    #[inline]
    pub fn price(&self, b: u32) -> f64 {
        match self.rule {
            PriceRule::Pc2 => (self.gamma * (f64::from(b) - self.b0)).max(0.0),
            PriceRule::Pc1 | PriceRule::Pc3 => self.lambda,
        }
    }
}

/// `1 - base^-price` for `ln_base = ln(base) > 0`: REM's exponential marking
/// probability (thesis eq. 5.2.1; base e for SBRM, eq. 5.4.1), in [0, 1).
#[inline]
pub fn exp_mark_prob(ln_base: f64, price: f64) -> f64 {
    -(-ln_base * price).exp_m1()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 Mb/s with 1000-B packets and T = 1 ms: c = 1 packet per interval.
    fn law(rule: PriceRule) -> PriceLaw {
        PriceLaw::new(
            &PriceLawParams {
                rule,
                gamma: 0.5,
                alpha: 0.25,
                b0: 2.0,
                delta: 0.9,
                interval: SimDuration::from_millis(1),
                mean_pkt_size: Bytes::new(1000),
            },
            Rate::from_bps(8_000_000),
        )
        .unwrap()
    }

    #[test]
    fn capacity_is_counted_in_mean_size_packets_per_interval() {
        // 96 Mb/s, 1000 B, 1 ms: the thesis's 12 packets per interval (spec §7.5).
        let mut p = PriceLawParams {
            rule: PriceRule::Pc3,
            gamma: 0.001,
            alpha: 0.1,
            b0: 2.0,
            delta: 0.9,
            interval: SimDuration::from_millis(1),
            mean_pkt_size: Bytes::new(1000),
        };
        let l = PriceLaw::new(&p, Rate::from_bps(96_000_000)).unwrap();
        assert!((l.capacity() - 12.0).abs() < 1e-12);
        p.mean_pkt_size = Bytes::new(500);
        let l = PriceLaw::new(&p, Rate::from_bps(96_000_000)).unwrap();
        assert!((l.capacity() - 24.0).abs() < 1e-12);
    }

    #[test]
    fn pc1_takes_the_new_sample_into_the_ewma_before_stepping_the_price() {
        let mut l = law(PriceRule::Pc1);
        for _ in 0..3 {
            l.on_arrival(1000);
        }
        l.on_interval_end(40);
        // yhat = 0.1 * 0 + 0.9 * 3 = 2.7; lambda = 0.5 (2.7 - 1); b ignored.
        assert!((l.yhat() - 2.7).abs() < 1e-12);
        assert!((l.lambda() - 0.5 * 1.7).abs() < 1e-12);
        assert_eq!(l.price(0), l.lambda());
        // An empty interval: yhat = 0.27, lambda = 0.85 + 0.5 (0.27 - 1) = 0.485.
        l.on_interval_end(0);
        assert!((l.yhat() - 0.27).abs() < 1e-12);
        assert!((l.lambda() - 0.485).abs() < 1e-12);
        // And again: 0.485 + 0.5 (0.027 - 1) < 0, projected to 0.
        l.on_interval_end(0);
        assert_eq!(l.lambda(), 0.0);
    }

    #[test]
    fn pc3_adds_the_weighted_queue_error() {
        let mut l = law(PriceRule::Pc3);
        l.on_arrival(1000);
        l.on_arrival(1000);
        l.on_interval_end(10);
        // yhat = 1.8; lambda = 0.5 (0.25 (10 - 2) + 1.8 - 1) = 1.4.
        assert!((l.lambda() - 1.4).abs() < 1e-12);
    }

    #[test]
    fn pc2_reads_the_queue_alone_and_ignores_the_interval() {
        let mut l = law(PriceRule::Pc2);
        assert!(!l.is_periodic());
        assert_eq!(l.price(0), 0.0);
        assert_eq!(l.price(2), 0.0);
        assert_eq!(l.price(5), 0.5 * 3.0);
        l.on_arrival(100_000);
        l.on_interval_end(50);
        assert_eq!(l.price(5), 0.5 * 3.0);
        assert_eq!(l.lambda(), 0.0);
    }

    #[test]
    fn the_exponential_marking_probability_is_one_minus_base_to_the_minus_price() {
        let ln = 1.06f64.ln();
        for price in [0.0, 0.1, 3.5, 40.0] {
            let want = 1.0 - 1.06f64.powf(-price);
            assert!((exp_mark_prob(ln, price) - want).abs() < 1e-12, "{price}");
        }
        assert!((exp_mark_prob(1.0, 2.0) - (1.0 - (-2.0f64).exp())).abs() < 1e-15);
    }

    #[test]
    fn each_bad_parameter_is_named() {
        let ok = PriceLawParams {
            rule: PriceRule::Pc3,
            gamma: 0.001,
            alpha: 0.1,
            b0: 2.0,
            delta: 0.9,
            interval: SimDuration::from_millis(1),
            mean_pkt_size: Bytes::new(1000),
        };
        let c = Rate::from_bps(1_000_000);
        assert!(PriceLaw::new(&ok, c).is_ok());
        let cases: [(PriceLawParams, &str); 8] = [
            (PriceLawParams { gamma: 0.0, ..ok }, "gamma"),
            (
                PriceLawParams {
                    gamma: f64::NAN,
                    ..ok
                },
                "gamma",
            ),
            (PriceLawParams { alpha: -1.0, ..ok }, "alpha"),
            (PriceLawParams { b0: -1.0, ..ok }, "b0"),
            (PriceLawParams { delta: 0.0, ..ok }, "delta"),
            (PriceLawParams { delta: 1.5, ..ok }, "delta"),
            (
                PriceLawParams {
                    interval: SimDuration::ZERO,
                    ..ok
                },
                "interval",
            ),
            (
                PriceLawParams {
                    mean_pkt_size: Bytes::ZERO,
                    ..ok
                },
                "mean_pkt_size",
            ),
        ];
        for (p, key) in cases {
            assert_eq!(PriceLaw::new(&p, c).unwrap_err().key, key);
        }
    }
}
