//! The integration tests, one binary: every `tests/NAME.rs` is a module of it, so the suite
//! links once and libtest runs the files' tests side by side (`cargo test --test integration
//! NAME::` runs one file's).

/// The sweep table reader the sweep and Slurm tests share.
#[path = "common/sweep_table.rs"]
mod sweep_table;

/// How a test that needs a tool says it could not run (`ISLAGEN_REQUIRE_<TOOL>`).
#[path = "common/skip.rs"]
mod skip;

mod blueprint_hostile;
mod blueprint_roundtrip;
mod blueprint_rules;
mod cli;
mod crash;
mod erosion;
mod exports;
mod fuzz_corpus;
mod golden;
mod island_code;
mod rivers;
mod roads;
mod serve;
mod shape;
mod slurm;
mod snapshots;
mod starmade;
mod structures;
mod sweep;
mod terrain;
mod water_and_towns;
