//! Time zones: what `SET time_zone` accepts, and the conversions between UTC (how TIMESTAMP
//! values are kept and how the clock reads) and a session's local time.
//!
//! A zone is one of
//! * `SYSTEM`: the server's own zone, which for Cohort is UTC (`system_time_zone`): no
//!   conversion at all, so a session at the default pays nothing;
//! * a fixed offset `[+-]H:MM` within MariaDB's range, -12:59 … +13:00 (shown `+HH:MM`);
//! * a named zone of the system's tz database (`Europe/Paris`, `UTC`), matched without regard
//!   to case and shown with the file's own spelling, as MariaDB shows a name of its
//!   `mysql.time_zone_name` table (which Debian's package fills from the same
//!   `/usr/share/zoneinfo`).
//!
//! The TZif files are parsed by the `tz-rs` crate: it has no dependencies, reads the system
//! files (so Cohort answers as a MariaDB whose tables were loaded from them) rather than
//! bundling its own copy of the database as `chrono-tz` does, and is kept up to date. Each
//! zone is loaded once and shared (a zone is at most a few kilobytes; there are some 2,000
//! files).
//!
//! Local time to UTC follows MariaDB: a local time that happens twice (the hour clocks go
//! back) is the earlier instant; one that does not exist (clocks go forward) is the instant
//! of the change (and storing it in a TIMESTAMP column is MariaDB's 1299 warning, 1292 in
//! strict mode).

use crate::types::DateTime;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

const ZONEINFO: &str = "/usr/share/zoneinfo";

/// A time zone other than SYSTEM.
pub enum Zone {
    /// Seconds east of UTC.
    Offset(i32),
    Named(tz::TimeZone),
}

/// What a `time_zone` value names.
pub enum Named {
    System,
    Zone(Arc<Zone>),
}

/// The canonical spelling of a `time_zone` value (`SYSTEM`, `+05:30`, `Europe/Paris`), or
/// None when MariaDB would answer 1298.
pub fn canonical(text: &str) -> Option<String> {
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some("SYSTEM".into());
    }
    if let Some(secs) = parse_offset(text) {
        return Some(offset_text(secs));
    }
    let name = names().get(&name_key(text))?;
    load(name).map(|_| name.clone())
}

/// The zone a `time_zone` value names, None when unknown.
pub fn lookup(text: &str) -> Option<Named> {
    if text.eq_ignore_ascii_case("SYSTEM") {
        return Some(Named::System);
    }
    if let Some(secs) = parse_offset(text) {
        return Some(Named::Zone(Arc::new(Zone::Offset(secs))));
    }
    let name = names().get(&name_key(text))?;
    load(name).map(Named::Zone)
}

/// How a zone's name is looked up: case-insensitive, trailing spaces ignored (MariaDB's
/// `time_zone_name` table compares with PAD SPACE).
fn name_key(text: &str) -> String {
    text.trim_end_matches(' ').to_ascii_lowercase()
}

/// `[+-]H:MM` within -12:59 … +13:00, in seconds.
fn parse_offset(t: &str) -> Option<i32> {
    let sign = match t.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, m) = t[1..].split_once(':')?;
    let digits = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(h) || !digits(m) {
        return None;
    }
    let (h, m) = (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?);
    if m >= 60 {
        return None;
    }
    let minutes = sign * (h * 60 + m);
    (-(12 * 60 + 59)..=13 * 60)
        .contains(&minutes)
        .then_some(minutes * 60)
}

fn offset_text(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let m = secs.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

/// Lower-case name → the file's name, for every TZif file under the zoneinfo directory.
fn names() -> &'static HashMap<String, String> {
    static NAMES: OnceLock<HashMap<String, String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut out = HashMap::new();
        let mut todo = vec![(std::path::PathBuf::from(ZONEINFO), String::new())];
        // Bounded: the directory is a few levels deep; symlinked directories (`posix/Africa`
        // -> `../Africa`) are followed to that depth only.
        while let Some((dir, prefix)) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let Ok(name) = e.file_name().into_string() else {
                    continue;
                };
                let Ok(kind) = e.file_type() else { continue };
                let full = format!("{prefix}{name}");
                if kind.is_dir() || (kind.is_symlink() && e.path().is_dir()) {
                    if prefix.matches('/').count() < 4 {
                        todo.push((e.path(), format!("{full}/")));
                    }
                } else if is_tzif(&e.path()) {
                    out.insert(full.to_ascii_lowercase(), full);
                }
            }
        }
        out
    })
}

fn is_tzif(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == b"TZif"
}

/// The zone of file `name` (as [`names`] spells it), loaded once.
fn load(name: &str) -> Option<Arc<Zone>> {
    static LOADED: OnceLock<Mutex<HashMap<String, Arc<Zone>>>> = OnceLock::new();
    let loaded = LOADED.get_or_init(Default::default);
    if let Some(z) = loaded.lock().get(name) {
        return Some(z.clone());
    }
    let bytes = std::fs::read(std::path::Path::new(ZONEINFO).join(name)).ok()?;
    let tz = tz::TimeZone::from_tz_data(&bytes).ok()?;
    let z = Arc::new(Zone::Named(tz));
    loaded.lock().insert(name.to_string(), z.clone());
    Some(z)
}

/// Does a session with these variables read TIMESTAMP columns in a zone other than SYSTEM?
/// A plan that binds a TIMESTAMP column is bound again when this changes (see
/// `Env::zone_bound`).
pub fn session_zoned(
    ctx: &crate::session::state::ServerContext,
    session_vars: &HashMap<String, crate::types::Value>,
) -> bool {
    let v = match session_vars.get("time_zone") {
        Some(v) => v.clone(),
        None => ctx
            .vars
            .global("time_zone")
            .unwrap_or(crate::types::Value::Null),
    };
    !matches!(&v, crate::types::Value::Bytes(b)
        if b.eq_ignore_ascii_case(b"SYSTEM") || b.as_slice() == b"+00:00")
}

impl Zone {
    /// The offset +00:00 (no conversion: a session at it binds as at SYSTEM).
    pub fn is_utc_offset(&self) -> bool {
        matches!(self, Zone::Offset(0))
    }

    /// Seconds east of UTC at UTC instant `secs`.
    fn offset_at(&self, secs: i64) -> i64 {
        match self {
            Zone::Offset(o) => *o as i64,
            Zone::Named(tz) => tz
                .find_local_time_type(secs)
                .map(|t| t.ut_offset() as i64)
                .unwrap_or(0),
        }
    }

    /// Local seconds (as if UTC) of UTC instant `secs`.
    pub fn local_secs(&self, secs: i64) -> i64 {
        secs + self.offset_at(secs)
    }

    /// The UTC instant of local seconds `local` (MariaDB's rules for the hours clocks skip
    /// or repeat: see the module doc).
    pub fn utc_secs(&self, local: i64) -> i64 {
        self.resolve(local).0
    }

    /// [`Zone::utc_secs`], and whether `local` is a time the clocks skip.
    fn resolve(&self, local: i64) -> (i64, bool) {
        let Zone::Named(_) = self else {
            return (local - self.offset_at(local), false);
        };
        // The offsets in force around that time (no zone changes twice within 14 hours).
        let mut offsets = [-50_400, 0, 50_400].map(|d| self.offset_at(local + d));
        offsets.sort_unstable();
        let mut best = None;
        for o in offsets {
            let u = local - o;
            if self.offset_at(u) == o && best.is_none_or(|b| u < b) {
                best = Some(u);
            }
        }
        if let Some(u) = best {
            return (u, false);
        }
        // A time the clocks skip: the instant they jumped, between the two readings.
        let (mut lo, mut hi) = (local - offsets[2], local - offsets[0]);
        let before = self.offset_at(lo);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.offset_at(mid) == before {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (hi, true)
    }

    /// The local time of UTC datetime `dt`.
    pub fn to_local(&self, dt: &DateTime) -> DateTime {
        if dt.date.month == 0 || dt.date.day == 0 {
            return *dt;
        }
        let secs = crate::sql::expr::convert::unix_seconds(dt);
        crate::sql::expr::convert::datetime_from_unix(self.local_secs(secs), dt.micros)
    }

    /// The UTC datetime of local datetime `dt`.
    pub fn to_utc(&self, dt: &DateTime) -> DateTime {
        self.to_utc_checked(dt).0
    }

    /// [`Zone::to_utc`], and whether `dt` is a time the clocks skip.
    pub fn to_utc_checked(&self, dt: &DateTime) -> (DateTime, bool) {
        if dt.date.month == 0 || dt.date.day == 0 {
            return (*dt, false);
        }
        let local = crate::sql::expr::convert::unix_seconds(dt);
        let (secs, gap) = self.resolve(local);
        let utc = crate::sql::expr::convert::datetime_from_unix(secs, dt.micros);
        (utc, gap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_as_mariadb() {
        assert_eq!(canonical("+5:30").as_deref(), Some("+05:30"));
        assert_eq!(canonical("+05:3").as_deref(), Some("+05:03"));
        assert_eq!(canonical("-00:00").as_deref(), Some("+00:00"));
        assert_eq!(canonical("+13:00").as_deref(), Some("+13:00"));
        assert_eq!(canonical("-12:59").as_deref(), Some("-12:59"));
        for bad in [
            "+13:01", "-13:00", "+05:60", "05:30", " +05:30", "+05:30 ", "",
        ] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
        assert_eq!(canonical("system").as_deref(), Some("SYSTEM"));
    }

    #[test]
    fn named_zones_with_dst() {
        if !std::path::Path::new(ZONEINFO)
            .join("Europe/Paris")
            .is_file()
        {
            return;
        }
        assert_eq!(canonical("europe/paris").as_deref(), Some("Europe/Paris"));
        assert_eq!(canonical("Nowhere/Else"), None);
        let Some(Named::Zone(z)) = lookup("Europe/Paris") else {
            panic!()
        };
        // 2024-03-31 02:30 does not exist: the change, 01:00 UTC.
        assert_eq!(z.utc_secs(1_711_852_200), 1_711_846_800);
        // 2024-10-27 02:30 happens twice: the earlier, 00:30 UTC.
        assert_eq!(z.utc_secs(1_729_996_200), 1_729_989_000);
        assert_eq!(z.local_secs(1_711_846_800), 1_711_846_800 + 7200);
    }
}
