//! Generation stages, one module each: a function from its inputs to its outputs, with no file
//! I/O, no printing and no global state. The pipeline that orders them arrives with the terrain
//! issue; each stage is usable and tested on its own.

pub mod sea;
