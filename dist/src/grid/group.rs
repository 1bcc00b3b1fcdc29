//! `Group`: a row or column of the grid as a [`Comm`] of its own (what
//! `MPI_Comm_split` gives), built over any parent `Comm`.
//!
//! Each group collective is one parent all-to-all ([`Comm::exchange_bytes`])
//! in which a rank sends only to members of its group (zero bytes to the
//! others), so it works unchanged for [`Solo`](crate::Solo),
//! [`ThreadRanks`](crate::ThreadRanks) and MPI, and counts exactly the
//! bytes that reach other members. The price, and the rule: every rank of
//! the parent takes part in each call, so the groups of a split (all rows,
//! or all columns) must call the same collective at the same time, each
//! within its own group — which is how the 2-D BFS uses them (every row
//! folds at once, every column expands at once). Under MPI each call also
//! passes `P` counts; a real `split` communicator (rsmpi's
//! `Communicator::split_by_color`) is the upgrade once the MPI engine runs
//! (see the design note in `grid.rs`).

use crate::comm::{Comm, Reduce};

/// Some ranks of a parent communicator, ascending, seen as a `Comm`: rank
/// `k` of the group is `members[k]` of the parent.
pub struct Group<'c> {
    parent: &'c dyn Comm,
    members: Vec<usize>,
    me: usize,
}

impl<'c> Group<'c> {
    /// The group of `members` (ascending, containing the caller's rank).
    pub fn new(parent: &'c dyn Comm, members: Vec<usize>) -> Self {
        assert!(
            members.windows(2).all(|w| w[0] < w[1]),
            "members ascending and distinct"
        );
        assert!(
            members.last().is_some_and(|&m| m < parent.size()),
            "members are ranks of the parent"
        );
        let me = members
            .iter()
            .position(|&m| m == parent.rank())
            .expect("the caller belongs to its group");
        Group {
            parent,
            members,
            me,
        }
    }

    /// The parent rank of each member, in group order.
    pub fn members(&self) -> &[usize] {
        &self.members
    }

    /// Per-member byte counts spread to the parent's ranks (zero for
    /// non-members).
    fn spread(&self, counts: &[usize]) -> Vec<usize> {
        debug_assert_eq!(counts.len(), self.members.len());
        let mut all = vec![0; self.parent.size()];
        for (&m, &c) in self.members.iter().zip(counts) {
            all[m] = c;
        }
        all
    }
}

impl Comm for Group<'_> {
    fn rank(&self) -> usize {
        self.me
    }

    fn size(&self) -> usize {
        self.members.len()
    }

    fn exchange_counts(&self, send_counts: &[usize], recv_counts: &mut [usize]) {
        let mine: Vec<u64> = send_counts.iter().map(|&c| c as u64).collect();
        let mut theirs = vec![0u64; self.size()];
        let eight = vec![8; self.size()];
        self.exchange_bytes(
            bytemuck::cast_slice(&mine),
            &eight,
            bytemuck::cast_slice_mut(&mut theirs),
            &eight,
        );
        for (out, c) in recv_counts.iter_mut().zip(theirs) {
            *out = usize::try_from(c).expect("a count fits memory");
        }
    }

    fn exchange_bytes(
        &self,
        send: &[u8],
        send_counts: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
    ) {
        self.parent.exchange_bytes(
            send,
            &self.spread(send_counts),
            recv,
            &self.spread(recv_counts),
        );
    }

    fn all_gather_bytes(&self, mine: &[u8], counts: &[usize], all: &mut [u8]) {
        debug_assert_eq!(mine.len(), counts[self.me]);
        let send = mine.repeat(self.size());
        self.exchange_bytes(&send, &vec![mine.len(); self.size()], all, counts);
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        let k = values.len();
        let mut all = vec![0u64; k * self.size()];
        let counts = vec![8 * k; self.size()];
        self.all_gather_bytes(
            bytemuck::cast_slice(values),
            &counts,
            bytemuck::cast_slice_mut(&mut all),
        );
        for (x, out) in values.iter_mut().enumerate() {
            *out = (1..self.size()).fold(all[x], |acc, m| op.apply(acc, all[m * k + x]));
        }
    }

    fn barrier(&self) {
        self.parent.barrier();
    }

    fn bytes_sent(&self) -> u64 {
        self.parent.bytes_sent()
    }

    fn ranks_on_this_machine(&self) -> usize {
        self.parent.ranks_on_this_machine().min(self.size())
    }
}
