//! `Comm`: the collective operations the distributed run needs, and two
//! implementations besides MPI's: [`Solo`] (one rank) and [`ThreadRanks`]
//! (P ranks as threads of one process, for tests and for trying the
//! distributed code without MPI).
//!
//! The trait moves bytes; the typed helpers ([`exchange`], [`all_gather`],
//! [`all_reduce`]) cast plain-old-data slices to and from them. Every
//! operation is collective: each rank calls it, in the same order, with
//! arguments that agree (the same `op`, the same counts where counts are
//! shared). Each implementation counts the bytes this rank sends to other
//! ranks ([`Comm::bytes_sent`]); what a rank passes to itself is a copy and
//! not counted. Each also counts the time this rank spends inside the
//! operations ([`Comm::nanos_in_calls`], waiting for the others
//! included), which the harness takes from a search's time to give its
//! compute.

use bytemuck::Pod;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;

/// A reduction of `u64` values, element by element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduce {
    /// Wrapping sum.
    Sum,
    /// Largest.
    Max,
    /// Smallest.
    Min,
}

impl Reduce {
    /// `a` combined with `b`.
    pub fn apply(self, a: u64, b: u64) -> u64 {
        match self {
            Reduce::Sum => a.wrapping_add(b),
            Reduce::Max => a.max(b),
            Reduce::Min => a.min(b),
        }
    }
}

/// A group of ranks and the collectives among them.
pub trait Comm: Send + Sync {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;
    /// The number of ranks, P.
    fn size(&self) -> usize;
    /// All-to-all of one count per pair of ranks: `send_counts[d]` goes to
    /// rank `d`, and `recv_counts[s]` is what rank `s` sent here.
    fn exchange_counts(&self, send_counts: &[usize], recv_counts: &mut [usize]);
    /// All-to-all of bytes whose counts both sides know: `send`, cut by
    /// `send_counts` (one count per destination, in rank order), goes to
    /// each rank; `recv`, cut by `recv_counts`, receives what each rank
    /// sent here, sources in rank order.
    fn exchange_bytes(
        &self,
        send: &[u8],
        send_counts: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
    );
    /// All-gather with known sizes: rank `r` contributes `counts[r]` bytes
    /// (`mine.len() == counts[rank]`); `all` (their sum) receives them in
    /// rank order.
    fn all_gather_bytes(&self, mine: &[u8], counts: &[usize], all: &mut [u8]);
    /// Reduces `values` element by element over the ranks; every rank gets
    /// the result in place.
    fn all_reduce(&self, values: &mut [u64], op: Reduce);
    /// Waits for every rank.
    fn barrier(&self);
    /// Bytes this rank has sent to other ranks so far.
    fn bytes_sent(&self) -> u64;
    /// Nanoseconds this rank has spent inside the collectives so far
    /// (waiting for other ranks included), those of its parts
    /// ([`Comm::split`]) and groups too: a rank's time less this is its
    /// compute. A load; each collective pays two clock reads for it.
    fn nanos_in_calls(&self) -> u64;
    /// How many ranks of the group share this rank's machine (and its
    /// memory), this one included.
    fn ranks_on_this_machine(&self) -> usize;
    /// This rank's part of a split of the ranks by `color`
    /// (`MPI_Comm_split`): the ranks of each color form a communicator of
    /// their own, ordered as here, whose collectives involve only them.
    /// Collective: every rank calls it at once. Bytes sent within the part
    /// count toward this communicator's [`Comm::bytes_sent`] too. `None`
    /// where the implementation makes no communicators of its own: then a
    /// [`Group`](crate::Group) over this one serves, at the price of every
    /// rank taking part in each of its calls.
    fn split(&self, _color: usize) -> Option<Box<dyn Comm + '_>> {
        None
    }
    /// Ring shift: `send` goes to rank `(rank + 1) % size` and `recv` is
    /// filled from rank `(rank + size - 1) % size` (whose `send` is as
    /// long). Collective. By default an all-to-all with one non-empty
    /// piece a rank; MPI makes it one `MPI_Sendrecv`.
    fn shift(&self, send: &[u8], recv: &mut [u8]) {
        shift_by_exchange(self, send, recv);
    }
}

/// Adds the time from its making to its drop to a count of nanoseconds:
/// a collective's share of [`Comm::nanos_in_calls`].
pub(crate) struct Timed<'a> {
    total: &'a AtomicU64,
    start: Instant,
}

impl<'a> Timed<'a> {
    /// Starts timing into `total`.
    pub(crate) fn new(total: &'a AtomicU64) -> Self {
        Timed {
            total,
            start: Instant::now(),
        }
    }
}

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        let nanos = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.total.fetch_add(nanos, Ordering::Relaxed);
    }
}

/// [`Comm::shift`] as an all-to-all with one non-empty piece a rank.
pub(crate) fn shift_by_exchange<C: Comm + ?Sized>(comm: &C, send: &[u8], recv: &mut [u8]) {
    let size = comm.size();
    let (mut send_counts, mut recv_counts) = (vec![0; size], vec![0; size]);
    send_counts[(comm.rank() + 1) % size] = send.len();
    recv_counts[(comm.rank() + size - 1) % size] = recv.len();
    comm.exchange_bytes(send, &send_counts, recv, &recv_counts);
}

/// All-to-all of `send`, cut into per-destination runs by `counts`
/// (elements): returns what came to this rank, sources in rank order, and
/// each source's element count. One all-to-all of counts, then
/// [`exchange_known`].
pub fn exchange<T: Pod>(comm: &dyn Comm, send: &[T], counts: &[usize]) -> (Vec<T>, Vec<usize>) {
    let mut received = Vec::new();
    let recv_counts = exchange_into(comm, send, counts, &mut received);
    (received, recv_counts)
}

/// [`exchange`] into `received` (its memory reused; see
/// [`route_into`](crate::route_into)); returns each source's count.
pub fn exchange_into<T: Pod>(
    comm: &dyn Comm,
    send: &[T],
    counts: &[usize],
    received: &mut Vec<T>,
) -> Vec<usize> {
    let mut recv_counts = Vec::new();
    exchange_counted_into(comm, send, counts, received, &mut recv_counts);
    recv_counts
}

/// [`exchange_into`] with each source's count written to `recv_counts`,
/// whose memory is reused too: allocates nothing once both have grown
/// to what a call needs.
pub(crate) fn exchange_counted_into<T: Pod>(
    comm: &dyn Comm,
    send: &[T],
    counts: &[usize],
    received: &mut Vec<T>,
    recv_counts: &mut Vec<usize>,
) {
    recv_counts.clear();
    recv_counts.resize(comm.size(), 0);
    comm.exchange_counts(counts, recv_counts);
    exchange_known_into(comm, send, counts, recv_counts, received);
}

/// [`exchange`] when this rank knows what each rank sends it
/// (`recv_counts`, elements), as for the replies to requests: received
/// straight into the returned vector.
pub fn exchange_known<T: Pod>(
    comm: &dyn Comm,
    send: &[T],
    send_counts: &[usize],
    recv_counts: &[usize],
) -> Vec<T> {
    let mut received = Vec::new();
    exchange_known_into(comm, send, send_counts, recv_counts, &mut received);
    received
}

/// [`exchange_known`] into `received`, its memory reused.
pub fn exchange_known_into<T: Pod>(
    comm: &dyn Comm,
    send: &[T],
    send_counts: &[usize],
    recv_counts: &[usize],
    received: &mut Vec<T>,
) {
    resize_for_overwrite(received, recv_counts.iter().sum());
    in_bytes::<T, _>([send_counts, recv_counts], |[send_bytes, recv_bytes]| {
        comm.exchange_bytes(
            bytemuck::cast_slice(send),
            send_bytes,
            bytemuck::cast_slice_mut(received),
            recv_bytes,
        );
    });
}

/// Sets `buf`'s length to `len` for a caller that overwrites every
/// element: the old ones are kept where they fit (no memset of the whole
/// buffer every round), and a buffer that must grow is made afresh, its
/// pages mapped in one call (`MADV_POPULATE_WRITE`) instead of faulted in
/// one by one by a fill (kernel 1's one round of arcs at SCALE 20 is a
/// hundred MiB).
pub(crate) fn resize_for_overwrite<T: bytemuck::Zeroable + Clone>(buf: &mut Vec<T>, len: usize) {
    if len > buf.capacity() {
        *buf = Vec::new();
        *buf = bytemuck::zeroed_vec(len);
        let page = 4096;
        par::huge::advise_inside(&mut buf[..], page, par::huge::Advice::PopulateWrite);
    }
    buf.resize(len, T::zeroed());
}

thread_local! {
    /// The byte counts of the typed helpers' last call on this thread,
    /// kept so that a call allocates nothing once warm.
    static BYTE_COUNTS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Calls `f` with each of `lists` (counts of `T`s) in bytes: the lists
/// themselves for bytes, else the thread's kept buffer (a new one only if
/// that is in use).
fn in_bytes<T, const K: usize>(lists: [&[usize]; K], f: impl FnOnce([&[usize]; K])) {
    let size = size_of::<T>();
    if size == 1 {
        return f(lists);
    }
    let fill = |buffer: &mut Vec<usize>| {
        buffer.clear();
        for list in lists {
            buffer.extend(list.iter().map(|c| c * size));
        }
    };
    let lens = lists.map(<[usize]>::len);
    BYTE_COUNTS.with(|kept| match kept.try_borrow_mut() {
        Ok(mut buffer) => {
            fill(&mut buffer);
            f(cut(&buffer, lens));
        }
        Err(_) => {
            let mut buffer = Vec::new();
            fill(&mut buffer);
            f(cut(&buffer, lens));
        }
    });
}

/// `buffer` cut into consecutive pieces of `lens` elements.
fn cut<const K: usize>(buffer: &[usize], lens: [usize; K]) -> [&[usize]; K] {
    let mut at = 0;
    lens.map(|len| {
        at += len;
        &buffer[at - len..at]
    })
}

/// All-gather with known sizes (elements per rank): `all[..]` gets every
/// rank's `mine`, in rank order. Allocates nothing once warm (the byte
/// counts go in a buffer kept per thread).
pub fn all_gather<T: Pod>(comm: &dyn Comm, mine: &[T], counts: &[usize], all: &mut [T]) {
    in_bytes::<T, 1>([counts], |[byte_counts]| {
        comm.all_gather_bytes(
            bytemuck::cast_slice(mine),
            byte_counts,
            bytemuck::cast_slice_mut(all),
        );
    });
}

/// Every rank's `mine`, all of one length, in rank order, into `all`
/// (resized to `size * mine.len()`): an all-gather whose counts are all
/// `mine.len()`, kept in the thread's buffer, so a call allocates nothing
/// once `all` has grown. Collective.
pub(crate) fn all_gather_equal<T: Pod>(comm: &dyn Comm, mine: &[T], all: &mut Vec<T>) {
    let size = comm.size();
    all.resize(size * mine.len(), T::zeroed());
    let each = size_of_val(mine);
    BYTE_COUNTS.with(|kept| {
        let mut spare = Vec::new();
        let mut kept = kept.try_borrow_mut();
        let counts = match &mut kept {
            Ok(buffer) => &mut **buffer,
            Err(_) => &mut spare,
        };
        counts.clear();
        counts.resize(size, each);
        comm.all_gather_bytes(
            bytemuck::cast_slice(mine),
            counts,
            bytemuck::cast_slice_mut(all),
        );
    });
}

/// `values` reduced over every rank (a copy; the argument is unchanged).
pub fn all_reduce<const K: usize>(comm: &dyn Comm, mut values: [u64; K], op: Reduce) -> [u64; K] {
    comm.all_reduce(&mut values, op);
    values
}

/// The first of the ranks' records: among the ranks whose `mine` is
/// `Some`, the record whose first `key` words are lexicographically
/// smallest, ties to the lowest rank; `None` on every rank if no rank has
/// one. A record's first word must be below `u64::MAX`. Collective: one
/// all-reduce of a word when no rank has a record, else `key + 2`
/// all-reduces (the key word by word, the winner's rank, its record), so
/// `log2 P` latency each where an all-gather of records costs `P - 1`
/// messages.
pub(crate) fn all_reduce_first<const W: usize>(
    comm: &dyn Comm,
    mine: Option<[u64; W]>,
    key: usize,
) -> Option<[u64; W]> {
    debug_assert!(key >= 1 && key <= W);
    let mut candidate = mine.is_some();
    for j in 0..key {
        let word = mine.filter(|_| candidate).map_or(u64::MAX, |r| r[j]);
        let [least] = all_reduce(comm, [word], Reduce::Min);
        if j == 0 && least == u64::MAX {
            return None;
        }
        candidate &= word == least;
    }
    let rank = if candidate {
        comm.rank() as u64
    } else {
        u64::MAX
    };
    let [winner] = all_reduce(comm, [rank], Reduce::Min);
    let record = mine.filter(|_| winner == comm.rank() as u64);
    Some(all_reduce(
        comm,
        record.unwrap_or([u64::MAX; W]),
        Reduce::Min,
    ))
}

/// Agrees on an outcome: `Ok` on every rank only if every rank's `mine`
/// is `Ok`; otherwise every rank gets the message of the lowest rank that
/// failed, named (`rank 2: ...`) unless every rank failed. Collective;
/// costs two small all-gathers.
pub fn agree<T>(comm: &dyn Comm, mine: Result<T, String>) -> Result<T, String> {
    let message = match &mine {
        Ok(_) => Vec::new(),
        Err(m) => m.as_bytes().to_vec(),
    };
    let mut lengths = vec![0u64; comm.size()];
    all_gather(
        comm,
        &[message.len() as u64],
        &vec![1; comm.size()],
        &mut lengths,
    );
    if lengths.iter().all(|&l| l == 0) {
        return mine;
    }
    let counts: Vec<usize> = lengths
        .iter()
        .map(|&l| usize::try_from(l).expect("a message"))
        .collect();
    let mut all = vec![0u8; counts.iter().sum()];
    all_gather(comm, &message, &counts, &mut all);
    let first = counts.iter().position(|&c| c > 0).expect("one failed");
    let start: usize = counts[..first].iter().sum();
    let text = String::from_utf8_lossy(&all[start..start + counts[first]]);
    Err(if lengths.contains(&0) {
        format!("rank {first}: {text}")
    } else {
        text.into_owned()
    })
}

/// The group of one rank: every collective is a copy.
#[derive(Debug, Default)]
pub struct Solo;

impl Comm for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange_counts(&self, send_counts: &[usize], recv_counts: &mut [usize]) {
        recv_counts.copy_from_slice(send_counts);
    }
    fn exchange_bytes(&self, send: &[u8], _: &[usize], recv: &mut [u8], _: &[usize]) {
        recv.copy_from_slice(send);
    }
    fn all_gather_bytes(&self, mine: &[u8], _: &[usize], all: &mut [u8]) {
        all.copy_from_slice(mine);
    }
    fn all_reduce(&self, _: &mut [u64], _: Reduce) {}
    fn barrier(&self) {}
    fn bytes_sent(&self) -> u64 {
        0
    }
    /// Nothing is sent, nothing waited for.
    fn nanos_in_calls(&self) -> u64 {
        0
    }
    fn ranks_on_this_machine(&self) -> usize {
        1
    }
    /// The one rank's part is a group of one again: a [`Group`](crate::Group)
    /// over `Solo` then calls it straight, as one over MPI calls its own
    /// communicator, and allocates nothing per call.
    fn split(&self, _color: usize) -> Option<Box<dyn Comm + '_>> {
        Some(Box::new(Solo))
    }
}

/// P ranks as threads of one process, meeting at a barrier: rank `r`
/// posts its pieces in row `r` of a P x P table of slots, everyone waits,
/// then reads column `r`, and everyone waits again before the table is
/// reused. Made by [`ThreadRanks::run`].
pub struct ThreadRanks {
    rank: usize,
    shared: Arc<Table>,
    sent: AtomicU64,
    /// [`Comm::nanos_in_calls`].
    busy: AtomicU64,
}

struct Table {
    size: usize,
    barrier: Barrier,
    slots: Vec<Mutex<Vec<u8>>>,
}

impl Table {
    fn slot(&self, from: usize, to: usize) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.slots[from * self.size + to]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ThreadRanks {
    /// Runs `body` on `size` ranks, each on its own thread and with its own
    /// rayon pool of two workers (as separate processes would have: a rank
    /// waiting in a collective on a worker of a shared pool could starve
    /// another rank of workers), and returns their results in rank order.
    /// A rank that panics makes `run` panic once the others are done (they
    /// must not be waiting on it).
    pub fn run<R: Send>(size: usize, body: impl Fn(&ThreadRanks) -> R + Sync) -> Vec<R> {
        assert!(size > 0, "at least one rank");
        let shared = Arc::new(Table {
            size,
            barrier: Barrier::new(size),
            slots: (0..size * size).map(|_| Mutex::new(Vec::new())).collect(),
        });
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..size)
                .map(|rank| {
                    let comm = ThreadRanks {
                        rank,
                        shared: Arc::clone(&shared),
                        sent: AtomicU64::new(0),
                        busy: AtomicU64::new(0),
                    };
                    let body = &body;
                    s.spawn(move || {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(2)
                            .thread_name(move |i| format!("rank {rank} worker {i}"))
                            .build()
                            .expect("a rank's thread pool starts");
                        pool.install(|| body(&comm))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }

    fn count_sent(&self, bytes: usize) {
        self.sent.fetch_add(bytes as u64, Ordering::Relaxed);
    }
}

impl Comm for ThreadRanks {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.size
    }
    fn exchange_counts(&self, send_counts: &[usize], recv_counts: &mut [usize]) {
        let _timed = Timed::new(&self.busy);
        let t = &*self.shared;
        for (to, &count) in send_counts.iter().enumerate() {
            t.slot(self.rank, to)
                .extend_from_slice(&(count as u64).to_le_bytes());
            if to != self.rank {
                self.count_sent(8);
            }
        }
        t.barrier.wait();
        for (from, count) in recv_counts.iter_mut().enumerate() {
            let mut slot = t.slot(from, self.rank);
            let bytes: [u8; 8] = slot[..8].try_into().expect("one count");
            *count = usize::try_from(u64::from_le_bytes(bytes)).expect("a count fits memory");
            slot.clear();
        }
        t.barrier.wait();
    }

    fn exchange_bytes(
        &self,
        send: &[u8],
        send_counts: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
    ) {
        let _timed = Timed::new(&self.busy);
        let t = &*self.shared;
        let mut start = 0;
        for (to, &count) in send_counts.iter().enumerate() {
            let piece = &send[start..start + count];
            t.slot(self.rank, to).extend_from_slice(piece);
            if to != self.rank {
                self.count_sent(count);
            }
            start += count;
        }
        t.barrier.wait();
        let mut at = 0;
        for (from, &count) in recv_counts.iter().enumerate() {
            let mut slot = t.slot(from, self.rank);
            debug_assert_eq!(slot.len(), count, "the counts agree");
            recv[at..at + count].copy_from_slice(&slot);
            at += count;
            slot.clear();
        }
        t.barrier.wait();
    }

    fn all_gather_bytes(&self, mine: &[u8], counts: &[usize], all: &mut [u8]) {
        let _timed = Timed::new(&self.busy);
        let t = &*self.shared;
        debug_assert_eq!(mine.len(), counts[self.rank]);
        t.slot(self.rank, self.rank).extend_from_slice(mine);
        self.count_sent(mine.len() * (t.size - 1));
        t.barrier.wait();
        let mut start = 0;
        for (from, &count) in counts.iter().enumerate() {
            all[start..start + count].copy_from_slice(&t.slot(from, from));
            start += count;
        }
        t.barrier.wait();
        t.slot(self.rank, self.rank).clear();
        t.barrier.wait();
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        let _timed = Timed::new(&self.busy);
        let t = &*self.shared;
        t.slot(self.rank, self.rank)
            .extend_from_slice(bytemuck::cast_slice(values));
        self.count_sent(size_of_val(values) * (t.size - 1));
        t.barrier.wait();
        let mut result: Option<Vec<u64>> = None;
        for from in 0..t.size {
            let theirs: Vec<u64> = bytemuck::pod_collect_to_vec(&t.slot(from, from));
            result = Some(match result {
                None => theirs,
                Some(acc) => acc
                    .iter()
                    .zip(&theirs)
                    .map(|(&a, &b)| op.apply(a, b))
                    .collect(),
            });
        }
        values.copy_from_slice(&result.expect("one rank at least"));
        t.barrier.wait();
        t.slot(self.rank, self.rank).clear();
        t.barrier.wait();
    }

    fn barrier(&self) {
        let _timed = Timed::new(&self.busy);
        self.shared.barrier.wait();
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    fn nanos_in_calls(&self) -> u64 {
        self.busy.load(Ordering::Relaxed)
    }

    fn ranks_on_this_machine(&self) -> usize {
        self.shared.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchange_delivers_each_piece_to_its_rank_in_source_order() {
        let got = ThreadRanks::run(3, |c| {
            let r = c.rank() as u32;
            // Rank r sends r+1 copies of 10r+d to rank d (after one 8-byte
            // count to each other rank).
            let mut send = Vec::new();
            let mut counts = Vec::new();
            for d in 0..3u32 {
                send.extend(std::iter::repeat_n(10 * r + d, r as usize + 1));
                counts.push(r as usize + 1);
            }
            let (recv, recv_counts) = exchange(c, &send, &counts);
            (recv, recv_counts, c.bytes_sent())
        });
        for (d, (recv, counts, sent)) in got.into_iter().enumerate() {
            let d = d as u32;
            assert_eq!(recv, vec![d, 10 + d, 10 + d, 20 + d, 20 + d, 20 + d]);
            assert_eq!(counts, vec![1, 2, 3]);
            assert_eq!(
                sent,
                8 * 2 + 4 * 2 * (u64::from(d) + 1),
                "self-sends are not counted"
            );
        }
    }

    /// Guards the one-rank group every collective degenerates to a copy in.
    #[test]
    fn one_rank_alone_gets_back_what_it_sends() {
        let solo = Solo;
        let (got, counts) = exchange(&solo, &[7u32, 8, 9], &[3]);
        assert_eq!((got, counts), (vec![7, 8, 9], vec![3]));
        let mut all = [0u64; 2];
        all_gather(&solo, &[4u64, 5], &[2], &mut all);
        assert_eq!(all, [4, 5]);
        assert_eq!(all_reduce(&solo, [6, 1], Reduce::Max), [6, 1]);
        assert_eq!(
            agree(&solo, Err::<(), _>("bad".to_string())),
            Err("bad".into())
        );
        assert_eq!((solo.bytes_sent(), solo.ranks_on_this_machine()), (0, 1));
        assert_eq!(solo.nanos_in_calls(), 0);
    }

    /// Guards what the harness takes from a search's time as waiting: a
    /// rank held in a collective by a late one counts the wait, the late
    /// one only its own short call, and a group counts toward its parent.
    #[test]
    fn time_inside_collectives_counts_the_wait_for_a_late_rank() {
        let late = std::time::Duration::from_millis(40);
        let waited = ThreadRanks::run(2, |c| {
            if c.rank() == 1 {
                std::thread::sleep(late);
            }
            let before = c.nanos_in_calls();
            c.barrier();
            let group = crate::Group::new(c, vec![0, 1]);
            let mut x = [1u64];
            group.all_reduce(&mut x, Reduce::Sum);
            assert_eq!(x, [2]);
            (
                c.nanos_in_calls() - before,
                group.nanos_in_calls() == c.nanos_in_calls(),
            )
        });
        assert!(waited[0].0 >= late.as_nanos() as u64 / 2, "{waited:?}");
        assert!(waited[1].0 < waited[0].0, "{waited:?}");
        assert!(waited.iter().all(|&(nanos, same)| nanos > 0 && same));
    }

    #[test]
    fn first_record_is_the_smallest_key_then_the_lowest_rank() {
        // Ranks 1 and 3 tie on the key [2, 7]; rank 2's record is smaller
        // past the key, which does not count.
        let records = [
            None,
            Some([2, 7, 9]),
            Some([2, 7, 1]),
            Some([2, 7, 5]),
            Some([3, 0, 0]),
        ];
        let got = ThreadRanks::run(5, |c| {
            let first = all_reduce_first(c, records[c.rank()], 2);
            let none = all_reduce_first::<3>(c, None, 2);
            let whole = all_reduce_first(c, records[c.rank()], 3);
            (first, none, whole)
        });
        for (first, none, whole) in got {
            assert_eq!(first, Some([2, 7, 9]));
            assert_eq!(none, None);
            assert_eq!(whole, Some([2, 7, 1]));
        }
    }

    #[test]
    fn gather_reduce_and_agree_see_every_rank() {
        let got = ThreadRanks::run(4, |c| {
            let r = c.rank() as u64;
            let counts: Vec<usize> = (0..4).map(|i| i + 1).collect();
            let mine = vec![r; c.rank() + 1];
            let mut all = vec![0u64; 10];
            all_gather(c, &mine, &counts, &mut all);
            let sums = all_reduce(c, [r, r * r], Reduce::Sum);
            let max = all_reduce(c, [r], Reduce::Max);
            let min = all_reduce(c, [r + 5], Reduce::Min);
            let verdict = agree(
                c,
                if r % 2 == 1 {
                    Err(format!("bad {r}"))
                } else {
                    Ok(r)
                },
            );
            let fine = agree(c, Ok::<u64, String>(r));
            (all, sums, max, min, verdict, fine)
        });
        for (r, (all, sums, max, min, verdict, fine)) in got.into_iter().enumerate() {
            assert_eq!(all, vec![0, 1, 1, 2, 2, 2, 3, 3, 3, 3]);
            assert_eq!(sums, [6, 14]);
            assert_eq!((max, min), ([3], [5]));
            assert_eq!(verdict, Err("rank 1: bad 1".to_string()));
            assert_eq!(fine, Ok(r as u64));
        }
    }
}
