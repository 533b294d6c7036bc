//! Scheduling: who gets a CPU — connection threads, the admission gate around engine work.

pub mod admission;
