import { barChartSvg } from './bar-chart.js';
import { BenchmarkInputError } from './benchmark-errors.js';
import { latencyChartSvg } from './latency-chart.js';
import type { ChartSpec } from './svg-chart-frame.js';

/** Checks that every tag is closed in order and every attribute is quoted: enough for our output. */
function expectWellFormed(svg: string): void {
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  const stack: string[] = [];
  const tagPattern = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let consumed = 0;
  for (const m of svg.matchAll(tagPattern)) {
    const between = svg.slice(consumed, m.index);
    expect(between).not.toMatch(/[<>]/); // no stray or malformed tag between two good ones
    expect(between).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
    consumed = m.index + m[0].length;
    const [, closing, name, , selfClosing] = m;
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name!);
  }
  expect(svg.slice(consumed).trim()).toBe('');
  expect(stack).toEqual([]);
}

const texts = (svg: string): string[] =>
  [...svg.matchAll(/<text[^>]*>(.*?)<\/text>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ' ').trim());

const spec: ChartSpec = {
  title: 'Lock <acquire> & release',
  subtitle: 'median of 5 rounds',
  categories: ['uncontended', 'contended (32 callers)'],
  series: [
    {
      name: 'no lock',
      points: [
        { value: 9e6, min: 8e6, max: 1e7 },
        { value: 3e6, min: 2.5e6, max: 3.2e6 },
      ],
    },
    { name: 'core Mutex', points: [{ value: 3e5, min: 2e5, max: 4e5 }, null] },
    { name: 'ReadWriteLock read', points: [2e6, 1e6] },
  ],
  yLabel: 'ops/s',
};

describe('barChartSvg', () => {
  it('is a well-formed SVG document with an escaped title', () => {
    const svg = barChartSvg(spec);
    expectWellFormed(svg);
    expect(svg).toContain('Lock &lt;acquire&gt; &amp; release');
    expect(svg).not.toContain('<acquire>');
  });

  it('labels the axis, the categories and every series in the legend', () => {
    const labels = texts(barChartSvg(spec));
    expect(labels).toEqual(
      expect.arrayContaining([
        'ops/s',
        'uncontended',
        'no lock',
        'core Mutex',
        'ReadWriteLock read',
        'median of 5 rounds',
      ]),
    );
    expect(labels.some((t) => t.startsWith('contended'))).toBe(true);
  });

  it('draws one bar per present point and one whisker per range', () => {
    const svg = barChartSvg(spec);
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(5);
    expect(svg.match(/class="whisker"/g)).toHaveLength(3);
    expect(svg).toContain('data-series="core Mutex" data-category="uncontended"');
    expect(svg).not.toContain('data-series="core Mutex" data-category="contended (32 callers)"');
  });

  it('makes taller bars for larger values on a linear axis', () => {
    const svg = barChartSvg({ ...spec, series: [{ name: 's', points: [100, 300] }] });
    const heights = [...svg.matchAll(/<rect class="bar"[^>]* height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(2);
    expect(heights[1]! / heights[0]!).toBeCloseTo(3, 1);
  });

  it('puts value labels and SI ticks on the chart', () => {
    const labels = texts(barChartSvg(spec));
    expect(labels).toEqual(expect.arrayContaining(['9.00 M', '300 k', '2.00 M']));
  });

  it('uses decade ticks on a log axis and draws a reference line', () => {
    const svg = barChartSvg({
      ...spec,
      yScale: 'log',
      referenceLine: { value: 1e6, label: 'baseline' },
    });
    expectWellFormed(svg);
    const labels = texts(svg);
    expect(labels).toEqual(expect.arrayContaining(['100 k', '1.00 M', '10.0 M', 'baseline']));
    expect(svg).toContain('stroke-dasharray');
  });

  it('refuses a chart without series, or with more points than categories', () => {
    expect(() => barChartSvg({ ...spec, series: [] })).toThrow(BenchmarkInputError);
    expect(() => barChartSvg({ ...spec, series: [{ name: 'x', points: [1, 2, 3] }] })).toThrow(
      /3 points for 2/,
    );
    expect(() => barChartSvg({ ...spec, series: [{ name: 'x', points: [NaN] }] })).toThrow(/non-finite/);
  });
});

describe('latencyChartSvg', () => {
  const latency: ChartSpec = {
    title: 'Verify p99 by mix',
    categories: ['100:0', '95:5', '90:10'],
    series: [
      { name: 'fixed', points: [0.8, 0.9, 1.1] },
      { name: 'original', points: [0.9, null, 6.1] },
    ],
    yLabel: 'p99 latency',
  };

  it('draws lines through the points, broken where a point is missing', () => {
    const svg = latencyChartSvg(latency);
    expectWellFormed(svg);
    expect(svg.match(/<polyline/g)).toHaveLength(1); // "original" has no two neighbouring points
    expect(svg.match(/<circle class="point"/g)).toHaveLength(5);
    expect(texts(svg)).toEqual(expect.arrayContaining(['800 µs', '1.10 ms', '6.10 ms', '90:10', 'original']));
  });

  it('can draw the same data as grouped bars', () => {
    const svg = latencyChartSvg({ ...latency, style: 'bar' });
    expectWellFormed(svg);
    expect(svg.match(/<rect class="bar"/g)).toHaveLength(5);
  });
});
