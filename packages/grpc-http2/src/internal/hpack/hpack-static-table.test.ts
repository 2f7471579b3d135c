import { describe, expect, it } from '@jest/globals';
import { HPACK_STATIC_TABLE, HPACK_STATIC_TABLE_LENGTH, staticTableNameIndex } from './hpack-static-table.js';

describe('the HPACK static table (RFC 7541 Appendix A)', () => {
  it('has 61 entries, first and last as the RFC lists them', () => {
    expect(HPACK_STATIC_TABLE).toHaveLength(HPACK_STATIC_TABLE_LENGTH);
    expect(HPACK_STATIC_TABLE_LENGTH).toBe(61);
    expect(HPACK_STATIC_TABLE[0]).toEqual([':authority', '']);
    expect(HPACK_STATIC_TABLE[15]).toEqual(['accept-encoding', 'gzip, deflate']);
    expect(HPACK_STATIC_TABLE[60]).toEqual(['www-authenticate', '']);
  });

  it('finds the first index of a name, 0 for a name it lacks', () => {
    expect(staticTableNameIndex(':authority')).toBe(1);
    expect(staticTableNameIndex(':method')).toBe(2);
    expect(staticTableNameIndex(':path')).toBe(4);
    expect(staticTableNameIndex(':scheme')).toBe(6);
    expect(staticTableNameIndex(':status')).toBe(8);
    expect(staticTableNameIndex('content-type')).toBe(31);
    expect(staticTableNameIndex('user-agent')).toBe(58);
    expect(staticTableNameIndex('www-authenticate')).toBe(61);
    expect(staticTableNameIndex('te')).toBe(0);
    expect(staticTableNameIndex('Content-Type')).toBe(0);
    HPACK_STATIC_TABLE.forEach(([name], i) => {
      const first = staticTableNameIndex(name);
      expect(HPACK_STATIC_TABLE[first - 1]![0]).toBe(name);
      expect(first).toBeLessThanOrEqual(i + 1);
    });
  });
});
