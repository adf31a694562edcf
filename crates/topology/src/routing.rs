//! Routing many flows in time linear in their number: shortest paths over the
//! network's core, with single-homed hosts taken off it.
//!
//! [`Graph::shortest_path`] is a plain Dijkstra search from the source. In a
//! dumbbell of N pairs every search from a host reaches the first router and
//! relaxes its N host links before it gets to the destination, so routing N
//! flows cost O(N^2) (18 s of the 19 s a 10 000-pair dumbbell took to build).
//! [`Router`] gives every route that search gives, link for link, at a cost
//! that does not grow with the number of hosts:
//!
//! - A *stub* is a node with exactly one neighbour (counting in- and out-links
//!   alike): a single-homed host. A shortest path never passes through a stub
//!   it does not start or end at, since leaving it returns to the node it came
//!   from (a cycle, and every link adds a hop), so the search never needs to
//!   look at one. The core graph is every link whose head is not a stub.
//! - A route from a stub starts with its cheapest link to its neighbour; a
//!   route to a stub ends with the cheapest link into it (least delay, then the
//!   first declared: in both routing modes a link adds exactly one hop). These
//!   are computed once per stub.
//! - Between the two, a Dijkstra search over the core graph from the first
//!   core node to the last, cached per (from, to, routing): all the flows of a
//!   dumbbell share the one core route r1 -> r2.
//!
//! Why the routes are the same as the plain search's: the plain search from
//! a stub source first reaches its neighbour at some cost c, and from there
//! runs as a search from the neighbour with every cost raised by c; the
//! lexicographic order of (hops, delay) pairs is unchanged by adding c, and
//! equal costs pop in node order either way, so every node is reached by the
//! same link. Stubs that are pushed and popped in the plain search improve no
//! other node (their only neighbour was reached more cheaply before them), so
//! leaving them out changes nothing else. A core node's route is final when it
//! is popped, so stopping there (instead of one hop later at a stub
//! destination) gives the same route to it. The property test in this file
//! checks the equality on random graphs with parallel links, one-way links and
//! stubs; a corner the decomposition does not cover (a stub whose neighbour is
//! itself a stub) falls back to the plain search.

use std::collections::{BinaryHeap, HashMap};

use crate::graph::Graph;
use crate::scenario::Routing;

/// Routes of a [`Graph`], with the per-stub links, the core adjacency and
/// the cache of core routes. Build it once after the graph is complete.
pub struct Router<'g> {
    graph: &'g Graph,
    /// Per node: its only neighbour, if it has exactly one.
    stub_of: Vec<Option<usize>>,
    /// Per stub: its cheapest link out to its neighbour, if it has one.
    stub_out: Vec<Option<usize>>,
    /// Per stub: the cheapest link into it from its neighbour, if any.
    stub_in: Vec<Option<usize>>,
    /// Per node: outgoing links whose head is not a stub, in declaration order.
    core_out: Vec<Vec<usize>>,
    /// Core routes by (from, to, routing); `None` if unreachable.
    cache: HashMap<(usize, usize, Routing), Option<Vec<usize>>>,
    /// Search state, reused: per node the search that last touched it, its
    /// best cost and the link it was reached by.
    stamp: Vec<u32>,
    best: Vec<(u64, u64)>,
    via: Vec<usize>,
    search: u32,
}

/// Which neighbours a node has seen so far: none, one, or more.
#[derive(Copy, Clone)]
enum Seen {
    None,
    One(usize),
    Many,
}

impl<'g> Router<'g> {
    /// The router of `graph` (linear in its size).
    pub fn new(graph: &'g Graph) -> Self {
        let n = graph.nodes.len();
        let mut seen = vec![Seen::None; n];
        let mut note = |a: usize, b: usize| {
            seen[a] = match seen[a] {
                Seen::None => Seen::One(b),
                Seen::One(x) if x == b => Seen::One(b),
                _ => Seen::Many,
            };
        };
        for l in &graph.links {
            note(l.from, l.to);
            note(l.to, l.from);
        }
        let stub_of: Vec<Option<usize>> = seen
            .iter()
            .map(|s| match s {
                Seen::One(x) => Some(*x),
                _ => None,
            })
            .collect();
        // The cheapest link of a stub in each direction: least delay, then
        // the lowest index (the first declared).
        let cheaper = |slot: &mut Option<usize>, l: usize| {
            let d = graph.links[l].delay;
            if slot.is_none_or(|k| d < graph.links[k].delay) {
                *slot = Some(l);
            }
        };
        let mut stub_out = vec![None; n];
        let mut stub_in = vec![None; n];
        let mut core_out = vec![Vec::new(); n];
        for (i, l) in graph.links.iter().enumerate() {
            if stub_of[l.from].is_some() {
                cheaper(&mut stub_out[l.from], i);
            }
            if stub_of[l.to].is_some() {
                cheaper(&mut stub_in[l.to], i);
            } else {
                core_out[l.from].push(i);
            }
        }
        Router {
            graph,
            stub_of,
            stub_out,
            stub_in,
            core_out,
            cache: HashMap::new(),
            stamp: vec![0; n],
            best: vec![(0, 0); n],
            via: vec![usize::MAX; n],
            search: 0,
        }
    }

    /// The graph it routes over.
    pub fn graph(&self) -> &'g Graph {
        self.graph
    }

    /// The shortest path from `src` to `dst` as link indices, exactly as
    /// [`Graph::shortest_path`] gives it; `None` if unreachable or `src == dst`.
    pub fn route(&mut self, src: usize, dst: usize, routing: Routing) -> Option<Vec<usize>> {
        if src == dst {
            return None;
        }
        let (start, first) = match self.stub_of[src] {
            Some(a) => (a, Some(self.stub_out[src]?)),
            None => (src, None),
        };
        if start == dst {
            return first.map(|l| vec![l]);
        }
        let (target, last) = match self.stub_of[dst] {
            Some(b) => (b, Some(self.stub_in[dst]?)),
            None => (dst, None),
        };
        let core = if start == target {
            Vec::new()
        } else if self.stub_of[start].is_some() || self.stub_of[target].is_some() {
            // A stub next to a stub: a two-node island, or a path the core
            // graph does not hold. The plain search settles it.
            return self.graph.shortest_path(src, dst, routing);
        } else {
            let key = (start, target, routing);
            if !self.cache.contains_key(&key) {
                let found = self.core_search(start, target, routing);
                self.cache.insert(key, found);
            }
            self.cache.get(&key).cloned().flatten()?
        };
        let mut path = Vec::with_capacity(core.len() + 2);
        path.extend(first);
        path.extend(core);
        path.extend(last);
        Some(path)
    }

    /// Dijkstra over the core graph from `src` to `dst` (both core nodes),
    /// with [`Graph::shortest_path`]'s costs and tie-breaks.
    fn core_search(&mut self, src: usize, dst: usize, routing: Routing) -> Option<Vec<usize>> {
        self.search += 1;
        let s = self.search;
        let mut heap = BinaryHeap::new();
        self.stamp[src] = s;
        self.best[src] = (0, 0);
        self.via[src] = usize::MAX;
        heap.push(std::cmp::Reverse(((0u64, 0u64), src)));
        while let Some(std::cmp::Reverse((cost, u))) = heap.pop() {
            if self.best[u] != cost {
                continue;
            }
            if u == dst {
                break;
            }
            for &l in &self.core_out[u] {
                let link = &self.graph.links[l];
                let d = link.delay.as_ps();
                let c = match routing {
                    Routing::Hops => (cost.0 + 1, cost.1 + d),
                    Routing::Delay => (cost.0 + d, cost.1 + 1),
                };
                let v = link.to;
                if self.stamp[v] != s || c < self.best[v] {
                    self.stamp[v] = s;
                    self.best[v] = c;
                    self.via[v] = l;
                    heap.push(std::cmp::Reverse((c, v)));
                }
            }
        }
        if self.stamp[dst] != s {
            return None;
        }
        let mut path = Vec::new();
        let mut v = dst;
        while v != src {
            let l = self.via[v];
            path.push(l);
            v = self.graph.links[l].from;
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::tests::params;
    use proptest::prelude::*;

    /// A graph of `n` nodes with the links `(from, to, delay ms, duplex)`.
    fn graph(n: usize, links: &[(usize, usize, u64, bool)]) -> Graph {
        let mut g = Graph::default();
        for i in 0..n {
            g.add_node(&format!("n{i}"));
        }
        for &(a, b, d, duplex) in links {
            if a != b {
                g.add_link(a, b, &params(d), duplex, "links");
            }
        }
        g
    }

    #[test]
    fn a_dumbbell_routes_through_one_cached_core_route() {
        // Hosts 0..3 -> router 4 -> router 5 -> hosts 6..9.
        let mut links = vec![(4, 5, 20, true)];
        for i in 0..4 {
            links.push((i, 4, 1, true));
            links.push((5, 6 + i, 1, true));
        }
        let g = graph(10, &links);
        let mut r = Router::new(&g);
        for i in 0..4 {
            let want = g.shortest_path(i, 6 + i, Routing::Hops);
            assert_eq!(r.route(i, 6 + i, Routing::Hops), want);
            assert_eq!(want.map(|p| p.len()), Some(3));
        }
        assert_eq!(r.cache.len(), 1);
    }

    #[test]
    fn stub_routes_take_the_cheapest_then_first_declared_parallel_link() {
        // Two parallel links 0 -> 1 (5 ms, then 2 ms, then 2 ms) and 1 -> 2.
        let g = graph(
            3,
            &[
                (0, 1, 5, true),
                (0, 1, 2, true),
                (0, 1, 2, true),
                (1, 2, 1, true),
            ],
        );
        let mut r = Router::new(&g);
        for (s, d) in [(0, 2), (2, 0), (0, 1), (1, 0)] {
            for m in [Routing::Hops, Routing::Delay] {
                assert_eq!(r.route(s, d, m), g.shortest_path(s, d, m), "{s}->{d}");
            }
        }
        assert_eq!(r.route(0, 2, Routing::Hops), Some(vec![2, 6]));
    }

    #[test]
    fn islands_and_one_way_stubs_have_no_route() {
        // 0 <-> 1 is an island; 2 -> 3 is one-way, 3 a stub with no way out.
        let g = graph(5, &[(0, 1, 1, true), (2, 3, 1, false), (2, 4, 1, true)]);
        let mut r = Router::new(&g);
        for s in 0..5 {
            for d in 0..5 {
                assert_eq!(
                    r.route(s, d, Routing::Hops),
                    g.shortest_path(s, d, Routing::Hops),
                    "{s}->{d}"
                );
            }
        }
    }

    proptest! {
        /// The router and the plain search give the same route for every pair,
        /// in both modes, on random graphs with parallel, one-way and
        /// equal-delay links and plenty of stubs.
        #[test]
        fn routes_equal_the_plain_search(
            n in 2usize..14,
            links in proptest::collection::vec(
                (0usize..14, 0usize..14, prop_oneof![Just(1u64), Just(2), 0u64..6], any::<bool>()),
                0..24,
            ),
        ) {
            let links: Vec<_> = links
                .into_iter()
                .map(|(a, b, d, x)| (a % n, b % n, d, x))
                .collect();
            let g = graph(n, &links);
            let mut r = Router::new(&g);
            for m in [Routing::Hops, Routing::Delay] {
                for s in 0..n {
                    for d in 0..n {
                        prop_assert_eq!(r.route(s, d, m), g.shortest_path(s, d, m), "{}->{} {:?}", s, d, m);
                    }
                }
            }
        }
    }
}
