//! Criterion benchmarks of `kernels::par`'s primitives against their
//! alternatives.
//!
//! - `pipe_round_trip`: ping-pong between two threads over one-shot pipes,
//!   crossbeam-based (`par::pipe`) against atomics-based
//!   (`par_primitives/atomic_pipe.rs`). Each message carries the sender of
//!   the reply pipe, so a round trip creates two pipes, as one-shot use
//!   does.
//! - `message_ring/T`: T threads in a ring pass a token; each hop creates
//!   the next pipe to the neighbour. Throughput = hops per second.
//! - `msgsend`: 4 senders, one receiver: one shared multi-producer channel
//!   against one pipe per sender, received with `select` (each message
//!   carries the receiver of its sender's next pipe).
//! - `map`: `par::map` against rayon's `into_par_iter().map().collect()` for
//!   empty tasks and for small ones.
//!
//! Run: `cargo bench --bench par_primitives`.

#[path = "par_primitives/atomic_pipe.rs"]
mod atomic_pipe;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kernels::par;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

/// Ping-pong over one-shot pipes of module `$pipe`, `iters` round trips.
macro_rules! round_trips {
    ($pipe:path) => {{
        use $pipe as pipe;
        struct Ping(u64, pipe::Sender<Pong>);
        struct Pong(u64, pipe::Sender<Ping>);
        |iters: u64| -> Duration {
            let (mut to_echo, first) = pipe::pipe::<Ping>();
            let echo = thread::spawn(move || {
                let mut inbox = first;
                while let Ok(Ping(x, reply)) = inbox.recv() {
                    let (next, next_inbox) = pipe::pipe();
                    reply.send(Pong(x + 1, next));
                    inbox = next_inbox;
                }
            });
            let start = Instant::now();
            for i in 0..iters {
                let (reply, answer) = pipe::pipe();
                to_echo.send(Ping(i, reply));
                let Pong(x, next) = answer.recv().expect("the echo thread answers");
                black_box(x);
                to_echo = next;
            }
            let elapsed = start.elapsed();
            drop(to_echo);
            echo.join()
                .expect("the echo thread ends when its pipe closes");
            elapsed
        }
    }};
}

fn pipe_round_trip(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipe_round_trip");
    group.throughput(Throughput::Elements(1));
    group.bench_function("crossbeam", |b| b.iter_custom(round_trips!(par::pipe)));
    group.bench_function("atomic", |b| b.iter_custom(round_trips!(atomic_pipe)));
    group.finish();
}

/// A token with the receiver its holder will read the next token from.
struct Token(u64, par::Receiver<Token>);

/// `threads` threads in a ring pass a token `rounds` times around.
fn ring(threads: usize, rounds: u64) -> Duration {
    let pipes: Vec<_> = (0..threads).map(|_| par::pipe::pipe::<Token>()).collect();
    let (senders, receivers): (Vec<_>, Vec<_>) = pipes.into_iter().unzip();
    let mut senders: Vec<Option<par::Sender<Token>>> = senders.into_iter().map(Some).collect();
    senders.rotate_left(1); // thread i sends to i + 1
    let barrier = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = receivers
        .into_iter()
        .zip(senders.iter_mut().map(|s| s.take().expect("one each")))
        .enumerate()
        .map(|(i, (mut inbox, mut outbox))| {
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                let pass = |count: u64, outbox: par::Sender<Token>| {
                    let (next, next_inbox) = par::pipe::pipe();
                    outbox.send(Token(count + 1, next_inbox));
                    next
                };
                barrier.wait();
                for _ in 0..rounds {
                    if i == 0 {
                        outbox = pass(0, outbox);
                    }
                    let Ok(Token(count, next_inbox)) = inbox.recv() else {
                        return;
                    };
                    inbox = next_inbox;
                    if i != 0 {
                        outbox = pass(count, outbox);
                    }
                }
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    for h in handles {
        h.join().expect("ring threads finish");
    }
    start.elapsed()
}

fn message_ring(c: &mut Criterion) {
    let mut group = c.benchmark_group("message_ring");
    for threads in [2, 4, 8] {
        group.throughput(Throughput::Elements(threads as u64));
        group.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, &t| {
            b.iter_custom(|rounds| ring(t, rounds));
        });
    }
    group.finish();
}

const SENDERS: usize = 4;

/// Runs `SENDERS` threads of `send(i)` and `receive()` on this thread,
/// timed from when all are ready.
fn senders_and_receiver(
    send: impl Fn(usize) + Send + Sync + 'static,
    receive: impl FnOnce(),
) -> Duration {
    let barrier = Arc::new(Barrier::new(SENDERS + 1));
    let send = Arc::new(send);
    let handles: Vec<_> = (0..SENDERS)
        .map(|i| {
            let (barrier, send) = (Arc::clone(&barrier), Arc::clone(&send));
            thread::spawn(move || {
                barrier.wait();
                send(i);
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    receive();
    let elapsed = start.elapsed();
    for h in handles {
        h.join().expect("senders finish");
    }
    elapsed
}

/// A message and the receiver of its sender's next one (`None` for its
/// last message, so no pipe is left open and selectable when it is done).
struct Link(u64, Option<par::Receiver<Link>>);

fn msgsend(c: &mut Criterion) {
    let mut group = c.benchmark_group("msgsend");
    group.throughput(Throughput::Elements(SENDERS as u64));
    group.bench_function("shared_channel", |b| {
        b.iter_custom(|per_sender| {
            let (tx, rx) = crossbeam_channel::unbounded::<u64>();
            senders_and_receiver(
                move |_| (0..per_sender).for_each(|m| tx.send(m).expect("receiver alive")),
                move || {
                    (0..per_sender * SENDERS as u64).for_each(|_| {
                        let _ = black_box(rx.recv());
                    })
                },
            )
        });
    });
    group.bench_function("pipe_per_sender_select", |b| {
        b.iter_custom(|per_sender| {
            let (first_senders, mut inboxes): (Vec<_>, Vec<_>) =
                (0..SENDERS).map(|_| par::pipe::pipe::<Link>()).unzip();
            let first_senders = Arc::new(std::sync::Mutex::new(
                first_senders.into_iter().map(Some).collect::<Vec<_>>(),
            ));
            senders_and_receiver(
                move |i| {
                    let mut outbox = first_senders.lock().expect("unpoisoned")[i]
                        .take()
                        .expect("once");
                    for m in 1..per_sender {
                        let (next, next_inbox) = par::pipe::pipe();
                        outbox.send(Link(m, Some(next_inbox)));
                        outbox = next;
                    }
                    outbox.send(Link(per_sender, None));
                },
                move || {
                    for _ in 0..per_sender * SENDERS as u64 {
                        let mut select = crossbeam_channel::Select::new();
                        for inbox in &inboxes {
                            select.recv(inbox.as_channel());
                        }
                        let ready = select.select();
                        let i = ready.index();
                        let Link(m, next) = ready.recv(inboxes[i].as_channel()).expect("a message");
                        black_box(m);
                        match next {
                            Some(next) => inboxes[i] = next,
                            None => drop(inboxes.swap_remove(i)),
                        }
                    }
                },
            )
        });
    });
    group.finish();
}

/// A small task: a few dozen arithmetic steps.
fn small(x: u64) -> u64 {
    (0..64u64).fold(x, |h, i| {
        h.rotate_left(5) ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    })
}

fn map_against_rayon(c: &mut Criterion) {
    const ITEMS: u64 = 10_000;
    let mut group = c.benchmark_group("map");
    group.throughput(Throughput::Elements(ITEMS));
    let items: Vec<u64> = (0..ITEMS).collect();
    group.bench_function("par/empty", |b| b.iter(|| par::map(items.clone(), |x| x)));
    group.bench_function("rayon/empty", |b| {
        b.iter(|| items.clone().into_par_iter().map(|x| x).collect::<Vec<_>>())
    });
    group.bench_function("par/small", |b| b.iter(|| par::map(items.clone(), small)));
    group.bench_function("rayon/small", |b| {
        b.iter(|| items.clone().into_par_iter().map(small).collect::<Vec<_>>())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(2));
    targets = pipe_round_trip, message_ring, msgsend, map_against_rayon
}
criterion_main!(benches);
