//! The code both array files share ([`crate::parents`], `i64`, and
//! [`crate::distances`], `f32`): `N` little-endian values in vertex order,
//! nothing else.

use crate::FileError;
use std::io::{Read, Write};
use std::path::Path;

/// Bytes per `write` call of [`write()`] (512 KiB).
const CHUNK_BYTES: usize = 1 << 19;

/// Encodes `values` onto `out`, little-endian, 512 KiB per write. Fails
/// only when `out` does.
pub(crate) fn write<T: bytemuck::Pod>(out: &mut dyn Write, values: &[T]) -> std::io::Result<()> {
    for chunk in values.chunks(CHUNK_BYTES / size_of::<T>()) {
        if cfg!(target_endian = "little") {
            out.write_all(bytemuck::cast_slice(chunk))?;
        } else {
            let mut bytes = bytemuck::cast_slice::<T, u8>(chunk).to_vec();
            swap_bytes::<T>(&mut bytes);
            out.write_all(&bytes)?;
        }
    }
    Ok(())
}

/// Reads the values of the file at `path`, each `size_of::<T>()` bytes
/// (`what` names them in errors, plural). Fails, naming `path`, if it
/// cannot be read, is not a regular file, or is not a whole number of
/// values.
pub(crate) fn read<T: bytemuck::Pod>(path: &Path, what: &str) -> Result<Vec<T>, FileError> {
    let io = |cause| FileError::io(path, cause);
    let format = |what: String| FileError::format(path, what);
    let size = size_of::<T>();
    let (mut file, len) = generator::format::open_regular(path)?;
    if len % size as u64 != 0 {
        return Err(format(format!(
            "{len} bytes is not a whole number of {size}-byte {what}"
        )));
    }
    let count = usize::try_from(len / size as u64)
        .map_err(|_| format("too large for this machine's memory".into()))?;
    let mut values: Vec<T> = bytemuck::zeroed_vec(count);
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    file.read_exact(bytes).map_err(io)?;
    if cfg!(target_endian = "big") {
        swap_bytes::<T>(bytes);
    }
    Ok(values)
}

/// Reverses the bytes of each `T` in `bytes`: little-endian to native and
/// back on a big-endian machine.
fn swap_bytes<T>(bytes: &mut [u8]) {
    for value in bytes.chunks_exact_mut(size_of::<T>()) {
        value.reverse();
    }
}
