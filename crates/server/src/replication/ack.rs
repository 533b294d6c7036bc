//! The reader thread of a dump: what the client sends while it is streamed to.
//!
//! A dump's thread writes; this one blocks reading the socket. It
//!
//! - passes semi-sync acknowledgements (`ef | pos | file`) to the commit pipeline, which
//!   releases the groups they cover ([`crate::log::CommitPipeline::replica_ack`]), measuring
//!   how long the replica took to answer the request;
//! - ignores every other packet (a client may send anything during a dump; none is served);
//! - on end of file or an error, tells the dump to stop and wakes it.
//!
//! It holds at most one packet of an acknowledgement's size: larger packets are read through
//! and dropped, so a client cannot make it hold memory.

use super::StopFlag;
use crate::log::binlog::LogPosition;
use crate::log::binlog_reader::BinlogEnd;
use crate::log::CommitPipeline;
use cohort_protocol::replication::SemiSyncAck;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::Arc;
use std::time::Instant;

/// The largest packet kept (an acknowledgement: magic, position, a file name).
const KEEP: usize = 1 + 8 + 512;

/// What the dump and its reader share.
pub struct Shared {
    pub stop: Arc<StopFlag>,
    pub binlog: Arc<BinlogEnd>,
    /// Semi-sync: the pipeline to acknowledge to, and when each acknowledgement was asked for.
    pub semi: Option<Arc<CommitPipeline>>,
    /// Protected by this mutex: (position asked for, when), oldest first.
    pub asked: Mutex<VecDeque<(LogPosition, Instant)>>,
}

impl Shared {
    /// The dump asked the replica to acknowledge `pos`.
    pub fn asked_for(&self, pos: LogPosition) {
        let mut q = self.asked.lock();
        if q.len() >= 1024 {
            q.pop_front();
        }
        q.push_back((pos, Instant::now()));
    }

    /// Stop the dump (the client is gone) and wake it.
    fn end(&self) {
        self.stop.set(None);
        self.binlog.wake_readers();
    }

    fn on_packet(&self, payload: &[u8]) {
        let (Some(pipeline), Some(ack)) = (&self.semi, SemiSyncAck::parse(payload)) else {
            return;
        };
        let pos = LogPosition {
            file: ack.file,
            pos: ack.pos,
        };
        let asked = {
            let mut q = self.asked.lock();
            let mut at = None;
            while q.front().is_some_and(|(p, _)| *p <= pos) {
                at = q.pop_front().map(|(_, t)| t);
            }
            at
        };
        pipeline.replica_ack(&pos, asked);
    }
}

/// Read packets from `input` (after the bytes `unread` the session had already received)
/// until the client goes away.
pub fn read_until_closed(mut input: Box<dyn Read + Send>, unread: Vec<u8>, shared: &Shared) {
    let mut pending = unread;
    let mut buf = vec![0u8; 4096];
    loop {
        // Whole packets in `pending`: handle them (a large one is skipped as it streams by).
        let mut at = 0;
        while pending.len() - at >= 4 {
            let n = u32::from_le_bytes([pending[at], pending[at + 1], pending[at + 2], 0]) as usize;
            if pending.len() - at - 4 < n {
                if n > KEEP {
                    // Too large to keep: drop what is here and the rest as it comes.
                    let have = pending.len() - at - 4;
                    if !skip(&mut input, n - have, &mut buf) {
                        return shared.end();
                    }
                    at = pending.len();
                }
                break;
            }
            shared.on_packet(&pending[at + 4..at + 4 + n]);
            at += 4 + n;
        }
        pending.drain(..at);
        match input.read(&mut buf) {
            Ok(0) | Err(_) => return shared.end(),
            Ok(k) => pending.extend_from_slice(&buf[..k]),
        }
        if shared.stop.is_set() {
            return;
        }
    }
}

/// Read and drop `n` bytes; false at end of file.
fn skip(input: &mut Box<dyn Read + Send>, mut n: usize, buf: &mut [u8]) -> bool {
    while n > 0 {
        let want = n.min(buf.len());
        match input.read(&mut buf[..want]) {
            Ok(0) | Err(_) => return false,
            Ok(k) => n -= k,
        }
    }
    true
}
