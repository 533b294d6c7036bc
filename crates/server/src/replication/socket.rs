//! The connection a dump writes to and its reader thread reads from.
//!
//! A dump writes from its own thread and reads (acknowledgements, the client going away) from
//! another, so the connection must offer both at once. A plain TCP socket does (a second
//! descriptor for the reader); a connection inside TLS ([`TlsDumpSocket`]) shares its rustls
//! state between the two sides, behind a mutex.

use crate::tls::Link;
use cohort_protocol::PacketReader;
use parking_lot::Mutex;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// A connection given to a dump (module doc).
pub trait DumpSocket: Send {
    /// Write every byte (blocking; fails after the write timeout).
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Write bytes that are already as the connection carries them (sealed inside TLS:
    /// answers the scheduler had not written yet when the dump took the connection).
    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_all(bytes)
    }
    /// A blocking reader of what the client sends, for the reader thread.
    fn reader(&self) -> io::Result<Box<dyn Read + Send>>;
    /// The dump is over: unblock the reader and end the connection.
    fn shutdown(&self);
}

/// The socket a dump on `stream` writes to: plain TCP, or inside the connection's `tls`.
pub fn for_stream(
    stream: TcpStream,
    tls: Option<Box<Link>>,
    write_timeout: Duration,
) -> io::Result<Box<dyn DumpSocket>> {
    Ok(match tls {
        Some(link) => Box::new(TlsDumpSocket::new(stream, link, write_timeout)?),
        None => Box::new(TcpDumpSocket::new(stream, write_timeout)?),
    })
}

/// A TCP connection, blocking, with `net_write_timeout` on writes.
pub struct TcpDumpSocket {
    stream: TcpStream,
}

impl TcpDumpSocket {
    /// Take over `stream` (it may have been non-blocking under the pool of threads).
    pub fn new(stream: TcpStream, write_timeout: Duration) -> io::Result<TcpDumpSocket> {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(None)?;
        stream.set_write_timeout(Some(write_timeout.max(Duration::from_secs(1))))?;
        let _ = stream.set_nodelay(true);
        Ok(TcpDumpSocket { stream })
    }
}

impl DumpSocket for TcpDumpSocket {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        Write::write_all(&mut self.stream, bytes)
    }

    fn reader(&self) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(self.stream.try_clone()?))
    }

    fn shutdown(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// A connection inside TLS. Its rustls state is shared by the dump (which seals events) and
/// the reader thread (which opens what the client sends). The mutex protects the link and is
/// held while sealed records are written, so records reach the socket in the order they were
/// sealed (TLS numbers them); the reader thread holds it only to decrypt, never while it
/// waits for input.
pub struct TlsDumpSocket {
    stream: TcpStream,
    link: Arc<Mutex<Link>>,
    /// Sealed records of one write (kept for the allocation).
    sealed: Vec<u8>,
}

impl TlsDumpSocket {
    /// Take over `stream` and the session's `link` (the connection's TLS from now on).
    pub fn new(stream: TcpStream, link: Box<Link>, write_timeout: Duration) -> io::Result<Self> {
        let stream = TcpDumpSocket::new(stream, write_timeout)?.stream;
        Ok(TlsDumpSocket {
            stream,
            link: Arc::new(Mutex::new(*link)),
            sealed: Vec::new(),
        })
    }
}

impl DumpSocket for TlsDumpSocket {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut link = self.link.lock();
        self.sealed.clear();
        link.seal(bytes, &mut self.sealed);
        let written = Write::write_all(&mut self.stream, &self.sealed);
        drop(link);
        if self.sealed.capacity() > 1 << 20 {
            self.sealed = Vec::new();
        }
        written
    }

    fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let _link = self.link.lock();
        Write::write_all(&mut self.stream, bytes)
    }

    fn reader(&self) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(TlsDumpReader {
            stream: self.stream.try_clone()?,
            link: self.link.clone(),
            plain: PacketReader::new(READ_LIMIT),
            pending: Vec::new(),
            taken: 0,
            closed: false,
        }))
    }

    fn shutdown(&self) {
        let mut out = Vec::new();
        self.link.lock().close(&mut out);
        let _ = (&self.stream).write_all(&out);
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// What one decrypting read may hold: a client sends a dump only acknowledgements (a few
/// dozen bytes) and, at most, packets it is ignored for.
const READ_LIMIT: usize = 1 << 20;

/// The reader thread's side of a [`TlsDumpSocket`]: ciphertext from the socket, plaintext out.
struct TlsDumpReader {
    stream: TcpStream,
    link: Arc<Mutex<Link>>,
    /// Decrypts into this (the link's interface); drained into `pending` after each record.
    plain: PacketReader,
    pending: Vec<u8>,
    /// Bytes of `pending` already returned.
    taken: usize,
    /// The client sent close_notify or the TLS failed: end of stream.
    closed: bool,
}

impl Read for TlsDumpReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut ciphertext = [0u8; 16 * 1024];
        while self.taken == self.pending.len() {
            if self.closed {
                return Ok(0);
            }
            let n = self.stream.read(&mut ciphertext)?;
            if n == 0 {
                return Ok(0);
            }
            let mut out = Vec::new();
            let mut link = self.link.lock();
            match link.open(&ciphertext[..n], &mut self.plain, &mut out) {
                Ok(opened) => self.closed = opened.peer_closed,
                Err(e) => {
                    tracing::debug!("binlog dump: TLS: {e}");
                    self.closed = true;
                }
            }
            // Records rustls must answer with (alerts, key updates), in order with the dump's.
            if !out.is_empty() {
                let _ = (&self.stream).write_all(&out);
            }
            drop(link);
            self.pending = self.plain.take_buffered();
            self.taken = 0;
        }
        let n = buf.len().min(self.pending.len() - self.taken);
        buf[..n].copy_from_slice(&self.pending[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}
