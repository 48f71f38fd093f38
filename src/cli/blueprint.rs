//! `inspect`, `roundtrip`, `convert` and `config`: a blueprint or the key table, printed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::load;

/// `islagen inspect FILE [--json]`.
pub fn inspect(file: &Path, json: bool) -> Result<ExitCode> {
    let loaded = load(file)?;
    let report = islagen::blueprint::inspect::report(&loaded);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `islagen roundtrip FILE`: exit 0 on a faithful round trip.
pub fn roundtrip(file: &Path) -> Result<ExitCode> {
    let loaded = load(file)?;
    match islagen::blueprint::roundtrip::roundtrip(&loaded) {
        Ok(r) => {
            println!(
                "round trip OK: {} ({:?}, {} bytes) → v2 ({} bytes) → identical",
                file.display(),
                loaded.format,
                loaded.file_len,
                r.v2_bytes
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("round trip FAILED for {}: {e}", file.display());
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `islagen config [--list | --markdown | --json]`.
pub fn config_keys(markdown: bool, json: bool) -> Result<ExitCode> {
    use islagen::config::keys;
    let text = match (markdown, json) {
        (true, _) => keys::markdown_table(),
        (_, true) => keys::server_config_json(),
        _ => keys::listing(),
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `islagen convert INPUT OUTPUT [--v1]`.
pub fn convert(input: &Path, output: &Path, v1: bool) -> Result<ExitCode> {
    let mut bp = load(input)?.blueprint;
    bp.params.stamp_provenance();
    let bytes = if v1 {
        islagen::blueprint::write_v1_file(output, &bp)
    } else {
        islagen::blueprint::write_v2_file(output, &bp)
    }
    .with_context(|| format!("writing {}", output.display()))?;
    println!(
        "wrote {} ({} bytes, {})",
        output.display(),
        bytes,
        if v1 { "v1" } else { "v2" }
    );
    Ok(ExitCode::SUCCESS)
}
