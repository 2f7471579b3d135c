package fastpath.ozonefixture;

/**
 * The content of every key the launcher writes: byte {@code i} of a key with seed {@code s} is
 * byte {@code i & 3} (little-endian) of {@code mix(s, i >>> 2)}, where mix is MurmurHash3's 32-bit
 * finaliser over {@code wordIndex + s * 0x9E3779B9} (all arithmetic mod 2^32), the pattern the
 * Ozone client's contract suite reads back.
 * The TypeScript twin is contractKeyBytes of @fastpath/ozone-fs-client/testing/contract; the
 * fixture's integration test compares their SHA-256 digests.
 * A hash rather than a counter so that a read from the wrong offset never returns equal bytes,
 * whatever the chunk or checksum alignment.
 */
final class KeyPattern {
  private KeyPattern() {}

  static int word(int seed, long wordIndex) {
    int h = (int) wordIndex + seed * 0x9E3779B9;
    h ^= h >>> 16;
    h *= 0x85EBCA6B;
    h ^= h >>> 13;
    h *= 0xC2B2AE35;
    h ^= h >>> 16;
    return h;
  }

  /** Fills {@code buffer[0, length)} with the bytes at {@code offset, offset + length)} of the key. */
  static void fill(int seed, long offset, byte[] buffer, int length) {
    for (int i = 0; i < length; i++) {
      long position = offset + i;
      buffer[i] = (byte) (word(seed, position >>> 2) >>> (8 * (int) (position & 3)));
    }
  }
}
