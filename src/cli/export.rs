//! `islagen export …`: a generated world in another game's or tool's format.

use std::process::ExitCode;

use anyhow::{Context, Result};

use islagen::pipeline;

use super::args::ExportCommand;
use super::load;

/// `islagen export starmade | island-code | heightmap | splat | geojson`.
pub fn run(cmd: ExportCommand) -> Result<ExitCode> {
    use islagen::exports;
    match cmd {
        ExportCommand::Starmade {
            from,
            out,
            width,
            entity,
        } => {
            use islagen::formats::starmade::export::island;
            let bp = load(&from)?.blueprint;
            let name = pipeline::OutputNames::of(bp.params.world_seed).starmade;
            let voxels = island(&bp, width, entity.into(), &name)
                .with_context(|| format!("exporting {} to StarMade", from.display()))?;
            islagen::formats::starmade::write(&voxels.blueprint, &out)?;
            let blocks: i64 = voxels
                .blueprint
                .header
                .elements
                .iter()
                .map(|(_, n)| i64::from(*n))
                .sum();
            println!(
                "wrote {} and {}.sment: {blocks} blocks, {:.1} m per block",
                out.join(&name).display(),
                out.join(&name).display(),
                voxels.metres_per_block
            );
        }
        ExportCommand::IslandCode { from, side, out } => {
            let bp = load(&from)?.blueprint;
            let island = islagen::formats::island_code::export::island_from_world(&bp, side)?;
            let code = islagen::formats::island_code::encode(&island);
            let out = out.unwrap_or_else(|| pipeline::OutputNames::island_code_beside(&from));
            islagen::output::write_bytes_atomically(&out, format!("{code}\n").as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
            println!("{code}");
            eprintln!("wrote {} ({side} × {side} tiles)", out.display());
        }
        ExportCommand::Heightmap {
            from,
            format,
            out,
            resample,
        } => {
            let bp = load(&from)?.blueprint;
            let sidecar = exports::heightmap::export(&bp, &out, format.into(), resample)
                .with_context(|| format!("exporting {} as a heightmap", from.display()))?;
            println!("{}", serde_json::to_string_pretty(&sidecar)?);
            eprintln!(
                "wrote {} ({} × {}, {:.4} m per unit, {:.3} m per pixel) and {}",
                out.display(),
                sidecar.width,
                sidecar.height,
                sidecar.metres_per_unit,
                sidecar.metres_per_pixel,
                sidecar.sidecar_path(&out).display()
            );
        }
        ExportCommand::Splat { from, out, blur } => {
            let bp = load(&from)?.blueprint;
            let report = exports::splat::export(&bp, &out, blur)
                .with_context(|| format!("exporting {} as splat maps", from.display()))?;
            for f in &report.legend.splat {
                println!("{}: R G B A = {}", f.file, f.channels.join(", "));
            }
            for m in &report.legend.masks {
                println!("{}: {}", m.file, m.meaning);
            }
            println!(
                "wrote {} files into {} (blur {} m = box radius {} px; weights sum to 255)",
                report.files.len(),
                out.display(),
                report.legend.blur_m,
                report.legend.blur_radius_px
            );
        }
        ExportCommand::Geojson {
            from,
            out,
            simplify,
        } => {
            let bp = load(&from)?.blueprint;
            let r = exports::geojson::export(&bp, &out, simplify)
                .with_context(|| format!("exporting {} as GeoJSON", from.display()))?;
            println!(
                "wrote {}: {} towns, {} roads, {} rivers, {} water bodies ({} polygon positions), {} crater features",
                out.display(),
                r.towns,
                r.roads,
                r.rivers,
                r.water_bodies,
                r.polygon_positions,
                r.crater
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
