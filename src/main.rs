//! The `islagen` binary: the command line of `src/lib.rs` over a counting allocator.

use std::process::ExitCode;

/// Counts heap bytes so each stage reports its peak (islagen::memory).
#[global_allocator]
static ALLOC: islagen::memory::CountingAlloc = islagen::memory::CountingAlloc;

fn main() -> ExitCode {
    islagen_cli::main()
}
