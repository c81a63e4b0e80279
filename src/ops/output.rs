//! Writing output files safely: [`crate::io::output`] (a temporary file in the output's
//! folder, renamed into place; only regular files replaced), re-exported for the operations.

pub use crate::io::output::write_bytes as write_atomically;
