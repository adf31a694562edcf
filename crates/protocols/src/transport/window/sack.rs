//! The window sender's SACK loss recovery (RFC 6675 section 5): entry on
//! the DupThresh-th SACK duplicate or IsLost(HighACK), `NextSeg()` and the
//! sending loop of step (C). Provenance: `super`'s header.

use sim_core::{EndpointCtx, Packet};

use super::WindowSender;

impl WindowSender {
    /// RFC 6675's `NextSeg()`: the segment to send next in recovery, and
    /// whether it is the rescue retransmission.
    fn next_seg(&self) -> Option<(u64, bool)> {
        let sb = &self.scoreboard;
        let first = sb.next_unsacked(self.high_rxt.max(self.snd_una));
        if first < self.snd_max && first < sb.lost_end(self.snd_una, self.dupthresh, self.mss) {
            return Some((first, false));
        }
        if self.new_data_allowed() {
            return Some((self.snd_max, false));
        }
        if sb.high_sacked().is_some_and(|h| first < h) {
            return Some((first, false));
        }
        if self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some(b) = sb.last_unsacked(self.snd_una, self.snd_max) {
                // Segments start at multiples of the MSS.
                // One segment's worth ending at it (an application's writes
                // need not fill whole segments).
                return Some(((b + 1).saturating_sub(self.mss).max(self.snd_una), true));
            }
        }
        None
    }

    /// RFC 6675 section 5 step (C): while `cwnd - pipe >= 1 SMSS`, send what
    /// `NextSeg()` returns.
    pub(super) fn sack_send(&mut self, ctx: &mut EndpointCtx) {
        let cwnd = self.cwnd();
        let mut pipe = self.pipe();
        let mut sent = false;
        while pipe + self.mss <= cwnd {
            let Some((seq, rescue)) = self.next_seg() else {
                break;
            };
            let len = if seq >= self.snd_max {
                self.send_new(ctx)
            } else {
                let len = self.transmit(seq, ctx);
                if rescue {
                    self.rescue_rxt = Some(self.recover);
                } else {
                    self.high_rxt = seq + len;
                }
                len
            };
            pipe += len;
            sent = true;
        }
        if sent && self.rto_deadline.is_none() {
            self.restart_timer(ctx);
        }
    }

    /// RFC 6675 section 5 step (4): fast retransmit and enter SACK recovery.
    fn sack_enter(&mut self, in_flight: u64, ctx: &mut EndpointCtx) {
        let len = self.enter_recovery(in_flight, 0, ctx);
        self.high_rxt = self.snd_una + len;
        self.rescue_rxt = Some(self.high_rxt);
    }

    /// A SACK duplicate ACK (new SACK information, `ack == snd_una`).
    pub(super) fn on_sack_dupack(&mut self, pkt: &Packet, in_flight: u64, ctx: &mut EndpointCtx) {
        let info = self.ack_info(ctx.now(), 0, None, pkt, in_flight);
        self.cc.on_ack(&info);
        if self.newly_sacked == 0 || self.in_recovery {
            return;
        }
        self.dupacks += 1;
        let lost = self
            .scoreboard
            .lost_end(self.snd_una, self.dupthresh, self.mss)
            > self.snd_una;
        if (self.dupacks >= self.dupthresh || lost) && pkt.ack >= self.recover {
            self.sack_enter(in_flight, ctx);
        } else if self.limited_transmit {
            // Section 5 step 3: new data while cwnd - pipe >= 1 SMSS.
            self.high_rxt = self.snd_una;
            let cwnd = self.cwnd();
            let mut pipe = self.pipe();
            while pipe + self.mss <= cwnd && self.new_data_allowed() {
                let len = self.send_new(ctx);
                self.limited_bytes += len;
                pipe += len;
            }
        }
    }
}
