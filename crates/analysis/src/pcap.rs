//! Packets as a classic libpcap capture (`netsim run --pcap LINK`): one
//! record per packet that starts transmission on a captured link, with
//! synthetic Ethernet, IPv4 and TCP (or UDP) headers that Wireshark, tcpdump
//! and tcptrace read like a real capture.
//!
//! The simulator has no addresses, ports or header bytes, so they are made up
//! by fixed rules (written down in README "Pcap capture"):
//! - node `n` (its index in the network) is IPv4 `10.0.0.0 + n + 1` and
//!   Ethernet `02:00:` followed by that address; a frame goes from the link's
//!   upstream node's MAC to its downstream node's, and its IP addresses are
//!   the flow's end hosts (first and last node of the packet's route);
//! - flow `f`'s sender uses port `10000 + f mod 50000`, its receiver port
//!   `60000 + f / 50000` (mod 2^16): every flow below 2.7 x 10^8 has its
//!   own 4-tuple;
//! - a data segment's TCP sequence number is the simulator's byte offset
//!   modulo 2^32 (as if the ISN were 2^32 - 1, so that the first byte is 0);
//!   an ACK's acknowledgement number is the simulator's cumulative ACK, its
//!   sequence number 0 (the receiver sends no data); SACK blocks become a TCP
//!   SACK option (kind 5, after two NOPs);
//! - ECN: the IP header's two ECN bits carry the packet's codepoint (ECT(0)
//!   for ECT, CE), and the TCP flags ECE and CWR are the packet's;
//! - sizes: the simulator counts a data packet's whole size in its sequence
//!   space, so the TCP payload is the simulated size and the IP total length
//!   is that plus the headers (so that Wireshark's and tcptrace's sequence
//!   analysis see no gaps); an ACK has no payload (its length is its headers,
//!   40 bytes plus options); a UDP datagram's IP total length is the
//!   simulated size (at least its 28 bytes of headers). Only the headers are
//!   captured: a record's captured length is the header length, its original
//!   length the whole frame's.
//!
//! Timestamps have nanosecond resolution (the pcap magic `0xa1b23c4d`).
//! Integers in the file's own headers are little-endian; the packet headers
//! are in network byte order, as on the wire.

use std::fs::File;
use std::io::{BufWriter, Write};

use sim_core::{CcHeader, Ecn, Flags, Packet, PacketKind, SackBlocks, SimTime};

/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u32 = 1;
/// The largest headers a record holds: Ethernet 14 + IPv4 20 + TCP 60.
const MAX_HEADERS: usize = 94;
/// The file header's snapshot length: libpcap's largest (262144), as
/// tcpdump writes by default. Each record captures only its headers (its
/// captured length is less than its original length), but some readers
/// (the `pcap-file` crate) refuse a record whose original length exceeds
/// the file's snapshot length.
pub const SNAPLEN: u32 = 262_144;
/// Ethernet header length, bytes.
const ETH: usize = 14;
/// IPv4 header length without options, bytes.
const IP: usize = 20;
/// TCP header length without options, bytes.
const TCP: usize = 20;
/// UDP header length, bytes.
const UDP: usize = 8;

/// The pcap file header: nanosecond timestamps, Ethernet frames.
pub fn file_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&0xa1b2_3c4du32.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone and sigfigs: 0.
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// The IPv4 address of node `n`: `10.0.0.0 + n + 1` (wrapping within 10/8).
pub fn node_ip(n: u32) -> [u8; 4] {
    let x = (n.wrapping_add(1)) & 0x00ff_ffff;
    [10, (x >> 16) as u8, (x >> 8) as u8, x as u8]
}

/// The Ethernet address of node `n`: `02:00:` and its IPv4 address.
pub fn node_mac(n: u32) -> [u8; 6] {
    let ip = node_ip(n);
    [0x02, 0x00, ip[0], ip[1], ip[2], ip[3]]
}

/// The ports of flow `f`: (sender's, receiver's).
pub fn flow_ports(f: u32) -> (u16, u16) {
    (
        (10_000 + f % 50_000) as u16,
        (60_000u32.wrapping_add(f / 50_000) & 0xffff) as u16,
    )
}

/// Where a captured packet goes: the nodes a frame and its datagram join.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hops {
    /// The link's upstream and downstream nodes (Ethernet source and destination).
    pub link: (u32, u32),
    /// The route's first and last nodes (IP source and destination).
    pub route: (u32, u32),
}

/// One record (its 16-byte record header and the frame's headers) for `pkt`
/// seen at `now`, appended to `out`. `udp` says the flow is a datagram
/// source (CBR, Poisson packets) rather than a transport; `ip_id` fills the
/// IP identification field.
pub fn encode_record(
    out: &mut Vec<u8>,
    now: SimTime,
    pkt: &Packet,
    hops: Hops,
    udp: bool,
    ip_id: u16,
) {
    let mut frame = [0u8; MAX_HEADERS];
    // Ethernet.
    frame[0..6].copy_from_slice(&node_mac(hops.link.1));
    frame[6..12].copy_from_slice(&node_mac(hops.link.0));
    frame[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    let (sender_port, receiver_port) = flow_ports(pkt.flow.0);
    let from_sender = pkt.kind != PacketKind::Ack;
    let (sport, dport) = if from_sender {
        (sender_port, receiver_port)
    } else {
        (receiver_port, sender_port)
    };
    let size = pkt.size as usize;
    let l4 = &mut frame[ETH + IP..];
    let (header_len, ip_total, proto) = if udp {
        let total = size.clamp(IP + UDP, 65_535);
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        l4[4..6].copy_from_slice(&((total - IP) as u16).to_be_bytes());
        (IP + UDP, total, 17u8)
    } else {
        let opts = tcp_options(pkt, &mut l4[TCP..]);
        let tcp_len = TCP + opts;
        l4[0..2].copy_from_slice(&sport.to_be_bytes());
        l4[2..4].copy_from_slice(&dport.to_be_bytes());
        let (seq, ack) = if from_sender {
            (pkt.seq as u32, 0u32)
        } else {
            (0u32, pkt.ack as u32)
        };
        l4[4..8].copy_from_slice(&seq.to_be_bytes());
        l4[8..12].copy_from_slice(&ack.to_be_bytes());
        l4[12] = ((tcp_len / 4) as u8) << 4;
        let mut flags = 0u8;
        if !from_sender {
            flags |= 0x10; // ACK
        }
        if pkt.flags.contains(Flags::ECE) {
            flags |= 0x40;
        }
        if pkt.flags.contains(Flags::CWR) {
            flags |= 0x80;
        }
        l4[13] = flags;
        l4[14..16].copy_from_slice(&u16::MAX.to_be_bytes());
        let payload = if from_sender { size } else { 0 };
        let total = (IP + tcp_len + payload).min(65_535);
        (IP + tcp_len, total, 6u8)
    };
    // IPv4.
    let ip = &mut frame[ETH..ETH + IP];
    ip[0] = 0x45;
    ip[1] = match pkt.ecn {
        Ecn::NotEct => 0b00,
        Ecn::Ect => 0b10,
        Ecn::Ce => 0b11,
    };
    ip[2..4].copy_from_slice(&(ip_total as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
    ip[8] = 64u8.saturating_sub(pkt.hop.min(63) as u8);
    ip[9] = proto;
    ip[12..16].copy_from_slice(&node_ip(hops.route.0));
    ip[16..20].copy_from_slice(&node_ip(hops.route.1));
    let sum = checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    // The transport checksum, as if the payload (not captured) were zeros,
    // which add nothing to the sum: tools that check it find it right.
    let mut pseudo = [0u8; 12];
    pseudo[0..8].copy_from_slice(&frame[ETH + 12..ETH + 20]);
    pseudo[9] = proto;
    pseudo[10..12].copy_from_slice(&((ip_total - IP) as u16).to_be_bytes());
    let l4 = &mut frame[ETH + IP..ETH + header_len];
    let at = if proto == 17 { 6 } else { 16 };
    let mut sum = fold(sum16(&pseudo) + sum16(l4));
    if proto == 17 && sum == 0 {
        sum = 0xffff; // 0 means "no checksum" in UDP
    }
    l4[at..at + 2].copy_from_slice(&sum.to_be_bytes());
    let captured = ETH + header_len;
    let orig = ETH + ip_total;
    let ps = now.as_ps();
    let secs = ps / sim_core::units::PS_PER_SEC;
    let nanos = (ps % sim_core::units::PS_PER_SEC) / 1000;
    out.extend_from_slice(&(secs as u32).to_le_bytes());
    out.extend_from_slice(&(nanos as u32).to_le_bytes());
    out.extend_from_slice(&(captured as u32).to_le_bytes());
    out.extend_from_slice(&(orig as u32).to_le_bytes());
    out.extend_from_slice(&frame[..captured]);
}

/// The SACK blocks an ACK carries: in its header field, or (when that holds
/// a congestion header) its first block packed into `seq`.
pub fn sack_of(pkt: &Packet) -> SackBlocks {
    match pkt.cc {
        CcHeader::Sack(b) => b,
        CcHeader::None => SackBlocks::default(),
        _ if pkt.kind == PacketKind::Ack && pkt.seq != 0 => SackBlocks::from_word(pkt.seq),
        _ => SackBlocks::default(),
    }
}

/// Write the TCP options of `pkt` (its SACK blocks, after two NOPs) into
/// `buf`; returns their length (a multiple of 4).
fn tcp_options(pkt: &Packet, buf: &mut [u8]) -> usize {
    if pkt.kind != PacketKind::Ack {
        return 0;
    }
    let sack = sack_of(pkt);
    if sack.is_empty() {
        return 0;
    }
    buf[0] = 1;
    buf[1] = 1;
    buf[2] = 5;
    buf[3] = (2 + 8 * sack.len()) as u8;
    let mut at = 4;
    for (s, e) in sack.ranges(pkt.ack) {
        buf[at..at + 4].copy_from_slice(&(s as u32).to_be_bytes());
        buf[at + 4..at + 8].copy_from_slice(&(e as u32).to_be_bytes());
        at += 8;
    }
    at
}

/// The sum of `bytes` (even length) as big-endian 16-bit words.
fn sum16(bytes: &[u8]) -> u32 {
    bytes
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum()
}

/// The one's complement of the one's-complement sum `sum` folded to 16 bits.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The Internet checksum (RFC 1071) of `bytes` (even length).
fn checksum(bytes: &[u8]) -> u16 {
    fold(sum16(bytes))
}

/// A pcap file being written: records are buffered and written in blocks.
pub struct PcapWriter {
    file: BufWriter<File>,
    buf: Vec<u8>,
    next_id: u16,
}

impl PcapWriter {
    /// Start a capture in `file` (written from its start).
    pub fn new(file: File) -> std::io::Result<PcapWriter> {
        let mut file = BufWriter::with_capacity(1 << 16, file);
        file.write_all(&file_header())?;
        Ok(PcapWriter {
            file,
            buf: Vec::with_capacity(128),
            next_id: 0,
        })
    }

    /// Append the record of `pkt` at `now`.
    pub fn write(
        &mut self,
        now: SimTime,
        pkt: &Packet,
        hops: Hops,
        udp: bool,
    ) -> std::io::Result<()> {
        self.buf.clear();
        encode_record(&mut self.buf, now, pkt, hops, udp, self.next_id);
        self.next_id = self.next_id.wrapping_add(1);
        self.file.write_all(&self.buf)
    }

    /// Flush and hand back the file.
    pub fn finish(self) -> std::io::Result<File> {
        self.file.into_inner().map_err(|e| e.into_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{FlowId, RouteId};

    fn data(seq: u64, size: u32) -> Packet {
        let mut p = Packet::new(FlowId(7), RouteId(0), PacketKind::Data, size, SimTime::ZERO);
        p.seq = seq;
        p.ecn = Ecn::Ce;
        p.flags.insert(Flags::CWR);
        p
    }

    const HOPS: Hops = Hops {
        link: (2, 3),
        route: (0, 5),
    };

    #[test]
    fn a_data_segment_carries_its_size_as_payload_and_its_marks() {
        let mut out = Vec::new();
        encode_record(
            &mut out,
            SimTime::from_ps(1_500_000_000_123_456),
            &data(3000, 1500),
            HOPS,
            false,
            9,
        );
        let rec = &out[..16];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1500);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 123);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 54);
        assert_eq!(
            u32::from_le_bytes(rec[12..16].try_into().unwrap()),
            14 + 40 + 1500
        );
        let f = &out[16..];
        assert_eq!(&f[0..6], &[2, 0, 10, 0, 0, 4]);
        assert_eq!(&f[6..12], &[2, 0, 10, 0, 0, 3]);
        let ip = &f[14..34];
        assert_eq!(ip[1] & 3, 3, "CE");
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 1540);
        assert_eq!(&ip[12..16], &[10, 0, 0, 1]);
        assert_eq!(&ip[16..20], &[10, 0, 0, 6]);
        assert_eq!(checksum(ip), 0, "a header with its checksum sums to zero");
        let tcp = &f[34..54];
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), 10_007);
        assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), 60_000);
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 3000);
        assert_eq!(tcp[13], 0x80, "CWR, no ACK flag on data");
    }

    #[test]
    fn an_ack_with_sack_blocks_carries_them_as_an_option() {
        let mut p = Packet::new(
            FlowId(50_001),
            RouteId(1),
            PacketKind::Ack,
            40,
            SimTime::ZERO,
        );
        p.ack = 1000;
        let mut b = SackBlocks::default();
        b.push(1000, 2000, 3000);
        b.push(1000, 4000, 5000);
        p.cc = CcHeader::Sack(b);
        p.flags.insert(Flags::ECE);
        let mut out = Vec::new();
        encode_record(&mut out, SimTime::ZERO, &p, HOPS, false, 0);
        let f = &out[16..];
        let tcp = &f[34..];
        assert_eq!(tcp[12] >> 4, 10, "20 + 2 NOPs + 2 + 16 bytes of SACK = 40");
        assert_eq!(tcp[13], 0x50, "ACK and ECE");
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), 60_001);
        assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), 10_001);
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 1000);
        assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes(tcp[24..28].try_into().unwrap()), 2000);
        assert_eq!(u32::from_be_bytes(tcp[36..40].try_into().unwrap()), 5000);
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 60, "no payload");
    }

    #[test]
    fn a_datagram_is_as_long_as_the_simulated_packet() {
        let mut out = Vec::new();
        encode_record(&mut out, SimTime::ZERO, &data(0, 1000), HOPS, true, 0);
        assert_eq!(u32::from_le_bytes(out[8..12].try_into().unwrap()), 14 + 28);
        assert_eq!(
            u32::from_le_bytes(out[12..16].try_into().unwrap()),
            14 + 1000
        );
        assert_eq!(out[16 + 14 + 9], 17);
    }
}
