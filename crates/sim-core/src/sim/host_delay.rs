//! The host delay line of an endpoint ([`super::FlowSpec::host_delay`]):
//! packets wait out a per-flow one-way delay before their first link.

use std::collections::VecDeque;

use super::Simulator;
use crate::event::Event;
use crate::ids::EndpointId;
use crate::packet::Packet;
use crate::units::{SimDuration, SimTime};

/// Packets an endpoint sent that wait out its host delay before their first
/// link: a FIFO (one constant delay), of which only the head has an event
/// (`EndpointRelease`), as a link's propagation pipe.
pub(super) struct DelayLine {
    pub(super) delay: SimDuration,
    /// `(due time, packet)`, due times non-decreasing.
    pub(super) queue: VecDeque<(SimTime, Packet)>,
}

impl Simulator {
    /// Endpoint `e`'s delay line is due: every packet due now enters the first
    /// link of its route, in the order it was sent; the next head gets the event.
    pub(super) fn on_release(&mut self, now: SimTime, e: EndpointId) {
        loop {
            let slot = &mut self.endpoints[e.index()];
            let line = slot
                .line
                .as_mut()
                .expect("release event for an endpoint without a delay line");
            match line.queue.front() {
                Some(&(due, _)) if due <= now => {}
                Some(&(due, _)) => {
                    self.queue.schedule(due, Event::EndpointRelease(e));
                    return;
                }
                None => return,
            }
            let (_, pkt) = line.queue.pop_front().expect("non-empty delay line");
            let first = self.routes[slot.route.index()][0];
            self.injected.add(pkt.size);
            let i = self.slots.alloc(pkt);
            self.link_enqueue(now, first, i);
        }
    }
}
