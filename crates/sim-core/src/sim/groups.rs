//! Flow groups whose flows arrive over time: their pending arrival, and the
//! completions a closed-loop factory is told of (the `impl Simulator` part
//! for [`FlowFactory`] groups, off the per-packet path).

use super::*;

impl Simulator {
    pub(super) fn on_group_arrival(&mut self, now: SimTime, g: GroupId) {
        let mut gs = self.groups[g.index()]
            .take()
            .expect("arrival for unknown group");
        if gs.pending == Some(now) {
            let id = FlowId::from_index(self.flows.len());
            let spec = gs.factory.make(now, id, &mut gs.rng);
            self.add_flow(spec);
            gs.pending = None;
            self.schedule_group_arrival(now, g, &mut gs);
        }
        self.groups[g.index()] = Some(gs);
    }

    /// Ask group `g`'s factory for its next arrival and schedule it, unless
    /// one as early is pending already.
    pub(super) fn schedule_group_arrival(&mut self, now: SimTime, g: GroupId, gs: &mut GroupState) {
        if let Some(t) = gs.factory.next_arrival(now, &mut gs.rng) {
            let t = t.max(now);
            if gs.pending.is_none_or(|p| t < p) {
                gs.pending = Some(t);
                self.queue.schedule(t, Event::GroupArrival(g));
            }
        }
    }

    /// Flow `f` just declared itself finished: tell its group's factory if
    /// it wants to know, and take its next arrival.
    #[cold]
    pub(super) fn on_flow_finished(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f.index()];
        if flow.notified {
            return;
        }
        flow.notified = true;
        let g = flow.group;
        let Some(mut gs) = self.groups.get_mut(g.index()).and_then(Option::take) else {
            return;
        };
        if gs.completions {
            gs.factory.flow_finished(f, now, &mut gs.rng);
            self.schedule_group_arrival(now, g, &mut gs);
        }
        self.groups[g.index()] = Some(gs);
    }
}
