//! Big-endian reading and writing (Java `DataOutputStream`) with typed errors: every read is
//! bounds-checked, and every error names the file, the byte offset and the rule broken.

/// A StarMade file that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} at byte {offset}: {rule}")]
pub struct StarmadeError {
    /// The file, as a path inside the blueprint.
    pub file: String,
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was wrong.
    pub rule: String,
}

/// A bounds-checked big-endian reader over one file.
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    file: &'a str,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`, naming `file` in errors.
    pub fn new(data: &'a [u8], file: &'a str) -> Reader<'a> {
        Reader { data, at: 0, file }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.at
    }

    /// The offset of the next byte.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// An error at the current offset.
    pub fn error(&self, rule: impl Into<String>) -> StarmadeError {
        self.error_at(self.at, rule)
    }

    /// An error at `offset`.
    pub fn error_at(&self, offset: usize, rule: impl Into<String>) -> StarmadeError {
        StarmadeError {
            file: self.file.to_string(),
            offset,
            rule: rule.into(),
        }
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], StarmadeError> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "{what}: needs {n} bytes, {} left",
                self.remaining()
            )));
        }
        let out = &self.data[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], StarmadeError> {
        let b = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// A byte.
    pub fn u8(&mut self, what: &str) -> Result<u8, StarmadeError> {
        Ok(self.array::<1>(what)?[0])
    }
    /// An i16.
    pub fn i16(&mut self, what: &str) -> Result<i16, StarmadeError> {
        Ok(i16::from_be_bytes(self.array(what)?))
    }
    /// A u16.
    pub fn u16(&mut self, what: &str) -> Result<u16, StarmadeError> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }
    /// An i32.
    pub fn i32(&mut self, what: &str) -> Result<i32, StarmadeError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }
    /// An i64.
    pub fn i64(&mut self, what: &str) -> Result<i64, StarmadeError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }
    /// An f32.
    pub fn f32(&mut self, what: &str) -> Result<f32, StarmadeError> {
        Ok(f32::from_be_bytes(self.array(what)?))
    }
    /// An f64.
    pub fn f64(&mut self, what: &str) -> Result<f64, StarmadeError> {
        Ok(f64::from_be_bytes(self.array(what)?))
    }

    /// A count (i32 ≥ 0) of items at least `min_item_bytes` long each, checked against what is
    /// left before anything is allocated for them.
    pub fn count(&mut self, what: &str, min_item_bytes: usize) -> Result<usize, StarmadeError> {
        let at = self.at;
        let n = self.i32(what)?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n.saturating_mul(min_item_bytes.max(1)) <= self.remaining())
            .ok_or_else(|| {
                self.error_at(
                    at,
                    format!(
                        "{what} {n} cannot fit in the {} bytes left",
                        self.remaining()
                    ),
                )
            })
    }

    /// A Java modified-UTF string: u16 byte length, then the bytes.
    pub fn utf(&mut self, what: &str) -> Result<String, StarmadeError> {
        let n = usize::from(self.u16(what)?);
        let b = self.bytes(n, what)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }

    /// Fails unless every byte was read.
    pub fn finish(&self, what: &str) -> Result<(), StarmadeError> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(self.error(format!(
                "{} bytes after the end of the {what}",
                self.remaining()
            )))
        }
    }
}

/// A big-endian writer.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    /// A byte.
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// An i16.
    pub fn i16(&mut self, v: i16) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// A u16.
    pub fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// An i32.
    pub fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// An i64.
    pub fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// An f32.
    pub fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// An f64.
    pub fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_be_bytes());
    }
    /// A modified-UTF string (plain UTF-8 here; the game's strings are ASCII).
    pub fn utf(&mut self, s: &str) {
        let b = s.as_bytes();
        self.u16(b.len().min(u16::MAX as usize) as u16);
        self.0
            .extend_from_slice(&b[..b.len().min(u16::MAX as usize)]);
    }
}
