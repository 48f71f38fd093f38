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
//! Edges: the moisture and the temperature each get a fine, many-octave perturbation
//! ([`EDGE_MOISTURE`], [`EDGE_TEMPERATURE`]) before their thresholds, so forest edges and the
//! snow line fray into natural, noisy boundaries at high resolution instead of smooth blobs and
//! contours. The rules are unchanged — the same thresholds on the same quantities — and the
//! perturbation is read only where it can flip the result (within its amplitude of the
//! threshold). Every field is a function of the normalised position, so the edges are the same at
//! every MapSize, as fine as its pixels show them.
//!
//! Guarantees: a pixel is Ocean / Lake exactly when the water classification says so (the two
//! never disagree); Crater marks the land within the crater radius; Dirt is never produced — it
//! is the palette's fallback for out-of-range values.

use ndarray::Array2;
use rayon::prelude::*;

use super::crater::Crater;
use super::curve::{ISLAND_WIDTH, SEA_REF};
use super::sea::Water;
use crate::sea::SeaLevel;
use crate::blueprint::Biome;
use crate::grid::noise::{normalised, Fbm, Interpolation, Lattice};

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
/// The edge perturbations' largest magnitude: moisture units, temperature units.
pub const EDGE_MOISTURE: f32 = 0.20;
/// See [`EDGE_MOISTURE`].
pub const EDGE_TEMPERATURE: f32 = 0.05;
/// Edge fields: first-octave frequency (undulations per island width) and octaves — down to
/// wavelengths of ~40 m, which a 512 map still nearly resolves.
const EDGE_FREQ_ISLANDS: f32 = 20.0;
const EDGE_OCTAVES: i32 = 5;
const EDGE_SEED_OFFSETS: [i32; 2] = [8_202, 8_303];

/// The zoning rules of one seed: the height bands and the moisture field.
pub struct Zoning {
    knots: [f32; 6],
    moisture: Lattice,
    /// Moisture and temperature edge perturbations, in about [−1, 1].
    edges: [Fbm; 2],
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
        let edge = |offset: i32| {
            Fbm::new(
                crate::seed::noise_seed(seed, "biomes").wrapping_add(offset),
                EDGE_FREQ_ISLANDS / ISLAND_WIDTH,
                EDGE_OCTAVES,
            )
        };
        Zoning {
            knots: knots.map(|k| k - SEA_REF),
            moisture: Lattice::sample(move |u, v| f.at(u, v)),
            edges: EDGE_SEED_OFFSETS.map(edge),
        }
    }

    /// The biome of a land pixel `a` raw above sea at normalised (u, v).
    pub fn land(&self, a: f32, u: f32, v: f32, in_crater: bool) -> Biome {
        self.land_with(a, u, v, in_crater, || self.moisture.at(u, v))
    }

    /// [`Zoning::land`] with the moisture field's read at (u, v) from `moisture` (read only in
    /// the lowland).
    #[inline]
    fn land_with(
        &self,
        a: f32,
        u: f32,
        v: f32,
        in_crater: bool,
        moisture: impl FnOnce() -> f32,
    ) -> Biome {
        if in_crater {
            return Biome::Crater;
        }
        if a < BEACH_BAND {
            return Biome::Beach;
        }
        let k = &self.knots;
        if a >= k[5] {
            let temperature = 1.0 - LATITUDE_COOLING * (1.0 - v) - ELEVATION_COOLING * a;
            let t = self.frayed(temperature, SNOW_TEMPERATURE, EDGE_TEMPERATURE, 1, u, v);
            return if t < SNOW_TEMPERATURE {
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
        let m = self.frayed(moisture(), FOREST_MOISTURE, EDGE_MOISTURE, 0, u, v);
        if m > FOREST_MOISTURE {
            Biome::Forest
        } else {
            Biome::Grassland
        }
    }

    /// `value` with edge field `field`'s perturbation of up to `amp` added — read only within
    /// `amp` of `threshold`, where it can change which side of the threshold `value` is on.
    #[inline]
    fn frayed(&self, value: f32, threshold: f32, amp: f32, field: usize, u: f32, v: f32) -> f32 {
        if (value - threshold).abs() >= amp {
            value
        } else {
            value + amp * self.edges[field].at(u, v).clamp(-1.0, 1.0)
        }
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
    // The moisture field as its point reads, and each row's v and sea level, once.
    let moisture = (inp.zoning.moisture).pixel_reads((w, h), Interpolation::Bilinear);
    let vs: Vec<f32> = (0..h).map(|y| normalised(y, h)).collect();
    let seas = inp.sea.rows(h);
    out.outer_iter_mut()
        .into_par_iter()
        .enumerate()
        .for_each(|(x, mut column)| {
            let u = normalised(x, w);
            let moisture = moisture.column(x);
            for y in 0..h {
                column[y] = match inp.water[[x, y]] {
                    Water::Ocean => Biome::Ocean,
                    Water::Lake => Biome::Lake,
                    Water::Dry => {
                        let a = inp.heights[[x, y]] - seas[y];
                        let in_crater = inp.crater.within(x, y, 1.0);
                        (inp.zoning).land_with(a, u, vs[y], in_crater, || moisture.at(y))
                    }
                };
            }
            on_column();
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lowland forest over a 1024² grid of the normalised square: with the edge perturbation
    /// (as classified) and without (the moisture threshold alone).
    fn forest(zoning: &Zoning, frayed: bool) -> Vec<bool> {
        let n = 1024;
        let a = (BEACH_BAND + zoning.knots[1]) / 2.0;
        (0..n * n)
            .map(|i| {
                let (u, v) = (normalised(i / n, n), normalised(i % n, n));
                match frayed {
                    true => zoning.land(a, u, v, false) == Biome::Forest,
                    false => zoning.moisture.at(u, v) > FOREST_MOISTURE,
                }
            })
            .collect()
    }

    fn boundary(mask: &[bool]) -> usize {
        let n = 1024;
        (0..n * n)
            .filter(|&i| {
                (i % n + 1 < n && mask[i] != mask[i + 1])
                    || (i + n < n * n && mask[i] != mask[i + n])
            })
            .count()
    }

    /// The forest edge frays (its boundary grows markedly longer) while the forest's share of
    /// the lowland stays what the moisture rule makes it.
    #[test]
    fn forest_edges_fray_without_changing_the_share() {
        for seed in [1, 42, 7] {
            let zoning = Zoning::new(seed, crate::stages::curve::BALANCED.knots);
            let (smooth, frayed) = (forest(&zoning, false), forest(&zoning, true));
            let share = |m: &[bool]| m.iter().filter(|f| **f).count() as f64 / m.len() as f64;
            let (s, f) = (share(&smooth), share(&frayed));
            let (bs, bf) = (boundary(&smooth), boundary(&frayed));
            eprintln!("seed {seed}: forest share {s:.4} → {f:.4}, boundary {bs} → {bf}");
            assert!(
                (s - f).abs() < 0.02,
                "seed {seed}: forest share {s:.3} → {f:.3}"
            );
            assert!(
                bf as f64 > 1.25 * bs as f64,
                "seed {seed}: boundary {bs} → {bf}"
            );
        }
    }

    /// The snow line frays too: on a slope whose height rises west to east through the snow
    /// temperature, the Snow/Mountain border is a straight contour without the perturbation and
    /// a markedly longer, noisy line with it, with about the same snow.
    #[test]
    fn the_snow_line_frays() {
        let zoning = Zoning::new(42, crate::stages::curve::BALANCED.knots);
        let n = 1024;
        let k5 = zoning.knots[5];
        let mask = |frayed: bool| -> Vec<bool> {
            (0..n * n)
                .map(|i| {
                    let (u, v) = (normalised(i / n, n), normalised(i % n, n));
                    let a = k5 + (1.3 - k5).max(0.1) * u;
                    match frayed {
                        true => zoning.land(a, u, v, false) == Biome::Snow,
                        false => {
                            1.0 - LATITUDE_COOLING * (1.0 - v) - ELEVATION_COOLING * a
                                < SNOW_TEMPERATURE
                        }
                    }
                })
                .collect()
        };
        let (smooth, frayed) = (mask(false), mask(true));
        let share = |m: &[bool]| m.iter().filter(|f| **f).count() as f64 / m.len() as f64;
        let (s, f) = (share(&smooth), share(&frayed));
        let (bs, bf) = (boundary(&smooth), boundary(&frayed));
        eprintln!("snow share {s:.4} → {f:.4}, boundary {bs} → {bf}");
        assert!(s > 0.1 && s < 0.9, "the slope crosses the snow line: {s}");
        assert!((s - f).abs() < 0.02, "snow share {s:.3} → {f:.3}");
        assert!(bf as f64 > 1.25 * bs as f64, "boundary {bs} → {bf}");
    }
}
