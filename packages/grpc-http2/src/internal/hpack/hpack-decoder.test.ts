import { describe, expect, it } from '@jest/globals';
import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';
import { HpackDecoder } from './hpack-decoder.js';

// The examples of RFC 7541 Appendix C, as its hex dumps print them.

function hex(text: string): Uint8Array {
  return Buffer.from(text.replace(/\s/g, ''), 'hex');
}

function decoder(maxTableBytes = 4096, maxHeaderListBytes = 65_536): HpackDecoder {
  return new HpackDecoder({ maxTableBytes, maxHeaderListBytes });
}

function expectCompressionError(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(Http2ProtocolError);
  expect((caught as Http2ProtocolError).http2Code).toBe(HTTP2_ERROR.COMPRESSION_ERROR);
  expect((caught as Http2ProtocolError).message).toMatch(message);
}

interface Step {
  block: string;
  fields: Array<[string, string]>;
  table: Array<[string, string]>;
  tableBytes: number;
}

function runSteps(maxTableBytes: number, steps: Step[]): void {
  const d = decoder(maxTableBytes);
  for (const step of steps) {
    expect(d.decode(hex(step.block))).toEqual(step.fields);
    expect(d.dynamicTableEntries()).toEqual(step.table);
    expect(d.dynamicTableBytes).toBe(step.tableBytes);
  }
}

const REQUEST_1: Array<[string, string]> = [
  [':method', 'GET'],
  [':scheme', 'http'],
  [':path', '/'],
  [':authority', 'www.example.com'],
];
const REQUEST_2: Array<[string, string]> = [...REQUEST_1, ['cache-control', 'no-cache']];
const REQUEST_3: Array<[string, string]> = [
  [':method', 'GET'],
  [':scheme', 'https'],
  [':path', '/index.html'],
  [':authority', 'www.example.com'],
  ['custom-key', 'custom-value'],
];
const REQUEST_TABLES: Array<Array<[string, string]>> = [
  [[':authority', 'www.example.com']],
  [
    ['cache-control', 'no-cache'],
    [':authority', 'www.example.com'],
  ],
  [
    ['custom-key', 'custom-value'],
    ['cache-control', 'no-cache'],
    [':authority', 'www.example.com'],
  ],
];
const REQUEST_TABLE_BYTES = [57, 110, 164];

const DATE_1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
const DATE_2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
const LOCATION = 'https://www.example.com';
const COOKIE = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
const RESPONSE_1: Array<[string, string]> = [
  [':status', '302'],
  ['cache-control', 'private'],
  ['date', DATE_1],
  ['location', LOCATION],
];
const RESPONSE_2: Array<[string, string]> = [[':status', '307'], ...RESPONSE_1.slice(1)];
const RESPONSE_3: Array<[string, string]> = [
  [':status', '200'],
  ['cache-control', 'private'],
  ['date', DATE_2],
  ['location', LOCATION],
  ['content-encoding', 'gzip'],
  ['set-cookie', COOKIE],
];
const RESPONSE_TABLES: Array<Array<[string, string]>> = [
  [
    ['location', LOCATION],
    ['date', DATE_1],
    ['cache-control', 'private'],
    [':status', '302'],
  ],
  [
    [':status', '307'],
    ['location', LOCATION],
    ['date', DATE_1],
    ['cache-control', 'private'],
  ],
  [
    ['set-cookie', COOKIE],
    ['content-encoding', 'gzip'],
    ['date', DATE_2],
  ],
];
const RESPONSE_TABLE_BYTES = [222, 222, 215];

function chain(
  blocks: string[],
  fields: Array<Array<[string, string]>>,
  tables: Array<Array<[string, string]>>,
  bytes: number[],
): Step[] {
  return blocks.map((block, i) => ({ block, fields: fields[i]!, table: tables[i]!, tableBytes: bytes[i]! }));
}

describe('HpackDecoder on RFC 7541 Appendix C', () => {
  it('C.2.1: literal with indexing enters the dynamic table', () => {
    runSteps(4096, [
      {
        block: '400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572',
        fields: [['custom-key', 'custom-header']],
        table: [['custom-key', 'custom-header']],
        tableBytes: 55,
      },
    ]);
  });

  it('C.2.2: literal without indexing leaves the table alone', () => {
    runSteps(4096, [
      {
        block: '040c 2f73 616d 706c 652f 7061 7468',
        fields: [[':path', '/sample/path']],
        table: [],
        tableBytes: 0,
      },
    ]);
  });

  it('C.2.3: literal never indexed leaves the table alone', () => {
    runSteps(4096, [
      {
        block: '1008 7061 7373 776f 7264 0673 6563 7265 74',
        fields: [['password', 'secret']],
        table: [],
        tableBytes: 0,
      },
    ]);
  });

  it('C.2.4: indexed field from the static table', () => {
    runSteps(4096, [{ block: '82', fields: [[':method', 'GET']], table: [], tableBytes: 0 }]);
  });

  it('C.3: three requests without Huffman, one table throughout', () => {
    runSteps(
      4096,
      chain(
        [
          '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
          '8286 84be 5808 6e6f 2d63 6163 6865',
          '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
        ],
        [REQUEST_1, REQUEST_2, REQUEST_3],
        REQUEST_TABLES,
        REQUEST_TABLE_BYTES,
      ),
    );
  });

  it('C.4: the same requests with Huffman', () => {
    runSteps(
      4096,
      chain(
        [
          '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
          '8286 84be 5886 a8eb 1064 9cbf',
          '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
        ],
        [REQUEST_1, REQUEST_2, REQUEST_3],
        REQUEST_TABLES,
        REQUEST_TABLE_BYTES,
      ),
    );
  });

  it('C.5: three responses without Huffman, a 256-octet table evicting', () => {
    runSteps(
      256,
      chain(
        [
          `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a
           3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
          '4803 3330 37c1 c0bf',
          `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04
           677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49
           553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`,
        ],
        [RESPONSE_1, RESPONSE_2, RESPONSE_3],
        RESPONSE_TABLES,
        RESPONSE_TABLE_BYTES,
      ),
    );
  });

  it('C.6: the same responses with Huffman', () => {
    runSteps(
      256,
      chain(
        [
          `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e
           919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
          '4883 640e ffc1 c0bf',
          `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7
           821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed
           4ee5 b106 3d50 07`,
        ],
        [RESPONSE_1, RESPONSE_2, RESPONSE_3],
        RESPONSE_TABLES,
        RESPONSE_TABLE_BYTES,
      ),
    );
  });
});

describe('HpackDecoder: the dynamic table', () => {
  it('applies size updates at the start of a block, evicting to the new size', () => {
    const d = decoder();
    d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'));
    expect(d.dynamicTableBytes).toBe(57);
    // Two updates (to 0, then back to 4096: §4.2's "smallest, then final"), then :method GET.
    expect(d.decode(hex('20 3fe1 1f 82'))).toEqual([[':method', 'GET']]);
    expect(d.dynamicTableEntries()).toEqual([]);
    expect(d.dynamicTableLimit).toBe(4096);
    // A block of nothing but an update is a valid block of no fields.
    expect(d.decode(hex('3f 11'))).toEqual([]);
    expect(d.dynamicTableLimit).toBe(48);
  });

  it('an entry larger than the table empties the table and is not added', () => {
    const d = decoder(64);
    d.decode(hex('4001 6101 62')); // a: b, 34 octets
    expect(d.dynamicTableEntries()).toEqual([['a', 'b']]);
    const long = 'x'.repeat(40);
    const block = Buffer.concat([hex('4001 6128'), Buffer.from(long, 'latin1')]);
    expect(d.decode(block)).toEqual([['a', long]]);
    expect(d.dynamicTableEntries()).toEqual([]);
    expect(d.dynamicTableBytes).toBe(0);
  });

  it('a new entry may take its name from the entry it evicts (§4.4)', () => {
    const d = decoder(55);
    d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    expect(d.dynamicTableBytes).toBe(55);
    // 0x7e: incremental indexing, name of index 62 (custom-key), value "x".
    expect(d.decode(hex('7e01 78'))).toEqual([['custom-key', 'x']]);
    expect(d.dynamicTableEntries()).toEqual([['custom-key', 'x']]);
    expect(d.dynamicTableBytes).toBe(43);
  });

  it('keeps hundreds of entries, indexed newest first', () => {
    const d = decoder(65_536);
    const parts: Buffer[] = [];
    for (let i = 0; i < 300; i++) {
      const name = `n${i}`;
      const value = `v${i}`;
      parts.push(
        Buffer.from([0x40, name.length]),
        Buffer.from(name),
        Buffer.from([value.length]),
        Buffer.from(value),
      );
    }
    d.decode(Buffer.concat(parts));
    expect(d.dynamicTableEntries()).toHaveLength(300);
    // Index 62 is the newest (n299), 62 + 299 = 361 the oldest (n0): 361 = 0xff 0xea 0x01.
    expect(d.decode(hex('be ff ea 01'))).toEqual([
      ['n299', 'v299'],
      ['n0', 'v0'],
    ]);
    // A literal's name by index from deep in the table: index 162 (0x0f, then 162 - 15 = 147) is
    // the entry 100 from the newest, n199.
    expect(d.decode(hex('0f 93 01 01 7a'))).toEqual([['n199', 'z']]);
  });

  it('decodes octets 0x80-0xff as latin1 characters', () => {
    expect(decoder().decode(hex('0002 e9ff 0180'))).toEqual([['\u00e9\u00ff', '\u0080']]);
  });
});

describe('HpackDecoder refuses', () => {
  it('index 0', () => {
    expectCompressionError(() => decoder().decode(hex('80')), /index 0/);
  });

  it('an index past the static and dynamic tables', () => {
    expectCompressionError(
      () => decoder().decode(hex('be')),
      /index 62 is beyond the 61 static and 0 dynamic/,
    );
    const d = decoder();
    d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'));
    expect(d.decode(hex('be'))).toEqual([[':authority', 'www.example.com']]);
    expectCompressionError(() => d.decode(hex('bf')), /index 63 is beyond the 61 static and 1 dynamic/);
    // The same for a literal's name index.
    expectCompressionError(() => decoder().decode(hex('7f 0b 01 61')), /index 74 is beyond/);
  });

  it('a table size update above the advertised maximum', () => {
    expect(decoder(4096).decode(hex('3fe1 1f'))).toEqual([]); // 4096 itself is fine
    expectCompressionError(
      () => decoder(4096).decode(hex('3fe2 1f')),
      /size update to 4097 exceeds the advertised SETTINGS_HEADER_TABLE_SIZE 4096/,
    );
    expectCompressionError(() => decoder(0).decode(hex('21')), /size update to 1 exceeds/);
  });

  it('a table size update after a field', () => {
    expectCompressionError(() => decoder().decode(hex('82 20')), /size update after a header field/);
  });

  it('a truncated integer', () => {
    expectCompressionError(() => decoder().decode(hex('ff')), /ends inside an integer/);
    expectCompressionError(() => decoder().decode(hex('ff 80')), /ends inside an integer/);
    expectCompressionError(() => decoder().decode(hex('00 7f')), /ends inside an integer/);
  });

  it('an integer overflow', () => {
    expectCompressionError(() => decoder().decode(hex('ff ff ff ff ff 0f')), /exceeds 2147483647/);
    expectCompressionError(() => decoder().decode(hex('3f ff ff ff ff 7f')), /exceeds 2147483647/);
    expectCompressionError(() => decoder().decode(hex('ff 80 80 80 80 80 00')), /continuation octets/);
  });

  it('a string length past the block end', () => {
    expectCompressionError(
      () => decoder().decode(hex('400a 6375 73')),
      /string literal of 10 octets runs past the header block's end \(3 octets left\)/,
    );
    // A length near 2^31 (7 * 2^28 + 126): refused before anything the size of it is made.
    expectCompressionError(
      () => decoder().decode(hex('00 7f ff ff ff ff 06')),
      /string literal of 1879048318 octets runs past the header block's end/,
    );
    expectCompressionError(() => decoder().decode(hex('00 8a 25a8')), /runs past/);
  });

  it('a block that ends before a literal has its strings', () => {
    expectCompressionError(() => decoder().decode(hex('41')), /ends before a string literal/);
    expectCompressionError(() => decoder().decode(hex('00')), /ends before a string literal/);
    expectCompressionError(() => decoder().decode(hex('0001 61')), /ends before a string literal/);
  });

  it('a Huffman string that breaks §5.2', () => {
    expectCompressionError(() => decoder().decode(hex('0001 6181 ff')), /more than 7 bits of padding/);
    expectCompressionError(() => decoder().decode(hex('0084 ffff ffff 0161')), /contains EOS/);
  });

  it('a header list larger than maxHeaderListBytes', () => {
    // :method GET counts 7 + 3 + 32 = 42 octets.
    expect(decoder(4096, 84).decode(hex('8282'))).toHaveLength(2);
    expectCompressionError(
      () => decoder(4096, 84).decode(hex('828282')),
      /header list exceeds 84 octets \(SETTINGS_MAX_HEADER_LIST_SIZE\)/,
    );
    // Indexed references to one large entry: a few octets of block, a large list.
    const d = decoder(4096, 1000);
    const value = 'v'.repeat(200);
    d.decode(Buffer.concat([hex('4001 61 7f 49'), Buffer.from(value)]));
    expectCompressionError(() => d.decode(hex('bebebebebe')), /header list exceeds 1000 octets/);
  });
});
