//! Steering: serve each connection in the group whose CPU its client runs on
//! (`thread_pool_steering = ON | PINNED`; `ON` by default).
//!
//! # Why
//!
//! With a thread per connection, a server thread sleeps right after it answers, so the
//! kernel's synchronous wakeup keeps each client and its server thread on one CPU: a request
//! and its answer cost two context switches and no inter-processor interrupt. A pool worker
//! serves several connections and keeps running after it answers, so nothing keeps a
//! group's clients on its worker's CPU. When the kernel puts them on the other CPU, every
//! request wakes the worker across CPUs and every answer wakes the client across CPUs, and
//! both processes pay about twice the CPU per transaction. Measured on 2 cores with 4
//! sysbench clients doing point selects, the pool ran in a fast state (as fast as a thread
//! per connection) or a slow one (0.6–0.7×), depending on where the clients happened to be.
//!
//! # How
//!
//! 1. **A group per CPU.** Group *g* serves the clients that run on the *g*-th CPU the
//!    process may use. Steering works while `thread_pool_size` equals their number (the
//!    default); with any other size it rests, and connections stay in the group their
//!    connection number gives them.
//! 2. **Steer.** When a worker takes a connection of a client on this host it reads
//!    `SO_INCOMING_CPU`: the CPU that processed the client's last packet, which on loopback
//!    is the CPU the client sent from. (For a client across a network it would be the CPU the
//!    network card's queue chose — with one queue, every connection would go to one group —
//!    so those connections are not steered.) If that CPU belongs to another group, the worker
//!    moves the connection there (out of its epoll and table, into the other's) and queues
//!    it in that group, high priority, without serving it — unless that group already has
//!    more than its even share of the connections plus an eighth ([`room_in`]): locality is
//!    worth less than using every CPU. Only busy connections move: one whose previous
//!    request came more than [`BUSY_WITHIN_MS`] earlier stays where it is.
//! 3. **Stay.** All of a group's requests now come from clients on one CPU, and each wakes
//!    the group's listener or worker synchronously from there, so the kernel's wake-affine
//!    rule draws the group's threads to that CPU; their answers then wake each client on its
//!    own CPU, and its next request comes from there again. Wherever the load balancer
//!    moves a client, its connection follows at its next request.
//!
//! 4. **Pin** (`PINNED` only): group *g*'s workers run on its CPU only. Without pinning
//!    (`ON`, the default) step 3 alone keeps them there most of the time, but a worker woken
//!    while another of its group waits for the log sync may start on the other CPU and serve
//!    the group's clients from there until the kernel moves it back.
//!
//! What the modes measured (2 cores, sysbench, alternating 5 s runs, 5 rounds, medians,
//! ratio to a thread per connection; three such runs for durable updates):
//!
//! | connections | point select `ON` | `PINNED` | `OFF` | durable update `ON` | `PINNED` | `OFF` |
//! |---:|---:|---:|---:|---:|---:|---:|
//! | 1 | 1.02–1.11× | 1.09–1.12× | 0.88–0.99× | 0.98–1.10× | **0.85–0.96×** | 0.89–1.03× |
//! | 4 | 0.96–0.99× | 1.00–1.01× | 0.77–0.93× | 0.97–1.06× | 1.05–1.15× | 0.90–0.93× |
//! | 16 | 1.06–1.12× | 1.11–1.13× | 0.79–0.92× | 0.93–0.99× | 1.06–1.11× | 0.93–1.02× |
//!
//! Pinning wins on durable updates from 4 connections but loses at one, where the lone
//! worker must be woken from the CPU that took the disk's interrupt; `ON` stays within 7%
//! of a thread per connection everywhere, so it is the default.
//!
//! The cost is one `getsockopt` per [`CHECK_EVERY`] requests of a busy connection (and on
//! the first request after it was idle), and two `epoll_ctl` calls and a hand-off per move
//! (`Threadpool_steered` counts the moves). Reading the CPU on every request cost a third of
//! the system calls of a point select (send, receive, `getsockopt`), to follow clients that
//! change CPU a few times a second at most.

use std::net::TcpStream;
use std::os::fd::AsRawFd;

/// The group of each CPU: group *g* serves the clients on the *g*-th CPU the process may use.
pub struct Steering {
    /// The number of CPUs the process may use: steering applies while there are as many
    /// groups.
    groups: usize,
    /// Indexed by CPU number: the group serving clients there.
    group_of: Vec<Option<usize>>,
    /// Indexed by group: its CPU, when its workers are pinned there (`PINNED`).
    pinned_to: Option<Vec<usize>>,
}

impl Steering {
    /// Steering over the CPUs this process may run on, one group each; Err (why) if they
    /// cannot be read.
    pub fn plan(pin: bool) -> Result<Steering, String> {
        let cpus = allowed_cpus().map_err(|e| format!("cannot read the CPU affinity: {e}"))?;
        Ok(Steering::over(&cpus, pin))
    }

    fn over(cpus: &[usize], pin: bool) -> Steering {
        let mut group_of = vec![None; cpus.iter().max().map_or(0, |m| m + 1)];
        for (g, &cpu) in cpus.iter().enumerate() {
            group_of[cpu] = Some(g);
        }
        Steering {
            groups: cpus.len(),
            group_of,
            pinned_to: pin.then(|| cpus.to_vec()),
        }
    }

    /// The pool size steering needs: one group per CPU.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The group serving clients on `cpu`, if any.
    pub fn group_of_cpu(&self, cpu: usize) -> Option<usize> {
        self.group_of.get(cpu).copied().flatten()
    }

    /// With `PINNED`: run the calling thread (a worker of `group`) on its group's CPU only.
    pub fn pin_worker(&self, group: usize) {
        let Some(&cpu) = self.pinned_to.as_ref().and_then(|cpus| cpus.get(group)) else {
            return;
        };
        // SAFETY: `set` is a plain bit set on the stack, zeroed before use.
        let rc = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            tracing::warn!("thread pool: cannot pin a worker of group {group} to CPU {cpu}: {e}");
        }
    }
}

/// The CPUs this process may run on, in order.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    // SAFETY: `set` is a plain bit set on the stack; sched_getaffinity writes at most its size.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        set
    };
    // SAFETY: CPU_ISSET only reads the set.
    let cpus = (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) });
    Ok(cpus.collect())
}

/// A connection is steered only if its previous request came at most this long before: a
/// busy client's last packet says where it runs now, an occasional one's says little (a
/// load generator's event-loop thread driving thousands of slow connections has moved on
/// since), and moving thousands of such connections cost the fixed-rate experiment its flat
/// latency.
pub const BUSY_WITHIN_MS: u64 = 20;

/// A busy connection's client CPU is read on one request in this many: a client that moves
/// is followed a few requests late, and a point select costs two system calls, not three.
pub const CHECK_EVERY: u32 = 8;

/// The balance guard: may one more connection move into a group that has `members` of the
/// pool's `total` connections? Not beyond its even share plus an eighth of it (at least 2).
/// Locality is worth less than using every CPU: a client whose threads all run on one CPU
/// for a while (a load generator with 2 event-loop threads, say) would otherwise gather every
/// connection in one group, and a group runs about one thread at a time.
pub fn room_in(members: usize, total: usize, groups: usize) -> bool {
    let share = total.div_ceil(groups.max(1));
    members < share + (share / 8).max(2)
}

/// Does the peer of `stream` run on this host (a loopback address, or the address the
/// connection came in on)? Only such clients are steered: for a client across a network the
/// incoming CPU is the one the network card's queue chose, and a card with one queue would
/// steer every connection to one group.
pub fn is_same_host(stream: &TcpStream) -> bool {
    match (stream.peer_addr(), stream.local_addr()) {
        (Ok(peer), Ok(local)) => peer.ip().is_loopback() || peer.ip() == local.ip(),
        _ => false,
    }
}

/// The CPU that processed the last packet received on `stream` (`SO_INCOMING_CPU`), if the
/// kernel knows one.
pub fn incoming_cpu(stream: &TcpStream) -> Option<usize> {
    let mut cpu: libc::c_int = -1;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `cpu` and `len` are valid for writes of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_INCOMING_CPU,
            (&mut cpu as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    (rc == 0 && cpu >= 0).then_some(cpu as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_map_to_the_allowed_cpus_in_order() {
        let s = Steering::over(&[2, 5], true);
        assert_eq!(s.groups(), 2);
        assert_eq!(s.pinned_to, Some(vec![2, 5]));
        assert_eq!(s.group_of_cpu(2), Some(0));
        assert_eq!(s.group_of_cpu(5), Some(1));
        assert_eq!(s.group_of_cpu(3), None);
        assert_eq!(s.group_of_cpu(64), None);
        assert_eq!(Steering::over(&[0, 1], false).pinned_to, None);
    }

    #[test]
    fn a_group_takes_moves_up_to_its_share_and_an_eighth() {
        // 256 connections in 2 groups: up to 128 + 16 in one.
        assert!(room_in(143, 256, 2));
        assert!(!room_in(144, 256, 2));
        // Few connections: at least 2 over the share, so 4 clients may share one CPU.
        assert!(room_in(3, 4, 2));
        assert!(!room_in(4, 4, 2));
        assert!(room_in(0, 0, 2));
    }

    #[test]
    fn a_loopback_socket_reports_the_cpu_it_was_sent_from() {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        client.write_all(b"x").unwrap();
        let mut b = [0u8; 1];
        server.read_exact(&mut b).unwrap();
        let cpu = incoming_cpu(&server).expect("the kernel records the incoming CPU");
        assert!(allowed_cpus().unwrap().contains(&cpu), "cpu {cpu}");
        assert!(is_same_host(&server));
    }
}
