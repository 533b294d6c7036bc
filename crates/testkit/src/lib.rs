//! What Cohort's seeded test tools (`cohort-fuzz`, `cohort-difftest`) share.
//!
//! * [`rng`]: the one random generator, so a seed means the same stream in every tool and in
//!   every build.

pub mod rng;
