//! One-shot pipes over crossbeam-channel: one value, sent once, received once.

use std::time::Duration;

/// Receiving found the pipe closed: its sender was dropped without sending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the pipe closed without a value: its sender was dropped")]
pub struct Closed;

/// The sending end; [`send`](Sender::send) consumes it.
#[derive(Debug)]
pub struct Sender<T>(crossbeam_channel::Sender<T>);

/// The receiving end; [`recv`](Receiver::recv) consumes it.
#[derive(Debug)]
pub struct Receiver<T>(crossbeam_channel::Receiver<T>);

/// A new one-shot pipe. Two small allocations (crossbeam's channel and its
/// one-slot buffer).
pub fn pipe<T>() -> (Sender<T>, Receiver<T>) {
    let (s, r) = crossbeam_channel::bounded(1);
    (Sender(s), Receiver(r))
}

impl<T> Sender<T> {
    /// Sends the value; never blocks. If the receiver is gone the value is
    /// dropped: nobody can observe it.
    pub fn send(self, value: T) {
        // The buffer holds one value and this is the only send: it cannot be
        // full, so the only failure is a dropped receiver.
        let _ = self.0.try_send(value);
    }
}

impl<T> Receiver<T> {
    /// Waits for the value; [`Closed`] if the sender was dropped unsent.
    pub fn recv(self) -> Result<T, Closed> {
        self.0.recv().map_err(|_| Closed)
    }

    /// Waits at most `timeout`: `Ok(Some(value))`, `Ok(None)` on timeout
    /// (the receiver is given back to try again), or [`Closed`].
    pub fn recv_timeout(self, timeout: Duration) -> Result<Result<T, Self>, Closed> {
        match self.0.recv_timeout(timeout) {
            Ok(value) => Ok(Ok(value)),
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => Ok(Err(self)),
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => Err(Closed),
        }
    }

    /// The channel underneath, for `crossbeam_channel::Select` over many
    /// pipes at once.
    pub fn as_channel(&self) -> &crossbeam_channel::Receiver<T> {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_crosses_threads() {
        let (s, r) = pipe();
        std::thread::spawn(move || s.send(String::from("hello")));
        assert_eq!(r.recv(), Ok(String::from("hello")));
    }

    #[test]
    fn a_sender_dropped_unsent_closes_the_pipe() {
        let (s, r) = pipe::<u32>();
        std::thread::spawn(move || drop(s)).join().unwrap();
        assert_eq!(r.recv(), Err(Closed));
    }

    #[test]
    fn sending_to_a_dropped_receiver_is_harmless() {
        let (s, r) = pipe::<Vec<u8>>();
        drop(r);
        s.send(vec![1, 2, 3]);
    }

    #[test]
    fn recv_timeout_gives_the_receiver_back() {
        let (s, r) = pipe::<u8>();
        let r = r
            .recv_timeout(Duration::from_millis(1))
            .unwrap()
            .unwrap_err();
        s.send(7);
        assert_eq!(
            r.recv_timeout(Duration::from_secs(5)).unwrap().ok(),
            Some(7)
        );
    }
}
