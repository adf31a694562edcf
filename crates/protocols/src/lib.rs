//! # protocols: netsim's host and link algorithms
//!
//! ## Layers
//! - [`link`]: link algorithms (queue disciplines, markers, rate and price
//!   computers), each implementing `sim_core::LinkAlgorithm`, registered in
//!   [`link::LinkAlgoConfig`].
//! - [`cc`]: congestion controllers (`sim_core::Controller`): the arithmetic only.
//! - [`transport`]: endpoints that carry data: the reliable window transport and
//!   its receiver, generic over a controller.
//! - [`pcc`]: Probabilistic Congestion Control's decision logic for
//!   non-adaptable on/off flows.
//! - [`traffic`]: traffic models: how much a sender has to send and when, and
//!   non-adaptive sources (CBR, Poisson).
//!
//! One algorithm per file; each file opens with its provenance (paper, section,
//! equations, and every `INFERRED:` gap-filling choice).
#![forbid(unsafe_code)]

pub mod cc;
pub mod link;
pub mod pcc;
pub mod tfrc;
pub mod traffic;
pub mod transport;
