//! `u32` id newtypes: indices into the arenas the simulator owns.

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The arena index.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            /// The id for arena index `i`.
            #[inline]
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect(concat!(stringify!($name), " arena overflow")))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A node (host or router).
    NodeId,
    "n"
);
id_type!(
    /// A unidirectional link with its egress queue.
    LinkId,
    "l"
);
id_type!(
    /// A flow: one sender endpoint and one receiver endpoint.
    FlowId,
    "f"
);
id_type!(
    /// A fixed sequence of links ending at an endpoint.
    RouteId,
    "r"
);
id_type!(
    /// An endpoint (the sending or receiving half of a flow, or a traffic generator).
    EndpointId,
    "e"
);
id_type!(
    /// A group of flows declared together in a scenario.
    GroupId,
    "g"
);
