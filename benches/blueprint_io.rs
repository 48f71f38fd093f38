//! Blueprint write and read-and-validate throughput on a synthetic blueprint with every section
//! (water included): MapSize 1024 for a quick regression check, 8192 (576 MiB) for the target.
//! The dd/cat comparison and peak memory live in `scripts/bench-io.sh`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use islagen::blueprint::{read_file, sample, write::v2_len, write_v2_file};

fn blueprint_io(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("blueprint_io");
    group.sample_size(10);
    for size in [1024, 8192] {
        let bp = sample::full(size, 1);
        let path = dir.path().join(format!("bench_{size}.dat"));
        group.throughput(Throughput::Bytes(v2_len(&bp)));
        group.bench_with_input(BenchmarkId::new("write_v2_synced", size), &bp, |b, bp| {
            b.iter(|| write_v2_file(&path, bp).expect("write"))
        });
        drop(bp);
        group.bench_with_input(BenchmarkId::new("read_v2", size), &path, |b, path| {
            b.iter(|| read_file(path).expect("read"))
        });
    }
    group.finish();
}

criterion_group!(benches, blueprint_io);
criterion_main!(benches);
