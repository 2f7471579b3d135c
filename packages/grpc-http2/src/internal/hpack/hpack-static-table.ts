// HPACK's static table (RFC 7541 Appendix A): 61 fields both sides know without sending them.
// Index 1 is the first entry; the dynamic table's entries follow from index 62 on (§2.3.3).

/** The static table's entries, `[name, value]`; entry `i` (1-based, as HPACK counts) is at `i - 1`. */
export const HPACK_STATIC_TABLE: ReadonlyArray<readonly [name: string, value: string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** How many entries the static table has: the first dynamic table index is one more. */
export const HPACK_STATIC_TABLE_LENGTH = 61;

// Name → the lowest index with that name. The encoder only ever refers to a name (its literals
// carry the value), and the lowest index is the one whose integer is shortest.
const FIRST_INDEX_OF_NAME: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  HPACK_STATIC_TABLE.forEach(([name], i) => {
    if (!map.has(name)) map.set(name, i + 1);
  });
  return map;
})();

/** The lowest static table index (1 to 61) whose name is `name`, or 0 if no entry has that name. */
export function staticTableNameIndex(name: string): number {
  return FIRST_INDEX_OF_NAME.get(name) ?? 0;
}
