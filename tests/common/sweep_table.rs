//! Reading a sweep's table in tests (shared by `tests/sweep.rs` and `tests/slurm.rs`).

use std::path::Path;

/// The table's rows without the timing columns (`s_*`, which differ between runs).
pub fn rows(dir: &Path) -> Vec<String> {
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            l.split(',')
                .zip(&header)
                .filter(|(_, h)| !h.starts_with("s_"))
                .map(|(c, _)| c)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}
