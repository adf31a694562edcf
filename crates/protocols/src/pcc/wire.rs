//! How PCC's fields ride in packets (TEMPORARY adapter until the shared
//! TFRC/PCC header lands; see the module notes of [`super`]).

use sim_core::{CcHeader, HeaderFamily, Packet, PacketKind, RateHeader};

/// The header family PCC packets carry.
pub const FAMILY: HeaderFamily = HeaderFamily::Rate;

/// A control packet's fields.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Control {
    /// Allowed rate: 0 = off, infinity = on.
    pub allowed: f64,
    /// Receiver's smoothed RTT, seconds (0: none).
    pub srtt: f64,
}

/// A data packet's header: r_NA (bytes/s) and the offset (s).
pub fn data_header(r_na: f64, offset: f64) -> CcHeader {
    CcHeader::Rate(RateHeader {
        desired: r_na,
        allowed: f64::INFINITY,
        rtt: offset,
        hops: 0,
        congested: false,
    })
}

/// r_NA (bytes/s) and offset (s) of a data packet.
pub fn data(pkt: &Packet) -> Option<(f64, f64)> {
    match (pkt.kind, pkt.cc) {
        (PacketKind::Data, CcHeader::Rate(h)) => Some((h.desired, h.rtt)),
        _ => None,
    }
}

/// A control packet's header.
pub fn control_header(c: Control) -> CcHeader {
    CcHeader::Rate(RateHeader {
        desired: 0.0,
        allowed: c.allowed,
        rtt: c.srtt,
        hops: 0,
        congested: false,
    })
}

/// The fields of a control packet.
pub fn control(pkt: &Packet) -> Option<Control> {
    match (pkt.kind, pkt.cc) {
        (PacketKind::Ack, CcHeader::Rate(h)) => Some(Control {
            allowed: h.allowed,
            srtt: h.rtt,
        }),
        _ => None,
    }
}
