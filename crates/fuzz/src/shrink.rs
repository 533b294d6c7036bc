//! Minimising a failing input, within a budget.
//!
//! Every shrinker here is greedy: try a smaller variant, keep it if the failure persists
//! (the caller's predicate), repeat until no variant fails or the [`Budget`] runs out. The
//! result is always a failing input — at worst the original.
//!
//! * [`shrink_seq`]: drop elements of a sequence (statements, packets), in chunks from
//!   halves down to single elements (a simplified delta debugging).
//! * [`shrink_tree`]: the structural edits of [`crate::tree::Node`] (drop clauses, replace
//!   expressions by sub-expressions, fewer nesting levels, shorter literals), node by node
//!   in pre-order.
//! * [`shrink_bytes`]: drop byte ranges, then zero bytes, for protocol packets.

use crate::tree::{chunk_edits, Node};
use std::time::{Duration, Instant};

/// How much shrinking may cost: a deadline and a number of attempts.
#[derive(Clone, Debug)]
pub struct Budget {
    deadline: Instant,
    tries_left: u64,
    pub tries: u64,
}

impl Budget {
    pub fn new(time: Duration, tries: u64) -> Budget {
        Budget {
            deadline: Instant::now() + time,
            tries_left: tries,
            tries: 0,
        }
    }

    /// Takes one attempt; false when the budget is spent.
    pub fn take(&mut self) -> bool {
        if self.tries_left == 0 || Instant::now() >= self.deadline {
            return false;
        }
        self.tries_left -= 1;
        self.tries += 1;
        true
    }

    pub fn spent(&self) -> bool {
        self.tries_left == 0 || Instant::now() >= self.deadline
    }
}

/// Drops elements while `fails` still holds.
pub fn shrink_seq<T: Clone>(
    mut items: Vec<T>,
    budget: &mut Budget,
    mut fails: impl FnMut(&[T]) -> bool,
) -> Vec<T> {
    'again: loop {
        for (start, len) in chunk_edits(items.len(), 0) {
            if !budget.take() {
                return items;
            }
            let mut candidate = items[..start].to_vec();
            candidate.extend_from_slice(&items[start + len..]);
            if fails(&candidate) {
                items = candidate;
                continue 'again;
            }
        }
        return items;
    }
}

/// Applies structural edits while `fails` still holds.
///
/// After a successful edit the same node is tried again from the same edit number, not from
/// its largest edit: for a list that fails above some length (the recursion-depth class),
/// restarting at "drop half" would re-try every larger chunk after each success.
pub fn shrink_tree(
    mut tree: Node,
    budget: &mut Budget,
    mut fails: impl FnMut(&Node) -> bool,
) -> Node {
    let mut i = 0;
    let mut first_edit = 0;
    loop {
        let paths = tree.paths();
        let Some(path) = paths.get(i) else {
            return tree;
        };
        let node = tree.at(path).expect("path from paths()").clone();
        let mut improved = false;
        let count = node.edit_count();
        for k in first_edit.min(count)..count {
            if !budget.take() {
                return tree;
            }
            let Some(edited) = node.edit(k) else { break };
            let candidate = tree.replaced(path, edited);
            if fails(&candidate) {
                tree = candidate;
                improved = true;
                first_edit = k;
                break;
            }
        }
        if !improved {
            if first_edit > 0 {
                // Edits before the resume point may have become possible: one more pass.
                first_edit = 0;
                continue;
            }
            i += 1;
        }
    }
}

/// Drops byte ranges, then replaces bytes by zero, while `fails` still holds.
pub fn shrink_bytes(
    bytes: Vec<u8>,
    budget: &mut Budget,
    mut fails: impl FnMut(&[u8]) -> bool,
) -> Vec<u8> {
    let mut bytes = shrink_seq(bytes, budget, &mut fails);
    let mut i = 0;
    while i < bytes.len() && !budget.spent() {
        if bytes[i] != 0 && budget.take() {
            let mut candidate = bytes.clone();
            candidate[i] = 0;
            if fails(&candidate) {
                bytes = candidate;
            }
        }
        i += 1;
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{expr, list, num, seq, tok};

    fn budget() -> Budget {
        Budget::new(Duration::from_secs(10), 100_000)
    }

    #[test]
    fn sequence_shrinks_to_the_culprits() {
        let items: Vec<u32> = (0..100).collect();
        let out = shrink_seq(items, &mut budget(), |s| s.contains(&17) && s.contains(&90));
        assert_eq!(out, vec![17, 90]);
    }

    #[test]
    fn tree_shrinks_to_the_failing_core() {
        // "fails" while the statement still contains a term 777 and at least 3 terms.
        let terms: Vec<Node> = (0..1000)
            .map(|i| {
                expr(num(if i == 500 {
                    "777".into()
                } else {
                    i.to_string()
                }))
            })
            .collect();
        let tree = seq(vec![tok("SELECT"), expr(list(terms, "+", 1))]);
        let fails = |n: &Node| {
            let t = String::from_utf8(n.render()).unwrap();
            t.contains("777") && t.matches('+').count() >= 2
        };
        let out = shrink_tree(tree, &mut budget(), fails);
        let text = String::from_utf8(out.render()).unwrap();
        assert!(text.contains("777"), "{text}");
        assert_eq!(text.matches('+').count(), 2, "{text}");
    }

    #[test]
    fn bytes_shrink_and_zero() {
        let input = b"xxxxxxAByyyyyy".to_vec();
        let out = shrink_bytes(input, &mut budget(), |b| b.windows(2).any(|w| w == b"AB"));
        assert_eq!(out, b"AB");
    }

    #[test]
    fn budget_bounds_the_work() {
        let mut b = Budget::new(Duration::from_secs(10), 5);
        let mut calls = 0;
        shrink_seq((0..100).collect::<Vec<u32>>(), &mut b, |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 5);
    }
}
