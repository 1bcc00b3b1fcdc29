//! `Group`: a row or column of the grid as a [`Comm`] of its own, built
//! over any parent `Comm`.
//!
//! Where the parent makes communicators of its own ([`Comm::split`]: MPI's
//! `MPI_Comm_split`), a group is one, and its collectives involve only its
//! members: `g - 1` messages, not `P - 1`. Elsewhere ([`Solo`](crate::Solo),
//! [`ThreadRanks`](crate::ThreadRanks)) each group collective is one parent
//! all-to-all ([`Comm::exchange_bytes`]) in which a rank sends only to
//! members of its group (zero bytes to the others). Either way the bytes
//! counted are exactly those that reach other members, counted toward the
//! parent's [`Comm::bytes_sent`]. The rule of the fallback: every rank of
//! the parent takes part in each call, so the groups of a split (all rows,
//! or all columns) must call the same collective at the same time, each
//! within its own group — which is how the 2-D BFS uses them (every row
//! folds at once, every column expands at once).

use crate::comm::{Comm, Reduce, shift_by_exchange};

/// Some ranks of a parent communicator, ascending, seen as a `Comm`: rank
/// `k` of the group is `members[k]` of the parent.
pub struct Group<'c> {
    parent: &'c dyn Comm,
    members: Vec<usize>,
    me: usize,
    /// The parent's own communicator of the members, where it makes one.
    split: Option<Box<dyn Comm + 'c>>,
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
            split: None,
        }
    }

    /// The group of `members` (as for [`Group::new`]) as a communicator of
    /// the parent's own where it makes one ([`Comm::split`]), `color`
    /// naming the group among those of the split. Collective over the
    /// parent: every rank calls it at once, the members of each group with
    /// the same `color`, different groups with different ones.
    pub fn split(parent: &'c dyn Comm, members: Vec<usize>, color: usize) -> Self {
        let mut group = Group::new(parent, members);
        group.split = parent.split(color);
        if let Some(split) = &group.split {
            assert_eq!(
                (split.rank(), split.size()),
                (group.me, group.members.len()),
                "the split holds the group's members, in order"
            );
        }
        group
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
        if let Some(split) = &self.split {
            return split.exchange_counts(send_counts, recv_counts);
        }
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
        if let Some(split) = &self.split {
            return split.exchange_bytes(send, send_counts, recv, recv_counts);
        }
        self.parent.exchange_bytes(
            send,
            &self.spread(send_counts),
            recv,
            &self.spread(recv_counts),
        );
    }

    fn all_gather_bytes(&self, mine: &[u8], counts: &[usize], all: &mut [u8]) {
        debug_assert_eq!(mine.len(), counts[self.me]);
        if let Some(split) = &self.split {
            return split.all_gather_bytes(mine, counts, all);
        }
        let send = mine.repeat(self.size());
        self.exchange_bytes(&send, &vec![mine.len(); self.size()], all, counts);
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        if let Some(split) = &self.split {
            return split.all_reduce(values, op);
        }
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

    fn shift(&self, send: &[u8], recv: &mut [u8]) {
        match &self.split {
            Some(split) => split.shift(send, recv),
            None => shift_by_exchange(self, send, recv),
        }
    }

    fn barrier(&self) {
        match &self.split {
            Some(split) => split.barrier(),
            None => self.parent.barrier(),
        }
    }

    fn bytes_sent(&self) -> u64 {
        self.parent.bytes_sent()
    }

    /// The parent's: its own calls, and its part's (which shares its
    /// count), are where a group's time goes.
    fn nanos_in_calls(&self) -> u64 {
        self.parent.nanos_in_calls()
    }

    fn ranks_on_this_machine(&self) -> usize {
        self.parent.ranks_on_this_machine().min(self.size())
    }
}
