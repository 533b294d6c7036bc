//! The binary log files: `<basename>.000001 …` plus `<basename>.index`.
//!
//! [`BinlogFiles`] owns the file being written and the index. It has no lock of its own: the
//! commit pipeline holds it under its log mutex, so exactly one leader appends at a time.
//!
//! File life cycle:
//!
//! 1. `create_file`: magic + Format_description with the in-use flag set + empty Gtid_list;
//!    synced; the index file is rewritten atomically to name it; the directory is synced.
//! 2. Groups are appended ([`relocate`]d to their final offsets first) and synced per
//!    `sync_binlog`.
//! 3. Rotation (size over `max_binlog_size`) or clean shutdown: Rotate (or Stop) is appended,
//!    the in-use flag is cleared in place, the file is synced; the next file is created and
//!    the index rewritten to name it, and only then does it become current. A file still
//!    flagged in use at startup was not closed cleanly; recovery scans it and cuts a torn tail.
//!
//! A group that fails before its commit point is cut back out of the file
//! ([`BinlogFiles::cut_back`]). After each group's commit point the leader publishes the
//! file's new end for readers ([`BinlogFiles::publish_committed`],
//! [`super::binlog_reader::BinlogEnd`]); rotation and purge publish the new index.
//!
//! Transactions are encoded by the sessions at offset 0, outside the log mutex, and
//! [`relocate`]d by the leader: next-position fields moved by the file offset, the GTID's
//! sequence number and group commit id filled in, checksums recomputed.

use super::binlog_reader::BinlogEnd;
use super::device::{timed_sync, LogDir, LogFile, Poison, PoisonInfo, SyncStats};
use crate::wait::WaitEvent;
use cohort_binlog::{
    event_crc32, gtid_flags, BinlogPos, Event, EventType, EventWriter, FileHeader, RotateEvent,
    ServerId, CHECKSUM_LEN, HEADER_LEN,
};
use std::io;
use std::sync::Arc;

/// A position in the binlog: file name and byte offset.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LogPosition {
    pub file: String,
    pub pos: u64,
}

/// The binlog files of one server.
pub struct BinlogFiles {
    dir: Arc<dyn LogDir>,
    basename: String,
    server_id: u32,
    /// Every file named in the index, oldest first, with its creation time (FDE timestamp).
    files: Vec<(String, u32)>,
    current: Box<dyn LogFile>,
    /// Bytes of the current file.
    pos: u64,
    /// Groups appended since the last sync (for `sync_binlog = N`).
    unsynced_groups: u64,
    poison: Arc<Poison>,
    pub stats: Arc<SyncStats>,
    /// The oldest file crash recovery still needs (the latest checkpoint's file, or the first
    /// file when there is no checkpoint): purging never removes it or anything after it.
    recovery_floor: String,
    /// The committed end and the index, published for readers ([`super::binlog_reader`]).
    end: Arc<BinlogEnd>,
}

fn now_secs() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32)
}

impl BinlogFiles {
    /// Start a new file after the ones already in the index (a restart always starts a new
    /// file, as MariaDB does). Recovery has already read and repaired the old ones.
    pub fn open(dir: Arc<dyn LogDir>, basename: &str, server_id: u32) -> io::Result<BinlogFiles> {
        let files = read_index(dir.as_ref(), basename)?;
        let next = files.last().map_or(1, |(name, _)| file_number(name) + 1);
        remove_unlisted(dir.as_ref(), basename, next)?;
        let name = format!("{basename}.{next:06}");
        let (current, pos, created) = create_file(dir.as_ref(), &name, server_id)?;
        let end = Arc::new(BinlogEnd::new(dir.clone(), Vec::new(), 0));
        let mut b = BinlogFiles {
            dir,
            basename: basename.to_string(),
            server_id,
            files,
            current,
            pos,
            unsynced_groups: 0,
            poison: Arc::new(Poison::default()),
            stats: Arc::new(SyncStats::default()),
            recovery_floor: String::new(),
            end,
        };
        b.files.push((name, created));
        b.recovery_floor = b.files[0].0.clone();
        b.write_index(&b.files)?;
        b.publish_files(b.pos);
        Ok(b)
    }

    /// The committed end, for readers that must not take the log mutex.
    pub fn committed_end(&self) -> Arc<BinlogEnd> {
        self.end.clone()
    }

    /// Everything appended so far passed its commit point: readers may see it.
    pub fn publish_committed(&self) {
        self.end.advance(self.pos);
    }

    /// The index changed: publish it, with `end` the committed end of the current file.
    fn publish_files(&self, end: u64) {
        let names = self.files.iter().map(|(n, _)| n.clone()).collect();
        self.end.set_files(names, end);
    }

    /// The directory the files live in (checkpoints live beside them).
    pub fn dir(&self) -> Arc<dyn LogDir> {
        self.dir.clone()
    }

    /// The poison latch: set by the first failed write or sync.
    pub fn poison(&self) -> &Arc<Poison> {
        &self.poison
    }

    /// The current file's length (data end).
    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn position(&self) -> LogPosition {
        LogPosition {
            file: self.current_name().to_string(),
            pos: self.pos,
        }
    }

    pub fn current_name(&self) -> &str {
        &self.files.last().expect("a current file").0
    }

    /// Every file and its size (the current one: its data's end, zeros may follow).
    pub fn list(&self) -> Vec<(String, u64)> {
        let current = self.current_name().to_string();
        self.files
            .iter()
            .map(|(name, _)| {
                let size = if *name == current {
                    self.pos
                } else {
                    let f = self.dir.open_read(name);
                    f.and_then(|f| f.size()).unwrap_or(0)
                };
                (name.clone(), size)
            })
            .collect()
    }

    /// Append one group's bytes (already relocated to `self.pos`).
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), PoisonInfo> {
        self.check_poison()?;
        if let Err(e) = self.current.append(bytes) {
            return Err(self
                .poison
                .set(self.dir.display_path(self.current_name()), &e));
        }
        self.pos += bytes.len() as u64;
        self.unsynced_groups += 1;
        Ok(())
    }

    /// Sync if `sync_binlog` says so for this group (1: always; N: every N groups; 0: never).
    pub fn sync_for_group(&mut self, sync_binlog: u64, delay_us: u64) -> Result<(), PoisonInfo> {
        if sync_binlog == 0 || self.unsynced_groups < sync_binlog {
            return Ok(());
        }
        self.sync(delay_us)
    }

    /// fsync the current file. Never retried after a failure (the log is poisoned).
    pub fn sync(&mut self, delay_us: u64) -> Result<(), PoisonInfo> {
        self.check_poison()?;
        if let Err(e) = timed_sync(
            self.current.as_mut(),
            WaitEvent::BinlogSync,
            delay_us,
            &self.stats,
        ) {
            return Err(self
                .poison
                .set(self.dir.display_path(self.current_name()), &e));
        }
        self.unsynced_groups = 0;
        Ok(())
    }

    /// A group appended at `pos` failed before its commit point (the log is poisoned): cut
    /// the file back to `pos` and make the cut durable, so that neither a restart nor a later
    /// sync can bring any of its bytes back. This sync is not a retried commit sync: nothing
    /// is acknowledged on it, it only makes the shorter length durable.
    pub fn cut_back(&mut self, pos: u64) -> io::Result<()> {
        self.current.truncate(pos)?;
        self.current.sync_metadata()?;
        self.pos = pos;
        Ok(())
    }

    fn check_poison(&self) -> Result<(), PoisonInfo> {
        match self.poison.get() {
            Some(p) => Err(p),
            None => Ok(()),
        }
    }

    /// Close the current file with a Rotate event and start the next one.
    pub fn rotate(&mut self, delay_us: u64) -> Result<(), PoisonInfo> {
        let next = format!(
            "{}.{:06}",
            self.basename,
            file_number(self.current_name()) + 1
        );
        let rotate = Event::Rotate(RotateEvent {
            position: BinlogPos(4),
            next_file: next.clone(),
        });
        self.finish_current(&rotate, delay_us)?;
        let path = self.dir.display_path(&next);
        let (file, pos, created) = create_file(self.dir.as_ref(), &next, self.server_id)
            .map_err(|e| self.poison.set(path.clone(), &e))?;
        // Only a file the index names is ever appended to: until the index is rewritten the
        // old file stays current (poisoned if this fails; the new file is then removed at the
        // next start, see `remove_unlisted`).
        let mut files = self.files.clone();
        files.push((next, created));
        self.write_index(&files)
            .map_err(|e| self.poison.set(path, &e))?;
        self.files = files;
        self.current = file;
        self.pos = pos;
        self.unsynced_groups = 0;
        self.publish_files(pos);
        Ok(())
    }

    /// Clean shutdown: a Stop event, in-use flag cleared, synced.
    pub fn close(&mut self) -> Result<(), PoisonInfo> {
        self.finish_current(&Event::Stop, 0)
    }

    /// Append the closing event, clear the in-use flag, sync.
    fn finish_current(&mut self, last: &Event, delay_us: u64) -> Result<(), PoisonInfo> {
        let mut w = EventWriter::new(BinlogPos(self.pos), ServerId(self.server_id), now_secs());
        w.write_event(last).map_err(|e| {
            self.poison
                .set(self.current_name().into(), &io::Error::other(e.to_string()))
        })?;
        self.append(w.bytes())?;
        // A zero-filled file ends at its data from now on (before the sync that makes the
        // finished file durable, and before any next file is created).
        if let Err(e) = self.current.truncate(self.pos) {
            return Err(self
                .poison
                .set(self.dir.display_path(self.current_name()), &e));
        }
        let flags = cohort_binlog::fde_flags_bytes(false);
        if let Err(e) = self
            .current
            .write_at(cohort_binlog::FDE_FLAGS_OFFSET, &flags)
        {
            return Err(self
                .poison
                .set(self.dir.display_path(self.current_name()), &e));
        }
        self.sync(delay_us)
    }

    /// A checkpoint now covers everything before `file`.
    pub fn set_recovery_floor(&mut self, file: &str) {
        self.recovery_floor = file.to_string();
    }

    /// `PURGE BINARY LOGS TO 'name'`: remove files before `name` — but never the current one
    /// nor the recovery floor or anything after it. Returns (removed, held back by the floor).
    pub fn purge_to(&mut self, name: &str) -> io::Result<(usize, bool)> {
        let Some(idx) = self.files.iter().position(|(n, _)| n == name) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "Target log not found in binlog index",
            ));
        };
        self.remove_first(idx)
    }

    /// `PURGE BINARY LOGS BEFORE t` / expiry: remove files created before `before` (seconds).
    pub fn purge_before(&mut self, before: u32) -> io::Result<(usize, bool)> {
        let last = self.files.len() - 1;
        let n = self.files[..last]
            .iter()
            .take_while(|(_, t)| *t < before)
            .count();
        self.remove_first(n)
    }

    fn floor_index(&self) -> usize {
        self.files
            .iter()
            .position(|(n, _)| *n == self.recovery_floor)
            .unwrap_or(0)
    }

    /// Remove the first `wanted` files (fewer if the current file or the recovery floor is
    /// among them): the index is rewritten first, so a failure leaves every file in place and
    /// named, and a crash at most leaves unnamed files behind.
    fn remove_first(&mut self, wanted: usize) -> io::Result<(usize, bool)> {
        let n = wanted.min(self.files.len() - 1).min(self.floor_index());
        self.write_index(&self.files[n..])?;
        let removed: Vec<(String, u32)> = self.files.drain(..n).collect();
        self.publish_files(self.end.get().end);
        for (name, _) in &removed {
            self.dir.remove(name)?;
        }
        self.dir.sync_dir()?;
        Ok((removed.len(), n < wanted))
    }

    fn write_index(&self, files: &[(String, u32)]) -> io::Result<()> {
        let mut text = String::new();
        for (name, _) in files {
            text.push_str("./");
            text.push_str(name);
            text.push('\n');
        }
        self.dir
            .write_atomic(&format!("{}.index", self.basename), text.as_bytes())
    }
}

/// Remove binlog files numbered `next` or above: a rotation (or a start) that crashed after
/// creating the file and before the index named it. No group was ever appended to such a file —
/// appends follow the index update — and recovery never read it; left in place, its name would
/// block every later start.
fn remove_unlisted(dir: &dyn LogDir, basename: &str, next: u64) -> io::Result<()> {
    let prefix = format!("{basename}.");
    let mut removed = false;
    for name in dir.list()? {
        let Some(digits) = name.strip_prefix(&prefix) else {
            continue;
        };
        if digits.len() == 6
            && digits.bytes().all(|b| b.is_ascii_digit())
            && file_number(&name) >= next
        {
            tracing::warn!(
                "removing binlog file {}: created by a rotation that crashed before the index named it",
                dir.display_path(&name)
            );
            dir.remove(&name)?;
            removed = true;
        }
    }
    if removed {
        dir.sync_dir()?;
    }
    Ok(())
}

/// Create a binlog file: magic, FDE (in use), Gtid_list; synced.
fn create_file(
    dir: &dyn LogDir,
    name: &str,
    server_id: u32,
) -> io::Result<(Box<dyn LogFile>, u64, u32)> {
    let created = now_secs();
    let header = FileHeader::new(ServerId(server_id), created)
        .encode(true)
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut file = dir.create_zero_filled(name)?;
    file.append(&header)?;
    file.sync()?;
    dir.sync_dir()?;
    Ok((file, header.len() as u64, created))
}

/// The files named in `<basename>.index`, with their creation times, oldest first.
pub fn read_index(dir: &dyn LogDir, basename: &str) -> io::Result<Vec<(String, u32)>> {
    let text = match dir.read(&format!("{basename}.index")) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files = Vec::new();
    for line in String::from_utf8_lossy(&text).lines() {
        let name = line.trim().trim_start_matches("./");
        if name.is_empty() {
            continue;
        }
        // The FDE's timestamp (bytes 4..8), without reading the whole file.
        let mut ts = [0u8; 4];
        let read = dir.open_read(name).and_then(|f| f.read_at(4, &mut ts));
        let created = match read {
            Ok(4) => u32::from_le_bytes(ts),
            _ => 0,
        };
        files.push((name.to_string(), created));
    }
    Ok(files)
}

/// The sequence number in `binlog.000042`.
pub fn file_number(name: &str) -> u64 {
    name.rsplit('.')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Move a transaction encoded at offset 0 to `base`: rewrite next-position fields, fill in the
/// GTID sequence number and group commit id, recompute every checksum.
pub fn relocate(buf: &mut [u8], base: u64, gtid_seq: u64, commit_id: u64) {
    let mut off = 0usize;
    while off + HEADER_LEN + CHECKSUM_LEN <= buf.len() {
        let size = u32::from_le_bytes(buf[off + 9..off + 13].try_into().expect("4 bytes")) as usize;
        let end = off + size;
        let next = (base + end as u64) as u32;
        buf[off + 13..off + 17].copy_from_slice(&next.to_le_bytes());
        if buf[off + 4] == EventType::GTID.0 {
            patch_gtid(&mut buf[off..end], gtid_seq, commit_id);
        }
        let crc = event_crc32(&buf[off..end - CHECKSUM_LEN]);
        buf[end - CHECKSUM_LEN..end].copy_from_slice(&crc.to_le_bytes());
        off = end;
    }
}

/// GTID body: `seq u64 | domain u32 | flags2 u8 | [commit_id u64]`.
fn patch_gtid(ev: &mut [u8], seq: u64, commit_id: u64) {
    let body = HEADER_LEN;
    ev[body..body + 8].copy_from_slice(&seq.to_le_bytes());
    let flags2 = ev[body + 12];
    if flags2 & gtid_flags::GROUP_COMMIT_ID != 0 {
        ev[body + 13..body + 21].copy_from_slice(&commit_id.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::device::SimDir;

    #[test]
    fn open_rotate_purge_and_index() {
        let sim = SimDir::new();
        let dir: Arc<dyn LogDir> = Arc::new(sim.clone());
        let mut b = BinlogFiles::open(dir.clone(), "binlog", 1).unwrap();
        assert_eq!(b.current_name(), "binlog.000001");
        b.rotate(0).unwrap();
        b.rotate(0).unwrap();
        assert_eq!(b.list().len(), 3);
        let idx = String::from_utf8(sim.read("binlog.index").unwrap()).unwrap();
        assert_eq!(idx, "./binlog.000001\n./binlog.000002\n./binlog.000003\n");
        // A rotated file is complete and decodes cleanly, ending with Rotate.
        let out = cohort_binlog::read_all(&sim.read("binlog.000001").unwrap());
        assert!(out.error.is_none());
        assert!(matches!(out.events.last().unwrap().event, Event::Rotate(_)));
        // Without a checkpoint every file is needed for recovery: nothing is purged.
        assert_eq!(b.purge_to("binlog.000003").unwrap(), (0, true));
        b.set_recovery_floor("binlog.000002");
        assert_eq!(b.purge_to("binlog.000003").unwrap(), (1, true));
        assert_eq!(b.list()[0].0, "binlog.000002");
        // A restart continues numbering after the index.
        drop(b);
        let b = BinlogFiles::open(dir, "binlog", 1).unwrap();
        assert_eq!(b.current_name(), "binlog.000004");
    }
}
