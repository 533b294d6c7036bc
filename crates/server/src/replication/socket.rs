//! The connection a dump writes to and its reader thread reads from.
//!
//! A dump writes from its own thread and reads (acknowledgements, the client going away) from
//! another, so the connection must offer both at once. A plain TCP socket does (a second
//! descriptor for the reader); an encrypted connection implements [`DumpSocket`] over its own
//! session, serialising its state between the two sides.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// A connection given to a dump (module doc).
pub trait DumpSocket: Send {
    /// Write every byte (blocking; fails after the write timeout).
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// A blocking reader of what the client sends, for the reader thread.
    fn reader(&self) -> io::Result<Box<dyn Read + Send>>;
    /// The dump is over: unblock the reader and end the connection.
    fn shutdown(&self);
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
