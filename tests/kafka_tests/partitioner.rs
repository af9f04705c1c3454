//! Kafka's tests of where a keyed record goes: the murmur2 hash and the keyed
//! path of the producer's partitioner.
//!
//! Ported: `UtilsTest.testMurmur2` (3.8.0) and
//! `DefaultPartitionerTest.testKeyPartitionIsStable` (2.0.0 to 3.8.0).
//!
//! Not ported, and why:
//! - `BuiltInPartitionerTest` (3.3+) has no keyed test: `testStickyPartitioning`,
//!   `unavailablePartitionsTest` and `adaptivePartitionsTest` are about the
//!   keyless sticky path (KIP-794), and the model sends keyless records
//!   round-robin by design; `testStickyBatchSizeMoreThatZero` checks the
//!   sticky partitioner's constructor.
//! - `DefaultPartitionerTest.testRoundRobinWithUnavailablePartitions` and
//!   `testRoundRobin` (2.0 to 2.3) test the keyless round-robin of the
//!   partitioner before KIP-480, which the model does not take from Kafka.
//! - `StickyPartitionCacheTest` (2.4+), `UniformStickyPartitionerTest`
//!   and `RoundRobinPartitionerTest`: keyless partitioners, as above.
//! - `UtilsTest` has no test of `Utils.toPositive` in any version (2.0.0 to
//!   3.8.0); its cases below come from the JVM (see there).
//! - `WindowedStreamPartitionerTest` checks a Kafka Streams partitioner
//!   against the same formula; Streams is outside the model.

use highwater::model::cluster::partitioner::{murmur2, partition_for_key, partition_for_string_key, to_positive};

/// `UtilsTest.testMurmur2`: Kafka's table of inputs and their hashes
/// (`String.getBytes()` of ASCII strings, so the bytes are the same in any
/// platform charset).
#[test]
fn utils_test_murmur2() {
    let cases: [(&[u8], i32); 6] = [
        (b"21", -973932308),
        (b"foobar", -790332482),
        (b"a-little-bit-long-string", -985981536),
        (b"a-little-bit-longer-string", -1486304829),
        (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        // Kafka spells this one `new byte[] {'a', 'b', 'c'}`.
        (b"abc", 479470107),
    ];
    for (data, expected) in cases {
        assert_eq!(murmur2(data), expected, "{:?}", String::from_utf8_lossy(data));
    }
}

/// `Utils.toPositive`, which Kafka tests nowhere: values from
/// `Utils.toPositive` run on a JVM. It masks the sign bit, so it is not
/// `abs`: -1 becomes `Integer.MAX_VALUE`, `Integer.MIN_VALUE` becomes 0.
#[test]
fn to_positive_matches_kafka() {
    assert_eq!(to_positive(-1), i32::MAX);
    assert_eq!(to_positive(i32::MIN), 0);
    assert_eq!(to_positive(i32::MAX), i32::MAX);
    assert_eq!(to_positive(0), 0);
    // The hash of "21" from `testMurmur2`, made positive.
    assert_eq!(to_positive(-973932308), 1173551340);
}

/// `DefaultPartitionerTest.testKeyPartitionIsStable`: the key `"key"` over
/// the topic's three partitions (listed out of order, partition 1 without a
/// leader) goes to the same partition twice ("Same key should yield same
/// partition"). Kafka asserts only that; the partition itself, 1, is pinned
/// here from `Utils.toPositive(Utils.murmur2("key".getBytes())) % 3` run on a
/// JVM, and it is the leaderless partition: a key keeps its partition whatever
/// the partition's availability, since every partition counts.
#[test]
fn default_partitioner_test_key_partition_is_stable() {
    let key_bytes = b"key";
    let partitions = 3;
    let partition = partition_for_key(key_bytes, partitions);
    assert_eq!(partition, partition_for_key(key_bytes, partitions), "Same key should yield same partition");
    assert_eq!(partition, 1);
}

/// `BuiltInPartitioner.partitionForKey` and the `StringSerializer` in front of
/// it, against values computed on a JVM with Kafka's `Utils.murmur2`: the
/// partition of a string key is the partition of its UTF-8 bytes, and the
/// same key moves when the partition count changes.
#[test]
fn partition_for_string_key_matches_kafka() {
    // (key, partitions, partition).
    let cases: [(&str, u32, u32); 9] = [
        ("test", 3, 2),
        ("test", 6, 5),
        ("test", 10, 9),
        ("key", 6, 1),
        ("21", 10, 0),
        ("foobar", 10, 6),
        ("user-2", 6, 2),
        ("k\u{e9}y", 10, 9),
        ("", 6, 3),
    ];
    for (key, partitions, expected) in cases {
        assert_eq!(partition_for_string_key(key, partitions), expected, "{key:?} over {partitions}");
        assert_eq!(partition_for_key(key.as_bytes(), partitions), expected, "{key:?} over {partitions}");
    }
    // One partition takes every key.
    assert_eq!(partition_for_string_key("test", 1), 0);
}
