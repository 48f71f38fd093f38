//! The writer of an [`super::AtomicFile`]: an 8 MiB buffer written out in whole aligned blocks
//! past the page cache (Linux's `O_DIRECT`) where the file system takes that, buffered where it
//! does not.
//!
//! Why: the blueprints are over a gigabyte at 8192, and copying them into the page cache costs
//! seconds of CPU on some machines (on this project's 2-core VM, a gigabyte's first buffered
//! write takes 2.4 s of kernel time and a direct one 0.1 s; BENCHMARKS.md, "8192 again: the same
//! heights for less work, and blueprints past the page cache"). The bytes are the same either
//! way.
//!
//! Guarantees: every byte given to [`DirectWriter::write`] reaches the file in order; a direct
//! write is only ever of whole [`BLOCK`]s from an aligned buffer at an aligned offset, and the
//! first one the file system refuses (`EINVAL`) turns the file buffered for good, with nothing
//! lost. [`DirectWriter::flush`] writes everything, the last partial block buffered (after it
//! the file stays buffered: the offset is no longer aligned).

use std::fs::File;
use std::io::{self, Write};

/// The alignment of a direct write: its buffer's address, its length and its file offset (the
/// largest logical block size disks use).
pub const BLOCK: usize = 4096;

/// The buffer's size: a whole number of blocks.
const BUFFER_BLOCKS: usize = (8 << 20) / BLOCK;

/// One aligned block of the buffer.
#[derive(Clone, Copy)]
#[repr(C, align(4096))]
struct Block([u8; BLOCK]);

// SAFETY: `Block` is `repr(C)` with a single `[u8; BLOCK]` field, its size a multiple of its
// alignment: no padding, and every bit pattern is a valid value.
unsafe impl bytemuck::Zeroable for Block {}
// SAFETY: as above; `Block` is `Copy` and `'static`.
unsafe impl bytemuck::Pod for Block {}

/// A buffered writer of a file, direct where it can be (see the module's documentation).
pub struct DirectWriter {
    file: File,
    blocks: Vec<Block>,
    /// Bytes held in the buffer.
    len: usize,
    /// Whether the file is open for direct writes.
    direct: bool,
}

impl DirectWriter {
    /// Writes `file` (just created, offset 0) through the buffer, direct when `direct` and the
    /// platform and file system allow it.
    pub fn new(file: File, direct: bool) -> DirectWriter {
        let direct = direct && set_direct(&file, true).is_ok();
        DirectWriter {
            file,
            blocks: vec![Block([0; BLOCK]); BUFFER_BLOCKS],
            len: 0,
            direct,
        }
    }

    /// The file, for syncing (flush first).
    pub fn get_ref(&self) -> &File {
        &self.file
    }

    /// The file, once everything is flushed.
    pub fn into_inner(mut self) -> io::Result<File> {
        self.flush()?;
        Ok(self.file)
    }

    /// Writes out the buffer: its whole blocks (direct, or all of it when buffered), and with
    /// `all` the rest too. What is left moves to the buffer's front.
    fn drain(&mut self, all: bool) -> io::Result<()> {
        let whole = if self.direct {
            self.len / BLOCK * BLOCK
        } else {
            self.len
        };
        self.put(0, whole)?;
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut self.blocks);
        buf.copy_within(whole..self.len, 0);
        self.len -= whole;
        if all && self.len > 0 {
            self.buffered()?;
            self.put(0, self.len)?;
            self.len = 0;
        }
        Ok(())
    }

    /// Writes buffer bytes `from..to`; a direct write the file system refuses is made buffered.
    fn put(&mut self, mut from: usize, to: usize) -> io::Result<()> {
        while from < to {
            let buf: &[u8] = bytemuck::cast_slice(&self.blocks);
            match (&self.file).write(&buf[from..to]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => from += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if self.direct && e.raw_os_error() == Some(EINVAL) => self.buffered()?,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Turns the file buffered from now on.
    fn buffered(&mut self) -> io::Result<()> {
        if self.direct {
            set_direct(&self.file, false)?;
            self.direct = false;
        }
        Ok(())
    }
}

impl Write for DirectWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let capacity = BUFFER_BLOCKS * BLOCK;
        if self.len == capacity {
            self.drain(false)?;
        }
        let n = data.len().min(capacity - self.len);
        let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut self.blocks);
        buf[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain(true)?;
        self.file.flush()
    }
}

#[cfg(target_os = "linux")]
const EINVAL: i32 = libc::EINVAL;
#[cfg(not(target_os = "linux"))]
const EINVAL: i32 = i32::MIN;

/// Sets or clears `O_DIRECT` on `file`.
#[cfg(target_os = "linux")]
fn set_direct(file: &File, on: bool) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: F_GETFL and F_SETFL on a descriptor this `File` owns and keeps open; neither reads
    // or writes memory.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    let flags = if on {
        flags | libc::O_DIRECT
    } else {
        flags & !libc::O_DIRECT
    };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Direct writes are Linux's here: elsewhere every file is buffered.
#[cfg(not(target_os = "linux"))]
fn set_direct(_: &File, on: bool) -> io::Result<()> {
    if on {
        Err(io::ErrorKind::Unsupported.into())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Bytes that show their position (a block's worth moved would show).
    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 31 + i / 251) as u8).collect()
    }

    fn written(direct: bool, pieces: &[usize], flush_after: Option<usize>) -> (Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = File::create(&path).unwrap();
        let mut w = DirectWriter::new(file, direct);
        let total: usize = pieces.iter().sum();
        let data = pattern(total);
        let mut at = 0;
        for (k, &n) in pieces.iter().enumerate() {
            w.write_all(&data[at..at + n]).unwrap();
            at += n;
            if flush_after == Some(k) {
                w.flush().unwrap();
            }
        }
        let file = w.into_inner().unwrap();
        file.sync_all().unwrap();
        let mut back = Vec::new();
        File::open(&path).unwrap().read_to_end(&mut back).unwrap();
        (data, back)
    }

    #[test]
    fn every_byte_arrives_in_order_direct_or_not() {
        let cap = BUFFER_BLOCKS * BLOCK;
        // Under a block; exactly the buffer; the buffer and a ragged tail; many odd pieces
        // crossing the buffer's end twice; a flush in the middle (the rest goes buffered).
        let cases: [(&[usize], Option<usize>); 5] = [
            (&[100], None),
            (&[cap], None),
            (&[cap, 4097, 3], None),
            (&[1_000_003, 7_777_777, 9_000_001, 5], None),
            (&[BLOCK * 3 + 17, cap + 5, 12], Some(0)),
        ];
        for direct in [true, false] {
            for (pieces, flush_after) in cases {
                let (data, back) = written(direct, pieces, flush_after);
                assert_eq!(back.len(), data.len(), "{pieces:?} direct {direct}");
                assert!(back == data, "{pieces:?} direct {direct}: bytes differ");
            }
        }
    }
}
