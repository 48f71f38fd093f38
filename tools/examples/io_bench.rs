//! Times the blueprint writer and reader on a synthetic blueprint with every section, for
//! `scripts/bench-io.sh` (which sets the timings beside `dd` and `cat` in the same run).
//!
//! `io_bench write SIZE PATH` writes a v2 file twice (atomically, synced) and prints the seconds
//! the second write took, and the first's; `io_bench read PATH` reads and validates it twice and prints the seconds of both.
//! The first of each pair pays for memory the VM's host has reclaimed since the last
//! process freed it (measured: up to 5× slower right after a large free); the second is the
//! steady state a criterion run reports.

use std::time::Instant;

use islagen::blueprint::{read_file, sample, write_v2_file};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("write") if args.len() == 4 => {
            let size: i32 = args[2].parse()?;
            let bp = sample::full(size, 1);
            // A fresh process's first 576 MiB write measured 0.3–1.5 s here, the following ones
            // a steady ~0.3 s: report both, as criterion would report the warmed-up figure.
            let t = Instant::now();
            write_v2_file(args[3].as_ref(), &bp)?;
            let first = t.elapsed().as_secs_f64();
            std::fs::remove_file(&args[3])?;
            let t = Instant::now();
            let bytes = write_v2_file(args[3].as_ref(), &bp)?;
            println!(
                "write {:.3} s {bytes} bytes (first write {first:.3} s)",
                t.elapsed().as_secs_f64()
            );
        }
        Some("read") if args.len() == 3 => {
            let t = Instant::now();
            drop(read_file(args[2].as_ref())?);
            let first = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let loaded = read_file(args[2].as_ref())?;
            let secs = t.elapsed().as_secs_f64();
            println!(
                "read {secs:.3} s {} bytes, MapSize {} (first read {first:.3} s)",
                loaded.file_len, loaded.blueprint.params.map_size
            );
        }
        _ => anyhow::bail!("usage: io_bench write SIZE PATH | io_bench read PATH"),
    }
    Ok(())
}
