//! GROUP_CONCAT's running state: the values of a group (as text) with their ORDER BY keys,
//! sorted when the group is finished and joined with the separator, cut at
//! `group_concat_max_len` (MariaDB's default, 1 MiB).

use crate::sql::bind::group_concat::ConcatClauses;
use crate::sql::expr::compare;
use crate::types::Value;
use std::cmp::Ordering;

/// MariaDB 10.11's default `group_concat_max_len`.
pub const MAX_LEN: usize = 1 << 20;

#[derive(Default)]
pub struct ConcatAcc {
    /// (ORDER BY keys, the value's text), in the order the rows came.
    items: Vec<(Vec<Value>, Vec<u8>)>,
    /// Bytes of text held (without ORDER BY, nothing past the limit is kept).
    len: usize,
}

impl ConcatAcc {
    pub fn push(&mut self, clauses: &ConcatClauses, keys: Vec<Value>, text: Vec<u8>) {
        if clauses.order.is_empty() && self.len > MAX_LEN {
            return;
        }
        self.len += text.len() + clauses.separator.len();
        self.items.push((keys, text));
    }

    pub fn finish(mut self, clauses: &ConcatClauses) -> Option<Vec<u8>> {
        if self.items.is_empty() {
            return None;
        }
        if !clauses.order.is_empty() {
            self.items.sort_by(|(a, _), (b, _)| {
                for ((x, y), o) in a.iter().zip(b).zip(&clauses.order) {
                    let c = compare::sort_cmp(x, y, o.coll);
                    if c != Ordering::Equal {
                        return if o.desc { c.reverse() } else { c };
                    }
                }
                Ordering::Equal
            });
        }
        let mut out = Vec::new();
        for (i, (_, text)) in self.items.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&clauses.separator);
            }
            out.extend_from_slice(text);
            if out.len() >= MAX_LEN {
                out.truncate(MAX_LEN);
                break;
            }
        }
        Some(out)
    }
}
