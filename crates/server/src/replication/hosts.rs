//! COM_REGISTER_SLAVE and `SHOW SLAVE HOSTS` / `SHOW REPLICA HOSTS`.
//!
//! A replica registers before it asks for the binlog; the registration lasts as long as the
//! connection that made it (its dump, or the session if it never dumps). One registration per
//! server id: a new one replaces the old, as in MariaDB. What MariaDB 10.11 shows (captured):
//! `Server_id`, `Host` (the reported host, or the connection's address when the replica
//! reported none), `Port` (as reported), `Master_id` (this server's id).

use super::Replication;
use cohort_protocol::replication::RegisterSlave;

/// One registered replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlaveHost {
    pub conn_id: u32,
    pub server_id: u32,
    pub host: String,
    pub port: u16,
}

impl Replication {
    /// COM_REGISTER_SLAVE from connection `conn_id`, whose client is at `client_host`.
    pub fn register(&self, conn_id: u32, client_host: &str, r: &RegisterSlave) {
        let host = if r.host.is_empty() {
            client_host.to_string()
        } else {
            r.host.clone()
        };
        let mut hosts = self.hosts.lock();
        hosts.retain(|h| h.server_id != r.server_id && h.conn_id != conn_id);
        hosts.push(SlaveHost {
            conn_id,
            server_id: r.server_id,
            host,
            port: r.port,
        });
    }

    /// The connection that registered is gone.
    pub fn unregister(&self, conn_id: u32) {
        self.hosts.lock().retain(|h| h.conn_id != conn_id);
    }

    /// What SHOW SLAVE HOSTS lists, in server id order: the registered connections that are
    /// streaming (MariaDB 10.11 lists a replica while its dump runs).
    pub fn hosts(&self) -> Vec<SlaveHost> {
        let dumping: Vec<u32> = self.dumps.lock().iter().map(|d| d.conn_id).collect();
        let mut h: Vec<SlaveHost> = self
            .hosts
            .lock()
            .iter()
            .filter(|h| dumping.contains(&h.conn_id))
            .cloned()
            .collect();
        h.sort_by_key(|h| h.server_id);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(server_id: u32, host: &str, port: u16) -> RegisterSlave {
        RegisterSlave {
            server_id,
            host: host.into(),
            user: String::new(),
            password: Vec::new(),
            port,
            rank: 0,
            master_id: 0,
        }
    }

    #[test]
    fn one_registration_per_server_id_and_per_connection() {
        let r = Replication::default();
        r.register(7, "127.0.0.1", &reg(2, "", 3570));
        r.register(8, "10.0.0.9", &reg(3, "replica-b", 3571));
        assert_eq!(r.hosts(), vec![], "listed while streaming only");
        let _a = r.dump_started(7, 2);
        let _b = r.dump_started(8, 3);
        let _c = r.dump_started(9, 2);
        assert_eq!(
            r.hosts(),
            vec![
                SlaveHost {
                    conn_id: 7,
                    server_id: 2,
                    host: "127.0.0.1".into(),
                    port: 3570
                },
                SlaveHost {
                    conn_id: 8,
                    server_id: 3,
                    host: "replica-b".into(),
                    port: 3571
                },
            ]
        );
        // The replica reconnects (same server id, new connection): replaced.
        r.register(9, "127.0.0.1", &reg(2, "", 3570));
        assert_eq!(r.hosts().len(), 2);
        assert_eq!(r.hosts()[0].conn_id, 9);
        r.unregister(7);
        assert_eq!(
            r.hosts().len(),
            2,
            "the old connection's entry was already gone"
        );
        r.unregister(9);
        r.unregister(8);
        assert!(r.hosts().is_empty());
    }
}
