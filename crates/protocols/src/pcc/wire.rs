//! How PCC's fields ride in packets: the shared TFRC/PCC headers
//! ([`sim_core::TfrcData`], [`sim_core::TfrcFeedback`]; spec 2.11).
//!
//! - Data: `rate` = r_NA (bytes/s), `echo` = the send time of the last
//!   control packet, `offset` = time since its arrival, `rtt` = the srtt the
//!   receiver last reported; sequence number in `Packet::seq`, send time in
//!   `Packet::sent`.
//! - Control: `allowed` = 0 (off) or `f64::MAX` (on: the thesis's "very
//!   large double"), `rtt` = the receiver's srtt, `p` = its loss event rate;
//!   `x_recv` is 0 (PCC does not measure the receive rate). The control
//!   packet's timestamp is `Packet::sent`; `Packet::echo` and `t_delay`
//!   carry the last data packet's send time and how long it was held.

use sim_core::{
    CcHeader, HeaderFamily, Packet, PacketKind, SimDuration, SimTime, TfrcData, TfrcFeedback,
};

/// The header family PCC packets carry (end to end: no router reads it).
pub const FAMILY: HeaderFamily = HeaderFamily::None;

/// The allowed rate that means "on".
pub const ON: f64 = f64::MAX;

/// A control packet's fields.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Control {
    /// Allowed rate: 0 = off, [`ON`] = on.
    pub allowed: f64,
    /// Receiver's smoothed RTT, seconds (0: none).
    pub srtt: f64,
    /// Receiver's loss event rate (0: none).
    pub p: f64,
}

/// A data packet's header.
pub fn data_header(r_na: f64, echo: SimTime, offset: SimDuration, rtt: f64) -> CcHeader {
    CcHeader::TfrcData(TfrcData {
        rate: r_na,
        echo,
        offset,
        rtt: SimDuration::from_secs_f64(rtt.max(0.0)),
    })
}

/// The header of a data packet (`None` for anything else).
pub fn data(pkt: &Packet) -> Option<TfrcData> {
    match (pkt.kind, pkt.cc) {
        (PacketKind::Data, CcHeader::TfrcData(h)) => Some(h),
        _ => None,
    }
}

/// A control packet's header (`held`: since the echoed data packet arrived).
pub fn control_header(c: Control, held: SimDuration) -> CcHeader {
    CcHeader::TfrcFeedback(TfrcFeedback {
        x_recv: 0.0,
        allowed: c.allowed,
        t_delay: held,
        p: c.p as f32,
        rtt: c.srtt as f32,
    })
}

/// The fields of a control packet (`None` for anything else).
pub fn control(pkt: &Packet) -> Option<Control> {
    match (pkt.kind, pkt.cc) {
        (PacketKind::Ack, CcHeader::TfrcFeedback(h)) => Some(Control {
            allowed: h.allowed,
            srtt: f64::from(h.rtt),
            p: f64::from(h.p),
        }),
        _ => None,
    }
}
