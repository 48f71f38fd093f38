//! Biome zoning by height and temperature, from the retained *uncurved* heights.
//!
//! The classifier reads the raw (uncurved, unshelved, undetailed) heights after the mainland
//! fill and the crater carve, the water classification, and the crater — never the elevation map —
//! so BIOM is bit-identical with the curve, the detail passes and the coast shelf on or off.
//! Height bands are stated against the curve preset's input knots, so biome borders follow the
//! terraces the curve draws: lowland below K2, foothills K2…K4 (the bench), plateau K4…K6,
//! mountain rock above K6. Temperature falls with latitude (north is colder) and elevation;
//! the coldest mountain is Snow. Lowland splits into Forest and Grassland by a low-frequency
//! moisture field.
//!
//! Guarantees: a pixel is Ocean / Lake exactly when the water classification says so (the two
//! never disagree); Crater marks the land within the crater radius; Dirt is never produced — it
//! is the palette's fallback for out-of-range values.

use ndarray::Array2;
use rayon::prelude::*;

use super::crater::Crater;
use super::curve::{ISLAND_WIDTH, SEA_REF};
use super::sea::{SeaLevel, Water};
use crate::blueprint::Biome;
use crate::grid::noise::{normalised, Fbm, Lattice};

/// Land within this raw height above sea is Beach.
pub const BEACH_BAND: f32 = 0.012;
/// Moisture field: frequency (undulations per island width), octaves, seed offset.
const MOISTURE_FREQ_ISLANDS: f32 = 4.0;
const MOISTURE_OCTAVES: i32 = 3;
const MOISTURE_SEED_OFFSET: i32 = 8_101;
/// Lowland with moisture above this is Forest.
const FOREST_MOISTURE: f32 = 0.12;
/// Temperature model: 1 at the southern sea shore, minus these per unit of northing / raw height.
const LATITUDE_COOLING: f32 = 0.35;
const ELEVATION_COOLING: f32 = 0.75;
/// Mountains colder than this are Snow.
const SNOW_TEMPERATURE: f32 = 0.10;

/// The zoning rules of one seed: the height bands and the moisture field.
pub struct Zoning {
    knots: [f32; 6],
    moisture: Lattice,
}

impl Zoning {
    /// The zoning of `seed`, with height bands at the curve preset's knots K1…K6 (absolute at
    /// [`SEA_REF`]).
    pub fn new(seed: i32, knots: [f32; 6]) -> Zoning {
        let f = Fbm::new(
            crate::seed::noise_seed(seed, "biomes").wrapping_add(MOISTURE_SEED_OFFSET),
            MOISTURE_FREQ_ISLANDS / ISLAND_WIDTH,
            MOISTURE_OCTAVES,
        );
        Zoning {
            knots: knots.map(|k| k - SEA_REF),
            moisture: Lattice::sample(move |u, v| f.at(u, v)),
        }
    }

    /// The biome of a land pixel `a` raw above sea at normalised (u, v).
    pub fn land(&self, a: f32, u: f32, v: f32, in_crater: bool) -> Biome {
        land(a, u, v, &self.knots, &self.moisture, in_crater)
    }
}

/// What the biome stage reads.
pub struct BiomeInputs<'a> {
    /// The zoning rules.
    pub zoning: &'a Zoning,
    /// Raw classify heights `[x, y]`.
    pub heights: &'a Array2<f32>,
    /// The water classification of those heights.
    pub water: &'a Array2<Water>,
    /// The sea level.
    pub sea: &'a SeaLevel,
    /// The crater.
    pub crater: &'a Crater,
}

/// Classifies every pixel.
pub fn biomes(inp: &BiomeInputs, on_column: &(dyn Fn() + Sync)) -> Array2<Biome> {
    let (w, h) = inp.heights.dim();
    let mut out = Array2::from_elem((w, h), Biome::Ocean);
    out.outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .for_each(|(x, mut column)| {
            let u = normalised(x, w);
            for y in 0..h {
                column[y] = match inp.water[[x, y]] {
                    Water::Ocean => Biome::Ocean,
                    Water::Lake => Biome::Lake,
                    Water::Dry => {
                        let a = inp.heights[[x, y]] - inp.sea.at(y);
                        let v = normalised(y, h);
                        let in_crater = inp.crater.within(x, y, 1.0);
                        inp.zoning.land(a, u, v, in_crater)
                    }
                };
            }
            on_column();
        });
    out
}

/// The biome of a land pixel `a` raw above sea at normalised (u, v).
fn land(a: f32, u: f32, v: f32, k: &[f32; 6], moisture: &Lattice, in_crater: bool) -> Biome {
    if in_crater {
        return Biome::Crater;
    }
    if a < BEACH_BAND {
        return Biome::Beach;
    }
    if a >= k[5] {
        let temperature = 1.0 - LATITUDE_COOLING * (1.0 - v) - ELEVATION_COOLING * a;
        return if temperature < SNOW_TEMPERATURE {
            Biome::Snow
        } else {
            Biome::Mountain
        };
    }
    if a >= k[3] {
        return Biome::Plateau;
    }
    if a >= k[1] {
        return Biome::Foothills;
    }
    if moisture.at(u, v) > FOREST_MOISTURE {
        Biome::Forest
    } else {
        Biome::Grassland
    }
}
