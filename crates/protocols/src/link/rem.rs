//! REM (Random Exponential Marking): a link price from PC1, PC2 or PC3
//! ([`super::price_law`]), fed back by exponential ECN marking, by the
//! multi-bit code, or explicitly (EPF).
//!
//! Provenance: Zimmermann (2005), the seed-000 thesis (spec
//! `seed-000-zimmermann.md` §2.3.2, §2.3.3, §2.4), after Athuraliya & Low,
//! "REM: active queue management", IEEE Network 15(3), 2001:
//! - [PAPER, eq. 5.2.1] `feedback = "ecn"`: one ECN bit, a packet marked
//!   with probability `m = 1 - phi^-lambda`; all links share phi (1.06 in
//!   E1, Sec. 5.2.2; the thesis's parking lot uses 1.007).
//! - [PAPER, Sec. 5.2.3, ZHK01] `feedback = "four_bit"`: bit i of the price
//!   header's code set with probability `1 - phi_i^-lambda`, independently per
//!   bit, phi = (1.06, 1.007, 1.001, 1.00015); OR-combined along the path, so
//!   the path's unmarked probability per bit is the product over its links.
//! - [PAPER, Sec. 4.2.3] `feedback = "explicit"` (EPF): the link adds its
//!   price to the header's price at full precision; the path carries the sum.
//! - \[PAPER\] the defaults are the double-bottleneck values (E1, Table 4.3.1,
//!   Sec. 5.2.2): PC3, gamma 0.001, alpha 0.1, b0 2 packets, T 1 ms, delta 0.9.
//! - INFERRED (the thesis does not say where REM marks): marking and
//!   stamping happen as the packet leaves the queue (`mark_at =
//!   "departure"`, the default), as Athuraliya's own ns-2 code marks
//!   (`rem.cc`, `deque()` with `markpkts_`) and as the thesis's SBRM does to
//!   shorten the feedback delay; the price a packet carries is then the one
//!   in force when it is sent on, not one a queueing delay old.
//!   `mark_at = "arrival"` decides as the packet arrives instead. PC2's
//!   queue b is then the queue behind the leaving packet (the packet in
//!   transmission never counts), as for SBRM ([`super::sbrm`]); on arrival,
//!   the queue the packet finds.
//! - INFERRED, packets that are not ECN-capable under `feedback = "ecn"`:
//!   on departure they are left unmarked, as ns-2 `rem.cc` leaves them (and
//!   a departing packet cannot be dropped); on arrival the engine drops them
//!   with the marking probability, its rule for every marker (as RED).
//!   `feedback = "drop"` drops arriving packets with probability
//!   `1 - phi^-lambda` instead of marking any (ns-2 `rem.cc` without
//!   `markpkts_`), for traffic without ECN.
//! - INFERRED: only data packets carrying a price header are stamped
//!   (`four_bit`, `explicit`): an ACK carries the echo of its data packet's
//!   header, which a link on the reverse path must leave alone. Every
//!   arriving packet counts in the input rate, ACKs included (the link
//!   cannot tell them apart).
//! - INFERRED: no random number is drawn when the probability is 0.

use rand::Rng;
use serde::{Deserialize, Serialize};
use sim_core::{
    Bytes, CcHeader, Ecn, HeaderFamily, LazyRng, LinkAlgorithm, LinkControl, LinkView, Packet,
    PacketKind, ParamError, Reason, SimDuration, Verdict,
};

use super::price_law::{exp_mark_prob, PriceLaw, PriceLawParams, PriceRule};
use super::LinkBuildCtx;

/// How a REM link feeds its price back.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemFeedback {
    /// Set CE with probability `1 - phi^-lambda` (one ECN bit, eq. 5.2.1).
    #[default]
    Ecn,
    /// Set bit i of the price header's code with probability `1 - phi_i^-lambda`.
    FourBit,
    /// Add the price to the price header (Explicit Price Feedback).
    Explicit,
    /// Drop an arriving packet with probability `1 - phi^-lambda`.
    Drop,
}

/// When a REM or SBRM link decides a packet's mark.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    /// As the packet arrives at the queue.
    Arrival,
    /// As the packet leaves the queue for the serializer.
    Departure,
}

/// The most code bits a price header carries (`PriceHeader::marks` is a `u8`).
pub const MAX_CODE_BITS: usize = 8;

fn default_rule() -> PriceRule {
    PriceRule::Pc3
}
fn default_gamma() -> f64 {
    0.001
}
fn default_alpha() -> f64 {
    0.1
}
fn default_b0() -> f64 {
    2.0
}
pub(crate) fn default_delta() -> f64 {
    0.9
}
pub(crate) fn default_interval() -> SimDuration {
    SimDuration::from_millis(1)
}
pub(crate) fn default_mean_pkt_size() -> Bytes {
    Bytes::new(1000)
}
fn default_phi() -> f64 {
    1.06
}
fn default_phis() -> Vec<f64> {
    vec![1.06, 1.007, 1.001, 1.00015]
}

/// Parameters of a REM link as written in a scenario (`kind = "rem"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemConfig {
    /// The price rule: `"pc1"`, `"pc2"` or `"pc3"` (default).
    #[serde(default = "default_rule")]
    pub price_rule: PriceRule,
    /// Step size gamma (default 0.001).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// PC3's queue weight alpha (default 0.1).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Target queue b0, packets (default 2).
    #[serde(default = "default_b0")]
    pub b0: f64,
    /// EWMA weight of the newest input-rate sample (default 0.9).
    #[serde(default = "default_delta")]
    pub delta: f64,
    /// The price update interval T (default 1 ms).
    #[serde(default = "default_interval")]
    pub interval: SimDuration,
    /// The packet size rates are counted in (default 1000 B).
    #[serde(default = "default_mean_pkt_size")]
    pub mean_pkt_size: Bytes,
    /// How the price is fed back (default `"ecn"`).
    #[serde(default)]
    pub feedback: RemFeedback,
    /// The marking base phi of `"ecn"` and `"drop"` (default 1.06).
    #[serde(default = "default_phi")]
    pub phi: f64,
    /// The bases phi_i of the code bits of `"four_bit"` (default
    /// [1.06, 1.007, 1.001, 1.00015]; 1 to 8 of them).
    #[serde(default = "default_phis")]
    pub phis: Vec<f64>,
    /// When packets are marked or stamped (default `"departure"`;
    /// `"drop"` acts on arrival).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_at: Option<MarkAt>,
}

impl Default for RemConfig {
    fn default() -> Self {
        RemConfig {
            price_rule: default_rule(),
            gamma: default_gamma(),
            alpha: default_alpha(),
            b0: default_b0(),
            delta: default_delta(),
            interval: default_interval(),
            mean_pkt_size: default_mean_pkt_size(),
            feedback: RemFeedback::Ecn,
            phi: default_phi(),
            phis: default_phis(),
            mark_at: None,
        }
    }
}

/// What the link does with its price, with the bases as natural logarithms.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Signal {
    /// Mark CE with probability `1 - exp(-ln_phi lambda)`.
    Ecn { ln_phi: f64 },
    /// Set code bit i with probability `1 - exp(-ln_phis[i] lambda)`.
    Code {
        ln_phis: [f64; MAX_CODE_BITS],
        bits: u8,
    },
    /// Add lambda to the header's price.
    Explicit,
    /// Drop with probability `1 - exp(-ln_phi lambda)`.
    Drop { ln_phi: f64 },
}

/// `ln(phi)` of a marking base, which must be finite and > 1.
pub(crate) fn ln_base(key: &str, phi: f64) -> Result<f64, ParamError> {
    if phi.is_finite() && phi > 1.0 {
        Ok(phi.ln())
    } else {
        Err(ParamError::new(
            key,
            format!("{phi} must be finite and > 1"),
        ))
    }
}

const DROP_ON_DEPARTURE: &str =
    "feedback = \"drop\" drops arriving packets; use \"arrival\" or omit mark_at";

/// A REM link (also the SBRM links, which are REM with base e).
#[derive(Clone, Debug)]
pub struct Rem {
    law: PriceLaw,
    signal: Signal,
    at: MarkAt,
    /// The price of the last decision or interval end, for the probe.
    last_price: f64,
    probe_name: &'static str,
    /// The 1-bit marking probability of the last price it was computed for,
    /// `(price, probability)`: PC1 and PC3 move the price once per
    /// interval and PC2's takes one value per backlog, so the per-packet
    /// path mostly skips the exponential.
    ecn_prob: (f64, f64),
}

/// True with probability `p` (no draw when `p` is 0 or at least 1).
#[inline]
fn draw(p: f64, rng: &mut LazyRng) -> bool {
    p >= 1.0 || (p > 0.0 && rng.get().random::<f64>() < p)
}

impl Rem {
    /// Validate and build.
    pub fn new(cfg: &RemConfig, ctx: &LinkBuildCtx) -> Result<Self, ParamError> {
        let law = PriceLaw::new(
            &PriceLawParams {
                rule: cfg.price_rule,
                gamma: cfg.gamma,
                alpha: cfg.alpha,
                b0: cfg.b0,
                delta: cfg.delta,
                interval: cfg.interval,
                mean_pkt_size: cfg.mean_pkt_size,
            },
            ctx.capacity,
        )?;
        let signal = match cfg.feedback {
            RemFeedback::Ecn => Signal::Ecn {
                ln_phi: ln_base("phi", cfg.phi)?,
            },
            RemFeedback::Drop => Signal::Drop {
                ln_phi: ln_base("phi", cfg.phi)?,
            },
            RemFeedback::Explicit => Signal::Explicit,
            RemFeedback::FourBit => {
                let n = cfg.phis.len();
                if n == 0 || n > MAX_CODE_BITS {
                    return Err(ParamError::new(
                        "phis",
                        format!("{n} bases given; give 1 to {MAX_CODE_BITS}"),
                    ));
                }
                let mut ln_phis = [0.0; MAX_CODE_BITS];
                for (i, &phi) in cfg.phis.iter().enumerate() {
                    ln_phis[i] = ln_base(&format!("phis[{i}]"), phi)?;
                }
                Signal::Code {
                    ln_phis,
                    bits: n as u8,
                }
            }
        };
        let at = match (cfg.feedback, cfg.mark_at) {
            (RemFeedback::Drop, Some(MarkAt::Departure)) => {
                return Err(ParamError::new("mark_at", DROP_ON_DEPARTURE));
            }
            (RemFeedback::Drop, _) => MarkAt::Arrival,
            (_, at) => at.unwrap_or(MarkAt::Departure),
        };
        Ok(Rem::with(law, signal, at, "rem_price"))
    }

    /// A link running `law` and feeding it back by `signal` at `at`.
    pub(crate) fn with(law: PriceLaw, signal: Signal, at: MarkAt, probe_name: &'static str) -> Rem {
        Rem {
            law,
            signal,
            at,
            last_price: 0.0,
            probe_name,
            ecn_prob: (0.0, 0.0),
        }
    }

    /// The price law.
    pub fn law(&self) -> &PriceLaw {
        &self.law
    }

    /// Overwrite the periodic price lambda (tests and tools; see
    /// [`PriceLaw::set_lambda`]).
    pub fn set_price(&mut self, lambda: f64) {
        self.law.set_lambda(lambda);
        self.last_price = self.law.lambda();
    }

    /// When the link marks.
    pub fn mark_at(&self) -> MarkAt {
        self.at
    }

    /// The probability that code bit `bit` (or the single ECN bit, `bit` 0,
    /// under `"ecn"` and `"drop"`) is set at price `price`; 0 under EPF.
    pub fn mark_prob(&self, bit: usize, price: f64) -> f64 {
        match self.signal {
            Signal::Ecn { ln_phi } | Signal::Drop { ln_phi } if bit == 0 => {
                exp_mark_prob(ln_phi, price)
            }
            Signal::Code { ln_phis, bits } if bit < usize::from(bits) => {
                exp_mark_prob(ln_phis[bit], price)
            }
            _ => 0.0,
        }
    }

    /// Apply the feedback to `pkt` with `b` packets queued; the reason of a
    /// mark or drop the link decided.
    #[inline]
    fn signal(&mut self, pkt: &mut Packet, b: u32, rng: &mut LazyRng) -> Option<Reason> {
        let price = self.law.price(b);
        self.last_price = price;
        match self.signal {
            Signal::Ecn { ln_phi } | Signal::Drop { ln_phi } => {
                if price != self.ecn_prob.0 {
                    self.ecn_prob = (price, exp_mark_prob(ln_phi, price));
                }
                draw(self.ecn_prob.1, rng).then_some(Reason::Early)
            }
            Signal::Code { ln_phis, bits } => {
                if let (PacketKind::Data, CcHeader::Price(h)) = (pkt.kind, &mut pkt.cc) {
                    for (i, &ln_phi) in ln_phis[..usize::from(bits)].iter().enumerate() {
                        if draw(exp_mark_prob(ln_phi, price), rng) {
                            h.marks |= 1 << i;
                        }
                    }
                }
                None
            }
            Signal::Explicit => {
                if let (PacketKind::Data, CcHeader::Price(h)) = (pkt.kind, &mut pkt.cc) {
                    h.price += price;
                }
                None
            }
        }
    }
}

impl LinkAlgorithm for Rem {
    /// Derived constants from the capacity at build (issue 59: a capacity
    /// change on its link is rejected when the scenario is built).
    fn follows_capacity(&self) -> bool {
        false
    }

    #[inline]
    fn on_arrival(&mut self, pkt: &mut Packet, view: &LinkView, rng: &mut LazyRng) -> Verdict {
        self.law.on_arrival(pkt.size);
        if self.at == MarkAt::Departure {
            return Verdict::Enqueue;
        }
        match (self.signal(pkt, view.backlog_pkts, rng), self.signal) {
            (None, _) => Verdict::Enqueue,
            (Some(r), Signal::Drop { .. }) => Verdict::Drop(r),
            (Some(r), _) => Verdict::Mark(r),
        }
    }

    #[inline]
    fn on_departure(
        &mut self,
        pkt: &mut Packet,
        view: &LinkView,
        rng: &mut LazyRng,
    ) -> Option<Reason> {
        // Under "ecn" only an ECN-capable packet can carry a mark: the
        // others are neither marked nor drawn for.
        if matches!(self.signal, Signal::Ecn { .. }) && !pkt.ecn.is_capable() {
            return None;
        }
        let r = self.signal(pkt, view.backlog_pkts, rng)?;
        pkt.ecn = Ecn::Ce;
        Some(r)
    }

    fn stamps_departures(&self) -> bool {
        self.at == MarkAt::Departure
    }

    fn on_start(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        if self.law.is_periodic() {
            ctl.next_timer = Some(view.now + self.law.interval());
        }
    }

    fn on_timer(&mut self, view: &LinkView, ctl: &mut LinkControl) {
        self.law.on_interval_end(view.backlog_pkts);
        self.last_price = self.law.lambda();
        ctl.next_timer = Some(view.now + self.law.interval());
    }

    fn header_family(&self) -> Option<HeaderFamily> {
        match self.signal {
            Signal::Code { .. } | Signal::Explicit => Some(HeaderFamily::Price),
            Signal::Ecn { .. } | Signal::Drop { .. } => None,
        }
    }

    /// The price in force: PC1/PC3's at the last interval end, PC2's at the
    /// last packet decision.
    fn probe(&self) -> Option<(&'static str, f64)> {
        Some((self.probe_name, self.last_price))
    }
}

#[cfg(test)]
mod tests {
    use super::super::LinkAlgoConfig;
    use super::*;
    use sim_core::{BufferLimit, FlowId, PriceHeader, Rate, RouteId, SimTime, StreamKind};

    /// 8 Mb/s: c = 1 packet of 1000 B per 1-ms interval.
    fn ctx() -> LinkBuildCtx {
        LinkBuildCtx {
            capacity: Rate::from_bps(8_000_000),
            delay: SimDuration::ZERO,
            limit: BufferLimit::Packets(100),
        }
    }

    fn parse(s: &str) -> LinkAlgoConfig {
        toml::from_str(s).unwrap()
    }

    fn build(s: &str) -> Result<Rem, ParamError> {
        match parse(s) {
            LinkAlgoConfig::Rem(c) => Rem::new(&c, &ctx()),
            other => panic!("{other:?}"),
        }
    }

    fn data(ecn: Ecn) -> Packet {
        let mut p = Packet::new(FlowId(0), RouteId(0), PacketKind::Data, 1000, SimTime::ZERO);
        p.ecn = ecn;
        p.cc = CcHeader::Price(PriceHeader::default());
        p
    }

    fn view(ms: u64, b: u32) -> LinkView {
        LinkView {
            backlog_pkts: b,
            ..LinkView::idle(
                SimTime::from_ps(ms * 1_000_000_000),
                Rate::from_bps(8_000_000),
            )
        }
    }

    fn rng() -> LazyRng {
        LazyRng::new(3, 0, StreamKind::LinkAlgorithm, 0)
    }

    fn ctl() -> LinkControl {
        LinkControl {
            next_timer: None,
            limit: BufferLimit::Packets(100),
        }
    }

    #[test]
    fn rem_defaults_are_the_double_bottleneck_values() {
        let c = parse("kind = \"rem\"");
        assert_eq!(c, LinkAlgoConfig::Rem(RemConfig::default()));
        assert_eq!(c.name(), "rem");
        let r = build("kind = \"rem\"").unwrap();
        assert_eq!(r.law().rule(), PriceRule::Pc3);
        assert_eq!(r.mark_at(), MarkAt::Departure);
        assert_eq!(r.law().interval(), SimDuration::from_millis(1));
        assert!(r.stamps_departures());
        assert_eq!(r.header_family(), None);
        let d = RemConfig::default();
        assert_eq!(
            (d.gamma, d.alpha, d.b0, d.delta, d.phi),
            (0.001, 0.1, 2.0, 0.9, 1.06)
        );
        assert_eq!(d.phis, vec![1.06, 1.007, 1.001, 1.00015]);
    }

    #[test]
    fn rem_updates_the_price_every_interval_and_probes_it() {
        let mut r = build("kind = \"rem\"\nprice_rule = \"pc1\"\ngamma = 0.5").unwrap();
        let mut c = ctl();
        r.on_start(&view(0, 0), &mut c);
        assert_eq!(c.next_timer, Some(view(1, 0).now));
        let mut g = rng();
        for _ in 0..3 {
            assert_eq!(
                r.on_arrival(&mut data(Ecn::Ect), &view(0, 0), &mut g),
                Verdict::Enqueue
            );
        }
        r.on_timer(&view(1, 7), &mut c);
        assert_eq!(c.next_timer, Some(view(2, 0).now));
        // yhat = 2.7 packets per interval, c = 1: lambda = 0.5 * 1.7.
        assert!((r.law().lambda() - 0.85).abs() < 1e-12);
        assert_eq!(r.probe(), Some(("rem_price", r.law().lambda())));
    }

    #[test]
    fn rem_pc2_needs_no_timer_and_prices_the_queue_each_packet_sees() {
        let mut r = build("kind = \"rem\"\nprice_rule = \"pc2\"\ngamma = 0.5\nb0 = 2").unwrap();
        let mut c = ctl();
        r.on_start(&view(0, 0), &mut c);
        assert_eq!(c.next_timer, None);
        r.on_departure(&mut data(Ecn::Ect), &view(0, 6), &mut rng());
        assert_eq!(r.probe(), Some(("rem_price", 2.0)));
    }

    #[test]
    fn rem_ecn_on_departure_marks_capable_packets_and_counts_the_mark() {
        let mut r = build("kind = \"rem\"\nphi = 1.06").unwrap();
        r.set_price(1e9); // m = 1 - 1.06^-1e9 = 1
        let mut g = rng();
        let mut p = data(Ecn::Ect);
        assert_eq!(r.on_arrival(&mut p, &view(0, 0), &mut g), Verdict::Enqueue);
        assert_eq!(p.ecn, Ecn::Ect, "nothing happens on arrival");
        assert_eq!(
            r.on_departure(&mut p, &view(0, 0), &mut g),
            Some(Reason::Early)
        );
        assert_eq!(p.ecn, Ecn::Ce);
        // Not ECN-capable: left alone on departure.
        let mut n = data(Ecn::NotEct);
        assert_eq!(r.on_departure(&mut n, &view(0, 0), &mut g), None);
        assert_eq!(n.ecn, Ecn::NotEct);
        // At price 0 nothing is marked.
        r.set_price(0.0);
        let mut q = data(Ecn::Ect);
        assert_eq!(r.on_departure(&mut q, &view(0, 0), &mut g), None);
        assert_eq!(q.ecn, Ecn::Ect);
    }

    #[test]
    fn rem_ecn_on_arrival_returns_a_mark_verdict_and_drop_feedback_drops() {
        let mut r = build("kind = \"rem\"\nmark_at = \"arrival\"").unwrap();
        assert!(!r.stamps_departures());
        r.set_price(1e9);
        assert_eq!(
            r.on_arrival(&mut data(Ecn::Ect), &view(0, 0), &mut rng()),
            Verdict::Mark(Reason::Early)
        );
        let mut d = build("kind = \"rem\"\nfeedback = \"drop\"").unwrap();
        assert_eq!(d.mark_at(), MarkAt::Arrival);
        d.set_price(1e9);
        assert_eq!(
            d.on_arrival(&mut data(Ecn::Ect), &view(0, 0), &mut rng()),
            Verdict::Drop(Reason::Early)
        );
    }

    #[test]
    fn rem_explicit_feedback_adds_the_price_to_data_packets_only() {
        let mut r = build("kind = \"rem\"\nfeedback = \"explicit\"").unwrap();
        assert_eq!(r.header_family(), Some(HeaderFamily::Price));
        r.set_price(2.5);
        let mut p = data(Ecn::NotEct);
        if let CcHeader::Price(h) = &mut p.cc {
            h.price = 1.25;
        }
        assert_eq!(r.on_departure(&mut p, &view(0, 0), &mut rng()), None);
        assert_eq!(
            p.cc,
            CcHeader::Price(PriceHeader {
                price: 3.75,
                marks: 0
            })
        );
        assert_eq!(p.ecn, Ecn::NotEct);
        let mut ack = data(Ecn::NotEct);
        ack.kind = PacketKind::Ack;
        r.on_departure(&mut ack, &view(0, 0), &mut rng());
        assert_eq!(ack.cc, CcHeader::Price(PriceHeader::default()));
    }

    #[test]
    fn rem_four_bit_sets_every_bit_at_a_huge_price_and_none_at_zero() {
        let mut r = build("kind = \"rem\"\nfeedback = \"four_bit\"").unwrap();
        assert_eq!(r.header_family(), Some(HeaderFamily::Price));
        r.set_price(1e9);
        let mut p = data(Ecn::Ect);
        r.on_departure(&mut p, &view(0, 0), &mut rng());
        assert_eq!(
            p.cc,
            CcHeader::Price(PriceHeader {
                price: 0.0,
                marks: 0b1111
            })
        );
        assert_eq!(p.ecn, Ecn::Ect, "the code bits are not the ECN bit");
        r.set_price(0.0);
        let mut q = data(Ecn::Ect);
        r.on_departure(&mut q, &view(0, 0), &mut rng());
        assert_eq!(q.cc, CcHeader::Price(PriceHeader::default()));
        // Bit i's probability is 1 - phi_i^-lambda.
        let want = 1.0 - 1.001f64.powf(-50.0);
        assert!((r.mark_prob(2, 50.0) - want).abs() < 1e-12);
        assert_eq!(r.mark_prob(4, 50.0), 0.0);
    }

    #[test]
    fn rem_rejects_bad_keys_and_names_bad_values() {
        for bad in [
            "kind = \"rem\"\nphy = 1.06",
            "kind = \"rem\"\nprice_rule = \"pc4\"",
            "kind = \"rem\"\nfeedback = \"smoke\"",
            "kind = \"rem\"\nmark_at = \"sometime\"",
            "kind = \"rem\"\ninterval = 5",
        ] {
            assert!(toml::from_str::<LinkAlgoConfig>(bad).is_err(), "{bad}");
        }
        for (src, key) in [
            ("kind = \"rem\"\ngamma = 0", "gamma"),
            ("kind = \"rem\"\nalpha = -0.1", "alpha"),
            ("kind = \"rem\"\nb0 = -1", "b0"),
            ("kind = \"rem\"\ndelta = 0", "delta"),
            ("kind = \"rem\"\ninterval = \"0s\"", "interval"),
            ("kind = \"rem\"\nmean_pkt_size = \"0B\"", "mean_pkt_size"),
            ("kind = \"rem\"\nphi = 1", "phi"),
            ("kind = \"rem\"\nfeedback = \"drop\"\nphi = 0.5", "phi"),
            ("kind = \"rem\"\nfeedback = \"four_bit\"\nphis = []", "phis"),
            (
                "kind = \"rem\"\nfeedback = \"four_bit\"\nphis = [1.1, 1, 1.2]",
                "phis[1]",
            ),
            (
                "kind = \"rem\"\nfeedback = \"four_bit\"\nphis = [2, 2, 2, 2, 2, 2, 2, 2, 2]",
                "phis",
            ),
            (
                "kind = \"rem\"\nfeedback = \"drop\"\nmark_at = \"departure\"",
                "mark_at",
            ),
        ] {
            let e = parse(src)
                .build(&ctx())
                .err()
                .unwrap_or_else(|| panic!("{src}"));
            assert_eq!(e.key, key, "{src}: {e}");
        }
    }

    #[test]
    fn rem_config_round_trips_through_toml() {
        let c = parse(
            "kind = \"rem\"\nprice_rule = \"pc1\"\nfeedback = \"four_bit\"\nphis = [1.5, 1.1]\nmark_at = \"arrival\"\ninterval = \"2ms\"",
        );
        let back: LinkAlgoConfig = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
        assert_eq!(c, back);
    }
}
