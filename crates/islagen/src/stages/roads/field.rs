//! Distance fields to a set of cells, the lower bound that turns "the cheapest path to the
//! network" from a Dijkstra flood into an A* search.
//!
//! **What it holds.** For every cell of a [`Window`], the length of the shortest 8-connected walk
//! to the nearest target cell in the window, in units of 1/17 pixel with diagonal steps of
//! 24 units (24/17 = 1.4118 ≤ √2), clamped at a cap. Such a chamfer distance is itself a
//! shortest-path metric whose steps never exceed their true length, so `h = units / 17` is a
//! *consistent* lower bound of any road's cost to the targets (no cell costs less than 1 per unit
//! length): A* with it returns optimal paths, stopping at the first target it pops. Outside the
//! window the field reads the cap, which stays a lower bound as long as every target within the
//! cap of an outside cell lies in the window (true of `DistanceField::around`'s windows).
//!
//! **Cost.** Two raster passes over the window (Rosenfeld–Pfaltz), 2 bytes a cell; fields merge
//! by a cell-wise minimum, so the network's field grows road by road without a full pass.

/// A rectangle of cells `[x0, x1) × [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First column.
    pub x0: usize,
    /// First row.
    pub y0: usize,
    /// One past the last column.
    pub x1: usize,
    /// One past the last row.
    pub y1: usize,
}

impl Window {
    /// The smallest window holding `cells` (`x * n + y`), grown by `margin` on every side and
    /// clipped to the `n` × `n` map; `None` for no cells.
    pub fn around(cells: &[u32], margin: usize, n: usize) -> Option<Window> {
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for &c in cells {
            let (x, y) = (c as usize / n, c as usize % n);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        (x0 != usize::MAX).then(|| Window {
            x0: x0.saturating_sub(margin),
            y0: y0.saturating_sub(margin),
            x1: (x1 + margin + 1).min(n),
            y1: (y1 + margin + 1).min(n),
        })
    }

    /// The cells within `radius` of cell `c` (`x * n + y`) in both axes, clipped to the map.
    pub fn square(c: u32, radius: usize, n: usize) -> Window {
        let (x, y) = (c as usize / n, c as usize % n);
        Window {
            x0: x.saturating_sub(radius),
            y0: y.saturating_sub(radius),
            x1: (x + radius + 1).min(n),
            y1: (y + radius + 1).min(n),
        }
    }

    /// Whether cell `c` (`x * n + y`) lies inside.
    pub fn contains(&self, c: u32, n: usize) -> bool {
        self.local(c as usize / n, c as usize % n).is_some()
    }

    /// The overlap of two windows, if any.
    fn overlap(&self, other: &Window) -> Option<Window> {
        let w = Window {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        };
        (w.x0 < w.x1 && w.y0 < w.y1).then_some(w)
    }

    fn width(&self) -> usize {
        self.x1 - self.x0
    }

    fn height(&self) -> usize {
        self.y1 - self.y0
    }

    /// The local index of (x, y), if inside.
    #[inline]
    fn local(&self, x: usize, y: usize) -> Option<usize> {
        (x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1)
            .then(|| (x - self.x0) * self.height() + (y - self.y0))
    }
}

/// Units per pixel of an axial step.
const AXIAL: u16 = 17;
/// Units of a diagonal step (≤ √2 × [`AXIAL`]).
const DIAGONAL: u16 = 24;
/// The largest cap a field can hold, pixels.
pub const MAX_CAP_PX: f32 = ((u16::MAX - DIAGONAL) / AXIAL) as f32;

/// A clamped chamfer distance field over a window (module docs).
pub struct DistanceField {
    window: Window,
    units: Vec<u16>,
    cap: u16,
}

impl DistanceField {
    /// The field of `targets` (`x * n + y`) over the window around them grown by `cap_px`
    /// (clamped at [`MAX_CAP_PX`]): every cell within the cap of a target is inside it.
    pub fn around(targets: &[u32], cap_px: f32, n: usize) -> Option<DistanceField> {
        let cap_px = cap_px.clamp(1.0, MAX_CAP_PX);
        let window = Window::around(targets, cap_px.ceil() as usize, n)?;
        Some(DistanceField::new(window, targets, cap_px, n))
    }

    /// The field of `targets`, all inside `bounds`, over the part of `bounds` within the cap of
    /// them ([`DistanceField::around`] clipped to `bounds`): for a search that cannot leave
    /// `bounds`, toward only the targets inside it.
    pub fn within(bounds: Window, targets: &[u32], cap_px: f32, n: usize) -> Option<DistanceField> {
        let cap_px = cap_px.clamp(1.0, MAX_CAP_PX);
        let window = Window::around(targets, cap_px.ceil() as usize, n)?.overlap(&bounds)?;
        Some(DistanceField::new(window, targets, cap_px, n))
    }

    /// The field of the `targets` inside `window` (others are ignored), clamped at `cap_px`.
    pub fn new(window: Window, targets: &[u32], cap_px: f32, n: usize) -> DistanceField {
        let cap = (cap_px.clamp(0.0, MAX_CAP_PX) * f32::from(AXIAL)) as u16;
        let mut units = vec![cap; window.width() * window.height()];
        for &c in targets {
            if let Some(i) = window.local(c as usize / n, c as usize % n) {
                units[i] = 0;
            }
        }
        chamfer(&mut units, window.width(), window.height());
        DistanceField { window, units, cap }
    }

    /// The field's lower bound at (x, y), pixels: the cap outside the window.
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> f32 {
        let u = self.window.local(x, y).map_or(self.cap, |i| self.units[i]);
        f32::from(u) * (1.0 / f32::from(AXIAL))
    }

    /// Whether (x, y) is a target.
    #[inline]
    pub fn is_target(&self, x: usize, y: usize) -> bool {
        self.window.local(x, y).is_some_and(|i| self.units[i] == 0)
    }

    /// Lowers this field to `other` wherever `other` is nearer (a field of the union of both
    /// target sets, where `other`'s window lies inside this one's and both share the cap).
    pub fn merge(&mut self, other: &DistanceField) {
        let w = other.window;
        debug_assert!(self.cap == other.cap);
        for x in w.x0..w.x1 {
            let (Some(a), Some(b)) = (self.window.local(x, w.y0), other.window.local(x, w.y0))
            else {
                continue;
            };
            let len = w.height();
            for (d, &o) in self.units[a..a + len]
                .iter_mut()
                .zip(&other.units[b..b + len])
            {
                *d = (*d).min(o);
            }
        }
    }
}

/// The two raster passes of the 3 × 3 chamfer over a `w` × `h` array (x-major). Each pass
/// takes a column at a time in two steps with the same result as the cell-by-cell scan: the
/// three neighbours in the column before (independent per cell, so the compiler vectorises
/// it), then the neighbour before in the same column (a running minimum down the column).
fn chamfer(d: &mut [u16], w: usize, h: usize) {
    if w == 0 || h == 0 {
        return;
    }
    run_down(&mut d[..h]);
    for x in 1..w {
        let (done, rest) = d.split_at_mut(x * h);
        relax_from(&mut rest[..h], &done[(x - 1) * h..]);
        run_down(&mut rest[..h]);
    }
    run_up(&mut d[(w - 1) * h..w * h]);
    for x in (0..w.saturating_sub(1)).rev() {
        let (rest, done) = d.split_at_mut((x + 1) * h);
        relax_from(&mut rest[x * h..], &done[..h]);
        run_up(&mut rest[x * h..]);
    }
}

/// Lowers each cell of `column` to its three neighbours in the adjacent column `from` plus
/// their steps.
fn relax_from(column: &mut [u16], from: &[u16]) {
    let h = column.len();
    for (v, &p) in column.iter_mut().zip(from) {
        *v = (*v).min(p + AXIAL);
    }
    if h < 2 {
        return;
    }
    // The neighbour one row up and one row down, diagonally.
    for (v, &p) in column[1..].iter_mut().zip(&from[..h - 1]) {
        *v = (*v).min(p + DIAGONAL);
    }
    for (v, &p) in column[..h - 1].iter_mut().zip(&from[1..]) {
        *v = (*v).min(p + DIAGONAL);
    }
}

/// The running minimum down a column: each cell lowered to the one before it plus a step.
fn run_down(column: &mut [u16]) {
    let mut prev = u16::MAX - AXIAL;
    for v in column {
        *v = (*v).min(prev + AXIAL);
        prev = *v;
    }
}

/// [`run_down`] up the column.
fn run_up(column: &mut [u16]) {
    let mut prev = u16::MAX - AXIAL;
    for v in column.iter_mut().rev() {
        *v = (*v).min(prev + AXIAL);
        prev = *v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the brute-force octile distance: never above it (a lower bound), within 0.2 % +
    /// one unit of it, and exactly 0 on targets.
    #[test]
    fn field_is_a_tight_lower_bound_of_the_octile_distance() {
        let n = 97;
        let targets: Vec<u32> = [(10, 20), (60, 61), (61, 61), (90, 3), (40, 90)]
            .iter()
            .map(|&(x, y)| (x * n + y) as u32)
            .collect();
        let f = DistanceField::around(&targets, 1000.0, n).unwrap();
        for x in 0..n {
            for y in 0..n {
                let exact = targets
                    .iter()
                    .map(|&c| {
                        let (tx, ty) = (c as usize / n, c as usize % n);
                        super::super::search::octile_xy(tx.abs_diff(x), ty.abs_diff(y))
                    })
                    .fold(f32::INFINITY, f32::min);
                let h = f.at(x, y);
                assert!(h <= exact + 1e-4, "({x}, {y}): {h} > {exact}");
                assert!(h >= exact * 0.998 - 1.0 / 17.0, "({x}, {y}): {h} ≪ {exact}");
                assert_eq!(f.is_target(x, y), exact == 0.0);
            }
        }
    }

    /// The column-at-a-time passes give exactly the cell-by-cell scan's field (Rosenfeld–Pfaltz
    /// as first written), on windows of every shape with scattered targets.
    #[test]
    fn column_passes_match_the_cell_by_cell_scan() {
        fn reference(d: &mut [u16], w: usize, h: usize) {
            let relax = |d: &[u16], v: u16, i: usize, step: u16| v.min(d[i] + step);
            for x in 0..w {
                for y in 0..h {
                    let i = x * h + y;
                    let mut v = d[i];
                    if x > 0 {
                        v = relax(d, v, i - h, AXIAL);
                        if y > 0 {
                            v = relax(d, v, i - h - 1, DIAGONAL);
                        }
                        if y + 1 < h {
                            v = relax(d, v, i - h + 1, DIAGONAL);
                        }
                    }
                    if y > 0 {
                        v = relax(d, v, i - 1, AXIAL);
                    }
                    d[i] = v;
                }
            }
            for x in (0..w).rev() {
                for y in (0..h).rev() {
                    let i = x * h + y;
                    let mut v = d[i];
                    if x + 1 < w {
                        v = relax(d, v, i + h, AXIAL);
                        if y > 0 {
                            v = relax(d, v, i + h - 1, DIAGONAL);
                        }
                        if y + 1 < h {
                            v = relax(d, v, i + h + 1, DIAGONAL);
                        }
                    }
                    if y + 1 < h {
                        v = relax(d, v, i + 1, AXIAL);
                    }
                    d[i] = v;
                }
            }
        }
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (w, h) in [(1, 1), (1, 9), (9, 1), (2, 2), (17, 5), (5, 40), (63, 64)] {
            for cap in [3 * AXIAL, 500, MAX_CAP_PX as u16 * AXIAL] {
                let mut a: Vec<u16> = (0..w * h)
                    .map(|_| if next() % 23 == 0 { 0 } else { cap })
                    .collect();
                let mut b = a.clone();
                chamfer(&mut a, w, h);
                reference(&mut b, w, h);
                assert_eq!(a, b, "{w} × {h}, cap {cap}");
            }
        }
    }

    /// Consistency: across every step the field changes by no more than the step's length.
    #[test]
    fn field_is_consistent_and_clamped() {
        let n = 64;
        let targets = [(5 * n + 7) as u32, (50 * n + 40) as u32];
        let f = DistanceField::around(&targets, 12.0, n).unwrap();
        for x in 0..n - 1 {
            for y in 0..n - 1 {
                let h = f.at(x, y);
                assert!(h <= 12.0 + 1e-4);
                assert!((h - f.at(x + 1, y)).abs() <= 1.0 + 1e-4);
                assert!((h - f.at(x, y + 1)).abs() <= 1.0 + 1e-4);
                assert!((h - f.at(x + 1, y + 1)).abs() <= std::f32::consts::SQRT_2 + 1e-4);
            }
        }
        // A merged field is the field of the union.
        let mut a = DistanceField::new(
            Window {
                x0: 0,
                y0: 0,
                x1: n,
                y1: n,
            },
            &targets[..1],
            12.0,
            n,
        );
        a.merge(&DistanceField::around(&targets[1..], 12.0, n).unwrap());
        let both = DistanceField::new(
            Window {
                x0: 0,
                y0: 0,
                x1: n,
                y1: n,
            },
            &targets,
            12.0,
            n,
        );
        for x in 0..n {
            for y in 0..n {
                assert_eq!(a.at(x, y), both.at(x, y));
            }
        }
    }
}
