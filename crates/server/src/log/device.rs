//! The log device: where log bytes go, behind a trait so tests can crash it and break it.
//!
//! [`LogDir`] is a directory of append-only files. [`FsDir`] is the real one (`write` +
//! `fdatasync`); [`SimDir`] keeps files in memory and separates *written* bytes from *durable*
//! bytes, so a test can "crash" the machine (keep only what was synced,
//! [`SimDir::crash_image`]) or only the process (keep every written byte,
//! [`SimDir::restart_image`]), and inject failures ([`Faults`]): a failing or torn write, a
//! failing sync, create, truncate or index write, a full disk.
//!
//! What the logs rely on (assumptions about the file system, stated once):
//! 1. After `sync` returns Ok, every byte appended before it survives a crash.
//! 2. Bytes appended after the last sync may survive in part; a torn tail is possible and is
//!    detected by checksums at recovery.
//! 3. A created or removed file survives a crash once the directory is synced.
//! 4. After a failed `sync` nothing is known about the unsynced bytes; the caller must not retry
//!    (see [`Poison`]). Bytes written before a failed write or sync can still be read back
//!    (and reach the disk later): a log that fails a group cuts them off with `truncate`
//!    followed by `sync_metadata`, which makes the shorter length durable — it acknowledges
//!    nothing, so it is not a retry of the failed sync.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;

/// One append-only log file.
pub trait LogFile: Send {
    /// Append at the end (buffered by the OS until `sync`).
    fn append(&mut self, data: &[u8]) -> io::Result<()>;
    /// Make every appended byte durable (`fdatasync`).
    fn sync(&mut self) -> io::Result<()>;
    /// Make the file's length durable too, after a `truncate` (`fsync`).
    fn sync_metadata(&mut self) -> io::Result<()> {
        self.sync()
    }
    /// Current length in bytes.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Overwrite bytes in place (only for header flags).
    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    /// Cut the file to `len` bytes (torn tails at recovery).
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

/// A log file opened for reading at any offset, while it may still be appended to.
pub trait LogRead: Send {
    /// Read up to `buf.len()` bytes at `offset`; 0 at the end of the file.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize>;
    /// The file's current length.
    fn size(&self) -> io::Result<u64>;
}

/// A directory of log files.
pub trait LogDir: Send + Sync {
    /// Create a new empty file; fails if it exists.
    fn create(&self, name: &str) -> io::Result<Box<dyn LogFile>>;
    /// Like `create`, for a file appended to at every commit group: the real file system keeps
    /// zeros written ahead of its end ([`super::zerofill`]) when the directory asks for it;
    /// `truncate` then finishes the file at its data's end.
    fn create_zero_filled(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        self.create(name)
    }
    /// Open an existing file for appending at its end.
    fn open_append(&self, name: &str) -> io::Result<Box<dyn LogFile>>;
    /// The whole content of a file.
    fn read(&self, name: &str) -> io::Result<Vec<u8>>;
    /// Open a file for positional reads (readers of a file being written).
    fn open_read(&self, name: &str) -> io::Result<Box<dyn LogRead>>;
    /// File names, sorted.
    fn list(&self) -> io::Result<Vec<String>>;
    fn remove(&self, name: &str) -> io::Result<()>;
    /// Replace `name` atomically and durably: temp file, sync, rename, sync directory.
    fn write_atomic(&self, name: &str, data: &[u8]) -> io::Result<()>;
    /// Make creations and removals durable.
    fn sync_dir(&self) -> io::Result<()>;
    /// A printable path for error messages.
    fn display_path(&self, name: &str) -> String;
}

/// The real file system.
pub struct FsDir {
    root: PathBuf,
    /// `create_zero_filled` zero-fills ahead (`binlog_preallocate`).
    zero_fill: bool,
}

impl FsDir {
    pub fn open(root: impl Into<PathBuf>) -> io::Result<FsDir> {
        let root = root.into();
        crate::datadir::create_dir_all(&root)?;
        Ok(FsDir {
            root,
            zero_fill: false,
        })
    }

    /// Zero-fill ahead of files made with `create_zero_filled`.
    pub fn with_zero_fill(mut self, on: bool) -> FsDir {
        self.zero_fill = on;
        self
    }
}

struct FsFile {
    file: File,
    len: u64,
    /// Zeros kept ahead of `len` while the file is written; None once finished.
    zero: Option<super::zerofill::ZeroFill>,
}

impl LogFile for FsFile {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        // Positional writes: the file is not opened O_APPEND, because Linux pwrite ignores the
        // offset on O_APPEND files and `write_at` must patch header bytes in place.
        match &self.zero {
            Some(z) => z.append(data)?,
            None => self.file.write_all_at(data, self.len)?,
        }
        self.len += data.len() as u64;
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        match &self.zero {
            // The zero-fill thread shares this file description: a writeback error its own
            // sync saw is not reported again here, so it hands it over.
            Some(z) => z.sync_data(&self.file),
            None => self.file.sync_data(),
        }
    }

    fn sync_metadata(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        self.file.write_all_at(data, offset)
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        match self.zero.take() {
            Some(mut z) => z.finish(len)?,
            None => self.file.set_len(len)?,
        }
        self.len = len;
        Ok(())
    }
}

impl LogRead for File {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        FileExt::read_at(self, buf, offset)
    }

    fn size(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl LogDir for FsDir {
    fn create(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        let file = crate::datadir::file_options()
            .write(true)
            .read(true)
            .create_new(true)
            .open(self.root.join(name))?;
        Ok(Box::new(FsFile {
            file,
            len: 0,
            zero: None,
        }))
    }

    fn create_zero_filled(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        let mut f = self.create(name)?;
        if self.zero_fill {
            let file = OpenOptions::new()
                .write(true)
                .read(true)
                .open(self.root.join(name))?;
            let zero = super::zerofill::ZeroFill::start(&file, 0)?;
            f = Box::new(FsFile {
                file,
                len: 0,
                zero: Some(zero),
            });
        }
        Ok(f)
    }

    fn open_append(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        let file = OpenOptions::new()
            .write(true)
            .read(true)
            .open(self.root.join(name))?;
        let len = file.metadata()?.len();
        Ok(Box::new(FsFile {
            file,
            len,
            zero: None,
        }))
    }

    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        fs::read(self.root.join(name))
    }

    fn open_read(&self, name: &str) -> io::Result<Box<dyn LogRead>> {
        Ok(Box::new(File::open(self.root.join(name))?))
    }

    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.root)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        fs::remove_file(self.root.join(name))
    }

    fn write_atomic(&self, name: &str, data: &[u8]) -> io::Result<()> {
        let tmp = self.root.join(format!("{name}.tmp"));
        let mut f = crate::datadir::create_file(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        fs::rename(&tmp, self.root.join(name))?;
        self.sync_dir()
    }

    fn sync_dir(&self) -> io::Result<()> {
        File::open(&self.root)?.sync_all()
    }

    fn display_path(&self, name: &str) -> String {
        self.root.join(name).display().to_string()
    }
}

/// Faults a [`SimDir`] injects on its next operations.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// The next `append` fails with EIO (once), writing nothing.
    pub fail_next_append: bool,
    /// The next `sync` fails with EIO (once).
    pub fail_next_sync: bool,
    /// Appends fail with ENOSPC once the directory would hold more than this many bytes;
    /// like a real full disk, the failing append first writes what still fits.
    pub capacity: Option<u64>,
    /// Further faults, each firing once on the *n*-th next operation of its kind.
    pub rules: Vec<FaultRule>,
}

/// One operation of a [`SimDir`] that a [`FaultRule`] can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimOp {
    Append,
    Sync,
    /// Creating a file (`create`, `create_zero_filled`).
    Create,
    Truncate,
    /// In-place writes (header flags).
    WriteAt,
    /// `write_atomic` (index, checkpoint pointer).
    WriteAtomic,
}

/// Fail the operation of kind `op` that comes after `skip` successful ones, once, with EIO.
/// A failing append first writes `partial` bytes (a torn write) when given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRule {
    pub op: SimOp,
    pub skip: u32,
    pub partial: Option<usize>,
    /// Only operations on files whose name starts with this count (None: any file).
    pub file: Option<&'static str>,
}

impl FaultRule {
    /// Fail the next operation of kind `op`.
    pub fn next(op: SimOp) -> FaultRule {
        FaultRule::after(op, 0)
    }

    /// Fail the operation of kind `op` after `skip` successful ones.
    pub fn after(op: SimOp, skip: u32) -> FaultRule {
        FaultRule {
            op,
            skip,
            partial: None,
            file: None,
        }
    }

    /// A failing append that writes the first `bytes` bytes (all but the last one at most)
    /// before failing.
    pub fn torn_append(skip: u32, bytes: usize) -> FaultRule {
        FaultRule {
            partial: Some(bytes),
            ..FaultRule::after(SimOp::Append, skip)
        }
    }

    /// Count only operations on files whose name starts with `prefix`.
    pub fn in_file(self, prefix: &'static str) -> FaultRule {
        FaultRule {
            file: Some(prefix),
            ..self
        }
    }
}

impl Faults {
    /// Only `rules`.
    pub fn rules(rules: Vec<FaultRule>) -> Faults {
        Faults {
            rules,
            ..Faults::default()
        }
    }

    /// Is an operation of kind `op` to fail now? Counts it against the rules of its kind;
    /// returns the firing rule (removed: each fires once).
    fn fire(&mut self, op: SimOp, name: &str) -> Option<FaultRule> {
        let legacy = match op {
            SimOp::Append => std::mem::take(&mut self.fail_next_append),
            SimOp::Sync => std::mem::take(&mut self.fail_next_sync),
            _ => false,
        };
        if legacy {
            return Some(FaultRule::next(op));
        }
        let applies = |r: &FaultRule| r.op == op && r.file.is_none_or(|p| name.starts_with(p));
        let i = self.rules.iter().position(applies)?;
        if self.rules[i].skip > 0 {
            self.rules[i].skip -= 1;
            return None;
        }
        Some(self.rules.remove(i))
    }
}

#[derive(Default)]
struct SimFile {
    data: Vec<u8>,
    /// Bytes that survive a crash.
    durable: usize,
}

#[derive(Default)]
struct SimState {
    files: BTreeMap<String, SimFile>,
    faults: Faults,
    syncs: u64,
    /// Operations attempted so far, by kind (index: `SimOp as usize`).
    ops: [u64; 6],
    /// Bytes handed out by `read` and `read_at` (how much of the log a reader touched).
    bytes_read: u64,
}

impl SimState {
    /// Count an operation of kind `op`; is it to fail now?
    fn fire(&mut self, op: SimOp, name: &str) -> Option<FaultRule> {
        self.ops[op as usize] += 1;
        self.faults.fire(op, name)
    }
}

/// An in-memory directory for tests: crash it, break it.
#[derive(Clone, Default)]
pub struct SimDir {
    state: Arc<Mutex<SimState>>,
}

struct SimHandle {
    dir: SimDir,
    name: String,
}

fn eio(what: &str) -> io::Error {
    io::Error::other(format!("injected {what} failure"))
}

impl SimDir {
    pub fn new() -> SimDir {
        SimDir::default()
    }

    /// Arm faults for the next operations.
    pub fn set_faults(&self, faults: Faults) {
        self.state.lock().faults = faults;
    }

    /// Bytes read so far (`read`, `read_at`).
    pub fn bytes_read(&self) -> u64 {
        self.state.lock().bytes_read
    }

    /// Operations of kind `op` attempted so far (failed ones included).
    pub fn op_count(&self, op: SimOp) -> u64 {
        self.state.lock().ops[op as usize]
    }

    /// Number of successful syncs so far.
    pub fn sync_count(&self) -> u64 {
        self.state.lock().syncs
    }

    /// What a restart after a crash now would find: only synced bytes, faults cleared.
    pub fn crash_image(&self) -> SimDir {
        let state = self.state.lock();
        let files = state
            .files
            .iter()
            .map(|(name, f)| {
                let data = f.data[..f.durable].to_vec();
                let durable = data.len();
                (name.clone(), SimFile { data, durable })
            })
            .collect();
        SimDir {
            state: Arc::new(Mutex::new(SimState {
                files,
                ..SimState::default()
            })),
        }
    }

    /// What a restart after the *process* died (or was stopped) now would find: every byte
    /// written, synced or not — the operating system still has them. Faults cleared.
    pub fn restart_image(&self) -> SimDir {
        let state = self.state.lock();
        let files = state
            .files
            .iter()
            .map(|(name, f)| {
                let data = f.data.clone();
                let durable = data.len();
                (name.clone(), SimFile { data, durable })
            })
            .collect();
        SimDir {
            state: Arc::new(Mutex::new(SimState {
                files,
                ..SimState::default()
            })),
        }
    }

    /// A crash image that also keeps `extra` unsynced bytes of `name` (a torn tail).
    pub fn crash_image_with_tail(&self, name: &str, extra: usize) -> SimDir {
        let img = self.crash_image();
        {
            let src = self.state.lock();
            let mut dst = img.state.lock();
            if let (Some(s), Some(d)) = (src.files.get(name), dst.files.get_mut(name)) {
                let end = (s.durable + extra).min(s.data.len());
                d.data = s.data[..end].to_vec();
            }
        }
        img
    }

    /// Flip one byte of a file (corruption tests).
    pub fn corrupt(&self, name: &str, offset: usize) {
        if let Some(f) = self.state.lock().files.get_mut(name) {
            if let Some(b) = f.data.get_mut(offset) {
                *b ^= 0xff;
            }
        }
    }

    fn total_bytes(state: &SimState) -> u64 {
        state.files.values().map(|f| f.data.len() as u64).sum()
    }
}

impl LogFile for SimHandle {
    fn append(&mut self, data: &[u8]) -> io::Result<()> {
        let mut s = self.dir.state.lock();
        if let Some(rule) = s.fire(SimOp::Append, &self.name) {
            let torn = rule.partial.unwrap_or(0).min(data.len().saturating_sub(1));
            if let Some(f) = s.files.get_mut(&self.name) {
                f.data.extend_from_slice(&data[..torn]);
            }
            return Err(eio("write"));
        }
        let mut fits = data.len();
        if let Some(cap) = s.faults.capacity {
            fits = cap.saturating_sub(SimDir::total_bytes(&s)).min(fits as u64) as usize;
        }
        let f = s.files.get_mut(&self.name).ok_or(io::ErrorKind::NotFound)?;
        f.data.extend_from_slice(&data[..fits]);
        if fits < data.len() {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        let mut s = self.dir.state.lock();
        if s.fire(SimOp::Sync, &self.name).is_some() {
            return Err(eio("fsync"));
        }
        s.syncs += 1;
        let f = s.files.get_mut(&self.name).ok_or(io::ErrorKind::NotFound)?;
        f.durable = f.data.len();
        Ok(())
    }

    /// Counted apart from `sync` ([`SimDir::sync_count`] is the data syncs): the cut of a
    /// failed group is synced this way after its failed data sync, which is never retried.
    fn sync_metadata(&mut self) -> io::Result<()> {
        let mut s = self.dir.state.lock();
        if s.fire(SimOp::Sync, &self.name).is_some() {
            return Err(eio("fsync"));
        }
        let f = s.files.get_mut(&self.name).ok_or(io::ErrorKind::NotFound)?;
        f.durable = f.data.len();
        Ok(())
    }

    fn len(&self) -> u64 {
        let s = self.dir.state.lock();
        s.files.get(&self.name).map_or(0, |f| f.data.len() as u64)
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        let mut s = self.dir.state.lock();
        if s.fire(SimOp::WriteAt, &self.name).is_some() {
            return Err(eio("write"));
        }
        let f = s.files.get_mut(&self.name).ok_or(io::ErrorKind::NotFound)?;
        let start = offset as usize;
        let end = start + data.len();
        if end > f.data.len() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        f.data[start..end].copy_from_slice(data);
        Ok(())
    }

    /// Cutting a file is durable at once here (a simplification: on a real file system the
    /// new length is durable after the next sync, which every caller issues).
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        let mut s = self.dir.state.lock();
        if s.fire(SimOp::Truncate, &self.name).is_some() {
            return Err(eio("truncate"));
        }
        let f = s.files.get_mut(&self.name).ok_or(io::ErrorKind::NotFound)?;
        f.data.truncate(len as usize);
        f.durable = f.durable.min(f.data.len());
        Ok(())
    }
}

impl LogRead for SimHandle {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut s = self.dir.state.lock();
        let f = s.files.get(&self.name).ok_or(io::ErrorKind::NotFound)?;
        let start = (offset as usize).min(f.data.len());
        let n = buf.len().min(f.data.len() - start);
        buf[..n].copy_from_slice(&f.data[start..start + n]);
        s.bytes_read += n as u64;
        Ok(n)
    }

    fn size(&self) -> io::Result<u64> {
        let s = self.dir.state.lock();
        let f = s.files.get(&self.name).ok_or(io::ErrorKind::NotFound)?;
        Ok(f.data.len() as u64)
    }
}

impl LogDir for SimDir {
    fn create(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        let mut s = self.state.lock();
        if s.fire(SimOp::Create, name).is_some() {
            return Err(eio("create"));
        }
        if s.files.contains_key(name) {
            return Err(io::ErrorKind::AlreadyExists.into());
        }
        s.files.insert(name.to_string(), SimFile::default());
        Ok(Box::new(SimHandle {
            dir: self.clone(),
            name: name.to_string(),
        }))
    }

    fn open_append(&self, name: &str) -> io::Result<Box<dyn LogFile>> {
        if !self.state.lock().files.contains_key(name) {
            return Err(io::ErrorKind::NotFound.into());
        }
        Ok(Box::new(SimHandle {
            dir: self.clone(),
            name: name.to_string(),
        }))
    }

    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        let mut s = self.state.lock();
        let data = s.files.get(name).map(|f| f.data.clone());
        let data = data.ok_or(io::ErrorKind::NotFound)?;
        s.bytes_read += data.len() as u64;
        Ok(data)
    }

    fn open_read(&self, name: &str) -> io::Result<Box<dyn LogRead>> {
        if !self.state.lock().files.contains_key(name) {
            return Err(io::ErrorKind::NotFound.into());
        }
        Ok(Box::new(SimHandle {
            dir: self.clone(),
            name: name.to_string(),
        }))
    }

    fn list(&self) -> io::Result<Vec<String>> {
        Ok(self.state.lock().files.keys().cloned().collect())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        self.state.lock().files.remove(name);
        Ok(())
    }

    fn write_atomic(&self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        // Its fsync also fails on `fail_next_sync`; `Sync` rules count only file syncs.
        if s.fire(SimOp::WriteAtomic, name).is_some()
            || std::mem::take(&mut s.faults.fail_next_sync)
        {
            return Err(eio("fsync"));
        }
        if let Some(cap) = s.faults.capacity {
            // The temporary file is written beside the old one before the rename.
            if SimDir::total_bytes(&s) + data.len() as u64 > cap {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
        }
        s.files.insert(
            name.to_string(),
            SimFile {
                data: data.to_vec(),
                durable: data.len(),
            },
        );
        Ok(())
    }

    fn sync_dir(&self) -> io::Result<()> {
        Ok(())
    }

    fn display_path(&self, name: &str) -> String {
        format!("sim:/{name}")
    }
}

/// The latch that makes a log unusable after its first write or sync failure.
///
/// After a failed fsync the kernel may have dropped the dirty pages and cleared the error, so a
/// retried fsync can succeed without the data being on disk. The only safe answer is to stop:
/// every later commit fails with the first error, and a restart recovers from what is durable.
#[derive(Default)]
pub struct Poison {
    /// Protected by this mutex: the first failure (file, description, errno).
    first: Mutex<Option<PoisonInfo>>,
}

/// What poisoned a log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoisonInfo {
    pub file: String,
    pub errno: i32,
    pub description: String,
}

impl Poison {
    /// Record a failure (only the first one is kept).
    pub fn set(&self, file: String, e: &io::Error) -> PoisonInfo {
        let mut first = self.first.lock();
        first
            .get_or_insert_with(|| PoisonInfo {
                file,
                errno: e.raw_os_error().unwrap_or(libc::EIO),
                description: e.to_string(),
            })
            .clone()
    }

    /// The failure, if the log is poisoned.
    pub fn get(&self) -> Option<PoisonInfo> {
        self.first.lock().clone()
    }
}

impl PoisonInfo {
    /// The error every commit gets once the log is poisoned: ER_ERROR_ON_WRITE naming the file.
    pub fn to_error(&self) -> crate::error::Error {
        crate::error::Error::new(
            cohort_protocol::ErrorCode::ErrorOnWrite,
            format!(
                "Error writing file '{}' (errno: {} \"{}\")",
                self.file, self.errno, self.description
            ),
        )
    }
}

/// Count and total time of one log's syncs (for SHOW GLOBAL STATUS). Relaxed atomics.
#[derive(Default)]
pub struct SyncStats {
    pub count: std::sync::atomic::AtomicU64,
    pub total_us: std::sync::atomic::AtomicU64,
}

impl SyncStats {
    pub fn record(&self, elapsed: std::time::Duration) {
        use std::sync::atomic::Ordering::Relaxed;
        self.count.fetch_add(1, Relaxed);
        self.total_us.fetch_add(elapsed.as_micros() as u64, Relaxed);
    }
}

/// Sync `file` the way every log does: through the wait API (`event`), after the test knob
/// `log_sync_delay_us`, timed into `stats`.
pub fn timed_sync(
    file: &mut dyn LogFile,
    event: crate::wait::WaitEvent,
    delay_us: u64,
    stats: &SyncStats,
) -> io::Result<()> {
    let _wait = crate::wait::begin(event);
    let start = std::time::Instant::now();
    if delay_us > 0 {
        std::thread::sleep(std::time::Duration::from_micros(delay_us));
    }
    let r = file.sync();
    stats.record(start.elapsed());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_image_keeps_only_synced_bytes() {
        let dir = SimDir::new();
        let mut f = dir.create("a").unwrap();
        f.append(b"hello").unwrap();
        f.sync().unwrap();
        f.append(b" world").unwrap();
        assert_eq!(dir.read("a").unwrap(), b"hello world");
        assert_eq!(dir.crash_image().read("a").unwrap(), b"hello");
        assert_eq!(
            dir.crash_image_with_tail("a", 3).read("a").unwrap(),
            b"hello wo"
        );
    }

    #[test]
    fn faults_fire_once_and_enospc_by_capacity() {
        let dir = SimDir::new();
        let mut f = dir.create("a").unwrap();
        dir.set_faults(Faults {
            fail_next_sync: true,
            capacity: Some(4),
            ..Faults::default()
        });
        assert!(f.sync().is_err());
        assert!(f.sync().is_ok());
        // A full disk writes what fits, then fails (a torn write).
        let e = f.append(b"12345").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        assert_eq!(dir.read("a").unwrap(), b"1234");
        assert!(f.append(b"6").is_err());
    }

    #[test]
    fn rules_fire_once_on_the_nth_operation_and_torn_appends_write_a_prefix() {
        let dir = SimDir::new();
        let mut f = dir.create("a").unwrap();
        dir.set_faults(Faults::rules(vec![
            FaultRule::after(SimOp::Sync, 1),
            FaultRule::torn_append(1, 2),
            FaultRule::next(SimOp::Truncate),
        ]));
        f.append(b"ab").unwrap();
        f.sync().unwrap();
        assert!(f.append(b"cdef").is_err(), "the second append is torn");
        assert!(f.sync().is_err(), "the second sync fails");
        assert_eq!(dir.read("a").unwrap(), b"abcd");
        assert_eq!(dir.crash_image().read("a").unwrap(), b"ab");
        assert_eq!(dir.restart_image().read("a").unwrap(), b"abcd");
        assert!(f.truncate(2).is_err());
        f.truncate(2).unwrap();
        f.sync().unwrap();
        assert_eq!(dir.restart_image().read("a").unwrap(), b"ab");
    }

    #[test]
    fn fs_dir_round_trip() {
        let root = std::env::temp_dir().join(format!("cohort-dev-{}", std::process::id()));
        let dir = FsDir::open(&root).unwrap();
        let mut f = dir.create("x.000001").unwrap();
        f.append(b"abc").unwrap();
        f.sync().unwrap();
        f.write_at(1, b"B").unwrap();
        drop(f);
        let f = dir.open_append("x.000001").unwrap();
        assert_eq!(f.len(), 3);
        assert_eq!(dir.read("x.000001").unwrap(), b"aBc");
        dir.write_atomic("ck", b"1").unwrap();
        assert_eq!(
            dir.list().unwrap(),
            vec!["ck".to_string(), "x.000001".to_string()]
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn poison_keeps_the_first_failure() {
        let p = Poison::default();
        assert!(p.get().is_none());
        p.set("a".into(), &io::Error::from_raw_os_error(libc::ENOSPC));
        p.set("b".into(), &io::Error::from_raw_os_error(libc::EIO));
        let info = p.get().unwrap();
        assert_eq!((info.file.as_str(), info.errno), ("a", libc::ENOSPC));
    }
}
