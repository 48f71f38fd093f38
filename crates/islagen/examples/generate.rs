//! The engine as a library: a world from a config, its files written, in 15 lines.
//!
//! `cargo run --release -p islagen --example generate -- [SEED] [DIR]` writes seed SEED (42)
//! at MapSize 1024 into DIR (`out/`): the v2 and v1 blueprints, the snapshots and the
//! structures sidecar, the same bytes `islagen --seed SEED --size 1024 --out DIR` writes.
use islagen::{generate_and_export, Config, Progress, SidecarLayout};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seed: i32 = args.next().as_deref().unwrap_or("42").parse()?;
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "out".into()));
    // Any ServerConfig.json text, validated as the CLI validates it (Config::load reads a file).
    let loaded = Config::from_json(r#"{ "MapSize": 1024 }"#, "the example's config")?;
    let progress = Progress::hidden();
    let (world, written) =
        generate_and_export(&loaded.config, seed, &dir, SidecarLayout::Beside, &progress)?;
    for file in &written {
        println!("wrote {} ({} bytes)", file.path.display(), file.bytes);
    }
    println!(
        "land {:.1} %, {} lakes",
        100.0 * world.stats.land_fraction,
        world.stats.lakes
    );
    Ok(())
}
