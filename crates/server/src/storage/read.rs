//! Reads: consistent reads from the transaction's read view, and locking ("current") reads
//! that lock what they read as InnoDB does.
//!
//! # Consistent reads (`LockMode::None`)
//!
//! Index entries are collected in batches under the index's read lock; each row is then read
//! under its slot mutex at the transaction's view ([`ReadAt`]): its own pending version, else
//! the newest committed version in the view (READ UNCOMMITTED: anyone's pending version).
//! They never wait for a lock.
//!
//! # Locking reads (`Shared` / `Exclusive`; UPDATE and DELETE read with `Exclusive`)
//!
//! The index is walked one entry at a time. For each entry, under the index's read lock, the
//! gap before it is locked (REPEATABLE READ / SERIALIZABLE), then — with no table lock held —
//! the row's record lock is taken (waiting per the [`WaitPolicy`]) and its *latest* version
//! read (re-evaluated by the filter after any wait). Which locks, as InnoDB takes them:
//!
//! | read | REPEATABLE READ, SERIALIZABLE | READ COMMITTED, READ UNCOMMITTED |
//! |---|---|---|
//! | primary key equal, row found | record lock only | record lock |
//! | primary key equal, no row | gap lock where the key would be | nothing |
//! | unique secondary key equal | next-key lock on the row found (none after it); no row: as a prefix | record lock |
//! | equality on a key prefix (non-unique) | next-key lock on each match, gap lock before the first non-match | record locks; non-matching rows unlocked |
//! | range (ascending) | next-key lock on each row, and on the first row past the range (or the gap to +∞) | record locks; the row past the range is locked, then unlocked on the primary key, kept on a secondary index |
//! | range (descending) | gap lock above the range, next-key lock on each row and on the first row below | record locks, and the first row below (kept) |
//!
//! A row the filter rejects keeps its lock in REPEATABLE READ / SERIALIZABLE and is unlocked
//! in READ COMMITTED / READ UNCOMMITTED (unless the transaction changed it). With
//! `ReadLock::semi_consistent` (UPDATE) in READ COMMITTED / READ UNCOMMITTED, a range or full
//! scan of the primary key tests a row locked by another transaction on its newest committed
//! version first: if that does not match, it is skipped without waiting (InnoDB's
//! semi-consistent read; a unique search and a secondary index wait, as in InnoDB).
//!
//! Gap locks are taken under the index map's read lock; inserts check them under its write
//! lock: a gap locked before an insert's check stops it, and an entry inserted before the gap
//! is locked is seen by the reader (it is the gap's end, or a row the reader then locks).

use super::keycode::{self, KeySpec};
use super::lock::{Acquire, Gap, Slot};
use super::table::{Table, TableState};
use super::{KeyRange, LockMode, ReadAt, ReadLock, Row, RowHandle, ScanControl, Txn, WaitPolicy};
use crate::error::{Error, Result};
use crate::types::Value;
use cohort_protocol::ErrorCode;
use std::ops::Bound;
use std::sync::Arc;

/// The statement's predicate, evaluated on the version a read returns.
pub type RowFilter<'a> = &'a mut dyn FnMut(&Row) -> Result<bool>;
/// Receives each row a read returns.
pub type RowSink<'a> = &'a mut dyn FnMut(&RowHandle, &Row) -> Result<ScanControl>;

const SCAN_BATCH_MIN: usize = 8;
const SCAN_BATCH_MAX: usize = 256;
/// A locking scan looks for KILL QUERY once every this many entries.
const KILL_CHECK_EVERY: u32 = 256;

/// A scan's byte range and how to check entries.
struct Plan {
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
    /// Secondary index: the key spec, to accept only the entry of the version read.
    filter_spec: Option<KeySpec>,
    /// An equality on a key prefix (InnoDB's exact-match search).
    exact: bool,
    /// An equality on the whole primary key (a unique search).
    unique: bool,
    /// An equality on every part of a unique secondary index, without NULLs: an exact-match
    /// search that stops at the first row found.
    unique_secondary: bool,
    version: u64,
}

/// What a locking read does with the entry it is at.
enum Next {
    /// An entry in the range.
    Row(Vec<u8>, Arc<Slot>),
    /// The first entry past the range.
    Past(Arc<Slot>),
    /// No entry past the range.
    End,
}

impl Table {
    /// Point read by primary key (all primary key values).
    pub fn get(
        &self,
        txn: &mut Txn,
        key: &[Value],
        lock: impl Into<ReadLock>,
    ) -> Result<Option<(RowHandle, Row)>> {
        self.get_filtered(txn, key, lock, &mut |_| Ok(true))
    }

    /// Point read by primary key with the statement's filter (see [`Table::scan`]): the path
    /// of point selects and of UPDATE / DELETE by primary key, without the set-up of a range
    /// read.
    pub fn get_filtered(
        &self,
        txn: &mut Txn,
        key: &[Value],
        lock: impl Into<ReadLock>,
        filter: &mut dyn FnMut(&Row) -> Result<bool>,
    ) -> Result<Option<(RowHandle, Row)>> {
        let lone = txn.take_lone_read();
        txn.use_table(self)?;
        let lock = txn.effective_lock(lock.into());
        let (k, version) = {
            let st = self.read_state()?;
            let Some(k) = self.pk_key(&st, key) else {
                return Ok(None);
            };
            if lock.mode == LockMode::None {
                let found = st.primary.read().get(&k).cloned();
                drop(st);
                let Some(slot) = found else {
                    return Ok(None);
                };
                let row = match lone {
                    true => {
                        let state = slot.state.lock();
                        txn.lone_read_published()
                            .and_then(|p| state.latest_published(txn.id(), p))
                            .map(|r| r.cloned())
                    }
                    false => None,
                };
                let row = match row {
                    Some(r) => r,
                    None => {
                        let at = txn.read_at();
                        slot.state.lock().read(txn.id(), at).cloned()
                    }
                };
                return match row {
                    Some(r) if filter(&r)? => Ok(Some((self.handle(&slot), r))),
                    _ => Ok(None),
                };
            }
            (k, self.schema_version())
        };
        match lock.mode {
            LockMode::Exclusive => txn.check_writable()?,
            _ => txn.check_active()?,
        }
        let mut out = None;
        let mut r = LockingRead {
            table: self,
            index: None,
            plan: Plan {
                lo: Bound::Unbounded,
                hi: Bound::Unbounded,
                filter_spec: None,
                exact: true,
                unique: true,
                unique_secondary: false,
                version,
            },
            lock,
            gap: txn.gap_locking(),
            // A unique search waits for the row lock (no semi-consistent read).
            semi: false,
            filter,
            f: &mut |h, row| {
                out = Some((h.clone(), row.clone()));
                Ok(ScanControl::Stop)
            },
        };
        r.unique(txn, &k)?;
        Ok(out)
    }

    /// Scan the primary index in key order. Without a PRIMARY KEY, the order is insertion order
    /// (hidden row id) and range bounds, if any, are row ids.
    pub fn scan_primary(
        &self,
        txn: &mut Txn,
        range: &KeyRange,
        lock: impl Into<ReadLock>,
        f: RowSink<'_>,
    ) -> Result<()> {
        self.scan(txn, None, range, false, lock.into(), &mut |_| Ok(true), f)
    }

    /// Scan secondary index `index` (position in `def.indexes`) in index order. A row comes
    /// through the entry of the version the reader sees (entries of its other versions are
    /// skipped), so only if that version's key is in the range. With an index prefix length
    /// (`KEY (c(10))`) the range applies to the prefix: re-check the predicate.
    pub fn scan_index(
        &self,
        txn: &mut Txn,
        index: usize,
        range: &KeyRange,
        lock: impl Into<ReadLock>,
        f: RowSink<'_>,
    ) -> Result<()> {
        self.scan(
            txn,
            Some(index),
            range,
            false,
            lock.into(),
            &mut |_| Ok(true),
            f,
        )
    }

    /// Like `scan_primary` (`index` None) / `scan_index` (`Some(i)`), in descending key order
    /// (`ORDER BY … DESC`).
    pub fn scan_backward(
        &self,
        txn: &mut Txn,
        index: Option<usize>,
        range: &KeyRange,
        lock: impl Into<ReadLock>,
        f: RowSink<'_>,
    ) -> Result<()> {
        self.scan(txn, index, range, true, lock.into(), &mut |_| Ok(true), f)
    }

    /// The general read: index `index` (None: primary) over `range`, ascending or not. Rows
    /// the `filter` rejects are not passed to `f` (and, in READ COMMITTED, not kept locked).
    /// See the module doc for what a locking read locks.
    #[allow(clippy::too_many_arguments)]
    pub fn scan(
        &self,
        txn: &mut Txn,
        index: Option<usize>,
        range: &KeyRange,
        reverse: bool,
        lock: impl Into<ReadLock>,
        filter: &mut dyn FnMut(&Row) -> Result<bool>,
        f: RowSink<'_>,
    ) -> Result<()> {
        txn.take_lone_read();
        txn.use_table(self)?;
        let lock = txn.effective_lock(lock.into());
        let plan = self.plan(index, range)?;
        match lock.mode {
            LockMode::None => return self.scan_consistent(txn, index, plan, reverse, filter, f),
            // FOR UPDATE is a write intent: refused in a read-only transaction (1792).
            LockMode::Exclusive => txn.check_writable()?,
            LockMode::Shared => txn.check_active()?,
        }
        // InnoDB reads semi-consistently only in a range or full scan of the clustered index
        // (not in a unique search, not through a secondary index).
        let semi = lock.semi_consistent
            && lock.mode == LockMode::Exclusive
            && !txn.gap_locking()
            && index.is_none()
            && !plan.unique;
        let mut r = LockingRead {
            table: self,
            index,
            plan,
            lock,
            gap: txn.gap_locking(),
            semi,
            filter,
            f,
        };
        if let (true, Bound::Included(k)) = (r.plan.unique, r.plan.lo.clone()) {
            r.unique(txn, &k)
        } else if reverse {
            r.backward(txn)
        } else {
            r.forward(txn)
        }
    }

    fn encode_bound(
        &self,
        st: &TableState,
        spec: Option<&KeySpec>,
        b: &Bound<Vec<Value>>,
    ) -> Bound<Vec<u8>> {
        let enc = |vals: &Vec<Value>| -> Vec<u8> {
            match spec {
                Some(spec) => {
                    let mut out = Vec::new();
                    spec.encode_values(vals, &mut out);
                    out
                }
                None => self
                    .pk_key(st, &vals[..vals.len().min(1)])
                    .unwrap_or_default(),
            }
        };
        match b {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(v) if v.is_empty() => Bound::Unbounded,
            Bound::Excluded(v) if v.is_empty() => Bound::Unbounded,
            Bound::Included(v) => Bound::Included(enc(v)),
            Bound::Excluded(v) => Bound::Excluded(enc(v)),
        }
    }

    fn plan(&self, index: Option<usize>, range: &KeyRange) -> Result<Plan> {
        let st = self.read_state()?;
        let (spec, unique_index) = match index {
            Some(i) => match st.secondary.get(i) {
                Some(idx) => (Some(idx.spec.clone()), idx.unique),
                None => return Err(Error::internal(format!("no index {i} on {}", self.name()))),
            },
            None => (st.pk.clone(), st.pk.is_some()),
        };
        let (lo, hi) = keycode::byte_bounds(
            self.encode_bound(&st, spec.as_ref(), &range.start),
            self.encode_bound(&st, spec.as_ref(), &range.end),
        );
        let point = match (&range.start, &range.end) {
            (Bound::Included(a), Bound::Included(b)) if a == b && !a.is_empty() => Some(a),
            _ => None,
        };
        let exact = point.is_some();
        let unique_key = point.is_some_and(|vals| {
            unique_index
                && spec.as_ref().is_some_and(|s| s.cols.len() == vals.len())
                && vals.iter().all(|v| !v.is_null())
        });
        let unique = unique_key && index.is_none();
        let unique_secondary = unique_key && index.is_some();
        let filter_spec = if index.is_some() { spec } else { None };
        Ok(Plan {
            lo,
            hi,
            filter_spec,
            exact,
            unique,
            unique_secondary,
            version: self.schema_version(),
        })
    }

    fn check_version(&self, plan: &Plan, index: Option<usize>) -> Result<()> {
        if index.is_some() && self.schema_version() != plan.version {
            return Err(Error::new(
                ErrorCode::Unknown,
                "Table definition has changed, please retry transaction",
            ));
        }
        Ok(())
    }

    fn scan_consistent(
        &self,
        txn: &mut Txn,
        index: Option<usize>,
        plan: Plan,
        reverse: bool,
        filter: &mut dyn FnMut(&Row) -> Result<bool>,
        f: RowSink<'_>,
    ) -> Result<()> {
        let at = txn.read_at();
        let me = txn.id();
        let mut lo = plan.lo.clone();
        let mut hi = plan.hi.clone();
        // Only a secondary index needs each entry's key (to accept the entry of the version
        // read); the primary key's batch copies just the last key, where the next batch starts.
        let need_keys = plan.filter_spec.is_some();
        let mut batch_size = SCAN_BATCH_MIN;
        let mut batch: Vec<(Option<Vec<u8>>, Arc<Slot>)> = Vec::new();
        loop {
            // KILL QUERY ends a long scan between batches (at most 256 rows apart).
            crate::interrupt::check()?;
            let last = {
                let st = self.read_state()?;
                self.check_version(&plan, index)?;
                if keycode::range_is_empty(&lo, &hi) {
                    return Ok(());
                }
                let (map, _) = st.index(index);
                let map = map.read();
                let range = map.range((lo.clone(), hi.clone()));
                batch.clear();
                if reverse {
                    collect_batch(range.rev(), batch_size, need_keys, &mut batch)
                } else {
                    collect_batch(range, batch_size, need_keys, &mut batch)
                }
            };
            let more = batch.len() == batch_size;
            if let Some(k) = last {
                if reverse {
                    hi = Bound::Excluded(k);
                } else {
                    lo = Bound::Excluded(k);
                }
            }
            for (k, slot) in batch.drain(..) {
                let row = slot.state.lock().read(me, at).cloned();
                let Some(row) = row else { continue };
                let entry_ok = k.is_none_or(|k| entry_matches(&plan.filter_spec, &k, &slot, &row));
                if !entry_ok || !filter(&row)? {
                    continue;
                }
                if f(&self.handle(&slot), &row)? == ScanControl::Stop {
                    return Ok(());
                }
            }
            if !more {
                return Ok(());
            }
            batch_size = (batch_size * 2).min(SCAN_BATCH_MAX);
        }
    }

    /// Every committed row in primary-key order, for a fuzzy checkpoint: never blocks on row
    /// locks and never sees uncommitted data (the newest committed version of each row).
    pub fn scan_committed(&self, f: &mut dyn FnMut(&Row) -> Result<ScanControl>) -> Result<()> {
        let mut lo: Bound<Vec<u8>> = Bound::Unbounded;
        loop {
            let batch: Vec<(Vec<u8>, Arc<Slot>)> = {
                let st = self.read_state()?;
                let map = st.primary.read();
                map.range((lo.clone(), Bound::Unbounded))
                    .take(SCAN_BATCH_MAX)
                    .map(|(k, s)| (k.clone(), s.clone()))
                    .collect()
            };
            let more = batch.len() == SCAN_BATCH_MAX;
            if let Some((k, _)) = batch.last() {
                lo = Bound::Excluded(k.clone());
            }
            for (_, slot) in batch {
                let row = slot.state.lock().latest.clone();
                if let Some(row) = row {
                    if f(&row)? == ScanControl::Stop {
                        return Ok(());
                    }
                }
            }
            if !more {
                return Ok(());
            }
        }
    }
}

/// Up to `n` entries of `range` into `out` (their keys too if `keys`); the last key taken.
fn collect_batch<'m>(
    range: impl Iterator<Item = (&'m Vec<u8>, &'m Arc<Slot>)>,
    n: usize,
    keys: bool,
    out: &mut Vec<(Option<Vec<u8>>, Arc<Slot>)>,
) -> Option<Vec<u8>> {
    let mut last = None;
    for (k, s) in range.take(n) {
        out.push((keys.then(|| k.clone()), s.clone()));
        last = Some(k);
    }
    last.cloned()
}

/// A secondary entry is the row's only if the version read has the entry's key.
fn entry_matches(spec: &Option<KeySpec>, entry: &[u8], slot: &Slot, row: &Row) -> bool {
    match spec {
        Some(spec) => ENTRY_KEY.with_borrow_mut(|k| {
            k.clear();
            spec.encode_row(row, k);
            entry.len() == k.len() + slot.key.len()
                && entry.starts_with(k)
                && entry[k.len()..] == slot.key[..]
        }),
        None => true,
    }
}

thread_local! {
    /// The key [`entry_matches`] encodes, reused so a secondary index scan does not allocate
    /// per row.
    static ENTRY_KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn in_upper(hi: &Bound<Vec<u8>>, k: &[u8]) -> bool {
    match hi {
        Bound::Unbounded => true,
        Bound::Included(h) => k <= &h[..],
        Bound::Excluded(h) => k < &h[..],
    }
}

fn in_lower(lo: &Bound<Vec<u8>>, k: &[u8]) -> bool {
    match lo {
        Bound::Unbounded => true,
        Bound::Included(l) => k >= &l[..],
        Bound::Excluded(l) => k > &l[..],
    }
}

fn boxed(k: &[u8]) -> Option<Box<[u8]>> {
    Some(k.to_vec().into_boxed_slice())
}

/// One locking read in progress.
struct LockingRead<'a, 'b> {
    table: &'a Table,
    index: Option<usize>,
    plan: Plan,
    lock: ReadLock,
    /// Next-key and gap locks (REPEATABLE READ, SERIALIZABLE).
    gap: bool,
    /// Semi-consistent read (UPDATE in READ COMMITTED / READ UNCOMMITTED).
    semi: bool,
    filter: &'b mut dyn FnMut(&Row) -> Result<bool>,
    f: RowSink<'b>,
}

/// What happened to one row.
enum Visit {
    /// Passed on (or skipped); go on.
    Next,
    /// The callback asked to stop.
    Stop,
    /// The slot left the index: look at the same position again.
    Again,
}

impl LockingRead<'_, '_> {
    /// Under the index's read lock: lock `gap` for the txn.
    fn lock_gap(&self, txn: &mut Txn, gaps: &Arc<super::lock::GapLocks>, gap: Gap) {
        gaps.lock(txn.id(), gap);
        txn.note_gap(gaps);
    }

    /// The key of the entry just below `k` in `map`.
    fn pred(map: &std::collections::BTreeMap<Vec<u8>, Arc<Slot>>, k: &[u8]) -> Option<Box<[u8]>> {
        map.range::<[u8], _>((Bound::Unbounded, Bound::Excluded(k)))
            .next_back()
            .map(|(k, _)| k.clone().into_boxed_slice())
    }

    /// Ascending: see the module doc.
    fn forward(&mut self, txn: &mut Txn) -> Result<()> {
        let mut cursor = self.plan.lo.clone();
        let mut last: Option<Vec<u8>> = None;
        let mut steps = 0u32;
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(KILL_CHECK_EVERY) {
                crate::interrupt::check()?;
            }
            let next = {
                let st = self.table.read_state()?;
                self.table.check_version(&self.plan, self.index)?;
                let (map, gaps) = st.index(self.index);
                let map = map.read();
                let found = map
                    .range((cursor.clone(), Bound::Unbounded))
                    .next()
                    .map(|(k, s)| (k.clone(), s.clone()));
                let lo = |k: &[u8]| match &last {
                    Some(l) => boxed(l),
                    None => Self::pred(&map, k),
                };
                match found {
                    None => {
                        if self.gap {
                            // Past the last entry: the gap up to +infinity (the supremum).
                            let g = Gap {
                                lo: map.keys().next_back().and_then(|k| boxed(k)),
                                hi: None,
                            };
                            self.lock_gap(txn, gaps, g);
                        }
                        Next::End
                    }
                    Some((k, s)) => {
                        if self.gap {
                            let g = Gap {
                                lo: lo(&k),
                                hi: boxed(&k),
                            };
                            self.lock_gap(txn, gaps, g);
                        }
                        if in_upper(&self.plan.hi, &k) {
                            Next::Row(k, s)
                        } else {
                            Next::Past(s)
                        }
                    }
                }
            };
            match next {
                Next::End => return Ok(()),
                Next::Past(slot) => return self.past_end(txn, &slot),
                Next::Row(k, slot) => match self.visit(txn, &k, &slot)? {
                    Visit::Stop => return Ok(()),
                    Visit::Again => continue,
                    Visit::Next if self.plan.unique_secondary && self.live(txn, &k, &slot) => {
                        // A unique key found: nothing after it can match.
                        return Ok(());
                    }
                    Visit::Next => {
                        cursor = Bound::Excluded(k.clone());
                        last = Some(k);
                    }
                },
            }
        }
    }

    /// The first entry past an ascending range: REPEATABLE READ locks it (next-key) for a
    /// range, only its gap (already locked) for an equality. READ COMMITTED locks it for a
    /// range too, and lets it go if the range is on the primary key (a secondary range keeps
    /// it locked, as InnoDB does).
    fn past_end(&mut self, txn: &mut Txn, slot: &Arc<Slot>) -> Result<()> {
        if self.plan.exact {
            return Ok(());
        }
        let r = self
            .table
            .lock_blocking(txn, slot, self.lock.mode, self.lock.wait)?;
        if !self.gap && self.index.is_none() && r == (Acquire::Granted { newly: true }) {
            txn.unlock_unkept(slot);
        }
        Ok(())
    }

    /// Does the txn hold `slot` locked with a version matching the entry `k`?
    fn live(&self, txn: &Txn, k: &[u8], slot: &Arc<Slot>) -> bool {
        let s = slot.state.lock();
        s.holds_any(txn.id())
            && s.read(txn.id(), ReadAt::Latest)
                .is_some_and(|r| entry_matches(&self.plan.filter_spec, k, slot, r))
    }

    /// Lock one row in the range, read its latest version, filter it, pass it on.
    fn visit(&mut self, txn: &mut Txn, k: &[u8], slot: &Arc<Slot>) -> Result<Visit> {
        let me = txn.id();
        if self.semi && self.lock.wait == WaitPolicy::Wait {
            let committed = {
                let s = slot.state.lock();
                s.locked_by_other(me).then(|| s.latest.clone())
            };
            if let Some(committed) = committed {
                // Locked by another: skip it without waiting unless its committed version
                // matches.
                let Some(c) = committed else {
                    return Ok(Visit::Next);
                };
                if !entry_matches(&self.plan.filter_spec, k, slot, &c) || !(self.filter)(&c)? {
                    return Ok(Visit::Next);
                }
            }
        }
        match self
            .table
            .lock_blocking(txn, slot, self.lock.mode, self.lock.wait)?
        {
            Acquire::Removed => return Ok(Visit::Again),
            Acquire::Skipped => return Ok(Visit::Next),
            Acquire::Granted { .. } => {}
        }
        let row = slot.state.lock().read(me, ReadAt::Latest).cloned();
        let Some(row) = row else {
            return Ok(Visit::Next);
        };
        if !entry_matches(&self.plan.filter_spec, k, slot, &row) {
            return Ok(Visit::Next);
        }
        if !(self.filter)(&row)? {
            if !self.gap {
                txn.unlock_unkept(slot);
            }
            return Ok(Visit::Next);
        }
        if (self.f)(&self.table.handle(slot), &row)? == ScanControl::Stop {
            return Ok(Visit::Stop);
        }
        Ok(Visit::Next)
    }

    /// Descending: see the module doc.
    fn backward(&mut self, txn: &mut Txn) -> Result<()> {
        let mut cursor = self.plan.hi.clone();
        let mut first = true;
        let mut steps = 0u32;
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(KILL_CHECK_EVERY) {
                crate::interrupt::check()?;
            }
            let next = {
                let st = self.table.read_state()?;
                self.table.check_version(&self.plan, self.index)?;
                let (map, gaps) = st.index(self.index);
                let map = map.read();
                let found = map
                    .range((Bound::Unbounded, cursor.clone()))
                    .next_back()
                    .map(|(k, s)| (k.clone(), s.clone()));
                if first && self.gap {
                    // The gap above the range (between its highest entry and the next one).
                    let above = match &found {
                        Some((k, _)) => map
                            .range::<[u8], _>((Bound::Excluded(&k[..]), Bound::Unbounded))
                            .next()
                            .map(|(k, _)| k.clone()),
                        None => map
                            .range((cursor_start(&self.plan.hi), Bound::Unbounded))
                            .next()
                            .map(|(k, _)| k.clone()),
                    };
                    let g = Gap {
                        lo: found.as_ref().map(|(k, _)| k.clone().into_boxed_slice()),
                        hi: above.map(Vec::into_boxed_slice),
                    };
                    self.lock_gap(txn, gaps, g);
                }
                first = false;
                match found {
                    None => Next::End,
                    Some((k, s)) => {
                        if self.gap {
                            let g = Gap {
                                lo: Self::pred(&map, &k),
                                hi: boxed(&k),
                            };
                            self.lock_gap(txn, gaps, g);
                        }
                        if in_lower(&self.plan.lo, &k) {
                            Next::Row(k, s)
                        } else {
                            Next::Past(s)
                        }
                    }
                }
            };
            match next {
                Next::End => return Ok(()),
                Next::Past(slot) => {
                    // The first row below the range: locked (and kept) at every level.
                    self.table
                        .lock_blocking(txn, &slot, self.lock.mode, self.lock.wait)?;
                    return Ok(());
                }
                Next::Row(k, slot) => match self.visit(txn, &k, &slot)? {
                    Visit::Stop => return Ok(()),
                    Visit::Again => continue,
                    Visit::Next => cursor = Bound::Excluded(k),
                },
            }
        }
    }

    /// A unique search by the whole primary key `key`: at most one row. Found: record lock
    /// only. Not found (or only a deleted version): the gap where the key would be
    /// (REPEATABLE READ / SERIALIZABLE).
    fn unique(&mut self, txn: &mut Txn, key: &[u8]) -> Result<()> {
        loop {
            let found = {
                let st = self.table.read_state()?;
                let map = st.primary.read();
                match map.get(key) {
                    Some(s) => Some(s.clone()),
                    None => {
                        if self.gap {
                            self.lock_gap(txn, &st.primary_gaps, gap_around(&map, key));
                        }
                        None
                    }
                }
            };
            let Some(slot) = found else {
                return Ok(());
            };
            match self.visit(txn, key, &slot)? {
                Visit::Again => continue,
                Visit::Stop => return Ok(()),
                Visit::Next => {}
            }
            if self.gap && !self.live(txn, key, &slot) {
                // Only a deleted version holds the key: lock the gap around it too.
                let st = self.table.read_state()?;
                let map = st.primary.read();
                self.lock_gap(txn, &st.primary_gaps, gap_around(&map, key));
            }
            return Ok(());
        }
    }
}

/// The gap around `key`: from the entry below it to the entry above it.
fn gap_around(map: &std::collections::BTreeMap<Vec<u8>, Arc<Slot>>, key: &[u8]) -> Gap {
    let below = map
        .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(key)))
        .next_back()
        .map(|(k, _)| k.clone().into_boxed_slice());
    let above = map
        .range::<[u8], _>((Bound::Excluded(key), Bound::Unbounded))
        .next()
        .map(|(k, _)| k.clone().into_boxed_slice());
    Gap {
        lo: below,
        hi: above,
    }
}

/// The lower bound where the entries above an upper bound start.
fn cursor_start(hi: &Bound<Vec<u8>>) -> Bound<Vec<u8>> {
    match hi {
        Bound::Unbounded => Bound::Excluded(vec![0xFF; 64]),
        Bound::Included(k) => Bound::Excluded(k.clone()),
        Bound::Excluded(k) => Bound::Included(k.clone()),
    }
}
