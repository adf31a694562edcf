//! Building a replication's network: links, routes, flows and arrival
//! processes, and the run's settings (the `impl Simulator` part used before
//! the run starts).

use super::*;

impl Simulator {
    /// An empty network with the given run settings.
    pub fn new(cfg: SimConfig) -> Self {
        Simulator {
            cfg,
            queue: EventQueue::new(),
            links: Vec::new(),
            slots: Slots::default(),
            link_baselines: Vec::new(),
            routes: Vec::new(),
            flows: Vec::new(),
            endpoints: Vec::new(),
            groups: Vec::new(),
            outbox: Vec::with_capacity(64),
            events: 0,
            measuring: false,
            series: Vec::new(),
            objects: Vec::new(),
            injected: Count::default(),
            absorbed: Count::default(),
            tracer: None,
            packet_limit: MAX_PACKETS_HELD,
            keep_finished: false,
            changes: Vec::new(),
            change_log: Vec::new(),
        }
    }

    /// Make room for `links` links, `routes` routes and `flows` flows (two
    /// endpoints each) before they are added: the arenas then hold exactly
    /// what they need, without the slack of doubling growth or the copy of
    /// shrinking it (a 400 000-link network's link arena is 128 MB).
    pub fn reserve(&mut self, links: usize, routes: usize, flows: usize) {
        self.links.reserve_exact(links);
        self.routes.reserve_exact(routes);
        self.flows.reserve_exact(flows);
        self.endpoints.reserve_exact(2 * flows);
    }

    /// Stop the run (with [`RunOutput::overload`] set) once the network has
    /// held more than `n` packets at once; default [`MAX_PACKETS_HELD`]. It is
    /// checked every report interval of [`Simulator::run_observed`] (100 ms of
    /// simulated time in [`Simulator::run`]), off the per-event path.
    pub fn set_packet_limit(&mut self, n: usize) {
        self.packet_limit = n;
    }

    /// Keep the endpoints of finished flows to the end of the run instead of
    /// freeing them once nothing can reach them (for checking that freeing
    /// them changes no result).
    pub fn keep_finished_flows(&mut self) {
        self.keep_finished = true;
    }

    /// Send every packet event to `tracer` (slows the run; for debugging and tests).
    pub fn set_tracer(&mut self, tracer: Box<dyn Tracer>) {
        self.tracer = Some(tracer);
    }

    /// The routes added so far, by `RouteId`: each the links it crosses, in order.
    pub fn routes(&self) -> &[Vec<LinkId>] {
        &self.routes
    }

    /// The run settings.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// Add a link driven by `algo`. Its random streams derive from its index.
    pub fn add_link(&mut self, spec: LinkSpec, algo: Box<dyn LinkAlgorithm>) -> LinkId {
        let id = LinkId::from_index(self.links.len());
        let (seed, rep) = (self.cfg.seed, self.cfg.replication);
        self.links.push(LinkState {
            limit: spec.limit,
            capacity: spec.capacity,
            delay: spec.delay,
            loss: spec.loss,
            slow: spec.loss > 0.0,
            stamps: algo.stamps_departures(),
            judges: algo.judges_arrivals(),
            tx_cache: (0, SimDuration::ZERO),
            queue: Fifo::default(),
            backlog_bytes: 0,
            busy_until: SimTime::ZERO,
            txdone_armed: false,
            pipe: Pipe::default(),
            algo,
            queue_dropped_bytes: 0,
            arrived: Count::default(),
            enqueued: Count::default(),
            departed: Count::default(),
            delivered: Count::default(),
            cold: Box::new(LinkCold {
                dropped: ReasonCounts::default(),
                marked: ReasonCounts::default(),
                stats: LinkStats::default(),
                algo_rng: LazyRng::new(seed, rep, StreamKind::LinkAlgorithm, id.0),
                loss_rng: LazyRng::new(seed, rep, StreamKind::LinkLoss, id.0),
                timer: TimerSlot::default(),
                last_sample_departed: 0,
                last_sample_arrived: 0,
                last_sample_dropped: 0,
                changed: Default::default(),
                spec,
            }),
        });
        id
    }

    /// Add a route: a non-empty sequence of links, each starting where the previous ends.
    ///
    /// # Panics
    /// On an empty or disconnected route (the topology layer validates first).
    pub fn add_route(&mut self, links: Vec<LinkId>) -> RouteId {
        assert!(!links.is_empty(), "a route needs at least one link");
        for w in links.windows(2) {
            assert_eq!(
                self.links[w[0].index()].cold.spec.to,
                self.links[w[1].index()].cold.spec.from,
                "route is not connected"
            );
        }
        assert!(links.len() < usize::from(u16::MAX), "route too long");
        self.routes.push(links);
        RouteId::from_index(self.routes.len() - 1)
    }

    /// The links of a route.
    pub fn route(&self, r: RouteId) -> &[LinkId] {
        &self.routes[r.index()]
    }

    /// Add a flow. Its endpoints start at `spec.start`.
    pub fn add_flow(&mut self, spec: FlowSpec) -> FlowId {
        let flow = FlowId::from_index(self.flows.len());
        let (seed, rep) = (self.cfg.seed, self.cfg.replication);
        let delay = spec.host_delay;
        let new_ep = |ep: Box<dyn Endpoint>, route: RouteId, eps: &mut Vec<EndpointSlot>| {
            let id = EndpointId::from_index(eps.len());
            eps.push(EndpointSlot {
                ep,
                rng: LazyRng::new(seed, rep, StreamKind::Endpoint, id.0),
                timer: TimerSlot::default(),
                flow,
                route,
                line: (delay > SimDuration::ZERO).then(|| {
                    Box::new(DelayLine {
                        delay,
                        queue: VecDeque::new(),
                    })
                }),
            });
            id
        };
        let size = spec.sender.flow_size();
        let packet_size = spec.sender.packet_size();
        let sender = new_ep(spec.sender, spec.fwd, &mut self.endpoints);
        let receiver = new_ep(spec.receiver, spec.rev, &mut self.endpoints);
        self.flows.push(FlowState {
            group: spec.group,
            sender,
            receiver,
            fwd: spec.fwd,
            rev: spec.rev,
            start: spec.start,
            stop: spec.stop,
            size,
            host_delay: delay,
            packet_size,
            rto: None,
            counters: FlowCounters::default(),
            baseline: FlowCounters::default(),
            finished: None,
            last_sample_rx: 0,
            last_sample_rate_bits: None,
            in_flight: 0,
            closed: false,
            notified: false,
        });
        let start = spec.start.max(self.queue.now());
        self.queue.schedule(start, Event::EndpointStart(receiver));
        self.queue.schedule(start, Event::EndpointStart(sender));
        if let Some(stop) = spec.stop {
            self.queue
                .schedule(stop.max(start), Event::EndpointStop(sender));
        }
        flow
    }

    /// Add a group whose flows arrive over time from `factory`.
    pub fn add_group(&mut self, group: GroupId, factory: Box<dyn FlowFactory>) {
        let i = group.index();
        if self.groups.len() <= i {
            self.groups.resize_with(i + 1, || None);
        }
        let rng = stream(
            self.cfg.seed,
            self.cfg.replication,
            StreamKind::Group,
            group.0,
        );
        let mut gs = GroupState {
            completions: factory.wants_completions(),
            factory,
            rng,
            pending: None,
        };
        self.schedule_group_arrival(SimTime::ZERO, group, &mut gs);
        self.groups[i] = Some(gs);
    }

    /// The header family carried by the endpoints of flow `f`'s sender.
    pub fn flow_header_family(&self, f: FlowId) -> crate::packet::HeaderFamily {
        self.endpoints[self.flows[f.index()].sender.index()]
            .ep
            .header_family()
    }

    /// The header family link `l`'s algorithm needs, if any.
    pub fn link_header_family(&self, l: LinkId) -> Option<crate::packet::HeaderFamily> {
        self.links[l.index()].algo.header_family()
    }
}
