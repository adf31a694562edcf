//! The flow factories of groups whose flows arrive during the run: a
//! Poisson arrival process and web sessions.

use std::collections::HashMap;
use std::sync::Arc;

use protocols::traffic::{
    Connection, DurationDist, SessionApp, SessionStarts, SizeDist, WebConfig, WebObject,
    WebSchedule,
};
use rand::Rng;
use sim_core::{
    FlowFactory, FlowId, FlowSpec, GroupId, PageReport, RouteId, SimDuration, SimRng, SimTime,
};

use crate::build::make_endpoints;
use crate::scenario::FlowGroupConfig;

/// Creates the flows of a group's web sessions: an object transfer per
/// object (fresh connections) or a connection per session (persistent).
pub(crate) struct WebFactory {
    pub(crate) group: GroupId,
    pub(crate) cfg: FlowGroupConfig,
    pub(crate) web: Arc<WebConfig>,
    /// The group's host pairs, session `k` on pair `k mod len`.
    pub(crate) routes: Vec<(RouteId, RouteId)>,
    pub(crate) start: SimTime,
    /// No object requested (fresh) or session started (persistent) at or
    /// after it; a persistent session's connection stops then.
    pub(crate) stop: Option<SimTime>,
    /// Fresh connections: the object requests, drawn at the first call
    /// (from the group's stream).
    pub(crate) schedule: Option<WebSchedule>,
    /// Persistent connections: the session starts, drawn at the first call.
    pub(crate) sessions: Option<SessionStarts>,
    /// Fresh connections: the object each unfinished flow carries.
    pub(crate) carrying: HashMap<FlowId, WebObject>,
    /// Fresh connections: the pages completed so far.
    pub(crate) pages: Vec<PageReport>,
}

impl FlowFactory for WebFactory {
    fn next_arrival(&mut self, _now: SimTime, rng: &mut SimRng) -> Option<SimTime> {
        let (web, start) = (&*self.web, self.start);
        let t = match web.connection {
            Connection::Fresh => self
                .schedule
                .get_or_insert_with(|| WebSchedule::new(web, start, rng))
                .peek()?,
            Connection::Persistent => self
                .sessions
                .get_or_insert_with(|| SessionStarts::new(web, start, rng))
                .peek()?,
        };
        match self.stop {
            Some(s) if t >= s => None,
            _ => Some(t),
        }
    }

    /// Draws, in order: (fresh) the object's size and its session's next
    /// request, then the packet size and the extra delay (each only for a
    /// range); a persistent session draws its pages and objects from its
    /// sender's own stream as it runs.
    fn make(&mut self, now: SimTime, flow: FlowId, rng: &mut SimRng) -> FlowSpec {
        const DRAWN: &str = "next_arrival drew the sessions";
        let (session, size) = match self.web.connection {
            Connection::Fresh => {
                let (_, obj) = self.schedule.as_mut().expect(DRAWN).pop(rng).expect(DRAWN);
                self.carrying.insert(flow, obj);
                (obj.session, Some(obj.size))
            }
            Connection::Persistent => {
                let (_, k) = self.sessions.as_mut().expect(DRAWN).pop().expect(DRAWN);
                (k, None)
            }
        };
        let (fwd, rev) = self.routes[session as usize % self.routes.len()];
        let mss = self.cfg.packet_size.draw(rng).map(|b| b.get() as u32);
        let host_delay = self.cfg.extra_delay.draw(rng);
        let (sender, receiver) = match size {
            Some(size) => make_endpoints(&self.cfg, mss, Some(size)),
            None => {
                let app = SessionApp::new(Arc::clone(&self.web), now);
                let mss = mss.expect("a transport flow has one packet size");
                crate::transports::tcp_app_endpoints(&self.cfg, mss, Box::new(app))
            }
        };
        FlowSpec {
            group: self.group,
            sender,
            receiver,
            fwd,
            rev,
            start: now,
            stop: self.stop.filter(|_| size.is_none()),
            host_delay,
        }
    }

    /// Fresh connections: each object's arrival completes pages and, closed
    /// loop, times the session's next requests.
    fn wants_completions(&self) -> bool {
        self.web.connection == Connection::Fresh
    }

    fn flow_finished(&mut self, flow: FlowId, now: SimTime, rng: &mut SimRng) {
        let (Some(obj), Some(schedule)) = (self.carrying.remove(&flow), self.schedule.as_mut())
        else {
            return;
        };
        if let Some(p) = schedule.object_done(obj, now, rng) {
            self.pages.push(PageReport {
                group: self.group,
                session: p.session,
                requested: p.requested,
                completed: now,
                objects: p.objects,
                bytes: p.bytes,
            });
        }
    }

    fn take_pages(&mut self) -> Vec<PageReport> {
        std::mem::take(&mut self.pages)
    }
}

/// Creates the flows of a Poisson arrival process.
pub(crate) struct ArrivalFactory {
    pub(crate) group: GroupId,
    pub(crate) cfg: FlowGroupConfig,
    /// Arrivals per second.
    pub(crate) rate: f64,
    /// Flow sizes (finite flows), or
    pub(crate) size: Option<SizeDist>,
    /// flow lifetimes (bulk flows stopped after them).
    pub(crate) duration: Option<DurationDist>,
    /// Arrivals still to schedule.
    pub(crate) left: u32,
    pub(crate) fwd: RouteId,
    pub(crate) rev: RouteId,
    pub(crate) start: SimTime,
    pub(crate) stop: Option<SimTime>,
    pub(crate) started: bool,
}

impl FlowFactory for ArrivalFactory {
    fn next_arrival(&mut self, now: SimTime, rng: &mut SimRng) -> Option<SimTime> {
        if self.left == 0 {
            return None;
        }
        let base = if self.started { now } else { self.start };
        self.started = true;
        let u: f64 = rng.random();
        let gap = -(1.0 - u).ln() / self.rate;
        // A gap past the clock (a rate near zero) is an arrival that never comes.
        let t = base.saturating_add(SimDuration::from_secs_f64(gap));
        match self.stop {
            Some(s) if t >= s => None,
            _ => {
                self.left -= 1;
                Some(t)
            }
        }
    }

    /// Draws, in order: the size (finite flows), the lifetime (timed flows),
    /// then the packet size and the extra delay (each only for a range).
    fn make(&mut self, now: SimTime, _flow: FlowId, rng: &mut SimRng) -> FlowSpec {
        let size = self.size.as_ref().map(|d| d.sample(rng));
        let stop = self
            .duration
            .as_ref()
            .map(|d| now.saturating_add(d.sample(rng)));
        let mss = self.cfg.packet_size.draw(rng).map(|b| b.get() as u32);
        let host_delay = self.cfg.extra_delay.draw(rng);
        let (sender, receiver) = make_endpoints(&self.cfg, mss, size);
        FlowSpec {
            group: self.group,
            sender,
            receiver,
            fwd: self.fwd,
            rev: self.rev,
            start: now,
            stop,
            host_delay,
        }
    }
}
