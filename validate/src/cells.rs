//! `Cell`: what the edge pass needs to know of a vertex, packed small.
//!
//! The edge pass reads two cells per tuple at random, so their size decides
//! its speed: the cell array should stay in cache. A cell holds the vertex's
//! tree level and enough of its parent to recognise a tree edge:
//!
//! - [`Packed16`]: level in the high byte (255 = unreached) and the low 8
//!   bits of the parent. Two bytes per vertex; usable while the tree is at
//!   most 253 levels deep (every Kronecker tree is). A tuple whose far end
//!   matches those 8 bits is confirmed against the full parent array: once
//!   per tree edge, plus one false alarm in 256 for other cross-level tuples.
//! - [`Exact64`]: level in the high 32 bits, the whole parent in the low 32.
//!   Eight bytes per vertex, any depth, no confirmation needed.

/// What [`Cell::level`] returns for an unreached vertex: a value at least
/// 2 away from every level a cell can hold, so that one test,
/// `level_u.abs_diff(level_v) > 1`, catches both failures of check 4.
pub(crate) const UNREACHED: u32 = u32::MAX;

/// A vertex's level and parent, as the edge pass reads them.
pub(crate) trait Cell: Copy + Send + Sync {
    /// True when [`Cell::might_be_child_of`] can say yes wrongly, so a
    /// match must be confirmed against the parent array.
    const NEEDS_CONFIRMATION: bool;

    /// A cell for a reached vertex.
    fn reached(level: u32, parent: u32) -> Self;
    /// The cell of an unreached vertex.
    fn unreached() -> Self;
    /// The level, or, for an unreached vertex, a code at least 2 above any
    /// level this cell type holds ([`Cell::is_unreached_level`] tells).
    fn level(self) -> u32;
    /// True if `level` is the unreached code of this cell type.
    fn is_unreached_level(level: u32) -> bool;
    /// False if `parent` is certainly not this vertex's parent.
    fn might_be_child_of(self, parent: u32) -> bool;
}

/// Level (8 bits) and parent fingerprint (8 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packed16(u16);

impl Packed16 {
    /// The deepest level a `Packed16` holds (255 means unreached, and 254 is
    /// left empty so that unreached is 2 away from every level).
    pub(crate) const MAX_LEVEL: u32 = 253;
}

impl Cell for Packed16 {
    const NEEDS_CONFIRMATION: bool = true;

    #[inline]
    #[allow(clippy::cast_possible_truncation)] // level <= 254; the low byte on purpose
    fn reached(level: u32, parent: u32) -> Self {
        debug_assert!(level <= Self::MAX_LEVEL);
        Packed16(((level as u16) << 8) | (parent & 0xff) as u16)
    }

    #[inline]
    fn unreached() -> Self {
        Packed16(0xff00)
    }

    #[inline]
    fn level(self) -> u32 {
        u32::from(self.0 >> 8)
    }

    #[inline]
    fn is_unreached_level(level: u32) -> bool {
        level == 0xff
    }

    #[inline]
    #[allow(clippy::cast_possible_truncation)] // the low byte on purpose
    fn might_be_child_of(self, parent: u32) -> bool {
        (self.0 & 0xff) == (parent & 0xff) as u16
    }
}

/// Level (32 bits) and parent (32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact64(u64);

impl Cell for Exact64 {
    const NEEDS_CONFIRMATION: bool = false;

    #[inline]
    fn reached(level: u32, parent: u32) -> Self {
        Exact64((u64::from(level) << 32) | u64::from(parent))
    }

    #[inline]
    fn unreached() -> Self {
        Exact64(u64::MAX)
    }

    /// Levels are below N - 1 <= 2^32 - 3 whenever some vertex is
    /// unreached, so `u32::MAX` is 2 away from all of them.
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // the high half, shifted down
    fn level(self) -> u32 {
        (self.0 >> 32) as u32
    }

    #[inline]
    fn is_unreached_level(level: u32) -> bool {
        level == UNREACHED
    }

    #[inline]
    #[allow(clippy::cast_possible_truncation)] // the low half on purpose
    fn might_be_child_of(self, parent: u32) -> bool {
        self.0 as u32 == parent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_cells_keep_levels_and_fingerprints() {
        let c = Packed16::reached(253, 0x1234_5678);
        assert_eq!(c.level(), 253);
        assert!(c.might_be_child_of(0x78));
        assert!(
            c.might_be_child_of(0xffff_ff78),
            "a fingerprint can match wrongly"
        );
        assert!(!c.might_be_child_of(0x79));
        let unreached = Packed16::unreached().level();
        assert!(Packed16::is_unreached_level(unreached));
        assert!(unreached.abs_diff(Packed16::MAX_LEVEL) >= 2);
        assert_eq!(Packed16::reached(0, 0).level(), 0);
    }

    #[test]
    fn exact_cells_keep_levels_and_parents() {
        let c = Exact64::reached(70_000, 0xffff_fffe);
        assert_eq!(c.level(), 70_000);
        assert!(c.might_be_child_of(0xffff_fffe));
        assert!(!c.might_be_child_of(0x0000_00fe));
        assert!(Exact64::is_unreached_level(Exact64::unreached().level()));
    }
}
