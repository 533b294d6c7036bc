//! Creating the data directory and the files in it: owner-only, as MariaDB does.
//!
//! The data directory holds password hashes (the accounts file) and every committed row (the
//! binlog, the redo log, checkpoints), so nothing the server creates there may be readable by
//! other users of the machine, whatever the umask: directories are created `0700` and files
//! `0600` (the umask can only narrow these). Every file or directory the server creates in the
//! data directory goes through this module — the log device ([`crate::log::device::FsDir`]),
//! the log-mode marker, the accounts file — so there is one place that decides.
//!
//! What already exists is left as it is (MariaDB does not change modes either); the server
//! warns when the data directory itself is open to others, and the accounts file refuses to
//! load when others may write it ([`check_private`]).

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Mode of directories the server creates.
pub const DIR_MODE: u32 = 0o700;
/// Mode of files the server creates.
pub const FILE_MODE: u32 = 0o600;

/// Create `path` and its missing parents, each `0700`; an existing directory is fine.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
}

/// `OpenOptions` whose file, if this call creates it, is `0600`. The caller adds the access
/// flags (`write`, `create_new`, …).
pub fn file_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.mode(FILE_MODE);
    o
}

/// Create (or truncate) `path` for writing, `0600` if new.
pub fn create_file(path: &Path) -> io::Result<File> {
    file_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
}

/// Write `data` to a new or truncated `path` (`0600` if new). Not durable by itself: the
/// caller syncs what must survive a crash.
pub fn write_file(path: &Path, data: &[u8]) -> io::Result<()> {
    create_file(path)?.write_all(data)
}

/// The permission bits of `path` (the low 12 bits of its mode).
pub fn mode_of(path: &Path) -> io::Result<u32> {
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o7777)
}

/// Why a file that decides who may log in cannot be trusted, if it can't: it may be written
/// by the group or by others. The message says what to do.
pub fn check_private(path: &Path, what: &str) -> Result<(), String> {
    let mode = mode_of(path).map_err(|e| format!("cannot stat {}: {e}", path.display()))?;
    if mode & 0o022 == 0 {
        return Ok(());
    }
    Err(format!(
        "refusing to start: the {what} {} is writable by its group or by others (mode {mode:04o}); \
         whoever can write it can make themselves an administrator. Make it private with \
         `chmod 600 {}` and check its content before restarting",
        path.display(),
        path.display()
    ))
}

/// A warning if the data directory is open to its group or to others (None if it is private).
pub fn exposure_warning(dir: &Path) -> Option<String> {
    let mode = mode_of(dir).ok()?;
    (mode & 0o077 != 0).then(|| {
        format!(
            "the data directory {} has mode {mode:04o}: other users of this machine may read \
             its logs and checkpoints; `chmod 700 {}` makes it private (new data directories \
             are created 0700)",
            dir.display(),
            dir.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("cohort-datadir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// Run `f` with the process umask set to `mask` (0: the loosest), restoring it after.
    fn with_umask<T>(mask: libc::mode_t, f: impl FnOnce() -> T) -> T {
        // SAFETY: umask(2) only swaps the process file-creation mask.
        let old = unsafe { libc::umask(mask) };
        let r = f();
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        r
    }

    #[test]
    fn directories_and_files_are_owner_only_whatever_the_umask() {
        let root = scratch("modes");
        with_umask(0, || {
            create_dir_all(&root.join("a/b")).unwrap();
            write_file(&root.join("a/b/f"), b"x").unwrap();
            let g = file_options()
                .write(true)
                .create_new(true)
                .open(root.join("a/g"))
                .unwrap();
            drop(g);
        });
        assert_eq!(mode_of(&root).unwrap(), DIR_MODE);
        assert_eq!(mode_of(&root.join("a/b")).unwrap(), DIR_MODE);
        assert_eq!(mode_of(&root.join("a/b/f")).unwrap(), FILE_MODE);
        assert_eq!(mode_of(&root.join("a/g")).unwrap(), FILE_MODE);
        assert!(exposure_warning(&root).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn writable_by_others_is_refused_with_the_reason() {
        let root = scratch("check");
        create_dir_all(&root).unwrap();
        let f = root.join("accounts");
        write_file(&f, b"x").unwrap();
        assert!(check_private(&f, "accounts file").is_ok());
        for mode in [0o620, 0o602, 0o666] {
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = check_private(&f, "accounts file").unwrap_err();
            assert!(e.contains("writable by its group or by others"), "{e}");
            assert!(e.contains(&format!("{mode:04o}")), "{e}");
        }
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(exposure_warning(&root).unwrap().contains("0755"));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
