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

/// The I/O of one accepted connection: it holds the connection's place
/// under the cap, and fails reads and writes that wait past a deadline,
/// which makes hyper close the connection.
#[derive(Debug)]
pub(super) struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
    timeouts: Timeouts,
    /// Never later than the earliest deadline that could pass; reset only
    /// when it fires, so reads and writes cost no timer work.
    timer: Pin<Box<Sleep>>,
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
        let filled = buf.filled().len();
        match Pin::new(&mut this.io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if buf.filled().len() > filled => {
                this.activity.received();
                Poll::Ready(Ok(()))
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
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
