//! The SQL fuzzer: grammar-aware statements against a `cohort serve` child process.
//!
//! * [`grammar`]: statements over the whole SQL surface, from a schema model;
//! * [`expr`] and [`values`]: expressions with every operator and function, hostile
//!   literals and binary parameters;
//! * [`action`]: how an action goes over the wire, and how it is printed;
//! * [`session`]: the oracle — runs actions on a server and judges what happens;
//! * [`repro`]: replays on fresh servers and minimises a finding;
//! * [`driver`]: the loop (batches, restarts, epochs, findings).

pub mod action;
pub mod driver;
pub mod expr;
pub mod grammar;
pub mod repro;
pub mod session;
pub mod values;
