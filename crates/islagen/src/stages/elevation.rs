//! Elevation: the exported heights (HGTS), made from the raw classify heights pixel by
//! pixel — the height curve and its detail passes above sea, the coast shelf below it.
//!
//! The crater's rim ([`Rim`]) adds metres to land only, tapering to nothing at the shore. The fine
//! relief ([`Texture`]) rides on the height above sea before the curve, as further octaves of the
//! island's noise, and cannot take land to the waterline.
//!
//! Guarantees: every pass is pointwise and keeps the pixel's side of the waterline, so a pixel
//! is under sea in the elevation map exactly when it is under sea in the raw map; with the curve
//! off the land is the raw profile; the detail passes and the fine relief need the curve and are
//! ignored without it.

use ndarray::Array2;
use rayon::prelude::*;

use super::coast::shelve;
use super::crater::Rim;
use super::curve::Curve;
use super::detail::Detail;
use crate::sea::SeaLevel;
use super::texture::Texture;
use crate::units::{HEIGHT_CAP_M, METRES_PER_RAW};

/// What becomes of the seabed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shelf {
    /// Shallow depth compressed so the shallows reach further out ([`shelve`]).
    Wide,
    /// The raw seabed.
    Steep,
}

/// The passes the elevation applies.
#[derive(Clone, Copy)]
pub struct ElevationPasses<'a> {
    /// The height curve, if TerrainCurve is on.
    pub curve: Option<&'a Curve>,
    /// The detail passes, if TerrainDetail is on (needs the curve).
    pub detail: Option<&'a Detail>,
    /// The fine relief, added to the height above sea before the curve (needs the curve).
    pub texture: Option<&'a Texture>,
    /// The seabed.
    pub shelf: Shelf,
    /// The crater's raised rim and apron, metres added to land (none without CraterRim).
    pub rim: Option<Rim>,
}

/// Makes the exported heights from `raw`. `on_column` is called once per finished column.
pub fn elevation(
    raw: &Array2<f32>,
    sea: &SeaLevel,
    passes: ElevationPasses,
    on_column: &(dyn Fn() + Sync),
) -> Array2<f32> {
    let (w, h) = raw.dim();
    let mut out = Array2::<f32>::zeros((w, h));
    // The curve's and the detail's fields, read as their point reads, the blend along v shared.
    let curves = passes.curve.map(|c| c.pixel_reads((w, h)));
    let details = passes.detail.map(|d| d.pixel_reads((w, h)));
    out.outer_iter_mut()
        .into_par_iter()
        .zip(raw.outer_iter().into_par_iter())
        .enumerate()
        .for_each(|(x, (mut column, raw_column))| {
            let curves = curves.as_ref().map(|c| c.column(x));
            let details = details.as_ref().map(|d| d.column(x));
            for y in 0..h {
                let z = raw_column[y];
                let s = sea.at(y);
                column[y] = if z < s {
                    match passes.shelf {
                        Shelf::Wide => shelve(z, s),
                        Shelf::Steep => z,
                    }
                } else if let Some(curves) = &curves {
                    let a = z - s;
                    if a <= 0.0 {
                        z
                    } else {
                        let a = passes.texture.map_or(a, |t| t.raise(a, x, y));
                        let col = curves.at(y);
                        let m = match &details {
                            Some(d) => d.metres(&col, a, y),
                            None => col.metres(a, 0.0),
                        };
                        let rim = passes.rim.map_or(0.0, |r| r.metres(x, y, m));
                        s + (m + rim).min(HEIGHT_CAP_M) / METRES_PER_RAW
                    }
                } else {
                    let rim = passes
                        .rim
                        .map_or(0.0, |r| r.metres(x, y, (z - s) * METRES_PER_RAW));
                    z + rim / METRES_PER_RAW
                };
            }
            on_column();
        });
    out
}
