//! `mysql://user:password@host:port/database` connection URLs.
//!
//! Every part is optional: `mysql://127.0.0.1` is user `root`, no password, port 3306, no
//! database. User and password may be percent-encoded (`p%40ss` is `p@ss`). The host may be
//! a name, an IPv4 address or a bracketed IPv6 address (`[::1]`). A query string
//! (`?prefer_socket=false`) is accepted and ignored.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};

/// A parsed connection URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbUrl {
    pub user: String,
    pub password: String,
    pub host: String,
    pub port: u16,
    pub database: Option<String>,
}

impl DbUrl {
    /// Parses `mysql://[user[:password]@]host[:port][/database][?…]`.
    pub fn parse(text: &str) -> Result<DbUrl, String> {
        let rest = text
            .strip_prefix("mysql://")
            .or_else(|| text.strip_prefix("mariadb://"))
            .ok_or_else(|| format!("'{text}': a URL must start with mysql://"))?;
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let (userinfo, hostport) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        let (user, password) = match userinfo {
            Some(ui) => match ui.find(':') {
                Some(i) => (decode(&ui[..i])?, decode(&ui[i + 1..])?),
                None => (decode(ui)?, String::new()),
            },
            None => ("root".to_string(), String::new()),
        };
        let (host, port) = split_host_port(hostport)?;
        if host.is_empty() {
            return Err(format!("'{text}': no host"));
        }
        let database = decode(path.trim_end_matches('/'))?;
        Ok(DbUrl {
            user: if user.is_empty() { "root".into() } else { user },
            password,
            host,
            port,
            database: (!database.is_empty()).then_some(database),
        })
    }

    /// The first socket address the host resolves to.
    pub fn socket_addr(&self) -> Result<SocketAddr, String> {
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve {}: {e}", self.host))?
            .next()
            .ok_or_else(|| format!("{} resolves to no address", self.host))
    }

    /// True when the server is on this machine (loopback address).
    pub fn is_local(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .map(|ip| ip.is_loopback())
                .unwrap_or(false)
    }

    /// The same URL with another database.
    pub fn with_database(&self, db: Option<&str>) -> DbUrl {
        DbUrl {
            database: db.map(str::to_string),
            ..self.clone()
        }
    }
}

/// Shows the URL with the password masked.
impl fmt::Display for DbUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        write!(f, "mysql://{}", self.user)?;
        if !self.password.is_empty() {
            write!(f, ":***")?;
        }
        write!(f, "@{host}:{}", self.port)?;
        if let Some(db) = &self.database {
            write!(f, "/{db}")?;
        }
        Ok(())
    }
}

fn split_host_port(s: &str) -> Result<(String, u16), String> {
    let (host, port) = if let Some(inner) = s.strip_prefix('[') {
        let end = inner
            .find(']')
            .ok_or_else(|| format!("'{s}': unclosed '['"))?;
        let after = &inner[end + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(format!("'{s}': junk after ']'")),
        };
        (inner[..end].to_string(), port)
    } else {
        match s.rfind(':') {
            Some(i) => (s[..i].to_string(), Some(&s[i + 1..])),
            None => (s.to_string(), None),
        }
    };
    let port = match port {
        Some(p) => p.parse().map_err(|_| format!("'{p}' is not a port"))?,
        None => 3306,
    };
    Ok((host, port))
}

fn decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("'{s}': bad percent escape"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{s}': not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_url() {
        let u = DbUrl::parse("mysql://sb:sb@127.0.0.1:3316/sbtest").unwrap();
        assert_eq!(
            u,
            DbUrl {
                user: "sb".into(),
                password: "sb".into(),
                host: "127.0.0.1".into(),
                port: 3316,
                database: Some("sbtest".into()),
            }
        );
        assert!(u.is_local());
        assert_eq!(u.to_string(), "mysql://sb:***@127.0.0.1:3316/sbtest");
    }

    #[test]
    fn defaults_and_escapes() {
        let u = DbUrl::parse("mysql://localhost").unwrap();
        assert_eq!((u.user.as_str(), u.port, u.database), ("root", 3306, None));
        let u = DbUrl::parse("mysql://a%40b:p%3Aw%2F@db.example:1/x?prefer_socket=false").unwrap();
        assert_eq!(u.user, "a@b");
        assert_eq!(u.password, "p:w/");
        assert_eq!(u.host, "db.example");
        assert!(!u.is_local());
        assert_eq!(u.database.as_deref(), Some("x"));
        let u = DbUrl::parse("mysql://root:@[::1]:4000/").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 4000));
        assert!(u.database.is_none());
        assert_eq!(u.to_string(), "mysql://root@[::1]:4000");
        let u = DbUrl::parse("mysql://user:pa@ss@h").unwrap();
        assert_eq!((u.user.as_str(), u.password.as_str()), ("user", "pa@ss"));
    }

    #[test]
    fn rejects_bad_urls() {
        for bad in [
            "postgres://x",
            "127.0.0.1:3306",
            "mysql://",
            "mysql://h:port",
            "mysql://h:70000",
            "mysql://[::1",
            "mysql://u%zz@h",
        ] {
            assert!(DbUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
