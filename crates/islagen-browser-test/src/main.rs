//! The `islagen` command line, built in this member so the browser test's jobs run it
//! (`CARGO_BIN_EXE_islagen-under-test`).

use std::process::ExitCode;

/// Counts heap bytes so each stage reports its peak, as the `islagen` binary does.
#[global_allocator]
static ALLOC: islagen::memory::CountingAlloc = islagen::memory::CountingAlloc;

fn main() -> ExitCode {
    islagen_cli::main()
}
