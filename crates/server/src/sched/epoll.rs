//! A small safe wrapper over Linux epoll, as the pool uses it.
//!
//! Why not `mio` or `polling`: the pool needs (1) a one-shot registration for writing and an
//! edge-triggered one for reading, switched with `EPOLL_CTL_MOD`; (2) several threads in
//! `epoll_wait` on one instance at once — the group's listener blocks in it while a worker
//! about to sleep polls it without waiting (`mio`'s `Poll::poll` takes `&mut self`; `polling`
//! returns at once for a second waiter); (3) a 64-bit token per registration. That is four
//! system calls, wrapped here.
//!
//! [`Interest::Read`] is edge-triggered and stays armed: a socket reports once each time bytes
//! (or a hang-up) arrive, and costs no system call between two requests — the owner of a
//! connection must therefore drain the socket, or know it drained it, before it lets go (see
//! the claim protocol in [`super::conn`]). [`Interest::Write`] is one-shot and level-triggered:
//! it reports once when there is room to send, then nothing until the next `EPOLL_CTL_MOD`.
//! Arming either with the condition already true reports at once.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// What a registration waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interest {
    /// Bytes to read, or the peer closed.
    Read,
    /// Room in the send buffer.
    Write,
}

impl Interest {
    fn bits(self) -> u32 {
        let hangup = libc::EPOLLRDHUP as u32;
        match self {
            Interest::Read => hangup | libc::EPOLLIN as u32 | libc::EPOLLET as u32,
            Interest::Write => hangup | libc::EPOLLOUT as u32 | libc::EPOLLONESHOT as u32,
        }
    }
}

/// One epoll instance.
pub struct Epoll {
    fd: OwnedFd,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 takes no pointers; a non-negative result is a new descriptor
        // that we own.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by epoll_create1 and is owned by nobody else.
        Ok(Epoll {
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    /// Register `fd` with `token`, armed for `interest`.
    pub fn add(&self, fd: RawFd, token: u64, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, token, interest)
    }

    /// Change what a registered `fd` waits for (and arm it again).
    pub fn rearm(&self, fd: RawFd, token: u64, interest: Interest) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, token, interest)
    }

    /// Forget `fd` (closing it does this too).
    pub fn remove(&self, fd: RawFd) -> io::Result<()> {
        let mut ev = libc::epoll_event { events: 0, u64: 0 };
        // SAFETY: `ev` is a valid epoll_event (ignored by EPOLL_CTL_DEL on current kernels).
        let rc = unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_DEL, fd, &mut ev) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn ctl(&self, op: i32, fd: RawFd, token: u64, interest: Interest) -> io::Result<()> {
        let mut ev = libc::epoll_event {
            events: interest.bits(),
            u64: token,
        };
        // SAFETY: `ev` is a valid epoll_event that epoll_ctl only reads.
        let rc = unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Wait for events: `timeout_ms` < 0 waits for ever, 0 does not wait. Fills `events` (it
    /// may be left empty: timeout or signal).
    pub fn wait(&self, events: &mut Events, timeout_ms: i32) -> io::Result<()> {
        events.len = 0;
        let cap = events.buf.len() as i32;
        // SAFETY: `events.buf` has room for `cap` epoll_event structs, which epoll_wait may
        // write; it writes `n` of them.
        let n = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                events.buf.as_mut_ptr(),
                cap,
                timeout_ms,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::Interrupted => Ok(()),
                _ => Err(e),
            };
        }
        events.len = n as usize;
        Ok(())
    }
}

/// A buffer of delivered events.
pub struct Events {
    buf: Vec<libc::epoll_event>,
    len: usize,
}

impl Events {
    pub fn with_capacity(n: usize) -> Events {
        Events {
            buf: vec![libc::epoll_event { events: 0, u64: 0 }; n.max(1)],
            len: 0,
        }
    }

    /// The tokens of the delivered events.
    pub fn tokens(&self) -> impl Iterator<Item = u64> + '_ {
        self.delivered().map(|(token, _)| token)
    }

    /// The delivered events: token, and whether the peer hung up or the socket failed (then
    /// a read may return end-of-file after the bytes: one edge can carry both).
    pub fn delivered(&self) -> impl Iterator<Item = (u64, bool)> + '_ {
        let hangup = (libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32;
        // By value: epoll_event is packed on x86-64, so no reference to a field is taken.
        self.buf[..self.len].iter().map(move |ev| {
            let (token, events) = (ev.u64, ev.events);
            (token, events & hangup != 0)
        })
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;

    #[test]
    fn read_is_edge_triggered_and_stays_armed_write_is_one_shot() {
        let ep = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        ep.add(b.as_raw_fd(), 7, Interest::Read).unwrap();
        let mut ev = Events::with_capacity(8);
        ep.wait(&mut ev, 0).unwrap();
        assert!(ev.is_empty(), "nothing to read yet");
        a.write_all(b"x").unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(ev.tokens().collect::<Vec<_>>(), vec![7]);
        ep.wait(&mut ev, 0).unwrap();
        assert!(
            ev.is_empty(),
            "edge-triggered: not reported again while unread"
        );
        a.write_all(b"y").unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(
            ev.tokens().collect::<Vec<_>>(),
            vec![7],
            "new bytes report again without re-arming"
        );
        ep.rearm(b.as_raw_fd(), 8, Interest::Write).unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(ev.tokens().collect::<Vec<_>>(), vec![8], "room to send");
        ep.wait(&mut ev, 0).unwrap();
        assert!(ev.is_empty(), "write is one-shot");
        ep.rearm(b.as_raw_fd(), 9, Interest::Read).unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(
            ev.tokens().collect::<Vec<_>>(),
            vec![9],
            "arming for reading with bytes waiting reports at once"
        );
        a.write_all(b"w").unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(ev.delivered().collect::<Vec<_>>(), vec![(9, false)]);
        a.shutdown(std::net::Shutdown::Write).unwrap();
        ep.wait(&mut ev, 1000).unwrap();
        assert_eq!(
            ev.delivered().collect::<Vec<_>>(),
            vec![(9, true)],
            "the peer's shutdown is an edge that says so"
        );
        ep.remove(b.as_raw_fd()).unwrap();
        ep.wait(&mut ev, 0).unwrap();
        assert!(ev.is_empty());
    }
}
