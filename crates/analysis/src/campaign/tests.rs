//! Tests of the campaign store and collect.
