//! Multi-versioning: commit sequence numbers, read views, the registry of transaction slots,
//! and purge of the versions no view can see any more.
//!
//! # Commit order is visibility order
//!
//! Every engine commit takes the next [`CommitSeq`] under `Mvcc::commit` (a mutex held only
//! while one transaction installs its versions), stamps each version it installs with it, and
//! only then raises `published` to it. A [`ReadView`] is a value of `published`: it sees a
//! committed version iff its seq is `<= view.upto`. Because `published` moves past `n` only
//! after every version of commits `1..=n` is installed, a view that sees commit `n` sees every
//! commit before it. The commit pipeline calls `Engine::commit` in log order, one transaction
//! at a time (see `crate::log`), so seq order = engine commit order = log order, whatever
//! the commit mode and whoever commits (leader or chained member).
//!
//! # Which versions are kept
//!
//! A version `v[i]` (older than the newest `v[0]` of a row) is visible to the views `V` with
//! `seq(v[i]) <= V < seq(v[i-1])`. It is kept iff such a `V` may exist. Which views exist is
//! known from a [`Horizon`]: `published` as read before a scan of every slot's view, and the
//! views found below it. A view taken after that scan is `>= horizon.published` (see
//! [`TxnSlot::take_view`]), so every version visible at or after `horizon.published` is kept,
//! and below it only those some listed view sees. Committers prune a row's chain when they
//! install a new version (so a row written often keeps few versions even under a long-running
//! snapshot); the purge thread prunes rows that are not written again, in commit order, once
//! no view older than their last commit remains ([`Mvcc::purge_round`]).
//!
//! # Commits with no open view
//!
//! Most OLTP writes run while no read view is open (autocommit UPDATEs are current reads).
//! Then nobody can see the version a commit supersedes, and queueing the row for the purge
//! thread only costs a second pass over it. So a commit of at most [`NO_VIEW_COMMIT_MAX`] rows,
//! under `Mvcc::commit`, raises `installing` to its seq `s` and then sums `open_views`; if
//! the sum is 0 it prunes its rows with [`Horizon::none_before`]`(s)` (dropping every old
//! version) and queues nothing. A view taker first counts itself in `open_views`, then waits
//! while `installing > published`. All of it is SeqCst, so in the one total order either the
//! committer's sum comes after the taker's count (it sees the view and prunes as usual), or
//! the taker's read of `installing` comes after the committer raised it: the taker waits
//! until `s` is published and takes a view `>= s`, which needs nothing the commit dropped.
//! A slot opens and closes on the same stripe, so a stripe never reads 0 while one of its
//! views that counted itself before the read is open. The wait is bounded by the install of
//! at most `NO_VIEW_COMMIT_MAX` rows; larger commits do not raise `installing`.
//!
//! # Lone reads
//!
//! An autocommit point select reads one row and ends its transaction; taking and dropping a
//! registered view around that one read is pure overhead. When the SQL layer says the read is
//! the statement's only one (`Txn::set_lone_read`), the transaction holds no view and reads
//! from views (not READ UNCOMMITTED), the point read loads `published` *under the row's slot
//! mutex* and returns the newest committed version if its seq is `<= published`: exactly
//! what a view taken at that instant would return. Nothing it needs can have been pruned,
//! since pruning never drops the newest committed version. If the newest version's commit is
//! not yet published (installed, `published` not raised yet; a commit with no open view may
//! also have pruned the versions below it), the read takes a view as usual, which waits for
//! such a commit. Commits publish in seq order and `published` only grows, so the version
//! read is consistent with every later read of the session and with commit order; the
//! transaction is never seen with a view (INNODB_TRX shows none), and purge and committers
//! need not know about it: it holds nothing older than the newest version.
//!
//! # Locks, and what protects what
//!
//! | field | protected by |
//! |---|---|
//! | `Mvcc::published` | atomic; written only under `Mvcc::commit` |
//! | `Mvcc::commit` (the last seq handed out) | itself; held across one commit's installs |
//! | `Mvcc::installing` | atomic; raised only under `Mvcc::commit` |
//! | `Mvcc::open_views` | atomic stripes; a slot counts itself while its `view` is set |
//! | `Mvcc::registry` | itself: slots are added at `Engine::register`, dead ones dropped by scans |
//! | `Mvcc::horizon` | RwLock: written by the purge thread, read by committers |
//! | `Mvcc::history` | itself (committers push, the purge thread pops) |
//! | `TxnSlot::view` | atomic; written by the slot's own transaction |
//! | `TxnSlot::wait` | its mutex; the lock code wakes a waiter through it |
//! | `TxnSlot::facts` | its mutex (INNODB_TRX) |

use super::lock::Slot;
use super::table::Table;
use super::{IsolationLevel, TxnId};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime};

/// The position of an engine commit in commit order (= binlog order). 0 is "before any
/// commit": rows loaded by recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommitSeq(pub u64);

/// A consistent read's snapshot: the committed versions of every commit with seq `<= upto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadView {
    upto: CommitSeq,
}

impl ReadView {
    pub fn upto(self) -> CommitSeq {
        self.upto
    }

    /// True if a version committed at `seq` is in this snapshot.
    pub fn sees(self, seq: CommitSeq) -> bool {
        seq <= self.upto
    }
}

/// `TxnSlot::view` when the slot's transaction holds no read view.
const NO_VIEW: u64 = u64::MAX;

/// What INNODB_TRX shows of a transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrxState {
    Running,
    LockWait,
    Committing,
}

impl TrxState {
    pub fn name(&self) -> &'static str {
        match self {
            TrxState::Running => "RUNNING",
            TrxState::LockWait => "LOCK WAIT",
            TrxState::Committing => "COMMITTING",
        }
    }
}

/// One open transaction as `information_schema.INNODB_TRX` lists it.
#[derive(Clone, Debug)]
pub struct TrxRow {
    pub id: TxnId,
    pub state: TrxState,
    pub started: SystemTime,
    /// What the transaction waits for (`trx_requested_lock_id`) and since when.
    pub waiting: Option<(String, SystemTime)>,
    pub thread_id: u32,
    pub query: Option<String>,
    pub isolation: IsolationLevel,
    pub read_only: bool,
    /// An autocommit statement that takes no locks (`trx_autocommit_non_locking`).
    pub autocommit_non_locking: bool,
    pub tables_in_use: u64,
    pub rows_locked: u64,
    pub lock_structs: u64,
    pub rows_modified: u64,
    /// The snapshot, if the transaction holds one.
    pub view: Option<CommitSeq>,
}

/// The facts of the slot's current transaction, for INNODB_TRX.
#[derive(Default)]
pub(crate) struct Facts {
    pub txn: Option<TxnFacts>,
    pub query: String,
    pub in_query: bool,
}

pub(crate) struct TxnFacts {
    pub id: TxnId,
    pub state: TrxState,
    pub started: SystemTime,
    pub waiting: Option<(String, SystemTime)>,
    pub isolation: IsolationLevel,
    pub read_only: bool,
    pub autocommit: bool,
}

/// How a lock waiter is woken: its own flag and condition variable (targeted wakeups).
#[derive(Default)]
pub(crate) struct WaitCell {
    /// Something the waiter waits for changed (a lock was granted to it or released).
    pub woken: bool,
    /// Deadlock detection chose this transaction as the victim.
    pub victim: bool,
}

/// One session's entry in the engine's registry: the read view of its transaction (for
/// purge), how to wake it when it waits for a lock, and what INNODB_TRX shows of it. A
/// session keeps one for its whole life; each of its transactions uses it in turn.
pub struct TxnSlot {
    /// The upto of the current transaction's read view, or `NO_VIEW`.
    view: AtomicU64,
    /// Held only to flip the flags and around the condition variable's sleep and notify; a
    /// spinning (`parking_lot`) mutex, which `Condvar` needs.
    pub(crate) wait: Mutex<WaitCell>,
    pub(crate) wake: Condvar,
    /// `WaitCell::woken`, written with it under `wait`, read without the mutex by the deadlock
    /// search ([`TxnSlot::is_woken`]): that search runs under the wait graph's mutex, and
    /// taking every visited waiter's `wait` there made it contend with the waiters' own sleeps
    /// and wakeups (parking_lot spins, each round a `sched_yield`, while the graph mutex is
    /// held and every other waiter queues behind it).
    woken: AtomicBool,
    pub(crate) facts: Mutex<Facts>,
    /// Counters of the current transaction (relaxed; INNODB_TRX only).
    pub(crate) rows_modified: AtomicU64,
    pub(crate) rows_locked: AtomicU64,
    pub(crate) tables_in_use: AtomicU64,
    pub(crate) mvcc: Arc<Mvcc>,
    thread_id: u32,
}

impl std::fmt::Debug for TxnSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TxnSlot(thread {})", self.thread_id)
    }
}

impl Drop for TxnSlot {
    fn drop(&mut self) {
        self.drop_view();
    }
}

impl TxnSlot {
    pub fn thread_id(&self) -> u32 {
        self.thread_id
    }

    /// Take a read view of everything committed so far and publish it for purge.
    ///
    /// The purge pass reads `published` and then every slot's view (all SeqCst). Here the
    /// view is stored and `published` read again; if it moved, we retry. So when we return
    /// with view `p`, either the pass saw our store (and keeps what `p` needs), or it scanned
    /// our slot before the store — then its read of `published` precedes our second read,
    /// which still returned `p`: the pass's horizon is `<= p`, and it keeps every version
    /// visible at or after `p`.
    pub(crate) fn take_view(&self) -> ReadView {
        let m = &*self.mvcc;
        if self.view.load(Ordering::Relaxed) == NO_VIEW {
            m.open_views.open(self.thread_id);
        }
        let mut p = m.published.load(Ordering::SeqCst);
        let mut spins = 0u32;
        loop {
            // A small commit that counted no open view may be dropping the versions a view
            // at `p` would need (see "Commits with no open view"): wait for it to publish.
            if m.installing.load(Ordering::SeqCst) > p {
                backoff(&mut spins);
                p = m.published.load(Ordering::SeqCst);
                continue;
            }
            self.view.store(p, Ordering::SeqCst);
            let again = m.published.load(Ordering::SeqCst);
            if again == p {
                return ReadView { upto: CommitSeq(p) };
            }
            p = again;
        }
    }

    /// The transaction no longer reads from a view.
    pub(crate) fn drop_view(&self) {
        if self.view.load(Ordering::Relaxed) != NO_VIEW {
            self.view.store(NO_VIEW, Ordering::Release);
            self.mvcc.open_views.close(self.thread_id);
        }
    }

    /// Prepare to wait for a lock: clear the flags of an earlier wait.
    pub(crate) fn reset_wait(&self) {
        let mut w = self.wait.lock();
        self.set_woken(&mut w, false);
        w.victim = false;
    }

    /// Set `woken` in the cell (held) and its lock-free copy.
    fn set_woken(&self, w: &mut WaitCell, on: bool) {
        w.woken = on;
        self.woken.store(on, Ordering::Release);
    }

    /// Wake the slot's waiter (a lock it waits for was granted or released).
    pub(crate) fn wake_up(&self) {
        let mut w = self.wait.lock();
        self.set_woken(&mut w, true);
        self.wake.notify_one();
    }

    /// Wake the slot's waiter because its statement was killed (`KILL`): the wait looks at
    /// [`crate::interrupt`] when it wakes and ends with 1317.
    pub fn wake_for_kill(&self) {
        self.wake_up();
    }

    /// Wake the slot's waiter as the victim of a deadlock.
    pub(crate) fn wake_victim(&self) {
        let mut w = self.wait.lock();
        w.victim = true;
        self.set_woken(&mut w, true);
        self.wake.notify_one();
    }

    /// Woken and not yet back from its sleep: a lock it waited for was granted, or the queue
    /// changed and it is about to register its wait again. Read without the `wait` mutex:
    /// the value of the last write under it.
    pub(crate) fn is_woken(&self) -> bool {
        self.woken.load(Ordering::Acquire)
    }

    /// Chosen as a deadlock victim during the current wait.
    pub(crate) fn is_victim(&self) -> bool {
        self.wait.lock().victim
    }

    /// Sleep until woken or `deadline`; returns (woken, victim). Clears `woken`.
    pub(crate) fn sleep(&self, deadline: Instant) -> (bool, bool) {
        let mut w = self.wait.lock();
        while !w.woken {
            if self.wake.wait_until(&mut w, deadline).timed_out() {
                break;
            }
        }
        let r = (w.woken, w.victim);
        self.set_woken(&mut w, false);
        r
    }

    /// INNODB_TRX: the statement the session runs now (None: idle).
    pub fn set_query(&self, sql: Option<&str>) {
        let mut f = self.facts.lock();
        f.query.clear();
        f.in_query = sql.is_some();
        if let Some(s) = sql {
            f.query.push_str(s);
        }
    }

    pub(crate) fn set_waiting(&self, what: Option<String>) {
        let mut f = self.facts.lock();
        if let Some(t) = f.txn.as_mut() {
            match what {
                Some(w) => {
                    t.state = TrxState::LockWait;
                    t.waiting = Some((w, SystemTime::now()));
                }
                None => {
                    t.state = TrxState::Running;
                    t.waiting = None;
                }
            }
        }
    }

    fn row(&self) -> Option<TrxRow> {
        let f = self.facts.lock();
        let t = f.txn.as_ref()?;
        let view = self.view.load(Ordering::Relaxed);
        let locks = self.rows_locked.load(Ordering::Relaxed);
        Some(TrxRow {
            id: t.id,
            state: t.state.clone(),
            started: t.started,
            waiting: t.waiting.clone(),
            thread_id: self.thread_id,
            query: f.in_query.then(|| f.query.clone()),
            isolation: t.isolation,
            read_only: t.read_only,
            autocommit_non_locking: t.autocommit && locks == 0,
            tables_in_use: self.tables_in_use.load(Ordering::Relaxed),
            rows_locked: locks,
            lock_structs: locks + self.tables_in_use.load(Ordering::Relaxed),
            rows_modified: self.rows_modified.load(Ordering::Relaxed),
            view: (view != NO_VIEW).then_some(CommitSeq(view)),
        })
    }
}

/// A committed version older than a row's newest.
#[derive(Clone, Debug)]
pub(crate) struct Version {
    pub seq: CommitSeq,
    /// None: the row did not exist (before its insert, or deleted).
    pub row: Option<super::Row>,
}

/// Which read views may exist: every view `>= published`, and the listed ones below it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Horizon {
    pub published: CommitSeq,
    /// Sorted, all `< published`.
    pub below: Vec<u64>,
}

impl Horizon {
    /// No view older than `seq` exists or can be taken: every version superseded at or
    /// before `seq` can go.
    pub fn none_before(seq: CommitSeq) -> Horizon {
        Horizon {
            published: seq,
            below: Vec::new(),
        }
    }

    /// The oldest view that may exist.
    pub fn oldest(&self) -> CommitSeq {
        self.below.first().map_or(self.published, |&v| CommitSeq(v))
    }

    /// Is a version committed at `seq`, superseded at `newer`, visible to some view?
    pub fn needs(&self, seq: CommitSeq, newer: CommitSeq) -> bool {
        if newer > self.published {
            return true;
        }
        // A listed view V with seq <= V < newer.
        let i = self.below.partition_point(|&v| v < seq.0);
        self.below.get(i).is_some_and(|&v| v < newer.0)
    }
}

/// Rows whose old versions wait for purge: those written by one commit.
pub(crate) struct HistoryItem {
    pub seq: CommitSeq,
    pub tables: Vec<Arc<Table>>,
    pub slots: Vec<(u32, Arc<Slot>)>,
}

/// Purge counters (SHOW STATUS, measurements).
#[derive(Default)]
pub struct PurgeStats {
    /// Old versions dropped (by committers and by purge).
    pub versions_purged: AtomicU64,
    /// Rows visited by purge.
    pub rows_visited: AtomicU64,
    /// Purge rounds.
    pub rounds: AtomicU64,
}

/// The engine's multi-version state. See the module doc.
pub struct Mvcc {
    /// Every commit with seq <= this has installed all its versions.
    pub(crate) published: AtomicU64,
    /// The last seq handed out; held while one commit installs its versions.
    pub(crate) commit: Mutex<u64>,
    /// The seq of the last small commit that looked for open views (see "Commits with no
    /// open view"); written under `commit`, only ever raised.
    pub(crate) installing: AtomicU64,
    /// How many slots hold a read view.
    pub(crate) open_views: OpenViews,
    registry: Mutex<Vec<Weak<TxnSlot>>>,
    pub(crate) horizon: RwLock<Horizon>,
    history: Mutex<VecDeque<HistoryItem>>,
    /// Rows queued in `history` (approximate).
    history_rows: AtomicUsize,
    purge_thread: Mutex<bool>,
    purge_kick: Condvar,
    /// Held through one purge round (the thread's or `Engine::purge_now`'s).
    purging: Mutex<()>,
    /// False: no purge thread is started (golden scripts purge only when told).
    pub(crate) auto_purge: std::sync::atomic::AtomicBool,
    pub stats: PurgeStats,
}

/// Commits of at most this many rows may prune with no open view (see the module doc); a
/// view taken meanwhile waits for such a commit to publish, so it must stay short.
pub(crate) const NO_VIEW_COMMIT_MAX: usize = 64;

/// Stripes of [`OpenViews`]: views are opened and closed by every consistent read, so the
/// count is spread over cache lines; a committer sums them.
const VIEW_STRIPES: usize = 8;

#[repr(align(128))]
#[derive(Default)]
struct Stripe(AtomicU64);

/// The number of slots holding a read view, striped by thread id. A slot opens and closes
/// on the same stripe, so no stripe ever counts below the views it holds.
#[derive(Default)]
pub(crate) struct OpenViews {
    stripes: [Stripe; VIEW_STRIPES],
}

impl OpenViews {
    fn open(&self, thread: u32) {
        self.stripes[thread as usize % VIEW_STRIPES]
            .0
            .fetch_add(1, Ordering::SeqCst);
    }

    fn close(&self, thread: u32) {
        self.stripes[thread as usize % VIEW_STRIPES]
            .0
            .fetch_sub(1, Ordering::SeqCst);
    }

    /// True if no slot held a view at some moment during the call (all loads SeqCst).
    pub(crate) fn none(&self) -> bool {
        self.stripes.iter().all(|s| s.0.load(Ordering::SeqCst) == 0)
    }
}

/// Wait a little (a commit of at most [`NO_VIEW_COMMIT_MAX`] rows is installing).
fn backoff(spins: &mut u32) {
    *spins += 1;
    if *spins < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// How long the purge thread sleeps between rounds when there is nothing to do.
const PURGE_IDLE: Duration = Duration::from_millis(10);
/// Rows one purge round visits at most before it looks at the horizon again.
const PURGE_BATCH: usize = 4096;

impl Mvcc {
    pub(crate) fn new() -> Arc<Mvcc> {
        Arc::new(Mvcc {
            published: AtomicU64::new(0),
            commit: Mutex::new(0),
            installing: AtomicU64::new(0),
            open_views: OpenViews::default(),
            registry: Mutex::new(Vec::new()),
            horizon: RwLock::new(Horizon::default()),
            history: Mutex::new(VecDeque::new()),
            history_rows: AtomicUsize::new(0),
            purge_thread: Mutex::new(false),
            purge_kick: Condvar::new(),
            purging: Mutex::new(()),
            auto_purge: std::sync::atomic::AtomicBool::new(true),
            stats: PurgeStats::default(),
        })
    }

    /// A new slot for a session (or a stand-alone transaction).
    pub(crate) fn register(self: &Arc<Mvcc>, thread_id: u32) -> Arc<TxnSlot> {
        let slot = Arc::new(TxnSlot {
            view: AtomicU64::new(NO_VIEW),
            wait: Mutex::new(WaitCell::default()),
            wake: Condvar::new(),
            woken: AtomicBool::new(false),
            facts: Mutex::new(Facts::default()),
            rows_modified: AtomicU64::new(0),
            rows_locked: AtomicU64::new(0),
            tables_in_use: AtomicU64::new(0),
            mvcc: self.clone(),
            thread_id,
        });
        let mut reg = self.registry.lock();
        if reg.len() == reg.capacity() {
            reg.retain(|w| w.strong_count() > 0);
        }
        reg.push(Arc::downgrade(&slot));
        slot
    }

    pub fn published(&self) -> CommitSeq {
        CommitSeq(self.published.load(Ordering::Acquire))
    }

    /// Scan the registry: the horizon as of now (see the module doc).
    pub(crate) fn compute_horizon(&self) -> Horizon {
        let published = self.published.load(Ordering::SeqCst);
        let mut below = Vec::new();
        let mut reg = self.registry.lock();
        reg.retain(|w| match w.upgrade() {
            Some(s) => {
                let v = s.view.load(Ordering::SeqCst);
                if v < published {
                    below.push(v);
                }
                true
            }
            None => false,
        });
        drop(reg);
        below.sort_unstable();
        below.dedup();
        Horizon {
            published: CommitSeq(published),
            below,
        }
    }

    /// The open transactions, for INNODB_TRX.
    pub fn transactions(&self) -> Vec<TrxRow> {
        let slots: Vec<Arc<TxnSlot>> = self
            .registry
            .lock()
            .iter()
            .filter_map(|w| w.upgrade())
            .collect();
        slots.iter().filter_map(|s| s.row()).collect()
    }

    /// Queue the rows of one commit for purge (called by the committer after publishing).
    pub(crate) fn push_history(self: &Arc<Mvcc>, item: HistoryItem) {
        if item.slots.is_empty() {
            return;
        }
        self.history_rows
            .fetch_add(item.slots.len(), Ordering::Relaxed);
        self.history.lock().push_back(item);
        self.ensure_purge_thread();
    }

    /// Rows waiting for purge.
    pub fn history_len(&self) -> usize {
        self.history_rows.load(Ordering::Relaxed)
    }

    fn ensure_purge_thread(self: &Arc<Mvcc>) {
        if !self.auto_purge.load(Ordering::Relaxed) {
            return;
        }
        let mut started = self.purge_thread.lock();
        if *started {
            return;
        }
        *started = true;
        let weak = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("cohort-purge".into())
            .spawn(move || purge_thread(weak));
        if spawned.is_err() {
            // No thread: committers still prune what they write; history waits.
            *started = false;
        }
    }

    /// One purge pass: refresh the horizon, then purge the queued rows of every commit no
    /// view older than it remains for, at most `max_rows` rows. Returns the rows visited.
    pub fn purge_round(&self, max_rows: usize) -> usize {
        let _round = self.purging.lock();
        let h = self.compute_horizon();
        *self.horizon.write() = h.clone();
        self.stats.rounds.fetch_add(1, Ordering::Relaxed);
        let oldest = h.oldest();
        let mut visited = 0;
        // Rows to look at again (old versions left, or a writer holds them): queued after the
        // round, so that one round never visits a row twice.
        let mut again: Vec<HistoryItem> = Vec::new();
        while visited < max_rows {
            let item = {
                let mut q = self.history.lock();
                match q.front() {
                    Some(i) if i.seq <= oldest => q.pop_front(),
                    _ => None,
                }
            };
            let Some(item) = item else { break };
            let n = item.slots.len();
            self.history_rows.fetch_sub(n, Ordering::Relaxed);
            for (t, slot) in &item.slots {
                let table = &item.tables[*t as usize];
                if let Some(seq) = table.purge_slot(slot, &h, &self.stats) {
                    again.push(HistoryItem {
                        seq,
                        tables: vec![table.clone()],
                        slots: vec![(0, slot.clone())],
                    });
                }
            }
            visited += n;
            self.stats
                .rows_visited
                .fetch_add(n as u64, Ordering::Relaxed);
        }
        if !again.is_empty() {
            self.history_rows.fetch_add(again.len(), Ordering::Relaxed);
            self.history.lock().extend(again);
        }
        visited
    }
}

fn purge_thread(mvcc: Weak<Mvcc>) {
    loop {
        let Some(m) = mvcc.upgrade() else { return };
        let visited = m.purge_round(PURGE_BATCH);
        if visited < PURGE_BATCH {
            let mut g = m.purge_thread.lock();
            m.purge_kick.wait_for(&mut g, PURGE_IDLE);
        }
        drop(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horizon_keeps_what_some_view_sees() {
        let h = Horizon {
            published: CommitSeq(100),
            below: vec![10, 50],
        };
        assert_eq!(h.oldest(), CommitSeq(10));
        // Superseded after the horizon: a future view may see it.
        assert!(h.needs(CommitSeq(90), CommitSeq(101)));
        // Visible in [20, 40): no listed view there.
        assert!(!h.needs(CommitSeq(20), CommitSeq(40)));
        // Visible in [5, 20): view 10.
        assert!(h.needs(CommitSeq(5), CommitSeq(20)));
        // Visible in [50, 60): view 50 (inclusive lower end).
        assert!(h.needs(CommitSeq(50), CommitSeq(60)));
        // Visible in [40, 50): view 50 is not below 50.
        assert!(!h.needs(CommitSeq(40), CommitSeq(50)));
        // Superseded exactly at the horizon: every future view sees the newer version.
        assert!(!h.needs(CommitSeq(60), CommitSeq(100)));
    }

    #[test]
    fn a_view_is_never_older_than_a_later_horizon() {
        let m = Mvcc::new();
        let s = m.register(1);
        m.published.store(7, Ordering::SeqCst);
        let v = s.take_view();
        assert_eq!(v.upto(), CommitSeq(7));
        m.published.store(9, Ordering::SeqCst);
        let h = m.compute_horizon();
        assert_eq!(h.below, vec![7]);
        assert_eq!(h.oldest(), CommitSeq(7));
        s.drop_view();
        assert_eq!(m.compute_horizon().oldest(), CommitSeq(9));
    }
}
