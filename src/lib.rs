//! The `islagen` command line as a library: [`main`] parses the arguments ([`cli::args`]), sets
//! up logging, runs the command ([`cli`]) and reports its error. The `islagen` binary is
//! `src/main.rs`, which calls it; the browser test's member builds the same command line as its
//! own binary from it.

pub mod cli;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

use cli::args::{Cli, Command};

/// The whole command line: what the `islagen` binary's `main` runs. The binary declares
/// `islagen::memory::CountingAlloc` its global allocator, so each stage reports its peak.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_max_level(log_level(&cli))
        .with_target(false)
        .without_time()
        .with_ansi(colour_on_stderr())
        .with_writer(std::io::stderr)
        .init();
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// INFO, `-v` DEBUG, `-vv` TRACE; `-q` WARN whatever `-v` says. A sweep's per-seed stage logs
/// would drown its progress bar: there each level is one step quieter (WARN, `-v` INFO, …).
fn log_level(cli: &Cli) -> tracing::Level {
    use tracing::Level;
    if cli.quiet {
        return Level::WARN;
    }
    let sweeping = matches!(cli.command, Some(Command::Sweep(_)));
    let levels = [Level::WARN, Level::INFO, Level::DEBUG, Level::TRACE];
    let step = usize::from(cli.verbose).min(3) + usize::from(!sweeping);
    levels[step.min(levels.len() - 1)]
}

/// Colour codes in the log only on a terminal, and never when `NO_COLOR` is set to anything
/// (no-color.org): a log piped or written to a file reads as plain text.
fn colour_on_stderr() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    std::io::stderr().is_terminal() && !no_color
}
