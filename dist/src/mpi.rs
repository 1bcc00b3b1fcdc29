//! `Mpi`: [`Comm`] over the system's MPI library (rsmpi), for runs started
//! by `mpirun`. A binary started without `mpirun` initialises MPI as a
//! singleton: one rank.
//!
//! MPI is initialised at [`Threading::Serialized`]: the run loop calls the
//! collectives from a rayon worker, not always the main thread, but never
//! two at once, and every call here holds one lock to make that so. MPI
//! counts are C `int`s, so one rank sends at most 2^31 - 1 bytes to one
//! rank per exchange and contributes at most that much to an all-gather
//! (the kernels' rounds stay far below; the frontier bitmap reaches it at
//! 2^34 vertices).

use crate::comm::{Comm, Reduce, Timed};
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use mpi::{Count, Threading};
use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A communicator of an MPI job: the world ([`Mpi::init`]) or a part of
/// it ([`Comm::split`]). MPI is finalised when the world is dropped; a
/// part borrows its parent, so it is gone by then.
pub struct Mpi {
    /// Freed in `drop`, under the process's lock (`None` only there).
    comm: Option<SimpleCommunicator>,
    rank: usize,
    size: usize,
    on_this_machine: usize,
    /// The process's one lock and byte counter, shared by the world and
    /// its parts: bytes a part sends count toward its parent's too.
    shared: Arc<Shared>,
    _universe: Option<Universe>,
}

/// What every communicator of the process shares.
#[derive(Default)]
struct Shared {
    lock: Mutex<()>,
    sent: AtomicU64,
    /// [`Comm::nanos_in_calls`], over the world and its parts.
    busy: AtomicU64,
}

// SAFETY: MPI is initialised with at least `Threading::Serialized` (checked
// in `Mpi::init`), which allows calls from any thread provided no two run
// at once; every method that calls MPI holds the process's one lock
// (`Shared::lock`, shared by the world and its parts) for the whole call,
// so they never do. The communicator handle itself is only passed to
// MPI, never dereferenced here.
#[allow(unsafe_code)]
unsafe impl Send for Mpi {}
// SAFETY: as for `Send`: shared references only reach MPI through the
// process's one lock.
#[allow(unsafe_code)]
unsafe impl Sync for Mpi {}

impl Mpi {
    /// Initialises MPI (once per process). Fails if MPI was initialised
    /// already or cannot serialise calls from several threads.
    pub fn init() -> Result<Mpi, String> {
        let (universe, threading) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or("MPI was already initialised")?;
        if threading < Threading::Serialized {
            return Err(format!(
                "the MPI library offers only {threading:?} threading; graph500 needs Serialized"
            ));
        }
        let world = universe.world();
        let on_this_machine = world.split_shared(world.rank()).size();
        let on_this_machine = usize::try_from(on_this_machine).expect("a size is positive");
        Ok(Mpi::over(
            world,
            on_this_machine,
            Arc::default(),
            Some(universe),
        ))
    }

    /// `comm` as a `Comm` sharing `shared`.
    fn over(
        comm: SimpleCommunicator,
        on_this_machine: usize,
        shared: Arc<Shared>,
        universe: Option<Universe>,
    ) -> Mpi {
        Mpi {
            rank: usize::try_from(comm.rank()).expect("a rank is not negative"),
            size: usize::try_from(comm.size()).expect("a size is positive"),
            comm: Some(comm),
            on_this_machine,
            shared,
            _universe: universe,
        }
    }

    /// Ends the whole job at once with `code` (every rank exits): for a
    /// failure that the ranks cannot agree on collectively.
    pub fn abort(&self, code: i32) -> ! {
        self.comm().abort(code)
    }

    fn comm(&self) -> &SimpleCommunicator {
        self.comm.as_ref().expect("freed only when dropped")
    }

    /// The process's lock, held for one call, which is timed (the wait
    /// for the lock included) into [`Comm::nanos_in_calls`].
    fn locked(&self) -> Call<'_> {
        let timed = Timed::new(&self.shared.busy);
        let guard = (self.shared.lock.lock()).unwrap_or_else(std::sync::PoisonError::into_inner);
        Call {
            _guard: guard,
            _timed: timed,
        }
    }
}

/// One MPI call in progress: the lock held, the clock running (the lock
/// is released first, then the time counted).
struct Call<'a> {
    _guard: std::sync::MutexGuard<'a, ()>,
    _timed: Timed<'a>,
}

impl Drop for Mpi {
    /// Frees the communicator (`MPI_Comm_free`, for a part) under the
    /// process's lock, before the world finalises MPI.
    fn drop(&mut self) {
        let _guard = self
            .shared
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        drop(self.comm.take());
    }
}

/// `n` as an MPI count.
fn count(n: usize) -> Count {
    Count::try_from(n).unwrap_or_else(|_| {
        panic!("{n} bytes exceed MPI's limit of 2^31 - 1 per rank and operation")
    })
}

/// Counts and their running sums (displacements), as MPI takes them.
fn partition(counts: &[usize]) -> (Vec<Count>, Vec<Count>) {
    let counts: Vec<Count> = counts.iter().map(|&c| count(c)).collect();
    let displs = counts
        .iter()
        .scan(0usize, |at, &c| {
            let d = *at;
            *at += usize::try_from(c).expect("a count is not negative");
            Some(count(d))
        })
        .collect();
    (counts, displs)
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn exchange_counts(&self, send_counts: &[usize], recv_counts: &mut [usize]) {
        let _guard = self.locked();
        let mine: Vec<u64> = send_counts.iter().map(|&c| c as u64).collect();
        let mut theirs = vec![0u64; self.size];
        self.comm().all_to_all_into(&mine[..], &mut theirs[..]);
        for (out, c) in recv_counts.iter_mut().zip(theirs) {
            *out = usize::try_from(c).expect("a count fits memory");
        }
        self.shared
            .sent
            .fetch_add(8 * (self.size as u64 - 1), Ordering::Relaxed);
    }

    fn exchange_bytes(
        &self,
        send: &[u8],
        send_counts: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
    ) {
        let _guard = self.locked();
        let (counts, displs) = partition(send_counts);
        let (rcounts, rdispls) = partition(recv_counts);
        // Open MPI refuses equal send and receive addresses, which two
        // empty slices may have (both dangling): give each a real one.
        let (mut spare_in, spare_out) = ([0u8; 1], [0u8; 1]);
        let send = if send.is_empty() {
            &spare_out[..0]
        } else {
            send
        };
        let recv = if recv.is_empty() {
            &mut spare_in[..0]
        } else {
            recv
        };
        let outgoing = Partition::new(send, counts, displs);
        let mut incoming = PartitionMut::new(recv, rcounts, rdispls);
        self.comm()
            .all_to_all_varcount_into(&outgoing, &mut incoming);
        let others: usize = send_counts.iter().sum::<usize>() - send_counts[self.rank];
        self.shared.sent.fetch_add(others as u64, Ordering::Relaxed);
    }

    fn all_gather_bytes(&self, mine: &[u8], counts: &[usize], all: &mut [u8]) {
        let _guard = self.locked();
        let (counts, displs) = partition(counts);
        let spare = [0u8; 1];
        let mine = if mine.is_empty() { &spare[..0] } else { mine };
        let mut incoming = PartitionMut::new(all, counts, displs);
        self.comm().all_gather_varcount_into(mine, &mut incoming);
        self.shared
            .sent
            .fetch_add((mine.len() * (self.size - 1)) as u64, Ordering::Relaxed);
    }

    fn all_reduce(&self, values: &mut [u64], op: Reduce) {
        let _guard = self.locked();
        let mine = values.to_vec();
        let op = match op {
            Reduce::Sum => SystemOperation::sum(),
            Reduce::Max => SystemOperation::max(),
            Reduce::Min => SystemOperation::min(),
        };
        self.comm().all_reduce_into(&mine[..], values, op);
        self.shared.sent.fetch_add(
            (size_of_val(values) * (self.size - 1)) as u64,
            Ordering::Relaxed,
        );
    }

    fn barrier(&self) {
        let _guard = self.locked();
        self.comm().barrier();
    }

    fn bytes_sent(&self) -> u64 {
        self.shared.sent.load(Ordering::Relaxed)
    }

    fn nanos_in_calls(&self) -> u64 {
        self.shared.busy.load(Ordering::Relaxed)
    }

    fn ranks_on_this_machine(&self) -> usize {
        self.on_this_machine
    }

    fn shift(&self, send: &[u8], recv: &mut [u8]) {
        let _guard = self.locked();
        let next = self
            .comm()
            .process_at_rank(count((self.rank + 1) % self.size));
        let previous = self
            .comm()
            .process_at_rank(count((self.rank + self.size - 1) % self.size));
        mpi::point_to_point::send_receive_into(send, &next, recv, &previous);
        if self.size > 1 {
            self.shared
                .sent
                .fetch_add(send.len() as u64, Ordering::Relaxed);
        }
    }

    /// `MPI_Comm_split` by `color`, ordered by rank here. The part's
    /// ranks on this machine are taken as at most the parent's (an
    /// estimate for memory budgets; counting them is another collective).
    fn split(&self, color: usize) -> Option<Box<dyn Comm + '_>> {
        let color = Color::with_value(c_int::try_from(color).expect("a color fits an int"));
        let part = {
            let _guard = self.locked();
            self.comm().split_by_color(color)?
        };
        let sharing = self.on_this_machine.min(usize::try_from(part.size()).ok()?);
        Some(Box::new(Mpi::over(
            part,
            sharing,
            Arc::clone(&self.shared),
            None,
        )))
    }
}
