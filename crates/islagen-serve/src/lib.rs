//! `islagen serve`: a local web app to explore the worlds in a folder as deep-zoom maps and to
//! tune the dials with an instant preview.
//!
//! [`start`] binds and serves on a background tokio runtime and returns a [`Server`] handle
//! (its address, a shutdown), so tests run it in-process on `127.0.0.1:0`; [`run`] is the
//! blocking form the CLI uses. The modules: [`paths`] confines every path to DIR, [`catalogue`]
//! lists worlds and sweeps, [`worlds`] caches loaded blueprints, [`tiles`] renders and caches
//! tiles, [`probe`] answers "what is here", [`surface`] gives a region's heights to the 3D view,
//! [`guard`] keeps other websites out, [`dials`] is the dial table, [`preview`] makes the 512
//! preview, [`jobs`] runs one full generation at a time, [`api`] holds the routes, [`error`]
//! the error they answer with, [`assets`] the page's files and [`listen`] the accept loop
//! (header timeout, connection cap).
//!
//! Guarantees: nothing a request or a file in DIR holds can crash the server (typed 4xx errors,
//! panics in handlers caught as 500); memory is bounded by the world and tile caches' limits
//! ([`ServeOptions`]: worlds count what they hold and reserve their worst case before they
//! load) plus the one world in use; a client cannot hold a connection without sending a request
//! head, nor more than the cap of them ([`listen`]); other websites are refused ([`guard`]); one preview and one
//! generation run at a time, and a generation leaves no partial files.

#![deny(missing_docs)]

pub mod api;
pub mod assets;
pub mod catalogue;
pub mod dials;
pub mod error;
pub mod grids;
pub mod guard;
pub mod jobs;
pub mod listen;
pub mod meta;
pub mod painted;
pub mod paths;
pub mod preview;
pub mod probe;
pub mod surface;
pub mod tiles;
pub mod worlds;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The default port.
pub const DEFAULT_PORT: u16 = 8765;

/// Most worlds held loaded, by default.
pub const DEFAULT_MAX_WORLDS: usize = 8;
/// The world cache's budget by default, MiB: six v1 worlds of 8192 (a v1 world is read whole:
/// 320 MiB held at 8192, 5 bytes a pixel) beside the one in use, or [`DEFAULT_MAX_WORLDS`] v2
/// ones (a v2 world's grids stay in its file: under 0.1 MiB held at 8192).
pub const DEFAULT_WORLD_MIB: u64 = 2048;
/// The tile cache's bound by default, MiB.
pub const DEFAULT_CACHE_MIB: u64 = 256;

/// How to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The world folder (DIR).
    pub dir: PathBuf,
    /// Address to bind (port 0: any free port).
    pub bind: SocketAddr,
    /// The `islagen` binary generation jobs run (the current executable by default).
    pub exe: Option<PathBuf>,
    /// Most worlds held loaded (`--max-worlds`).
    pub max_worlds: usize,
    /// Most bytes the cached and loading worlds hold (grids, roads, rivers, towns), beyond the
    /// world in use (`--world-mib`).
    pub max_world_bytes: u64,
    /// Most bytes the tile cache holds, PNGs, keys and entries counted (`--cache-mib`).
    pub max_tile_bytes: usize,
    /// The deadline for a request's head and the most connections open at once
    /// (`--header-timeout`, `--max-connections`).
    pub limits: listen::Limits,
    /// Host names served besides loopback and the bound address (`--allow-host`).
    pub allowed_hosts: Vec<String>,
    /// Read every world whole, grids in memory, as before they were read by position (the
    /// benchmarks' baseline; false by default).
    pub grids_in_memory: bool,
}

impl ServeOptions {
    /// Defaults for serving `dir` on `bind`.
    pub fn new(dir: PathBuf, bind: SocketAddr) -> ServeOptions {
        ServeOptions {
            dir,
            bind,
            exe: None,
            max_worlds: DEFAULT_MAX_WORLDS,
            max_world_bytes: DEFAULT_WORLD_MIB << 20,
            max_tile_bytes: (DEFAULT_CACHE_MIB as usize) << 20,
            limits: listen::Limits::default(),
            allowed_hosts: Vec::new(),
            grids_in_memory: false,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// DIR is not a readable folder.
    #[error("{path}: not a folder that can be served: {source}")]
    Dir {
        /// DIR as given.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The address could not be bound, or the runtime not started.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// What every handler shares.
#[derive(Debug)]
pub struct Shared {
    /// DIR, canonical.
    pub root: PathBuf,
    /// DIR as given.
    pub shown: String,
    /// The `islagen` binary for jobs.
    pub exe: PathBuf,
    /// Loaded worlds.
    pub worlds: worlds::Worlds,
    /// Encoded tiles.
    pub tiles: tiles::TileCache,
    /// The generation job.
    pub jobs: jobs::Jobs,
    /// One preview or view picture at a time (each uses every core, a view up to ~200 MB): the
    /// permit moves into the blocking work and is released when that ends.
    pub heavy: Arc<tokio::sync::Semaphore>,
    /// The previews in flight.
    pub previews: preview::Previews,
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// What the handlers share (tests look at the caches).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Stops serving (a running job is cancelled) and waits for the server thread.
    pub fn shutdown(mut self) {
        self.stop_now();
    }

    /// Blocks until the server stops.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Cancels the running generation and the newest preview first, then stops serving (which
    /// waits for requests in flight).
    fn stop_now(&mut self) {
        let _ = self.shared.jobs.cancel();
        self.shared.previews.supersede();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// Binds `opts.bind` and serves DIR on a background runtime.
pub fn start(opts: ServeOptions) -> Result<Server, ServeError> {
    let root = opts
        .dir
        .canonicalize()
        .and_then(|p| match p.is_dir() {
            true => Ok(p),
            false => Err(std::io::Error::other("not a directory")),
        })
        .map_err(|source| ServeError::Dir {
            path: opts.dir.clone(),
            source,
        })?;
    let bind_err = |source| ServeError::Bind {
        addr: opts.bind,
        source,
    };
    jobs::remove_stale(&root);
    let exe = match &opts.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe().map_err(bind_err)?,
    };
    let shared = Arc::new(Shared {
        root,
        shown: opts.dir.display().to_string(),
        exe,
        worlds: match opts.grids_in_memory {
            true => worlds::Worlds::new(opts.max_worlds, opts.max_world_bytes).reading_whole(),
            false => worlds::Worlds::new(opts.max_worlds, opts.max_world_bytes),
        },
        tiles: tiles::TileCache::new(opts.max_tile_bytes),
        jobs: jobs::Jobs::default(),
        heavy: Arc::new(tokio::sync::Semaphore::new(1)),
        previews: preview::Previews::default(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(16)
        .thread_name("serve")
        .enable_all()
        .build()
        .map_err(bind_err)?;
    let std_listener = std::net::TcpListener::bind(opts.bind).map_err(bind_err)?;
    std_listener.set_nonblocking(true).map_err(bind_err)?;
    let addr = std_listener.local_addr().map_err(bind_err)?;
    let listener = {
        let _guard = runtime.enter();
        tokio::net::TcpListener::from_std(std_listener).map_err(bind_err)?
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = api::router(shared.clone())
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard::Hosts::new(addr, &opts.allowed_hosts)),
            guard::check,
        ))
        .layer(axum::middleware::from_fn(log_request));
    let limits = opts.limits;
    let thread = std::thread::Builder::new()
        .name("serve".into())
        .spawn(move || {
            runtime.block_on(async move {
                listen::serve(listener, app, limits, async move {
                    let _ = stopped.await;
                })
                .await;
            });
            runtime.shutdown_timeout(std::time::Duration::from_secs(2));
        })
        .map_err(bind_err)?;
    Ok(Server {
        addr,
        shared,
        stop: Some(stop),
        thread: Some(thread),
    })
}

/// Logs each request's method and path at DEBUG (`islagen serve -v`) once its head is in,
/// before its body is read or it is answered.
async fn log_request(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    tracing::debug!("{} {}", req.method(), req.uri().path());
    next.run(req).await
}

/// Serves until the process is stopped.
pub fn run(opts: ServeOptions) -> Result<(), ServeError> {
    start(opts)?.wait();
    Ok(())
}

/// Waits for SIGINT (Ctrl-C) or SIGTERM, then stops `server`: a running generation is
/// cancelled first — its child killed and its folder removed — so stopping the server never
/// leaves a generation running on its own; then the server waits for requests in flight, and a
/// second signal quits at once (exit status 130).
pub fn serve_until_signal(server: Server) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // One listener for both signals, made before the first is awaited: a second signal that
    // comes while the first is still being logged is held for it, not lost.
    let mut signals = runtime.block_on(async { StopSignals::new() })?;
    runtime.block_on(signals.next());
    tracing::info!("stopping: cancelling any running generation (Ctrl-C again to quit at once)");
    // Stopping waits for requests in flight; a second signal ends the process there and then.
    std::thread::spawn(move || {
        runtime.block_on(async {
            signals.next().await;
            eprintln!("second stop signal: quitting at once");
            std::process::exit(130);
        })
    });
    server.shutdown();
    Ok(())
}

/// SIGINT and SIGTERM, each received once per delivery from the moment this is made.
#[cfg(unix)]
struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl StopSignals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// Ctrl-C, received once per press.
#[cfg(not(unix))]
struct StopSignals {
    ctrl_c: tokio::signal::windows::CtrlC,
}

#[cfg(not(unix))]
impl StopSignals {
    fn new() -> std::io::Result<Self> {
        Ok(Self {
            ctrl_c: tokio::signal::windows::ctrl_c()?,
        })
    }

    async fn next(&mut self) {
        self.ctrl_c.recv().await;
    }
}
