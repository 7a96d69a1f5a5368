//! Connection limits for [`serve_with`](super::serve_with): a cap on open
//! connections, and deadlines for connections that send nothing or take
//! too long to send a request head.
//!
//! axum's server runs hyper without a timer, so hyper's own header timeout
//! is off; these limits take its place, in three pieces:
//! - [`Connections`], the listener, holds a permit per open connection and
//!   stops accepting while none is free;
//! - [`Watched`], the I/O of one connection, notes when bytes arrive and
//!   fails the connection once a deadline has passed;
//! - [`Tracked`], the service of one connection, tells it when requests are
//!   in progress: from the parsed head to the end of the response body. A
//!   slow handler or an open event stream is therefore never idle, however
//!   quiet it is.
//!
//! [`Watched`] also looks at the first bytes of each connection: HTTP/2
//! without TLS is not served, and a client that opens with HTTP/2's
//! connection preface (prior knowledge) is told so in HTTP/2, with a
//! GOAWAY frame carrying `HTTP_1_1_REQUIRED`, rather than dropped without
//! a word. [`opening`] tells the preface from HTTP/1 without I/O. An
//! HTTP/1.1 request differs from the preface by its first or second byte,
//! so the first read of its connection decides, and later reads pass
//! through with nothing to check.

use std::convert::Infallible;
use std::future::{ready, Future, Ready};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{self, Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use axum::Router;
use http_body::{Body as _, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tower_service::Service;

use super::after;

/// The deadlines of a connection.
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeouts {
    /// Longest a connection may stay with no request in progress and no
    /// byte received.
    pub(super) idle: Duration,
    /// Longest a request head may take, from its first byte to its last.
    pub(super) header: Duration,
}

impl Timeouts {
    /// How long a connection's timer may wait before it looks at the state
    /// again: a deadline that starts later (with the first byte of a head)
    /// ends no earlier than this after it. At least a millisecond, so that
    /// zero timeouts cannot make the timer spin.
    fn step(self) -> Duration {
        self.idle.min(self.header).max(Duration::from_millis(1))
    }
}

/// A TCP listener that keeps at most a given number of connections open.
#[derive(Debug)]
pub(super) struct Connections {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    timeouts: Timeouts,
}

impl Connections {
    /// Accepts from `listener`, at most `max` connections at once (at
    /// least one).
    pub(super) fn new(listener: TcpListener, max: usize, timeouts: Timeouts) -> Self {
        Connections {
            listener,
            permits: Arc::new(Semaphore::new(max.clamp(1, Semaphore::MAX_PERMITS))),
            timeouts,
        }
    }
}

impl Listener for Connections {
    type Io = Watched;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Watched, SocketAddr) {
        // Waiting for a place before accepting leaves the next clients in
        // the kernel's backlog, unserved, until a connection closes.
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            // Unreachable: nothing closes the semaphore.
            return std::future::pending().await;
        };
        // axum's own accept, which retries failed accepts.
        let (tcp, addr) = Listener::accept(&mut self.listener).await;
        // Streamed answers are written in small chunks; without
        // TCP_NODELAY, Nagle's algorithm and the client's delayed ACK hold
        // each one ~40 ms.
        let _ = tcp.set_nodelay(true);
        (Watched::new(tcp, permit, self.timeouts), addr)
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// What the I/O of a connection and the requests on it share. Only the
/// connection's own task touches it (hyper reads, calls the service and
/// drops responses there), so plain atomic loads and stores suffice; they
/// cost less per request than a lock.
#[derive(Debug)]
pub(super) struct Activity {
    /// The instant the times below count from, in nanoseconds.
    origin: Instant,
    /// Requests whose response is not yet written.
    requests: AtomicUsize,
    /// When the connection last had no request in progress: since it
    /// opened, or since its last response.
    idle_since: AtomicU64,
    /// When the first byte after that arrived, which starts a request
    /// head; 0 when none has.
    head_since: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            origin: Instant::now(),
            requests: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(0),
        }
    }

    /// Now, in nanoseconds from `origin`, and never 0.
    fn now(&self) -> u64 {
        let nanos = self.origin.elapsed().as_nanos();
        u64::try_from(nanos).unwrap_or(u64::MAX).max(1)
    }

    fn at(&self, nanos: u64) -> Instant {
        self.origin + Duration::from_nanos(nanos)
    }

    /// A request head was parsed: the request is in progress.
    fn begin(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.head_since.store(0, Ordering::Relaxed);
    }

    /// A response was written, or its request dropped.
    fn end(&self) {
        let before = self
            .requests
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                Some(n.saturating_sub(1))
            })
            .unwrap_or(0);
        if before <= 1 {
            self.idle_since.store(self.now(), Ordering::Relaxed);
        }
    }

    /// Bytes arrived. Bytes that arrive while a request is in progress are
    /// its body; bytes that arrive with none are the start of a head.
    fn received(&self) {
        if self.requests.load(Ordering::Relaxed) == 0
            && self.head_since.load(Ordering::Relaxed) == 0
        {
            self.head_since.store(self.now(), Ordering::Relaxed);
        }
    }

    /// When the connection is to be closed unless something happens: never
    /// while a request is in progress.
    fn deadline(&self, timeouts: Timeouts) -> Option<Instant> {
        if self.requests.load(Ordering::Relaxed) > 0 {
            return None;
        }
        Some(match self.head_since.load(Ordering::Relaxed) {
            0 => after(
                self.at(self.idle_since.load(Ordering::Relaxed)),
                timeouts.idle,
            ),
            since => after(self.at(since), timeouts.header),
        })
    }
}

/// HTTP/2's connection preface (RFC 9113 §3.4), what a client speaking
/// HTTP/2 without TLS with prior knowledge sends first. No HTTP/1 request
/// starts with it: its request line is not valid HTTP/1.
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What the first bytes of a connection say of its protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// The first `n` bytes of the preface and nothing else: more bytes
    /// are needed to tell.
    Partial(usize),
    /// The whole preface: HTTP/2 with prior knowledge.
    Http2,
    /// Anything else: HTTP/1.
    Http1,
}

/// What a connection whose first `seen` bytes were those of the preface
/// opens with, once `bytes` have followed them. Bytes may arrive in any
/// number of pieces, one at a time included; `bytes` may be empty, and may
/// run past the preface.
fn opening(seen: usize, bytes: &[u8]) -> Opening {
    let rest = PREFACE.get(seen..).unwrap_or_default();
    let compared = rest.len().min(bytes.len());
    if bytes[..compared] != rest[..compared] {
        Opening::Http1
    } else if compared == rest.len() {
        Opening::Http2
    } else {
        Opening::Partial(seen + compared)
    }
}

/// What a client that opens with the preface is sent: the server's own
/// preface, an empty SETTINGS frame (RFC 9113 §3.4), then a GOAWAY frame
/// (§6.8) saying that no stream was processed (last stream 0) and why:
/// error code HTTP_1_1_REQUIRED (0xd), and a note as debug data. Each
/// frame opens with its payload's length (3 bytes), type, flags and stream
/// (4 bytes).
const REFUSAL: &[u8] = b"\
    \x00\x00\x00\x04\x00\x00\x00\x00\x00\
    \x00\x00\x3b\x07\x00\x00\x00\x00\x00\
    \x00\x00\x00\x00\x00\x00\x00\x0d\
    HTTP/2 without TLS is not served here: use HTTP/1.1";

/// Most bytes read and dropped from a refused client (what it may send
/// before it reads the GOAWAY: its first requests, and at most 64 KiB of
/// request bodies under HTTP/2's initial flow-control window); past that
/// the connection is closed at once.
const REFUSED_READ_MAX: usize = 128 * 1024;

/// Where a connection is in telling its protocol.
#[derive(Debug)]
enum Phase {
    /// The first `n` bytes read were those of the preface, and nothing
    /// else: they were passed on, and which protocol it is is not known
    /// yet.
    Preface(usize),
    /// HTTP/1: reads pass through.
    Http1,
    /// HTTP/2 with prior knowledge, being refused.
    Refusing(Refusal),
    /// Refused: every read fails.
    Refused,
}

/// The refusal of HTTP/2 on one connection, as far as it has gone.
#[derive(Debug, Default)]
struct Refusal {
    /// Bytes of [`REFUSAL`] written.
    sent: usize,
    /// Whether the sending half of the connection was shut down.
    shut: bool,
    /// Bytes read from the client since, and dropped.
    dropped: usize,
}

impl Refusal {
    /// Sends [`REFUSAL`], shuts down the sending half, then reads and
    /// drops what the client still sends until it closes its half, or
    /// [`REFUSED_READ_MAX`] bytes have come. Closing a socket with
    /// unread bytes makes the kernel reset the connection, and a reset can
    /// destroy the GOAWAY on its way to the client, which then sees only
    /// "connection reset".
    fn poll(&mut self, mut io: Pin<&mut TcpStream>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some(rest) = REFUSAL.get(self.sent..).filter(|rest| !rest.is_empty()) {
            match task::ready!(io.as_mut().poll_write(cx, rest))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                written => self.sent += written,
            }
        }
        if !self.shut {
            task::ready!(io.as_mut().poll_shutdown(cx))?;
            self.shut = true;
        }
        let mut scratch = [0u8; 2048];
        while self.dropped < REFUSED_READ_MAX {
            let mut buf = ReadBuf::new(&mut scratch);
            task::ready!(io.as_mut().poll_read(cx, &mut buf))?;
            match buf.filled().len() {
                0 => break,
                read => self.dropped += read,
            }
        }
        Poll::Ready(Ok(()))
    }
}

fn refused() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "HTTP/2 without TLS was refused with HTTP_1_1_REQUIRED",
    )
}

/// The I/O of one accepted connection: it holds the connection's place
/// under the cap, and fails reads and writes that wait past a deadline,
/// which makes hyper close the connection.
///
/// A connection that opens with HTTP/2's preface is refused here, before
/// hyper sees the preface whole: the read that would complete it is taken
/// back, [`Refusal`] answers the client on the socket while the read stays
/// pending, and the read then fails, which makes hyper drop the connection
/// without writing to it. The refusal is timed like a request head: it
/// ends, the socket closed, once the header timeout has passed since the
/// preface's first byte, however the client behaves.
#[derive(Debug)]
pub(super) struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
    timeouts: Timeouts,
    /// Never later than the earliest deadline that could pass; reset only
    /// when it fires, so reads and writes cost no timer work.
    timer: Pin<Box<Sleep>>,
    phase: Phase,
    _permit: OwnedSemaphorePermit,
}

impl Watched {
    fn new(io: TcpStream, permit: OwnedSemaphorePermit, timeouts: Timeouts) -> Self {
        let timer = tokio::time::sleep_until(after(Instant::now(), timeouts.step()));
        Watched {
            io,
            activity: Arc::new(Activity::new()),
            timeouts,
            timer: Box::pin(timer),
            phase: Phase::Preface(0),
            _permit: permit,
        }
    }

    /// Whether a deadline has passed; otherwise the timer is set to wake
    /// the connection in time to check again.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        while self.timer.as_mut().poll(cx).is_ready() {
            let now = Instant::now();
            let check = after(now, self.timeouts.step());
            let next = match self.activity.deadline(self.timeouts) {
                Some(deadline) if deadline <= now => return true,
                Some(deadline) => deadline.min(check),
                None => check,
            };
            self.timer.as_mut().reset(next);
        }
        false
    }

    /// A read from the socket, noting when bytes arrive.
    #[inline]
    fn poll_read_io(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let filled = buf.filled().len();
        match Pin::new(&mut self.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if buf.filled().len() > filled => {
                self.activity.received();
                Poll::Ready(Ok(()))
            }
            Poll::Pending if self.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    /// A read while the protocol is not known to be HTTP/1: the first
    /// bytes are checked against the preface, and HTTP/2 is refused.
    #[cold]
    fn poll_read_opening(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Phase::Preface(seen) = self.phase {
            let filled = buf.filled().len();
            task::ready!(self.poll_read_io(cx, buf))?;
            let read = &buf.filled()[filled..];
            self.phase = match opening(seen, read) {
                // The end of the stream, with the preface cut short.
                _ if read.is_empty() => Phase::Http1,
                Opening::Partial(seen) => Phase::Preface(seen),
                Opening::Http1 => Phase::Http1,
                Opening::Http2 => {
                    buf.set_filled(filled);
                    Phase::Refusing(Refusal::default())
                }
            };
            if !matches!(self.phase, Phase::Refusing(_)) {
                return Poll::Ready(Ok(()));
            }
        }
        let Phase::Refusing(refusal) = &mut self.phase else {
            return Poll::Ready(Err(refused()));
        };
        let error = match refusal.poll(Pin::new(&mut self.io), cx) {
            Poll::Pending if !self.expired(cx) => return Poll::Pending,
            Poll::Pending => timed_out(),
            Poll::Ready(_) => refused(),
        };
        self.phase = Phase::Refused;
        Poll::Ready(Err(error))
    }
}

fn timed_out() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the connection was idle, or sent its request head too slowly",
    )
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.phase {
            Phase::Http1 => this.poll_read_io(cx, buf),
            _ => this.poll_read_opening(cx, buf),
        }
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            // A client that does not read its answer is idle too.
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Makes the [`Tracked`] service of each accepted connection.
#[derive(Clone, Debug)]
pub(super) struct MakeTracked(pub(super) Router);

impl Service<IncomingStream<'_, Connections>> for MakeTracked {
    type Response = Tracked;
    type Error = Infallible;
    type Future = Ready<Result<Tracked, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, connection: IncomingStream<'_, Connections>) -> Self::Future {
        ready(Ok(Tracked {
            router: self.0.clone(),
            activity: connection.io().activity.clone(),
            peer: *connection.remote_addr(),
        }))
    }
}

/// The router, serving one connection and telling it which requests are
/// in progress.
#[derive(Clone, Debug)]
pub(super) struct Tracked {
    router: Router,
    activity: Arc<Activity>,
    /// The peer's address, given to every request as axum's
    /// `ConnectInfo`: a client's share of the requests in flight is by it.
    peer: SocketAddr,
}

impl Service<Request> for Tracked {
    type Response = Response;
    type Error = Infallible;
    type Future = Tracking<<Router as Service<Request>>::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::<Request>::poll_ready(&mut self.router, cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(self.peer));
        self.activity.begin();
        Tracking {
            future: self.router.call(request),
            busy: Some(Busy(self.activity.clone())),
        }
    }
}

/// Ends a request in progress when dropped.
#[derive(Debug)]
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// The response future of a [`Tracked`] request: the request stays in
/// progress until the response is ready, and, for a streamed body, until
/// that body ends or is dropped.
#[derive(Debug)]
pub(super) struct Tracking<F> {
    future: F,
    busy: Option<Busy>,
}

impl<F> Future for Tracking<F>
where
    F: Future<Output = Result<Response, Infallible>> + Unpin,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Ok(response) = task::ready!(Pin::new(&mut this.future).poll(cx));
        let busy = this.busy.take();
        // A body of known length (every JSON answer) is written at once;
        // a client that does not read it leaves the connection idle.
        if response.body().size_hint().exact().is_some() {
            return Poll::Ready(Ok(response));
        }
        Poll::Ready(Ok(
            response.map(|body| Body::new(Held { body, _busy: busy }))
        ))
    }
}

/// A streamed body that keeps its request in progress while it lasts.
struct Held {
    body: Body,
    _busy: Option<Busy>,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `bytes` open with when they arrive in `pieces`.
    fn opened(pieces: &[&[u8]]) -> Opening {
        pieces
            .iter()
            .fold(Opening::Partial(0), |so_far, piece| match so_far {
                Opening::Partial(seen) => opening(seen, piece),
                decided => decided,
            })
    }

    #[test]
    fn the_preface_is_http2_however_it_is_cut() {
        let mut hello = PREFACE.to_vec();
        // A SETTINGS frame may come in the same read.
        hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
        for bytes in [PREFACE, &hello] {
            assert_eq!(opened(&[bytes]), Opening::Http2);
            for cut in 0..=bytes.len() {
                let (first, second) = bytes.split_at(cut);
                assert_eq!(opened(&[first, second]), Opening::Http2, "{cut}");
            }
        }
        let mut seen = 0;
        for (at, byte) in PREFACE.iter().enumerate() {
            match opening(seen, &[*byte]) {
                Opening::Partial(now) if at + 1 < PREFACE.len() => seen = now,
                Opening::Http2 if at + 1 == PREFACE.len() => {}
                other => panic!("{other:?} at byte {at}"),
            }
        }
    }

    #[test]
    fn a_partial_preface_waits_and_nothing_read_changes_nothing() {
        for cut in 0..PREFACE.len() {
            assert_eq!(opening(0, &PREFACE[..cut]), Opening::Partial(cut));
            assert_eq!(opening(cut, b""), Opening::Partial(cut));
        }
        // Counts past the preface do not panic.
        for seen in [PREFACE.len(), PREFACE.len() + 1, usize::MAX] {
            assert_eq!(opening(seen, b"GET"), Opening::Http2);
        }
    }

    #[test]
    fn anything_else_is_http1_from_the_first_byte_that_differs() {
        let requests: [&[u8]; 5] = [
            b"GET /mcp HTTP/1.1\r\n",
            b"POST /mcp HTTP/1.1\r\n",
            b"PRI /mcp HTTP/1.1\r\n",
            b"PRI * HTTP/1.1\r\n\r\n",
            b"PRI * HTTP/2.0\r\n\r\nXY\r\n\r\n",
        ];
        for request in requests {
            assert_eq!(opened(&[request]), Opening::Http1);
            let pieces: Vec<&[u8]> = request.chunks(1).collect();
            assert_eq!(opened(&pieces), Opening::Http1);
        }
        assert_eq!(opening(0, b"P"), Opening::Partial(1));
        assert_eq!(opening(0, b"G"), Opening::Http1);
        assert_eq!(opening(3, b"x"), Opening::Http1);
    }

    #[test]
    fn the_refusal_is_an_empty_settings_then_goaway_http_1_1_required() {
        let (settings, goaway) = REFUSAL.split_at(9);
        assert_eq!(settings, [0, 0, 0, 4, 0, 0, 0, 0, 0]);
        let (head, payload) = goaway.split_at(9);
        let length = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
        assert_eq!(length, payload.len());
        // Type GOAWAY, no flags, stream 0.
        assert_eq!(head[3..], [7, 0, 0, 0, 0, 0]);
        // Last stream 0; HTTP_1_1_REQUIRED.
        assert_eq!(payload[..8], [0, 0, 0, 0, 0, 0, 0, 0xd]);
        assert!(payload[8..].is_ascii());
    }
}
