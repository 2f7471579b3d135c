import { groupsCpuSeconds, parseStat } from './process-cpu.js';

describe('process CPU', () => {
  it('parses /proc/<pid>/stat even when the command name has spaces and parentheses', () => {
    const line = '4242 (node (worker) x) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 11 0 1000 0 0';
    expect(parseStat(line)).toEqual({ pid: 4242, ppid: 17, ticks: 280 });
  });

  it('reads this process, and a group of no process as 0', () => {
    const seconds = groupsCpuSeconds({ self: [process.pid], none: [] });
    expect(seconds['self']).toBeGreaterThan(0);
    expect(seconds['none']).toBe(0);
  });
});
