//! `cohort bench`: arrives with its own issue.
