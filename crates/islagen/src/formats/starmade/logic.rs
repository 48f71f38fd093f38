//! `logic.smbpl`: controllers and their groups of linked blocks.
//!
//! Layout (big-endian): i32 version; then either i32 controllerVersion (< −1024: positions are
//! chunk-32, the core at 16,16,16) followed by i32 count, or directly i32 count (chunk-16
//! positions, core at 8,8,8); per controller: 3 × i16 position, i32 group count; per group:
//! i16 block id, i32 block count, count × 3 × i16 positions.

use serde::Serialize;

use super::bytes::{Reader, Rule, StarmadeError, Writer};

/// One group of linked blocks of one type.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    /// Block id.
    pub block_id: i16,
    /// Positions.
    pub positions: Vec<[i16; 3]>,
}

/// One controller and its groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Controller {
    /// Position.
    pub position: [i16; 3],
    /// Groups.
    pub groups: Vec<Group>,
}

/// The logic file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Logic {
    /// File version.
    pub version: i32,
    /// The controller version (present for chunk-32 positions).
    pub controller_version: Option<i32>,
    /// Controllers.
    pub controllers: Vec<Controller>,
}

/// Reads a logic file.
pub fn read(data: &[u8], file: &str) -> Result<Logic, StarmadeError> {
    let mut r = Reader::new(data, file);
    let version = r.i32("logic version")?;
    let second = r.i32("controller version or count")?;
    let (controller_version, n) = if second < -1024 {
        (Some(second), r.count("controller count", 10)?)
    } else {
        let n = usize::try_from(second)
            .ok()
            .filter(|&n| n * 10 <= r.remaining())
            .ok_or_else(|| {
                r.error_at(
                    4,
                    Rule::CountTooLarge,
                    format!("controller count {second} cannot fit"),
                )
            })?;
        (None, n)
    };
    let pos = |r: &mut Reader| -> Result<[i16; 3], StarmadeError> {
        Ok([r.i16("position")?, r.i16("position")?, r.i16("position")?])
    };
    let mut controllers = Vec::with_capacity(n);
    for _ in 0..n {
        let position = pos(&mut r)?;
        let g = r.count("group count", 6)?;
        let mut groups = Vec::with_capacity(g);
        for _ in 0..g {
            let block_id = r.i16("group block id")?;
            let k = r.count("group block count", 6)?;
            let mut positions = Vec::with_capacity(k);
            for _ in 0..k {
                positions.push(pos(&mut r)?);
            }
            groups.push(Group {
                block_id,
                positions,
            });
        }
        controllers.push(Controller { position, groups });
    }
    r.finish("logic")?;
    Ok(Logic {
        version,
        controller_version,
        controllers,
    })
}

/// Writes logic with chunk-32 positions: chunk-16 positions are moved by `shift` (8: the core
/// moves from 8,8,8 to 16,16,16).
pub fn write(l: &Logic, shift: i16) -> Vec<u8> {
    let mut w = Writer::default();
    w.i32(l.version);
    w.i32(l.controller_version.unwrap_or(-1026));
    w.i32(l.controllers.len() as i32);
    let pos = |w: &mut Writer, p: &[i16; 3]| p.iter().for_each(|v| w.i16(v + shift));
    for c in &l.controllers {
        pos(&mut w, &c.position);
        w.i32(c.groups.len() as i32);
        for g in &c.groups {
            w.i16(g.block_id);
            w.i32(g.positions.len() as i32);
            for p in &g.positions {
                pos(&mut w, p);
            }
        }
    }
    w.0
}
