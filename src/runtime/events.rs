//! The outgoing event stream: numbered, bounded, and never blocking the runtime.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

use ansa_sessions::protocol::{Event, EventBody};

/// Events buffered for a frontend before the runtime starts dropping them. A frontend that
/// stops reading (a stalled pipe) must not stall tools or journaling; it sees a sequence gap
/// and a `resync_required`, then asks for a snapshot.
pub const EVENT_QUEUE: usize = 1024;

const RESYNC_REASON: &str = "event queue overflowed; ask for a snapshot";

/// Numbers events and hands them to the frontend's receiver.
#[derive(Debug)]
pub struct EventSink {
    sender: Option<SyncSender<Event>>,
    next: u64,
    overflowed: bool,
}

impl EventSink {
    /// A sink with a queue of `capacity` events and the receiver a frontend reads.
    pub fn new(capacity: usize) -> (Self, Receiver<Event>) {
        let (sender, receiver) = sync_channel(capacity.max(1));
        (
            EventSink {
                sender: Some(sender),
                next: 1,
                overflowed: false,
            },
            receiver,
        )
    }

    /// The `stream_sequence` the next event gets.
    pub fn next_sequence(&self) -> u64 {
        self.next
    }

    /// Whether events were dropped and the `resync_required` has not gone out yet.
    pub fn resync_pending(&self) -> bool {
        self.overflowed && self.sender.is_some()
    }

    /// Tries to deliver a pending `resync_required` (an idle runtime retries this, so a
    /// client that drained the queue learns about the gap without waiting for new work).
    pub fn flush(&mut self) {
        let Some(sender) = &self.sender else { return };
        if !self.overflowed {
            return;
        }
        let resync = Event {
            stream_sequence: self.next,
            body: EventBody::ResyncRequired {
                reason: RESYNC_REASON.into(),
            },
        };
        match sender.try_send(resync) {
            Ok(()) => {
                self.next += 1;
                self.overflowed = false;
            }
            Err(TrySendError::Full(_)) => {}
            Err(TrySendError::Disconnected(_)) => self.sender = None,
        }
    }

    /// Publishes one event; when the queue is full the event is dropped (the frontend sees a
    /// gap) and a `resync_required` goes out as soon as there is room again.
    pub fn publish(&mut self, body: EventBody) {
        self.flush();
        let Some(sender) = &self.sender else { return };
        let event = Event {
            stream_sequence: self.next,
            body,
        };
        self.next += 1;
        if self.overflowed {
            return;
        }
        match sender.try_send(event) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.overflowed = true,
            Err(TrySendError::Disconnected(_)) => self.sender = None,
        }
    }

    /// Ends the stream; a pending `resync_required` is delivered first (waiting for room).
    pub fn close(&mut self) {
        if let Some(sender) = self.sender.take()
            && self.overflowed
        {
            let _ = sender.send(Event {
                stream_sequence: self.next,
                body: EventBody::ResyncRequired {
                    reason: RESYNC_REASON.into(),
                },
            });
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resync(e: &Event) -> bool {
        matches!(e.body, EventBody::ResyncRequired { .. })
    }

    fn body(n: u64) -> EventBody {
        EventBody::TextDelta {
            request_id: ansa_sessions::RequestId(1),
            text: format!("test {n}"),
        }
    }

    #[test]
    fn numbers_without_gaps_while_there_is_room() {
        let (mut sink, rx) = EventSink::new(8);
        for n in 0..5 {
            sink.publish(body(n));
        }
        sink.close();
        let seqs: Vec<u64> = rx.iter().map(|e| e.stream_sequence).collect();
        assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn overflow_makes_a_gap_then_a_resync() {
        let (mut sink, rx) = EventSink::new(2);
        for n in 0..5 {
            sink.publish(body(n));
        }
        let first: Vec<Event> = rx.try_iter().collect();
        assert_eq!(
            first.iter().map(|e| e.stream_sequence).collect::<Vec<_>>(),
            vec![1, 2]
        );
        sink.publish(body(9));
        let next: Vec<Event> = rx.try_iter().collect();
        assert_eq!(next[0].stream_sequence, 6);
        assert!(resync(&next[0]));
        assert_eq!(next[1].stream_sequence, 7);
        assert!(!resync(&next[1]));
    }

    #[test]
    fn flush_delivers_a_pending_resync_once_there_is_room() {
        let (mut sink, rx) = EventSink::new(1);
        sink.publish(body(0));
        sink.publish(body(1));
        assert!(sink.resync_pending());
        sink.flush();
        assert!(sink.resync_pending());
        assert_eq!(rx.try_recv().unwrap().stream_sequence, 1);
        sink.flush();
        assert!(!sink.resync_pending());
        let e = rx.try_recv().unwrap();
        assert!(resync(&e));
        assert_eq!(e.stream_sequence, 3);
    }

    #[test]
    fn close_delivers_a_pending_resync() {
        let (mut sink, rx) = EventSink::new(1);
        sink.publish(body(0));
        sink.publish(body(1));
        let reader = std::thread::spawn(move || rx.iter().collect::<Vec<_>>());
        sink.close();
        let all = reader.join().unwrap();
        assert_eq!(all.len(), 2);
        assert!(resync(&all[1]));
        assert_eq!(all[1].stream_sequence, 3);
    }

    #[test]
    fn a_gone_frontend_is_ignored() {
        let (mut sink, rx) = EventSink::new(1);
        drop(rx);
        sink.publish(body(0));
        sink.publish(body(1));
        sink.close();
        assert_eq!(sink.next_sequence(), 2);
    }
}
