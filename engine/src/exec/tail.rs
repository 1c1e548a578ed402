//! The tail sample of a spooled stream: the last bytes, kept in a fixed ring so the whole stream
//! never needs to be resident.

/// The last `capacity` bytes pushed.
#[derive(Debug)]
pub(crate) struct TailRing {
    buf: Vec<u8>,
    capacity: usize,
    // Next write position once the buffer is full.
    start: usize,
}

impl TailRing {
    pub(crate) fn new(capacity: usize) -> TailRing {
        TailRing {
            buf: Vec::new(),
            capacity,
            start: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.capacity == 0 {
            return;
        }
        if bytes.len() >= self.capacity {
            bytes = &bytes[bytes.len() - self.capacity..];
            self.buf.clear();
            self.buf.extend_from_slice(bytes);
            self.start = 0;
            return;
        }
        let room = self.capacity - self.buf.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.buf.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        while !bytes.is_empty() {
            let take = (self.capacity - self.start).min(bytes.len());
            self.buf[self.start..self.start + take].copy_from_slice(&bytes[..take]);
            self.start = (self.start + take) % self.capacity;
            bytes = &bytes[take..];
        }
    }

    /// The retained bytes in stream order.
    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        self.buf.rotate_left(self.start);
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_bytes_in_order() {
        let mut ring = TailRing::new(5);
        ring.push(b"ab");
        ring.push(b"cde");
        ring.push(b"fg");
        assert_eq!(ring.into_vec(), b"cdefg");
        let mut ring = TailRing::new(5);
        ring.push(b"abc");
        ring.push(b"0123456789");
        ring.push(b"xy");
        assert_eq!(ring.into_vec(), b"789xy");
        let mut ring = TailRing::new(4);
        for b in b"abcdefghij" {
            ring.push(&[*b]);
        }
        assert_eq!(ring.into_vec(), b"ghij");
        assert_eq!(TailRing::new(0).into_vec(), b"");
    }
}
