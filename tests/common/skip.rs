//! How a test that needs a tool says it could not run: `skip("GDAL", why)` prints
//! `SKIPPED (ISLAGEN_REQUIRE_GDAL unset): why` and returns, so the test passes where the tool is
//! missing; with `ISLAGEN_REQUIRE_GDAL=1` (which `.ci/run` sets once it installed the tool) it
//! fails instead, so a tool that went missing in CI cannot turn a test into a silent pass.

/// Says why the test does not run, or panics if `ISLAGEN_REQUIRE_<TOOL>` asks for it.
pub fn skip(tool: &str, why: &str) {
    let switch = format!("ISLAGEN_REQUIRE_{tool}");
    if std::env::var_os(&switch).is_some() {
        panic!("{switch} is set, but: {why}");
    }
    eprintln!("SKIPPED ({switch} unset): {why}");
}
