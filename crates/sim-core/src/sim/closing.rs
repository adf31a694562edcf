//! The end of a flow's life in the network: its packets lost on the way,
//! and freeing its endpoints once nothing can reach them (off the
//! per-packet path).

use super::*;

impl Simulator {
    /// A packet of flow `f` left the network without reaching an endpoint.
    #[cold]
    pub(super) fn packet_lost(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f.index()];
        flow.in_flight -= 1;
        if flow.in_flight == 0 && flow.finished.is_some() {
            self.try_close(now, f);
        }
    }

    /// Free the endpoints of flow `f` if it is over for good: it finished,
    /// nothing of it is in the network, neither endpoint has a timer set,
    /// its stop (if any) has passed, and the samples have read its sender for
    /// the last time. No event can then reach the endpoints again, so freeing
    /// them changes no result; a run of 10^6 short flows keeps only each
    /// flow's counters (about 450 bytes) instead of its transport state.
    pub(super) fn try_close(&mut self, now: SimTime, f: FlowId) {
        let flow = &self.flows[f.index()];
        let Some(end) = flow.finished else {
            return;
        };
        if self.keep_finished
            || flow.closed
            || flow.in_flight != 0
            || flow.stop.is_some_and(|s| s >= now)
        {
            return;
        }
        let sel = self.cfg.series;
        if self.cfg.sample_interval.is_some() && sel.any() {
            // A sample at the instant the flow ended still reads it as
            // active, and with the rate series the first sample after its end
            // reads its rate's average once more.
            // (Sampling takes the earlier of the finish and the stop as the end.)
            let end = flow.stop.map_or(end, |s| s.min(end));
            let last = flow.last_sample_rate_bits.map_or(flow.start, |x| x.0);
            if now <= end || (sel.flow_rate && last < end) {
                return;
            }
        }
        let (s, r) = (flow.sender, flow.receiver);
        let idle = |e: EndpointId| self.endpoints[e.index()].timer.deadline.is_none();
        if !idle(s) || !idle(r) {
            return;
        }
        self.flows[f.index()].rto = self.endpoints[s.index()].ep.rto_stats().map(Box::new);
        for e in [s, r] {
            let slot = &mut self.endpoints[e.index()];
            slot.ep = Box::new(Closed);
            slot.rng.release();
        }
        self.flows[f.index()].closed = true;
    }
}
