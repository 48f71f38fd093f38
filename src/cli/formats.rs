//! `island-code`, `structures` and `starmade`: the game formats islagen reads and writes.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use super::args::{IslandCodeCommand, StarmadeCommand, StructuresCommand};
use super::load;

pub fn island_code(cmd: IslandCodeCommand) -> Result<ExitCode> {
    use islagen::formats::island_code::{self as ic, IslandJson};
    match cmd {
        IslandCodeCommand::Decode {
            code,
            file,
            json,
            png,
        } => {
            let text = match (code, file) {
                (Some(c), None) => c,
                (None, Some(f)) => std::fs::read_to_string(&f)
                    .with_context(|| format!("reading {}", f.display()))?,
                _ => bail!("give the code, or --file F (not both)"),
            };
            let island = ic::decode(&text).context("decoding the island code")?;
            if let Some(path) = png {
                islagen::render::write_png(&path, &ic::picture(&island, 8))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&IslandJson::from(&island))?
                );
            } else {
                print!("{}", ic::Summary(&island));
            }
            Ok(ExitCode::SUCCESS)
        }
        IslandCodeCommand::Encode { file, out } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let json: IslandJson = serde_json::from_str(&text)
                .with_context(|| format!("parsing {}", file.display()))?;
            let island = json
                .to_island()
                .with_context(|| file.display().to_string())?;
            let code = ic::encode(&island);
            if let Some(out) = out {
                islagen::output::write_bytes_atomically(&out, format!("{code}\n").as_bytes())
                    .with_context(|| format!("writing {}", out.display()))?;
            }
            println!("{code}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn structures(cmd: StructuresCommand) -> Result<ExitCode> {
    use islagen::formats::structures::{self as st, MapView};
    let read = |path: &PathBuf| -> Result<st::Document> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        st::parse(&text)
            .with_context(|| format!("{} is not a valid structures.json", path.display()))
    };
    match cmd {
        StructuresCommand::Check { file, map } => {
            let doc = read(&file)?;
            println!(
                "{}: valid (version 1, {} types, {} structures)",
                file.display(),
                doc.types.len(),
                doc.structures.len()
            );
            if let Some(map) = map {
                let bp = load(&map)?.blueprint;
                let water = |x: usize, y: usize| bp.is_water(x, y);
                let problems = st::map_problems(
                    &doc,
                    &MapView {
                        heights: &bp.heights,
                        water: &water,
                    },
                );
                for (id, cell, why) in &problems {
                    println!("  {id}: cell ({}, {}) {why:?}", cell.0, cell.1);
                }
                if !problems.is_empty() {
                    println!("{} footprint cells on water or off the map", problems.len());
                    return Ok(ExitCode::FAILURE);
                }
                println!("  every footprint is on land and on the map");
            }
            Ok(ExitCode::SUCCESS)
        }
        StructuresCommand::Normalize { input, output } => {
            let doc = read(&input)?;
            islagen::output::write_bytes_atomically(&output, doc.to_json().as_bytes())
                .with_context(|| format!("writing {}", output.display()))?;
            println!("wrote {}", output.display());
            Ok(ExitCode::SUCCESS)
        }
        StructuresCommand::CanPlace {
            file,
            type_id,
            x,
            y,
            map,
            why,
        } => {
            let doc = read(&file)?;
            let bp = map.as_deref().map(load).transpose()?.map(|l| l.blueprint);
            let water = |cx: usize, cy: usize| bp.as_ref().is_some_and(|b| b.is_water(cx, cy));
            let view = bp.as_ref().map(|b| MapView {
                heights: &b.heights,
                water: &water,
            });
            let problems = st::placement_problems(&doc, &type_id, x, y, view.as_ref())?;
            println!("{}", if problems.is_empty() { "yes" } else { "no" });
            if why {
                for (cell, reason) in &problems {
                    println!("  cell ({}, {}): {reason:?}", cell.0, cell.1);
                }
            }
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
    }
}

pub fn starmade(cmd: StarmadeCommand) -> Result<ExitCode> {
    match cmd {
        StarmadeCommand::Inspect { path, json } => {
            let bp = islagen::formats::starmade::read_path(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let report = bp.report();
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{report}");
            }
            fn clean(r: &islagen::formats::starmade::Report) -> bool {
                r.mismatches.is_empty() && r.children.iter().all(clean)
            }
            Ok(if clean(&report) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        StarmadeCommand::Write { path, out } => {
            let bp = islagen::formats::starmade::read_path(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            islagen::formats::starmade::write(&bp, &out)?;
            println!(
                "wrote {}/{} and {}.sment",
                out.display(),
                bp.name,
                out.join(&bp.name).display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
