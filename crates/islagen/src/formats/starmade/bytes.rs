//! Big-endian reading and writing (Java `DataOutputStream`) with typed errors: every read is
//! bounds-checked, and every error names the file, the byte offset and the rule broken.

/// A StarMade file that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} at byte {offset}: {rule}{}", with_colon(detail))]
pub struct StarmadeError {
    /// The file, as a path inside the blueprint (or on disk).
    pub file: String,
    /// Byte offset of the problem.
    pub offset: usize,
    /// The rule broken.
    pub rule: Rule,
    /// The specifics: what was being read, the numbers and names involved (may be empty).
    pub detail: String,
}

fn with_colon(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

/// The rules a StarMade file (or blueprint folder, or archive) can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The file ends inside a value.
    Truncated,
    /// A count or length is larger than the bytes left could hold.
    CountTooLarge,
    /// Bytes are left after the end of the structure.
    TrailingBytes,
    /// `header.smbph` has a version outside 0..=16.
    UnknownHeaderVersion,
    /// A tag's type is not 1..=17.
    UnknownTagType,
    /// A list tag's element type is not 1..=17.
    UnknownListElementType,
    /// Lists and structs are nested deeper than [`super::meta::MAX_DEPTH`].
    TagsTooDeep,
    /// A tag root holds an end marker instead of a tag.
    EndMarkerAsRoot,
    /// `meta.smbpm` has a data type other than 1..=7.
    UnknownDataType,
    /// A gzip tag root does not inflate.
    NotGzip,
    /// A segment's data is not a zlib stream.
    NotZlib,
    /// A segment does not inflate to exactly its blocks' bytes.
    WrongInflatedLength,
    /// A segment's position is not a multiple of its side.
    MisalignedSegment,
    /// A segment's compressed length exceeds its sector.
    SegmentTooLong,
    /// A region index points past the end of the file.
    PastTheEnd,
    /// A region index's size disagrees with the segment record.
    IndexSizeMismatch,
    /// A file, archive or inflated stream exceeds a limit ([`super::MAX_ENTRY`],
    /// [`super::MAX_FILES`], [`super::meta::MAX_INFLATED`]).
    LimitExceeded,
    /// A required file is missing.
    Missing,
    /// Not a zip archive, or an archive entry that cannot be read.
    NotAZip,
    /// The file system failed.
    Io,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rule::Truncated => "truncated",
            Rule::CountTooLarge => "count too large",
            Rule::TrailingBytes => "trailing bytes",
            Rule::UnknownHeaderVersion => "unknown header version",
            Rule::UnknownTagType => "unknown tag type",
            Rule::UnknownListElementType => "unknown list element type",
            Rule::TagsTooDeep => "tags nested too deep",
            Rule::EndMarkerAsRoot => "a tag root holds an end marker, not a tag",
            Rule::UnknownDataType => "unknown data type",
            Rule::NotGzip => "not a gzip stream",
            Rule::NotZlib => "not a zlib stream",
            Rule::WrongInflatedLength => "wrong inflated length",
            Rule::MisalignedSegment => "misaligned segment",
            Rule::SegmentTooLong => "a compressed segment longer than its sector",
            Rule::PastTheEnd => "the index points past the end of the file",
            Rule::IndexSizeMismatch => "index size mismatch",
            Rule::LimitExceeded => "limit exceeded",
            Rule::Missing => "missing",
            Rule::NotAZip => "not a zip archive",
            Rule::Io => "I/O error",
        })
    }
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
    pub fn error(&self, rule: Rule, detail: impl Into<String>) -> StarmadeError {
        self.error_at(self.at, rule, detail)
    }

    /// An error at `offset`.
    pub fn error_at(&self, offset: usize, rule: Rule, detail: impl Into<String>) -> StarmadeError {
        StarmadeError {
            file: self.file.to_string(),
            offset,
            rule,
            detail: detail.into(),
        }
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], StarmadeError> {
        if n > self.remaining() {
            return Err(self.error(
                Rule::Truncated,
                format!("{what} needs {n} bytes, {} left", self.remaining()),
            ));
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
                    Rule::CountTooLarge,
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
            Err(self.error(
                Rule::TrailingBytes,
                format!("{} bytes after the end of the {what}", self.remaining()),
            ))
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
