//! The accept loop: HTTP/1.1 connections served by hyper, each given a deadline for its request
//! head, at most a set number open at once, and a graceful stop.
//!
//! Guarantees:
//! - a connection that has not sent a whole request head within [`Limits::header_timeout`] of
//!   starting to wait for one (its first, or the next on a kept-alive connection) is closed, so
//!   clients that send a few bytes and stall cannot hold the server's descriptors;
//! - at most [`Limits::max_connections`] connections are open at once: at the cap the loop stops
//!   accepting until one closes (the kernel's backlog holds the rest), so the server never runs
//!   out of descriptors for its own files and jobs;
//! - on stop nothing new is accepted and the connections open finish their requests in flight,
//!   for at most [`DRAIN`].

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// How long a stop waits for the requests in flight.
pub const DRAIN: Duration = Duration::from_secs(10);
/// The pause after a failed accept (out of descriptors, say) before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// What a client may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The time a connection has to send a request's head.
    pub header_timeout: Duration,
    /// Most connections open at once (at least 1).
    pub max_connections: usize,
}

impl Default for Limits {
    /// 10 s for a request head, 256 connections.
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_connections: 256,
        }
    }
}

/// Serves `app` on `listener` until `stop` completes, then drains.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut stop => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!("accepting a connection: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let service = TowerToHyperService::new(app.clone());
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection closed: {e}");
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("stopping: requests still in flight after {DRAIN:?} were dropped");
    }
}
