//! Replaying and minimising a SQL finding.
//!
//! A replay runs a list of actions on a *fresh* server (new data directory, same flags as
//! the live run) through the same [`Session`] oracle, and succeeds when it reports a finding
//! with the same key. Server startup takes tens of milliseconds, so every attempt can afford
//! a fresh server, which makes replays independent of each other.
//!
//! Minimising, each step within the shrink budget:
//! 1. the failing action alone; else the whole history since the data directory was created
//!    (if that does not fail either, the finding is reported as not reproduced);
//! 2. drop actions ([`shrink_seq`]);
//! 3. shrink each remaining action's statement tree, last action first ([`shrink_tree`]),
//!    and simplify prepared statements (no long data, one execute, NULL parameters).

use super::action::Action;
use super::session::Session;
use crate::oracle::Finding;
use crate::server::ServerSpec;
use crate::shrink::{shrink_seq, shrink_tree, Budget};
use std::path::PathBuf;
use std::time::Duration;

pub struct Replayer {
    pub spec: ServerSpec,
    pub port: u16,
    pub dir: PathBuf,
    pub timeout: Duration,
    pub max_rss_mb: u64,
    pub verbose: bool,
    pub replays: u64,
}

/// The outcome of minimising.
pub struct Minimised {
    pub actions: Vec<Action>,
    pub reproduced: bool,
    pub replays: u64,
}

impl Replayer {
    /// Runs `actions` on a fresh server; true if it reports a finding with `want`'s key.
    pub fn fails(&mut self, actions: &[Action], want: &Finding) -> bool {
        self.replays += 1;
        let datadir = self.dir.join("replay-data");
        let log = self.dir.join("replay.log");
        let _ = std::fs::remove_file(&log);
        let mut session = match Session::start(
            self.spec.clone(),
            self.port,
            &datadir,
            &log,
            self.timeout,
            self.max_rss_mb,
        ) {
            Ok(s) => s,
            Err(f) => return f.key() == want.key(),
        };
        let mut found = None;
        for a in actions {
            if let Err(f) = session.step(a) {
                found = Some(f);
                break;
            }
        }
        if found.is_none() {
            found = session.liveness().err();
        }
        session.stop();
        let _ = std::fs::remove_dir_all(&datadir);
        if self.verbose {
            eprintln!(
                "  replay #{} ({} actions): {}",
                self.replays,
                actions.len(),
                found
                    .as_ref()
                    .map(Finding::key)
                    .unwrap_or_else(|| "no finding".into())
            );
        }
        found.is_some_and(|f| f.key() == want.key())
    }

    /// Minimises `history` (whose last action produced `want`).
    pub fn minimise(
        &mut self,
        history: &[Action],
        want: &Finding,
        budget: &mut Budget,
    ) -> Minimised {
        let start = self.replays;
        let last = history.last().cloned().into_iter().collect::<Vec<_>>();
        let mut actions = if self.fails(&last, want) {
            last
        } else if self.fails(history, want) {
            history.to_vec()
        } else {
            return Minimised {
                actions: history.to_vec(),
                reproduced: false,
                replays: self.replays - start,
            };
        };
        actions = shrink_seq(actions, budget, |c| !c.is_empty() && self.fails(c, want));
        for i in (0..actions.len()).rev() {
            actions = self.shrink_action(actions, i, want, budget);
        }
        Minimised {
            actions,
            reproduced: true,
            replays: self.replays - start,
        }
    }

    fn shrink_action(
        &mut self,
        mut actions: Vec<Action>,
        i: usize,
        want: &Finding,
        budget: &mut Budget,
    ) -> Vec<Action> {
        let with = |actions: &[Action], a: Action| {
            let mut v = actions.to_vec();
            v[i] = a;
            v
        };
        match actions[i].clone() {
            Action::Query(n) => {
                let n = shrink_tree(n, budget, |c| {
                    self.fails(&with(&actions, Action::Query(c.clone())), want)
                });
                actions[i] = Action::Query(n);
            }
            Action::AsUser(n) => {
                let n = shrink_tree(n, budget, |c| {
                    self.fails(&with(&actions, Action::AsUser(c.clone())), want)
                });
                actions[i] = Action::AsUser(n);
            }
            Action::Prepared(mut p) => {
                let mut progress = true;
                while progress && !budget.spent() {
                    progress = false;
                    for simpler in p.simpler() {
                        if !budget.take() {
                            break;
                        }
                        if self.fails(&with(&actions, Action::Prepared(simpler.clone())), want) {
                            p = simpler;
                            progress = true;
                            break;
                        }
                    }
                }
                let sql = shrink_tree(p.sql.clone(), budget, |c| {
                    let mut q = p.clone();
                    q.sql = c.clone();
                    self.fails(&with(&actions, Action::Prepared(q)), want)
                });
                p.sql = sql;
                actions[i] = Action::Prepared(p);
            }
            Action::Restart { .. } => {}
        }
        actions
    }
}
