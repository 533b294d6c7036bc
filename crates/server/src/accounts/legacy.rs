//! Reading the version-1 accounts file, `accounts.txt`, once, to migrate it.
//!
//! Version 1 was one account a line, `user<TAB>host<TAB>*HASH or -<TAB>grants`, grants `*` or
//! database names joined by commas, with nothing escaped. A name holding a tab, a newline or a
//! comma therefore changed what the file said: `CREATE USER 'victim\t%\t-\t*\nx'` read back
//! as a passwordless global administrator, and a grant on `` `tenant,*`.* `` as one on `*.*`.
//!
//! Such a forgery cannot be told from a real line: a forged line *is* a well-formed line. So
//! the reader is strict about everything it can check, and refuses the file (the server does
//! not start, and says which line) when any of these shows the file was not written by
//! version 1 from plain names: a first line other than the version-1 header, a line without
//! exactly four fields, a bad hash, an empty user or host, an empty database name in a grant
//! list, a duplicate account, `*` beside database names in one grant list. A file that passes
//! is read exactly as version 1 read it at every start, and migrated (see
//! [`super::Accounts::open`]); every migrated account and its grants are logged, so that the
//! administrator can review them once.

use super::{Account, Grant, Privs};

/// The file's name in the data directory.
pub const FILE_NAME: &str = "accounts.txt";
const HEADER: &str = "# cohort accounts v1";

/// Parse a version-1 file strictly; the error names the offending line.
pub fn parse(text: &str) -> Result<Vec<Account>, String> {
    let mut lines = text.split('\n').enumerate();
    match lines.next() {
        Some((_, HEADER)) => {}
        _ => return Err(format!("line 1: expected the header '{HEADER}'")),
    }
    let mut out = Vec::new();
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        out.push(parse_line(line).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    // Version 1 stored root@% (from --root-password, as now); it is no longer stored.
    out.retain(|a| !super::is_root(&a.user, &a.host));
    super::check_table(&out)?;
    Ok(out)
}

fn parse_line(line: &str) -> Result<Account, String> {
    let f: Vec<&str> = line.split('\t').collect();
    let [user, host, hash, grants] = f[..] else {
        return Err(format!(
            "expected 4 tab-separated fields, found {}",
            f.len()
        ));
    };
    if user.is_empty() || host.is_empty() {
        return Err("empty user or host".into());
    }
    let hash = match hash {
        "-" => None,
        h => Some(super::parse_hash(h).ok_or("bad password hash")?),
    };
    Ok(Account {
        user: user.into(),
        host: host.into(),
        hash,
        grants: parse_grants(grants)?,
        require: super::TransportRequirement::None,
    })
}

fn parse_grants(list: &str) -> Result<Vec<Grant>, String> {
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let items: Vec<&str> = list.split(',').collect();
    if items.iter().any(|g| g.is_empty()) {
        return Err("empty database name in the grant list (a name held a comma?)".into());
    }
    if items.len() > 1 && items.contains(&"*") {
        return Err("'*' beside database names in one grant list (a name held a comma?)".into());
    }
    Ok(items
        .into_iter()
        .map(|g| match g {
            "*" => super::legacy_global(),
            db => Grant::Database(db.into(), Privs::DB_ALL),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "*7FC8780EC04AEA87C347D8E65C24F9DEB598A68F";

    #[test]
    fn a_plain_version_1_file_reads_as_it_always_did() {
        let text =
            format!("{HEADER}\nroot\t%\t-\t*\nsb\t%\t{SB}\tsbtest,other\nops\tlocalhost\t-\t*\n");
        let a = parse(&text).unwrap();
        assert_eq!(a.len(), 2, "root@% is not migrated");
        assert_eq!(
            a[0].grants,
            vec![
                Grant::Database("sbtest".into(), Privs::DB_ALL),
                Grant::Database("other".into(), Privs::DB_ALL)
            ]
        );
        assert_eq!(a[0].hash, super::super::password_hash("sb"));
        assert_eq!(a[1].grants, vec![crate::accounts::legacy_global()]);
    }

    #[test]
    fn what_a_name_with_a_separator_leaves_is_refused() {
        let cases = [
            // A user name holding tabs: more than four fields.
            format!("{HEADER}\nroot\t%\t-\t*\na\tb\t%\t-\t\n"),
            // A grant on `tenant,*`.*: '*' beside a database name.
            format!("{HEADER}\nsb\t%\t{SB}\ttenant,*\n"),
            // A database name ending in a comma.
            format!("{HEADER}\nsb\t%\t{SB}\ttenant,\n"),
            // The same account twice.
            format!("{HEADER}\nsb\t%\t-\t\nsb\t%\t-\t\n"),
            // No header: not a version-1 file.
            format!("sb\t%\t{SB}\t*\n"),
            // A bad hash.
            format!("{HEADER}\nsb\t%\t*12\t\n"),
        ];
        for text in cases {
            assert!(parse(&text).is_err(), "accepted: {text:?}");
        }
    }
}
