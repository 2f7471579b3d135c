import { estimateRemainingMs, formatProgressLine, Progress } from './progress.js';

class MemoryStream {
  chunks: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  get text(): string {
    return this.chunks.join('');
  }
}

describe('formatProgressLine', () => {
  it('shows label, percentage, detail, elapsed and ETA', () => {
    expect(
      formatProgressLine({ label: 'locks', done: 25, total: 100, elapsedMs: 10_000, detail: 'mutex' }),
    ).toBe('locks  25% · mutex · elapsed 0:10 · ETA 0:30');
  });

  it('says the ETA is unknown before anything is done', () => {
    expect(formatProgressLine({ label: 'x', done: 0, total: 10, elapsedMs: 500 })).toBe(
      'x   0% · elapsed 0:01 · ETA ?',
    );
  });

  it('caps at 100% with no time left', () => {
    expect(formatProgressLine({ label: 'x', done: 12, total: 10, elapsedMs: 65_000 })).toBe(
      'x 100% · elapsed 1:05 · ETA 0:00',
    );
  });

  it('draws a bar when asked, and cuts the line to the width', () => {
    const line = formatProgressLine({ label: 'x', done: 1, total: 2, elapsedMs: 1000 }, { bar: true });
    expect(line).toBe('x [##########----------]  50% · elapsed 0:01 · ETA 0:01');
    const cut = formatProgressLine(
      { label: 'x', done: 1, total: 2, elapsedMs: 1000, detail: 'a'.repeat(80) },
      { width: 30 },
    );
    expect(cut).toHaveLength(30);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('extrapolates the remaining time from the pace so far', () => {
    expect(estimateRemainingMs({ label: '', done: 1, total: 4, elapsedMs: 2000 })).toBe(6000);
    expect(estimateRemainingMs({ label: '', done: 0, total: 4, elapsedMs: 2000 })).toBeUndefined();
  });
});

describe('Progress', () => {
  it('without a TTY prints plain lines, at most one per interval', () => {
    const stream = new MemoryStream(false);
    let now = 0;
    const progress = new Progress({ stream, plainIntervalMs: 5000, autoRefresh: false, now: () => now });
    progress.begin('locks', 100);
    now = 1000;
    progress.advance(10, 'warm-up');
    now = 6000;
    progress.advance(40, 'round 1/5');
    now = 7000;
    progress.advance(10, 'round 2/5');
    now = 8000;
    progress.end();
    expect(stream.text).not.toContain('\r');
    expect(stream.text.split('\n').filter(Boolean)).toEqual([
      'locks   0% · elapsed 0:00 · ETA ?',
      'locks  50% · round 1/5 · elapsed 0:06 · ETA 0:06',
      'locks 100% · done · elapsed 0:08 · ETA 0:00',
    ]);
  });

  it('on a TTY redraws one line in place and ends it with a newline', () => {
    const stream = new MemoryStream(true, 200);
    let now = 0;
    const progress = new Progress({ stream, ttyRefreshMs: 100, autoRefresh: false, now: () => now });
    progress.begin('locks', 4);
    now = 50;
    progress.advance(1); // within the refresh interval: not drawn
    now = 200;
    progress.advance(1, 'round 2');
    progress.end();
    const draws = stream.text.split('\r\x1b[2K').filter(Boolean);
    expect(draws).toEqual([
      'locks [--------------------]   0% · elapsed 0:00 · ETA ?',
      'locks [##########----------]  50% · round 2 · elapsed 0:00 · ETA 0:00',
      'locks [####################] 100% · done · elapsed 0:00 · ETA 0:00\n',
    ]);
    expect(stream.text.split('\n')).toHaveLength(2);
  });

  it('prints notes on their own line without breaking the progress line', () => {
    const stream = new MemoryStream(true, 200);
    const progress = new Progress({ stream, autoRefresh: false, now: () => 0 });
    progress.begin('x', 2);
    progress.note('server started');
    expect(stream.chunks.slice(1)).toEqual([
      '\r\x1b[2K',
      'server started\n',
      '\r\x1b[2Kx [--------------------]   0% · elapsed 0:00 · ETA ?',
    ]);
  });
});

describe('Progress for a run observed from elsewhere', () => {
  it('tells its observer every state and note, unthrottled', () => {
    let t = 0;
    const events: unknown[] = [];
    const p = new Progress({
      stream: new MemoryStream(false),
      autoRefresh: false,
      now: () => t,
      observer: (e) => events.push(e),
    });
    p.begin('kms-http', 10);
    t = 1000;
    p.advance(5, 'case 2');
    p.note('a line');
    p.end();
    expect(events).toEqual([
      {
        kind: 'state',
        active: true,
        state: { label: 'kms-http', done: 0, total: 10, elapsedMs: 0, detail: '' },
      },
      {
        kind: 'state',
        active: true,
        state: { label: 'kms-http', done: 5, total: 10, elapsedMs: 1000, detail: 'case 2' },
      },
      { kind: 'note', message: 'a line' },
      {
        kind: 'state',
        active: false,
        state: { label: 'kms-http', done: 10, total: 10, elapsedMs: 1000, detail: 'done' },
      },
    ]);
  });

  it('updates label and counts in place without restarting the clock', () => {
    let t = 0;
    const stream = new MemoryStream(false);
    const p = new Progress({ stream, autoRefresh: false, plainIntervalMs: 0, now: () => t });
    p.begin('all', 100);
    t = 30_000;
    p.update({ label: '[2/3] kms-http · case 4/13', done: 50, detail: 'kms-http 20%' });
    expect(stream.text.trim().split('\n').at(-1)).toBe(
      '[2/3] kms-http · case 4/13  50% · kms-http 20% · elapsed 0:30 · ETA 0:30',
    );
  });
});
