//! The network graph after preset expansion, and routing over it.

use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::sync::Arc;

use sim_core::{BufferLimit, Rate, SimDuration};

use protocols::link::LinkAlgoConfig;

use crate::scenario::{LinkOverride, LinkParams, Routing};

/// One unidirectional link of the expanded graph.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphLink {
    /// `"from->to"`.
    pub name: String,
    /// Upstream node index.
    pub from: usize,
    /// Downstream node index.
    pub to: usize,
    /// Serialization rate.
    pub capacity: Rate,
    /// Propagation delay.
    pub delay: SimDuration,
    /// Buffer limit.
    pub buffer: BufferLimit,
    /// Link algorithm (shared by the links declared alike: a preset's
    /// thousands of access links hold one copy).
    pub algo: Arc<LinkAlgoConfig>,
    /// Loss probability.
    pub loss: f64,
    /// Key path of the scenario entry this link came from (for error messages);
    /// shared by the links of one entry (a preset's thousands of access links).
    pub origin: Arc<str>,
}

/// Nodes and unidirectional links.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Node names, by index.
    pub nodes: Vec<String>,
    /// Name -> index.
    pub index: BTreeMap<String, usize>,
    /// Links, by index (= the simulator's `LinkId`).
    pub links: Vec<GraphLink>,
    /// Outgoing link indices per node, in declaration order.
    pub out: Vec<Vec<usize>>,
    /// The first-declared link per (from, to) pair of nodes.
    between: HashMap<(usize, usize), usize>,
    /// The links' origins, each stored once.
    origins: HashMap<String, Arc<str>>,
    /// The algorithm configurations given so far, each stored once.
    algos: Vec<Arc<LinkAlgoConfig>>,
}

impl Graph {
    /// The error message for an unknown node `name`, listing some known ones.
    pub fn unknown_node(&self, name: &str) -> String {
        let mut known: Vec<&str> = self.nodes.iter().map(String::as_str).take(12).collect();
        if self.nodes.len() > 12 {
            known.push("...");
        }
        format!("unknown node `{name}`; known nodes: {}", known.join(", "))
    }

    /// Add a node; returns false if the name is taken.
    pub fn add_node(&mut self, name: &str) -> bool {
        if self.index.contains_key(name) {
            return false;
        }
        self.index.insert(name.to_string(), self.nodes.len());
        self.nodes.push(name.to_string());
        self.out.push(Vec::new());
        true
    }

    /// Give back the slack of the arenas' doubling growth, once the graph is
    /// complete (a 400 000-link graph otherwise holds room for 524 288).
    pub fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.links.shrink_to_fit();
        self.out.shrink_to_fit();
        self.between.shrink_to_fit();
    }

    /// The index of node `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The link `from -> to`, if any (the first declared, if several).
    pub fn link_between(&self, from: usize, to: usize) -> Option<usize> {
        self.between.get(&(from, to)).copied()
    }

    /// Add the link(s) described by `p` between existing nodes `a` and `b`.
    pub fn add_link(&mut self, a: usize, b: usize, p: &LinkParams, duplex: bool, origin: &str) {
        self.push_link(
            a,
            b,
            p.capacity,
            p.delay,
            p.buffer.0,
            p.algo.clone(),
            p.loss,
            origin,
        );
        if duplex {
            let r = p.reverse.clone().unwrap_or_default();
            self.push_link(
                b,
                a,
                r.capacity.unwrap_or(p.capacity),
                r.delay.unwrap_or(p.delay),
                r.buffer.map_or(p.buffer.0, |x| x.0),
                r.algo.unwrap_or_else(|| p.algo.clone()),
                r.loss.unwrap_or(p.loss),
                &format!("{origin}.reverse"),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_link(
        &mut self,
        from: usize,
        to: usize,
        capacity: Rate,
        delay: SimDuration,
        buffer: BufferLimit,
        algo: LinkAlgoConfig,
        loss: f64,
        origin: &str,
    ) {
        let idx = self.links.len();
        // Few distinct configurations (one per scenario entry, typically):
        // a scan of the last few is enough to share them.
        let algo = match self.algos.iter().rev().take(8).find(|a| ***a == algo) {
            Some(a) => a.clone(),
            None => {
                let a = Arc::new(algo);
                self.algos.push(a.clone());
                a
            }
        };
        let origin = match self.origins.get(origin) {
            Some(o) => o.clone(),
            None => {
                let o: Arc<str> = origin.into();
                self.origins.insert(origin.to_string(), o.clone());
                o
            }
        };
        self.links.push(GraphLink {
            name: format!("{}->{}", self.nodes[from], self.nodes[to]),
            from,
            to,
            capacity,
            delay,
            buffer,
            algo,
            loss,
            origin,
        });
        self.out[from].push(idx);
        self.between.entry((from, to)).or_insert(idx);
    }

    /// Links along an explicit node path; `Err(i)` if hop i (from node i to i+1) has no link.
    pub fn path_links(&self, nodes: &[usize]) -> Result<Vec<usize>, usize> {
        nodes
            .windows(2)
            .enumerate()
            .map(|(i, w)| self.link_between(w[0], w[1]).ok_or(i))
            .collect()
    }

    /// Shortest path from `src` to `dst` as link indices, or `None` if unreachable.
    /// Costs are compared lexicographically: (hops, delay) or (delay, hops); ties go
    /// to the first-declared link, so routes are deterministic. This is the plain
    /// search, O(links) per call: to route many flows, use
    /// [`crate::routing::Router`], which gives the same paths.
    pub fn shortest_path(&self, src: usize, dst: usize, routing: Routing) -> Option<Vec<usize>> {
        if src == dst {
            return None;
        }
        let n = self.nodes.len();
        let mut best: Vec<Option<(u64, u64)>> = vec![None; n];
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        best[src] = Some((0, 0));
        heap.push(std::cmp::Reverse(((0u64, 0u64), src)));
        while let Some(std::cmp::Reverse((cost, u))) = heap.pop() {
            if best[u] != Some(cost) {
                continue;
            }
            if u == dst {
                break;
            }
            for &l in &self.out[u] {
                let link = &self.links[l];
                let d = link.delay.as_ps();
                let c = match routing {
                    Routing::Hops => (cost.0 + 1, cost.1 + d),
                    Routing::Delay => (cost.0 + d, cost.1 + 1),
                };
                if best[link.to].is_none_or(|b| c < b) {
                    best[link.to] = Some(c);
                    via[link.to] = Some(l);
                    heap.push(std::cmp::Reverse((c, link.to)));
                }
            }
        }
        best[dst]?;
        let mut path = Vec::new();
        let mut v = dst;
        while v != src {
            let l = via[v]?;
            path.push(l);
            v = self.links[l].from;
        }
        path.reverse();
        Some(path)
    }
}

/// Apply an override to link parameters.
pub fn apply_override(p: &LinkParams, o: &LinkOverride) -> LinkParams {
    LinkParams {
        capacity: o.capacity.unwrap_or(p.capacity),
        delay: o.delay.unwrap_or(p.delay),
        buffer: o.buffer.unwrap_or(p.buffer),
        algo: o.algo.clone().unwrap_or_else(|| p.algo.clone()),
        loss: o.loss.unwrap_or(p.loss),
        reverse: p.reverse.clone(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scenario::BufferSpec;

    /// A 1 Mb/s drop-tail link of `delay_ms`, 10-packet buffer.
    pub(crate) fn params(delay_ms: u64) -> LinkParams {
        LinkParams {
            capacity: Rate::from_bps(1_000_000),
            delay: SimDuration::from_millis(delay_ms),
            buffer: BufferSpec(BufferLimit::Packets(10)),
            algo: LinkAlgoConfig::DropTail {},
            loss: 0.0,
            reverse: None,
        }
    }

    /// a -> b -> d (2 hops, 20 ms) and a -> c1 -> c2 -> d (3 hops, 3 ms).
    fn diamond() -> Graph {
        let mut g = Graph::default();
        for n in ["a", "b", "c1", "c2", "d"] {
            g.add_node(n);
        }
        let (a, b, c1, c2, d) = (0, 1, 2, 3, 4);
        g.add_link(a, b, &params(10), true, "l0");
        g.add_link(b, d, &params(10), true, "l1");
        g.add_link(a, c1, &params(1), true, "l2");
        g.add_link(c1, c2, &params(1), true, "l3");
        g.add_link(c2, d, &params(1), true, "l4");
        g
    }

    #[test]
    fn hop_routing_prefers_fewer_hops_and_delay_routing_less_delay() {
        let g = diamond();
        let hops = g.shortest_path(0, 4, Routing::Hops).unwrap();
        let names: Vec<_> = hops.iter().map(|&l| g.links[l].name.as_str()).collect();
        assert_eq!(names, ["a->b", "b->d"]);
        let delay = g.shortest_path(0, 4, Routing::Delay).unwrap();
        let names: Vec<_> = delay.iter().map(|&l| g.links[l].name.as_str()).collect();
        assert_eq!(names, ["a->c1", "c1->c2", "c2->d"]);
    }

    #[test]
    fn unreachable_destinations_have_no_path() {
        let mut g = diamond();
        g.add_node("island");
        assert!(g.shortest_path(0, 5, Routing::Hops).is_none());
    }

    #[test]
    fn explicit_paths_report_the_missing_hop() {
        let g = diamond();
        assert_eq!(g.path_links(&[0, 1, 4]).map(|v| v.len()), Ok(2));
        assert_eq!(g.path_links(&[0, 4]), Err(0));
    }

    #[test]
    fn reverse_overrides_apply_only_to_the_reverse_link() {
        let mut g = Graph::default();
        g.add_node("x");
        g.add_node("y");
        let mut p = params(5);
        p.reverse = Some(LinkOverride {
            loss: Some(0.5),
            ..Default::default()
        });
        g.add_link(0, 1, &p, true, "links[0]");
        assert_eq!(g.links[0].loss, 0.0);
        assert_eq!(g.links[1].loss, 0.5);
        assert_eq!(g.links[1].name, "y->x");
        assert_eq!(&*g.links[1].origin, "links[0].reverse");
    }
}
