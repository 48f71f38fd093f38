//! A served world's per-pixel grids, read from the file by position rather than held: HGTS,
//! BIOM and WBID have fixed layouts (`x * MapSize + y`, little-endian), so a tile or a probe
//! reads just the pixels it samples, a column span at a time. A v1 file (interleaved pixel
//! records) is held in memory instead.
//!
//! Guarantees: memory does not grow with MapSize (a tile reads at most one column span at a
//! time); nothing is memory-mapped, so a file truncated while served cannot raise SIGBUS — a read
//! past its end is a [`GridError`] naming the section and byte; a file replaced (renamed over)
//! while served goes on being read as it was opened, until the cache sees the new version.

use std::fs::File;

use ndarray::Array2;

use islagen::blueprint::format::{grid_cell_len, BIOM, HGTS, SECTION_FRAME_LEN, WBID};
use islagen::blueprint::{Blueprint, Loaded, Tag};

/// The longest run of bytes read in one call, bytes (a column span longer than this is read in
/// pieces).
const MAX_SPAN: usize = 1 << 20;

/// A grid could not be read from the file.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name}: reading {tag} at byte {offset}: {reason} (the file changed while it was served?)")]
pub struct GridError {
    /// The file name.
    pub name: String,
    /// The section.
    pub tag: String,
    /// The byte that could not be read.
    pub offset: u64,
    /// Why.
    pub reason: String,
}

/// Where a world's grids are.
#[derive(Debug)]
pub enum Grids {
    /// In the blueprint (v1).
    Memory,
    /// In the file, by position.
    File(FileGrids),
}

/// The open file and where its grids' payloads start.
#[derive(Debug)]
pub struct FileGrids {
    file: File,
    name: String,
    side: usize,
    heights: u64,
    biomes: u64,
    water_ids: Option<u64>,
}

impl Grids {
    /// The grids of `loaded`, parsed from `file` (named `name`) by
    /// [`islagen::blueprint::read::read_without_grids`]: in the file when its sections say where,
    /// else in memory. The same open file is read, so a file renamed over meanwhile is not.
    pub fn of(loaded: &Loaded, file: File, name: &str) -> Grids {
        let payload = |tag: Tag| {
            let s = loaded.sections.iter().find(|s| s.tag == tag)?;
            Some(s.offset + SECTION_FRAME_LEN)
        };
        let side = loaded.blueprint.side();
        let held = loaded.blueprint.heights.dim() == (side, side);
        match (held, payload(HGTS), payload(BIOM)) {
            (false, Some(heights), Some(biomes)) => Grids::File(FileGrids {
                file,
                name: name.to_string(),
                side,
                heights,
                biomes,
                water_ids: payload(WBID),
            }),
            _ => Grids::Memory,
        }
    }

    /// Heights (raw units) at every `(xs[i], ys[j])`, `[i, j]`; `ys` ascending.
    pub fn heights(
        &self,
        bp: &Blueprint,
        xs: &[usize],
        ys: &[usize],
    ) -> Result<Array2<f32>, GridError> {
        match self {
            Grids::Memory => Ok(pick(&bp.heights, xs, ys)),
            Grids::File(f) => f.gather(HGTS, f.heights, xs, ys, &|b| {
                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
            }),
        }
    }

    /// Biome ordinals at every `(xs[i], ys[j])`; `ys` ascending. An ordinal read from the file is
    /// not checked (see [`islagen::blueprint::Biome::ALL`]).
    pub fn biomes(
        &self,
        bp: &Blueprint,
        xs: &[usize],
        ys: &[usize],
    ) -> Result<Array2<u8>, GridError> {
        match self {
            Grids::Memory => Ok(pick(&bp.biomes, xs, ys).mapv(|b| b as u8)),
            Grids::File(f) => f.gather(BIOM, f.biomes, xs, ys, &|b| b[0]),
        }
    }

    /// Water body ids at every `(xs[i], ys[j])`, or `None` without WBID; `ys` ascending.
    pub fn water_ids(
        &self,
        bp: &Blueprint,
        xs: &[usize],
        ys: &[usize],
    ) -> Result<Option<Array2<u16>>, GridError> {
        match self {
            Grids::Memory => Ok(bp.water_ids.as_ref().map(|ids| pick(ids, xs, ys))),
            Grids::File(f) => match f.water_ids {
                Some(at) => f
                    .gather(WBID, at, xs, ys, &|b| u16::from_le_bytes([b[0], b[1]]))
                    .map(Some),
                None => Ok(None),
            },
        }
    }
}

/// The values of an in-memory grid at every `(xs[i], ys[j])`.
fn pick<T: Copy>(grid: &Array2<T>, xs: &[usize], ys: &[usize]) -> Array2<T> {
    Array2::from_shape_fn((xs.len(), ys.len()), |(i, j)| grid[[xs[i], ys[j]]])
}

impl FileGrids {
    /// Reads section `tag`'s cells (payload at `base`) at every `(xs[i], ys[j])`: for each x, the
    /// span of its column from the first to the last y, in pieces of at most [`MAX_SPAN`].
    fn gather<T: Copy + Default>(
        &self,
        tag: Tag,
        base: u64,
        xs: &[usize],
        ys: &[usize],
        decode: &impl Fn(&[u8]) -> T,
    ) -> Result<Array2<T>, GridError> {
        let cell = grid_cell_len(tag).unwrap_or(1) as usize;
        let mut out = Array2::from_elem((xs.len(), ys.len()), T::default());
        let Some(&last) = ys.last() else {
            return Ok(out);
        };
        // Spans need the ys in order; any other order is read a cell at a time.
        if ys.windows(2).any(|w| w[0] > w[1]) {
            for (i, &x) in xs.iter().enumerate() {
                for (j, &y) in ys.iter().enumerate() {
                    let one = self.gather(tag, base, &[x], &[y], decode)?;
                    out[[i, j]] = one[[0, 0]];
                }
            }
            return Ok(out);
        }
        let mut buf = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            let column = base + (x * self.side) as u64 * cell as u64;
            let mut j = 0;
            while j < ys.len() {
                // The piece from ys[j] to the last y that keeps it under MAX_SPAN.
                let start = ys[j];
                let end = ys[j..]
                    .iter()
                    .take_while(|&&y| (y - start + 1) * cell <= MAX_SPAN)
                    .last()
                    .copied()
                    .unwrap_or(start)
                    .min(last);
                let at = column + (start * cell) as u64;
                buf.resize((end - start + 1) * cell, 0);
                self.read_at(&mut buf, at).map_err(|e| GridError {
                    name: self.name.clone(),
                    tag: tag.name(),
                    offset: at,
                    reason: e.to_string(),
                })?;
                while j < ys.len() && ys[j] <= end {
                    let o = (ys[j] - start) * cell;
                    out[[i, j]] = decode(&buf[o..o + cell]);
                    j += 1;
                }
            }
        }
        Ok(out)
    }

    #[cfg(unix)]
    fn read_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, at)
    }

    #[cfg(not(unix))]
    fn read_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        std::os::windows::fs::FileExt::seek_read(&self.file, buf, at).and_then(|n| match n {
            n if n == buf.len() => Ok(()),
            _ => Err(std::io::ErrorKind::UnexpectedEof.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use islagen::blueprint::{read_file, read_file_without_grids, sample, write_v2_file};

    /// Read by position, the grids are the file's, pixel for pixel; a file truncated while
    /// served is a typed error naming the section and byte, never a crash.
    #[test]
    fn grids_read_by_position_are_the_files_and_truncation_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.dat");
        let bp = sample::full(256, 5);
        write_v2_file(&path, &bp).unwrap();
        let lazy = read_file_without_grids(&path).unwrap();
        assert_eq!(lazy.blueprint.heights.dim(), (0, 0), "no grid held");
        assert_eq!(
            lazy.blueprint.towns,
            read_file(&path).unwrap().blueprint.towns
        );
        let grids = Grids::of(&lazy, File::open(&path).unwrap(), "w.dat");
        assert!(matches!(grids, Grids::File(_)));
        let xs: Vec<usize> = (0..256).step_by(3).collect();
        let ys: Vec<usize> = (1..256).step_by(7).collect();
        let want_h = pick(&bp.heights, &xs, &ys);
        assert_eq!(grids.heights(&lazy.blueprint, &xs, &ys).unwrap(), want_h);
        let want_b = pick(&bp.biomes, &xs, &ys).mapv(|b| b as u8);
        assert_eq!(grids.biomes(&lazy.blueprint, &xs, &ys).unwrap(), want_b);
        let ids = grids.water_ids(&lazy.blueprint, &xs, &ys).unwrap().unwrap();
        assert_eq!(ids, pick(bp.water_ids.as_ref().unwrap(), &xs, &ys));
        // Any order of ys reads right too (cell by cell).
        let shuffled = [200, 3, 255, 3, 0];
        let got = grids.heights(&lazy.blueprint, &xs, &shuffled).unwrap();
        assert_eq!(got, pick(&bp.heights, &xs, &shuffled));
        // Truncated in place while served, inside HGTS: its last columns are gone.
        let hgts = lazy.sections.iter().find(|s| s.tag == HGTS).unwrap().offset;
        let cut = hgts + SECTION_FRAME_LEN + 100 * 256 * 4;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(cut)
            .unwrap();
        let e = grids.heights(&lazy.blueprint, &[255], &ys).unwrap_err();
        assert_eq!((e.name.as_str(), e.tag.as_str()), ("w.dat", "HGTS"));
        assert!(e.to_string().contains("changed while it was served"), "{e}");
    }
}
