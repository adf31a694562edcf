//! topology
