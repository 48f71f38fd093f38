//! TerrainDetail "v1": the two detail passes that ride along with the height curve (TDTL
//! detailVersion 2).
//!
//! - **Shelf-edge variation**: a per-column shift of the curve's K3/K4/K5 knot block by up to
//!   ±edgeAmp metres of *input* height, drawn from a Simplex field — the shelf boundary contour
//!   wanders into notches, coves and peninsulas instead of tracing one height contour. The
//!   amplitude is clamped (loudly, at config load) to the preset's band-squeeze bound.
//! - **Shelf micro-relief**: ±reliefAmp metres of *output* height from a second field, weighted
//!   by how much of a shelf the pixel sits on ([`ColumnCurve::shelfness`]).
//!
//! Guarantees: K2 and K6 never move, so a pixel whose input is outside the shelf/riser stack gets
//! bit-identically the plain curve; relief is zero off the shelves, and the result is held in
//! [lowland ceiling, cap]; neither pass touches a pixel at or below sea level.

use super::curve::{ColumnCurve, ISLAND_WIDTH};
use crate::grid::noise::{Fbm, Interpolation, Lattice, PixelColumn, PixelReads};
use crate::units::METRES_PER_RAW;

pub use crate::dials::DetailDials;

/// The v1 passes' dials with the configured amplitudes (`edge_amp_m` already within
/// `edge_max_m`: config validation clamps it).
pub fn v1(relief_amp_m: f32, edge_amp_m: f32, edge_max_m: f32) -> DetailDials {
    debug_assert!((0.0..=edge_max_m).contains(&edge_amp_m));
    DetailDials {
        relief_amp_m,
        relief_freq_islands: 18.0,
        relief_seed_offset: 6_101,
        edge_amp_m,
        edge_freq_islands: 7.0,
        edge_seed_offset: 6_202,
        edge_max_shift_m: edge_max_m,
    }
}

/// The detail fields of one seed.
#[derive(Clone, Debug)]
pub struct Detail {
    params: DetailDials,
    relief: Lattice,
    edge: Lattice,
}

impl Detail {
    /// Samples the two fields for `seed`.
    pub fn new(params: DetailDials, seed: i32) -> Detail {
        let field = |offset: i32, islands: f32| {
            let f = Fbm::new(
                crate::seed::noise_seed(seed, "detail").wrapping_add(offset),
                islands / ISLAND_WIDTH,
                2,
            );
            Lattice::sample(move |u, v| f.at(u, v).clamp(-1.0, 1.0))
        };
        Detail {
            relief: field(params.relief_seed_offset, params.relief_freq_islands),
            edge: field(params.edge_seed_offset, params.edge_freq_islands),
            params,
        }
    }

    /// The dials as applied.
    pub fn params(&self) -> &DetailDials {
        &self.params
    }

    /// The K3/K4/K5 shift of the column at (u, v), raw input height.
    #[inline]
    pub fn shift(&self, u: f32, v: f32) -> f32 {
        self.shift_of(self.edge.at_cubic(u, v))
    }

    #[inline]
    fn shift_of(&self, edge: f32) -> f32 {
        self.params.edge_amp_m / METRES_PER_RAW * edge
    }

    /// Output metres for raw height `a` above sea (`a > 0`) with both passes applied.
    #[inline]
    pub fn metres(&self, column: &ColumnCurve, a: f32, u: f32, v: f32) -> f32 {
        self.metres_with(column, a, self.edge.at_cubic(u, v), || {
            self.relief.at_cubic(u, v)
        })
    }

    /// [`Detail::metres`] with the edge field's read `edge` and the relief field's from `relief`
    /// (read only where the relief shows).
    #[inline]
    fn metres_with(
        &self,
        column: &ColumnCurve,
        a: f32,
        edge: f32,
        relief: impl FnOnce() -> f32,
    ) -> f32 {
        let shift = self.shift_of(edge);
        let m = column.metres(a, shift);
        let weight = column.shelfness(a, shift);
        if weight == 0.0 {
            return m;
        }
        let relief = self.params.relief_amp_m * relief() * weight;
        (m + relief).clamp(column.orange_ceil(), column.cap())
    }

    /// The detail at every pixel centre of a map of `dim` (columns, rows) pixels, bit for bit
    /// [`Detail::metres`] (the two fields read through [`PixelReads`]).
    pub fn pixel_reads(&self, dim: (usize, usize)) -> DetailReads<'_> {
        DetailReads {
            detail: self,
            edge: self.edge.pixel_reads(dim, Interpolation::Bicubic),
            relief: self.relief.pixel_reads(dim, Interpolation::Bicubic),
        }
    }
}

/// [`Detail::pixel_reads`].
pub struct DetailReads<'a> {
    detail: &'a Detail,
    edge: PixelReads,
    relief: PixelReads,
}

impl DetailReads<'_> {
    /// The detail down map column `x`.
    pub fn column(&self, x: usize) -> DetailColumn<'_> {
        DetailColumn {
            detail: self.detail,
            edge: self.edge.column(x),
            relief: self.relief.column(x),
        }
    }
}

/// One map column of a [`DetailReads`].
pub struct DetailColumn<'a> {
    detail: &'a Detail,
    edge: PixelColumn<'a>,
    relief: PixelColumn<'a>,
}

impl DetailColumn<'_> {
    /// [`Detail::metres`] at map row `y` of this column.
    #[inline]
    pub fn metres(&self, column: &ColumnCurve, a: f32, y: usize) -> f32 {
        (self.detail).metres_with(column, a, self.edge.at(y), || self.relief.at(y))
    }
}
