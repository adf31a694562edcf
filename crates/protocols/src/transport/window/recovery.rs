//! The window sender's cumulative-ACK processing and NewReno loss
//! recovery: new ACKs (RTT samples, the timer, full and partial
//! acknowledgments, RFC 6582 step 3-5), duplicate ACKs (fast retransmit,
//! RFC 6582 step 2; limited transmit, RFC 3042 or ns-2's `send_one`) and
//! the retransmission timeout (RFC 6298 section 5, go-back-N). Provenance:
//! `super`'s header.

use sim_core::{Congestion, EndpointCtx, Packet};

use super::WindowSender;

impl WindowSender {
    /// Fast retransmit's common part (RFC 6582 step 2, RFC 6675 step 4):
    /// the controller's reduction on `in_flight` less what limited transmit
    /// sent, `recover = snd_max`, recovery entered with the window inflated
    /// by `inflation`, and `snd_una` retransmitted; its length. A loss
    /// within the window of data after an ECN-Echo reduction is recovered
    /// without a second reduction (`ecn_loss_once`).
    pub(super) fn enter_recovery(
        &mut self,
        in_flight: u64,
        inflation: i64,
        ctx: &mut EndpointCtx,
    ) -> u64 {
        if self.ecn_loss_once
            // The last reduction was an ECN-Echo's: every fast retransmit
            // and timeout sets `recover` and `ecn_recover` to `snd_max`,
            // and an ECN reaction needs new data acknowledged, so only an
            // ECN reaction since leaves `ecn_recover` above `recover`.
            && self.ecn_recover > self.recover
            && self.snd_una <= self.ecn_recover
        {
            // RFC 3168 section 6.1.2 ("reduced only once in response to a
            // series of dropped and/or CE packets from a single window of
            // data"), as ns-2's `dupack_action` (Newreno, Sack1) and
            // Linux's recovery entered from CWR: retransmit and recover up
            // to the ECN reaction's point without reducing again.
            self.recover = self.ecn_recover;
            return self.retransmit_in_recovery(inflation, ctx);
        }
        let in_flight = in_flight.saturating_sub(self.limited_bytes);
        self.cc
            .on_congestion(ctx.now(), Congestion::Loss { in_flight });
        ctx.counters().reductions += 1;
        self.recover = self.snd_max;
        self.reduced();
        self.retransmit_in_recovery(inflation, ctx)
    }

    /// Fast recovery entered and `snd_una` retransmitted, after a reduction
    /// or (an ECN-Echo's reduction just before) without one; its length.
    fn retransmit_in_recovery(&mut self, inflation: i64, ctx: &mut EndpointCtx) -> u64 {
        ctx.counters().fast_retransmits += 1;
        self.in_recovery = true;
        self.partial_seen = false;
        self.inflation = inflation;
        if self.rtt.ns2_tick().is_some() {
            // ns-2's agents reset the retransmission timer at a fast
            // retransmit (`reset_rtx_timer(1, 0)`), which also abandons the
            // segment being timed; RFC 6298 leaves a running timer alone.
            self.sampler.abandon();
            self.restart_timer(ctx);
        }
        self.transmit(self.snd_una, ctx)
    }

    /// An ACK that acknowledges new data.
    pub(super) fn on_new_ack(&mut self, pkt: &Packet, in_flight: u64, ctx: &mut EndpointCtx) {
        let now = ctx.now();
        let acked = pkt.ack - self.snd_una;
        let rtt = now.saturating_since(pkt.echo);
        let rto_before = self.timer_before_sample.then(|| self.rtt.rto());
        if let Some(r) = self.sampler.on_new_ack(pkt.ack, rtt, now) {
            self.rtt.on_sample(r, now);
        }
        // The RTO this ACK restarts the timer with: after its sample, or
        // (ns-2 before `timerfix_`) the one in force before it.
        let timer_rto = rto_before.unwrap_or_else(|| self.rtt.rto());
        self.snd_una = pkt.ack;
        while let Some(&(end, requested, bytes)) = self.objects.front() {
            if end > self.snd_una {
                break;
            }
            self.objects.pop_front();
            ctx.object_done(requested, bytes);
        }
        self.snd_nxt = self.snd_nxt.max(pkt.ack);
        let info = self.ack_info(now, acked, Some(rtt), pkt, in_flight);
        self.cc.on_ack(&info);
        if !self.in_recovery {
            self.dupacks = 0;
            self.limited_bytes = 0;
            self.restart_timer_for(timer_rto, ctx);
        } else if pkt.ack >= self.recover {
            // RFC 6582 step 3: full acknowledgment.
            self.in_recovery = false;
            self.inflation = 0;
            self.dupacks = 0;
            self.cc.on_recovery_exit(now);
            self.restart_timer_for(timer_rto, ctx);
        } else if self.sack {
            // RFC 6675: a cumulative ACK in recovery; step (C) sends.
            self.dupacks = 0;
            self.restart_timer(ctx);
        } else {
            // RFC 6582 step 4/5: partial acknowledgment.
            self.transmit(self.snd_una, ctx);
            if self.partial_deflation {
                self.inflation -= acked as i64;
                if acked >= self.mss {
                    self.inflation += self.mss as i64;
                }
            } else {
                // ns-2's NewReno before 2003 (`partial_window_deflation_
                // 0`): the window returns to cwnd at once.
                self.inflation = 0;
            }
            if !self.partial_seen || self.partial_timer_every {
                self.partial_seen = true;
                self.restart_timer(ctx);
            }
        }
        if self.snd_una >= self.snd_max {
            self.stop_timer(ctx);
        }
    }

    /// A duplicate ACK (`ack == snd_una` with data outstanding).
    pub(super) fn on_dupack(&mut self, pkt: &Packet, in_flight: u64, ctx: &mut EndpointCtx) {
        self.dupacks += 1;
        let info = self.ack_info(ctx.now(), 0, None, pkt, in_flight);
        self.cc.on_ack(&info);
        if self.in_recovery {
            self.inflation += self.mss as i64;
        } else if self.dupacks == self.dupthresh
            && (pkt.ack > self.recover
                || (pkt.ack == self.recover && (!self.careful || self.recover == 0)))
        {
            // (`recover` is 0 only before any recovery or timeout.)
            // RFC 6582 step 2: fast retransmit, enter fast recovery.
            let inflation = i64::from(self.dupthresh) * self.mss as i64;
            self.enter_recovery(in_flight, inflation, ctx);
        } else if self.limited_transmit_ns2 && self.dupacks < self.dupthresh {
            // ns-2's `send_one`: the next segment in sequence (new data or
            // a go-back-N retransmission) if the data outstanding with it
            // stays within cwnd + the duplicates counted.
            let wnd = self.cwnd() + u64::from(self.dupacks) * self.mss;
            if self.sendable(wnd.min(self.rwnd)) {
                let new = self.snd_nxt >= self.snd_max;
                let len = self.send_next(ctx);
                if new {
                    self.limited_bytes += len;
                }
            }
        } else if self.limited_transmit
            && self.dupacks < self.dupthresh
            && self.dupacks <= 2
            && self.snd_nxt == self.snd_max
            && self.new_data_allowed()
            && self.flight() + self.seg_len(self.snd_max) <= self.cwnd() + 2 * self.mss
        {
            // RFC 3042: one new segment for each of the first two duplicates.
            self.limited_bytes += self.send_new(ctx);
        }
    }

    /// The retransmission timer expired (RFC 6298 section 5.4-5.6).
    pub(super) fn on_timeout(&mut self, ctx: &mut EndpointCtx) {
        if self.snd_una >= self.snd_max {
            self.stop_timer(ctx);
            return;
        }
        ctx.counters().timeouts += 1;
        let in_flight = self.flight();
        self.cc
            .on_congestion(ctx.now(), Congestion::Timeout { in_flight });
        if !self.reliable {
            // Loss-tolerant: no ACK for an RTO, so what is outstanding is given
            // up, as the receiver gives gaps up; nothing is resent (a rate
            // source over UDP). Late ACKs still reach the controller.
            self.snd_una = self.snd_max;
            self.snd_nxt = self.snd_max;
            self.rtt.back_off();
            self.rto_deadline = None;
            if self.snd_una >= self.end && self.next_write.is_none() {
                // A finite flow whose tail was lost ends here.
                self.done = true;
                self.stop_timer(ctx);
                ctx.finish();
                return;
            }
            self.send_allowed(ctx);
            return;
        }
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.recover = self.snd_max;
        self.high_rxt = self.snd_una;
        self.rescue_rxt = None;
        self.snd_nxt = self.snd_una;
        self.reduced();
        self.rtt.back_off();
        if self.rtt.ns2_tick().is_some() {
            // ns-2's timeout resets the timer (`reset_rtx_timer(0, 1)`),
            // which abandons the timed segment; with Karn's rule the
            // go-back-N retransmission does the same.
            self.sampler.abandon();
        }
        self.rto_deadline = None;
        if self.pacer.is_some() {
            // The retransmission goes at once, as a fast retransmit does;
            // the pacer then spaces what follows.
            self.snd_nxt += self.transmit(self.snd_una, ctx);
        }
        self.send_allowed(ctx);
        self.restart_timer(ctx);
    }
}
