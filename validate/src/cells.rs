//! `Cell`: what the edge pass needs to know of a vertex, packed small.
//!
//! The edge pass reads two cells per tuple, so their size decides its
//! speed: the cells it reads should stay in cache (in block order, two
//! blocks of 64 Ki cells at a time). A cell holds the vertex's tree level
//! and enough of its parent to recognise a tree edge:
//!
//! - [`Packed32`]: level in the high byte (255 = unreached) and the low 24
//!   bits of the parent. Four bytes per vertex; usable while the tree is at
//!   most 253 levels deep (every Kronecker tree is). Used up to `2^22`
//!   vertices, where the print is the whole parent, so a match is a tree
//!   edge (above `2^24` vertices the type would confirm each match against
//!   the parent array).
//! - [`Packed16`]: level in the high byte, the low 8 bits of the parent.
//!   Two bytes per vertex, for graphs above `2^22` vertices: there the
//!   block pairs are sparse (a few thousand tuples each at SCALE 25 and
//!   26), so the pass reads about one new cache line of cells per tuple,
//!   and a line of two-byte cells serves twice the vertices. A match is
//!   confirmed (once per tree edge, plus one false alarm in 256 other
//!   cross-level tuples); the lines saved pay for that from `2^23`
//!   vertices on (`narrow_cells` in `lib.rs` has the figures).
//! - [`Exact64`]: level in the high 32 bits, the whole parent in the low 32.
//!   Eight bytes per vertex, any depth, no confirmation needed.
//!
//! The first two are one type, [`Packed`], over the word that holds them.

/// What [`Cell::level`] returns for an unreached vertex: a value at least
/// 2 away from every level a cell can hold, so that one test,
/// `level_u.abs_diff(level_v) > 1`, catches both failures of check 4.
pub(crate) const UNREACHED: u32 = u32::MAX;

/// A vertex's level and parent, as the edge pass reads them.
pub(crate) trait Cell: Copy + Send + Sync {
    /// The deepest level a cell of this type holds.
    const MAX_LEVEL: u32;

    /// True when [`Cell::might_be_child_of`] can say yes wrongly in a graph
    /// of `num_vertices` vertices, so a match must be confirmed against the
    /// parent array.
    fn needs_confirmation(num_vertices: usize) -> bool;

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

/// A cell the wide loop (`wide.rs`) reads: its bits widened to a `u32`,
/// the level in the bits from [`Narrow::LEVEL_SHIFT`] up (`0xff` for
/// unreached), the print of the parent in [`Narrow::PRINT`].
pub(crate) trait Narrow: Cell {
    /// Where the level starts.
    const LEVEL_SHIFT: u32;
    /// The bits of the parent a cell keeps.
    const PRINT: u32;
    /// The cell's bits.
    fn bits(self) -> u32;
}

/// The word a [`Packed`] cell is kept in.
pub(crate) trait Word: Copy + Send + Sync + Eq + std::fmt::Debug {
    /// Bits in the word: the top 8 hold the level, the rest the print.
    const BITS: u32;
    /// The low `BITS` of `bits`.
    fn from_bits(bits: u32) -> Self;
    /// The word, widened.
    fn to_bits(self) -> u32;
}

impl Word for u32 {
    const BITS: u32 = 32;
    #[inline]
    fn from_bits(bits: u32) -> Self {
        bits
    }
    #[inline]
    fn to_bits(self) -> u32 {
        self
    }
}

impl Word for u16 {
    const BITS: u32 = 16;
    #[inline]
    #[allow(clippy::cast_possible_truncation)] // the low bits, on purpose
    fn from_bits(bits: u32) -> Self {
        bits as u16
    }
    #[inline]
    fn to_bits(self) -> u32 {
        self.into()
    }
}

/// Level (the top 8 bits of `W`) and the parent's low bits (the rest).
/// `repr(transparent)`: a slice of cells is a slice of words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Packed<W>(W);

/// Level and the parent's low 24 bits.
pub(crate) type Packed32 = Packed<u32>;
/// Level and the parent's low 8 bits.
pub(crate) type Packed16 = Packed<u16>;

impl<W: Word> Narrow for Packed<W> {
    const LEVEL_SHIFT: u32 = W::BITS - 8;
    const PRINT: u32 = (1 << Self::LEVEL_SHIFT) - 1;

    #[inline]
    fn bits(self) -> u32 {
        self.0.to_bits()
    }
}

impl<W: Word> Cell for Packed<W> {
    /// 255 means unreached, and 254 is left empty so that unreached is 2
    /// away from every level.
    const MAX_LEVEL: u32 = 253;

    /// Up to `PRINT + 1` vertices the print is the whole parent.
    fn needs_confirmation(num_vertices: usize) -> bool {
        num_vertices > Self::PRINT as usize + 1
    }

    #[inline]
    fn reached(level: u32, parent: u32) -> Self {
        debug_assert!(level <= Self::MAX_LEVEL);
        Packed(W::from_bits(
            (level << Self::LEVEL_SHIFT) | (parent & Self::PRINT),
        ))
    }

    #[inline]
    fn unreached() -> Self {
        Packed(W::from_bits(0xff << Self::LEVEL_SHIFT))
    }

    #[inline]
    fn level(self) -> u32 {
        self.bits() >> Self::LEVEL_SHIFT
    }

    #[inline]
    fn is_unreached_level(level: u32) -> bool {
        level == 0xff
    }

    #[inline]
    fn might_be_child_of(self, parent: u32) -> bool {
        (self.bits() & Self::PRINT) == (parent & Self::PRINT)
    }
}

/// Level (32 bits) and parent (32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exact64(u64);

impl Cell for Exact64 {
    /// Any level a walk assigns: they stay below `N - 1 <= 2^32 - 3`.
    const MAX_LEVEL: u32 = UNREACHED - 2;

    fn needs_confirmation(_: usize) -> bool {
        false
    }

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
    fn packed_cells_keep_levels_and_prints() {
        let c = Packed32::reached(253, 0x1234_5678);
        assert_eq!(c.level(), 253);
        assert!(c.might_be_child_of(0x0034_5678));
        assert!(
            c.might_be_child_of(0xff34_5678),
            "a print matches wrongly above 2^24 vertices"
        );
        assert!(!c.might_be_child_of(0x1234_5679));
        assert!(!c.might_be_child_of(0x1235_5678));
        assert!(Packed32::needs_confirmation((1 << 24) + 1));
        assert!(!Packed32::needs_confirmation(1 << 24));
        let unreached = Packed32::unreached().level();
        assert!(Packed32::is_unreached_level(unreached));
        assert!(unreached.abs_diff(Packed32::MAX_LEVEL) >= 2);
        assert_eq!(Packed32::reached(0, 0).level(), 0);
    }

    #[test]
    fn narrow_cells_keep_levels_and_prints() {
        let c = Packed16::reached(253, 0x1234_5678);
        assert_eq!(c.level(), 253);
        assert!(c.might_be_child_of(0x78));
        assert!(c.might_be_child_of(0x5678), "only 8 bits are kept");
        assert!(!c.might_be_child_of(0x1234_5679));
        assert!(Packed16::needs_confirmation(257));
        assert!(!Packed16::needs_confirmation(256));
        let unreached = Packed16::unreached().level();
        assert!(Packed16::is_unreached_level(unreached));
        assert!(unreached.abs_diff(Packed16::MAX_LEVEL) >= 2);
        assert_eq!(Packed16::reached(0, 0).level(), 0);
        assert_eq!(Packed16::reached(7, 0x1ff).bits(), 0x7ff);
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
