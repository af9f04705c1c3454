//! Which partition a keyed record goes to: the producer hashes the serialised
//! key with Kafka's 32-bit murmur2 and takes it modulo the topic's partition
//! count (`BuiltInPartitioner.partitionForKey` from 3.3, `DefaultPartitioner`
//! before; KIP-794 changed only the keyless path). The hash must match
//! Kafka's bit for bit, so that a key lands where a real producer would put
//! it, and so a reader can check a scenario against a real cluster. Records
//! without a key are not placed here: the model sends them round-robin.

use crate::model::config::PartitionId;

/// `Utils.murmur2`: the 32-bit murmur2 hash of `data`, as Kafka computes it
/// with Java's wrapping `int` arithmetic. The seed and mixing constants are
/// Kafka's; `>>>` (unsigned shift) is done on the `u32` bits, so every step is
/// the same two's-complement arithmetic Java does.
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    // "'m' and 'r' are mixing constants generated offline."
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;

    // Java's `data.length` is an `int`; the hash takes its low 32 bits.
    let length = data.len() as u32;
    let mut h = SEED ^ length;

    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        // Little-endian, each byte masked with `& 0xff` as Java does.
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }

    // The `switch (length % 4)` with its fall-through: case 3 also does
    // cases 2 and 1, and only case 1 multiplies.
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }

    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;

    // Reinterpret the bits as Java's signed `int`.
    h as i32
}

/// `Utils.toPositive`: clears the sign bit, so `i32::MIN` maps to 0 (unlike
/// `Math.abs`, which would stay negative for it).
pub fn to_positive(n: i32) -> i32 {
    n & 0x7fff_ffff
}

/// `BuiltInPartitioner.partitionForKey` (3.3+), the keyed path of
/// `DefaultPartitioner.partition` before it:
/// `Utils.toPositive(Utils.murmur2(serializedKey)) % numPartitions`. Every
/// partition of the topic counts, available or not
/// (`cluster.partitionsForTopic`, `KafkaProducer.partition`), so a key keeps
/// its partition while that partition has no leader.
///
/// A topic has at least one partition; zero is the caller's broken promise.
pub fn partition_for_key(key: &[u8], partitions: u32) -> PartitionId {
    assert!(partitions > 0, "a topic has at least one partition");
    // `to_positive` leaves a value in 0..=i32::MAX, so the cast is exact.
    to_positive(murmur2(key)) as u32 % partitions
}

/// The partition of a `String` key: `StringSerializer.serialize` encodes it
/// as UTF-8 (its default unless `key.serializer.encoding` says otherwise),
/// and the bytes are hashed.
pub fn partition_for_string_key(key: &str, partitions: u32) -> PartitionId {
    partition_for_key(key.as_bytes(), partitions)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fall-through tail: one case per remainder, values from a verbatim
    /// copy of `Utils.murmur2` run on a JVM.
    #[test]
    fn every_tail_length() {
        assert_eq!(murmur2(b""), 275_646_681);
        assert_eq!(murmur2(b"21"), -973_932_308);
        assert_eq!(murmur2(b"abc"), 479_470_107);
        assert_eq!(murmur2(b"test"), 716_234_879);
        assert_eq!(murmur2(b"order-42"), 501_153_024);
    }

    /// Bytes at or above 0x80 are negative in Java; `& 0xff` makes them
    /// unsigned again, as `u8` already is.
    #[test]
    fn high_bytes_hash_as_unsigned() {
        assert_eq!(murmur2(&[0xff, 0x80, 0x7f, 0x00, 0xfe]), -1_958_495_739);
    }

    #[test]
    fn to_positive_clears_only_the_sign_bit() {
        assert_eq!(to_positive(-1), i32::MAX);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(i32::MAX), i32::MAX);
        assert_eq!(to_positive(0), 0);
    }
}
