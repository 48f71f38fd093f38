//! `islagen serve`: the flags as the server's options, the URL printed, served until stopped.

use std::process::ExitCode;

use anyhow::{Context, Result};

use super::args::ServeArgs;

impl ServeArgs {
    /// The server's options.
    fn options(&self) -> islagen_serve::ServeOptions {
        let mib = |m: u64| m.saturating_mul(1 << 20);
        let mut opts =
            islagen_serve::ServeOptions::new(self.dir.clone(), (self.bind, self.port).into());
        opts.allowed_hosts = self.allow_host.clone();
        opts.max_tile_bytes = usize::try_from(mib(self.cache_mib)).unwrap_or(usize::MAX);
        opts.max_world_bytes = mib(self.world_mib);
        opts.max_worlds = self.max_worlds;
        opts.limits = islagen_serve::listen::Limits {
            header_timeout: std::time::Duration::from_secs(self.header_timeout),
            max_connections: self.max_connections,
        };
        opts
    }
}

/// `islagen serve`: prints the URL (and a warning off loopback), then serves until stopped.
pub fn run(args: &ServeArgs) -> Result<ExitCode> {
    let server = islagen_serve::start(args.options())?;
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this machine on port {} can browse {} and start generations",
            args.bind,
            server.addr().port(),
            args.dir.display()
        );
    }
    println!("serving {} at {}", args.dir.display(), server.url());
    islagen_serve::serve_until_signal(server).context("waiting for a stop signal")?;
    Ok(ExitCode::SUCCESS)
}
