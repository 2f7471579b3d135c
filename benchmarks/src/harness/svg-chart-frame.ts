// Shared drawing of the SVG charts: frame, scales, axes and legend. Output is plain SVG 1.1 that
// browsers, GitHub and resvg render the same way; every label is a <text> element.
import { BenchmarkInputError } from './benchmark-errors.js';

/** One value of a series, with an optional range drawn as a whisker (for example min-max of rounds). */
export interface ChartPoint {
  value: number;
  min?: number;
  max?: number;
}

/** One named series: a point per category, in category order; `null` leaves a gap. */
export interface ChartSeries {
  name: string;
  points: readonly (ChartPoint | number | null)[];
  /** CSS colour. Default: from a palette that stays readable in print and for colour-blind readers. */
  color?: string;
}

/** What every chart takes. */
export interface ChartSpec {
  title: string;
  subtitle?: string;
  /** The x groups, e.g. `['uncontended', 'contended']` or mixes `['100:0', '90:10']`. */
  categories: readonly string[];
  series: readonly ChartSeries[];
  /** Label of the y axis, with its unit: `'ops/s'`, `'p99 latency (ms)'`. */
  yLabel: string;
  xLabel?: string;
  /** Default: `'linear'` (from 0). `'log'` suits values that span decades. */
  yScale?: 'linear' | 'log';
  /** Formats ticks and value labels. */
  formatValue?: (value: number) => string;
  /** Print each value above its bar or point. */
  valueLabels?: boolean;
  /** A dashed horizontal line, e.g. `{ value: 1, label: 'baseline' }` on a ratio chart. */
  referenceLine?: { value: number; label: string };
  /** Pixels. Default: 960 × 540. */
  width?: number;
  height?: number;
}

export const FONT_FAMILY = 'DejaVu Sans, Verdana, Arial, sans-serif';
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
] as const;

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** Rough text width in px for a sans-serif font: enough to lay out labels without measuring. */
export function textWidth(text: string, fontSize: number): number {
  return [...text].length * fontSize * 0.6;
}

export function num(n: number): string {
  return String(Math.round(n * 10) / 10);
}

export function normalisePoint(p: ChartPoint | number | null | undefined): ChartPoint | null {
  if (p === null || p === undefined) return null;
  return typeof p === 'number' ? { value: p } : p;
}

export function checkSpec(spec: ChartSpec): void {
  if (spec.categories.length === 0) throw new BenchmarkInputError(`chart "${spec.title}": no categories`);
  if (spec.series.length === 0) throw new BenchmarkInputError(`chart "${spec.title}": no series`);
  for (const s of spec.series) {
    if (s.points.length > spec.categories.length) {
      throw new BenchmarkInputError(
        `chart "${spec.title}": series "${s.name}" has ${s.points.length} points for ${spec.categories.length} categories`,
      );
    }
    for (const raw of s.points) {
      const p = normalisePoint(raw);
      if (p && ![p.value, p.min ?? 0, p.max ?? 0].every(Number.isFinite)) {
        throw new BenchmarkInputError(`chart "${spec.title}": series "${s.name}" has a non-finite value`);
      }
    }
  }
}

/** Maps values to y pixels and lists the ticks. */
export interface YScale {
  y(value: number): number;
  /** The value bars grow from: 0, or the bottom of a log axis. */
  floor: number;
  ticks: number[];
}

function niceStep(range: number, targetTicks: number): number {
  const raw = range / targetTicks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return nice * magnitude;
}

export function makeYScale(
  kind: 'linear' | 'log',
  values: readonly number[],
  top: number,
  bottom: number,
): YScale {
  const finite = values.filter((v) => Number.isFinite(v));
  if (kind === 'log') {
    const positive = finite.filter((v) => v > 0);
    const lo = positive.length ? Math.min(...positive) : 1;
    const hi = positive.length ? Math.max(...positive) : 10;
    let minExp = Math.floor(Math.log10(lo));
    let maxExp = Math.ceil(Math.log10(hi));
    if (maxExp === minExp) maxExp += 1;
    if (maxExp - minExp > 12) minExp = maxExp - 12;
    const y = (v: number): number => {
      const e = Math.log10(Math.max(v, 10 ** minExp));
      return bottom - ((e - minExp) / (maxExp - minExp)) * (bottom - top);
    };
    const ticks: number[] = [];
    const fewDecades = maxExp - minExp <= 2;
    for (let e = minExp; e <= maxExp; e++) {
      ticks.push(10 ** e);
      if (fewDecades && e < maxExp) ticks.push(2 * 10 ** e, 5 * 10 ** e);
    }
    return { y, floor: 10 ** minExp, ticks: ticks.sort((a, b) => a - b) };
  }
  const hi = Math.max(0, ...finite);
  const step = hi > 0 ? niceStep(hi, 5) : 1;
  const max = hi > 0 ? Math.ceil(hi / step - 1e-9) * step : 1;
  const ticks: number[] = [];
  for (let i = 0; i * step <= max + step / 1e6; i++) ticks.push(i * step);
  const y = (v: number): number => bottom - (Math.max(0, v) / max) * (bottom - top);
  return { y, floor: 0, ticks };
}

/** Splits a label into at most `maxLines` lines no wider than `maxWidth` px. */
export function wrapLabel(label: string, maxWidth: number, fontSize: number, maxLines = 3): string[] {
  const words = label.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let current = '';
  for (const word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (current && textWidth(candidate, fontSize) > maxWidth) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current) lines.push(current);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = `${kept[maxLines - 1]!}…`;
    return kept;
  }
  return lines;
}

/** The plot rectangle and everything drawn around it. */
export interface Frame {
  width: number;
  height: number;
  plotLeft: number;
  plotRight: number;
  plotTop: number;
  plotBottom: number;
  scale: YScale;
  /** Category label lines, per category. */
  categoryLines: string[][];
  legendRows: { name: string; color: string }[][];
}

const CATEGORY_FONT = 13;
const LEGEND_FONT = 12;
const TICK_FONT = 12;

export function seriesColor(spec: ChartSpec, index: number): string {
  return spec.series[index]!.color ?? PALETTE[index % PALETTE.length]!;
}

export function layoutFrame(spec: ChartSpec, values: readonly number[]): Frame {
  const width = spec.width ?? 960;
  const height = spec.height ?? 540;
  const format = spec.formatValue ?? String;
  const plotTop = spec.subtitle ? 84 : 64;
  // Legend rows, laid out left to right across the full width.
  const legendRows: { name: string; color: string }[][] = [[]];
  let rowWidth = 0;
  const usable = width - 48;
  spec.series.forEach((s, i) => {
    const w = 16 + 6 + textWidth(s.name, LEGEND_FONT) + 18;
    if (rowWidth + w > usable && legendRows[legendRows.length - 1]!.length > 0) {
      legendRows.push([]);
      rowWidth = 0;
    }
    legendRows[legendRows.length - 1]!.push({ name: s.name, color: seriesColor(spec, i) });
    rowWidth += w;
  });
  // The y tick labels decide the left margin; compute with a provisional scale.
  const provisional = makeYScale(spec.yScale ?? 'linear', values, plotTop, height - 100);
  const tickWidth = Math.max(...provisional.ticks.map((t) => textWidth(format(t), TICK_FONT)));
  const plotLeft = Math.ceil(28 + tickWidth + 10);
  const plotRight = width - 24;
  const band = (plotRight - plotLeft) / spec.categories.length;
  const categoryLines = spec.categories.map((c) => wrapLabel(c, band - 8, CATEGORY_FONT));
  const labelLines = Math.max(1, ...categoryLines.map((l) => l.length));
  const bottomSpace =
    10 + labelLines * (CATEGORY_FONT + 3) + (spec.xLabel ? 22 : 0) + 14 + legendRows.length * 20 + 8;
  const plotBottom = height - bottomSpace;
  const scale = makeYScale(spec.yScale ?? 'linear', values, plotTop, plotBottom);
  return { width, height, plotLeft, plotRight, plotTop, plotBottom, scale, categoryLines, legendRows };
}

/** Opening tag, background, title, axes, grid, ticks, category labels and legend. */
export function drawFrame(spec: ChartSpec, frame: Frame): string[] {
  const { width, height, plotLeft, plotRight, plotTop, plotBottom, scale } = frame;
  const format = spec.formatValue ?? String;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<title>${escapeXml(spec.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text class="title" x="${num(width / 2)}" y="30" text-anchor="middle" font-size="20" font-weight="bold" fill="#222222">${escapeXml(spec.title)}</text>`,
  );
  if (spec.subtitle) {
    out.push(
      `<text class="subtitle" x="${num(width / 2)}" y="54" text-anchor="middle" font-size="13" fill="#555555">${escapeXml(spec.subtitle)}</text>`,
    );
  }
  out.push('<g class="grid">');
  for (const t of scale.ticks) {
    const y = num(scale.y(t));
    out.push(
      `<line x1="${num(plotLeft)}" y1="${y}" x2="${num(plotRight)}" y2="${y}" stroke="#e3e3e3" stroke-width="1"/>`,
      `<text class="tick" x="${num(plotLeft - 8)}" y="${y}" dy="4" text-anchor="end" font-size="${TICK_FONT}" fill="#444444">${escapeXml(format(t))}</text>`,
    );
  }
  out.push('</g>');
  const midY = num((plotTop + plotBottom) / 2);
  out.push(
    `<text class="y-label" x="18" y="${midY}" text-anchor="middle" font-size="13" fill="#222222" transform="rotate(-90 18 ${midY})">${escapeXml(spec.yLabel)}</text>`,
    `<line class="axis" x1="${num(plotLeft)}" y1="${num(plotTop)}" x2="${num(plotLeft)}" y2="${num(plotBottom)}" stroke="#444444" stroke-width="1"/>`,
    `<line class="axis" x1="${num(plotLeft)}" y1="${num(plotBottom)}" x2="${num(plotRight)}" y2="${num(plotBottom)}" stroke="#444444" stroke-width="1"/>`,
  );
  const band = (plotRight - plotLeft) / spec.categories.length;
  frame.categoryLines.forEach((lines, i) => {
    const x = num(plotLeft + band * (i + 0.5));
    const tspans = lines
      .map((line, j) => `<tspan x="${x}" dy="${j === 0 ? 0 : CATEGORY_FONT + 3}">${escapeXml(line)}</tspan>`)
      .join('');
    out.push(
      `<text class="category" x="${x}" y="${num(plotBottom + 10 + CATEGORY_FONT)}" text-anchor="middle" font-size="${CATEGORY_FONT}" fill="#222222">${tspans}</text>`,
    );
  });
  const labelLines = Math.max(1, ...frame.categoryLines.map((l) => l.length));
  let y = plotBottom + 10 + labelLines * (CATEGORY_FONT + 3);
  if (spec.xLabel) {
    y += 18;
    out.push(
      `<text class="x-label" x="${num((plotLeft + plotRight) / 2)}" y="${num(y)}" text-anchor="middle" font-size="13" fill="#222222">${escapeXml(spec.xLabel)}</text>`,
    );
  }
  y += 14;
  out.push('<g class="legend">');
  for (const row of frame.legendRows) {
    const rowWidth = row.reduce((w, item) => w + 16 + 6 + textWidth(item.name, LEGEND_FONT) + 18, -18);
    let x = (width - rowWidth) / 2;
    for (const item of row) {
      out.push(
        `<rect x="${num(x)}" y="${num(y)}" width="16" height="12" fill="${item.color}"/>`,
        `<text x="${num(x + 22)}" y="${num(y + 11)}" font-size="${LEGEND_FONT}" fill="#222222">${escapeXml(item.name)}</text>`,
      );
      x += 16 + 6 + textWidth(item.name, LEGEND_FONT) + 18;
    }
    y += 20;
  }
  out.push('</g>');
  return out;
}

export function drawReferenceLine(spec: ChartSpec, frame: Frame): string[] {
  if (!spec.referenceLine) return [];
  const y = num(frame.scale.y(spec.referenceLine.value));
  return [
    `<g class="reference">`,
    `<line x1="${num(frame.plotLeft)}" y1="${y}" x2="${num(frame.plotRight)}" y2="${y}" stroke="#333333" stroke-width="1.2" stroke-dasharray="6 4"/>`,
    // A white box behind the label keeps it readable where it crosses a bar.
    `<rect x="${num(frame.plotRight - 8 - textWidth(spec.referenceLine.label, 12))}" y="${num(Number(y) - 19)}" width="${num(textWidth(spec.referenceLine.label, 12) + 6)}" height="16" fill="#ffffff" fill-opacity="0.85"/>`,
    `<text x="${num(frame.plotRight - 5)}" y="${y}" dy="-6" text-anchor="end" font-size="12" fill="#333333">${escapeXml(spec.referenceLine.label)}</text>`,
    `</g>`,
  ];
}

export function drawWhisker(x: number, yMin: number, yMax: number, cap: number): string {
  const half = cap / 2;
  return (
    `<g class="whisker" stroke="#222222" stroke-width="1.3">` +
    `<line x1="${num(x)}" y1="${num(yMin)}" x2="${num(x)}" y2="${num(yMax)}"/>` +
    `<line x1="${num(x - half)}" y1="${num(yMin)}" x2="${num(x + half)}" y2="${num(yMin)}"/>` +
    `<line x1="${num(x - half)}" y1="${num(yMax)}" x2="${num(x + half)}" y2="${num(yMax)}"/>` +
    `</g>`
  );
}

/** Every value the y axis must show: points, whisker ends and the reference line. */
export function collectValues(spec: ChartSpec): number[] {
  const values: number[] = [];
  for (const s of spec.series) {
    for (const raw of s.points) {
      const p = normalisePoint(raw);
      if (!p) continue;
      values.push(p.value);
      if (p.min !== undefined) values.push(p.min);
      if (p.max !== undefined) values.push(p.max);
    }
  }
  if (spec.referenceLine) values.push(spec.referenceLine.value);
  return values;
}

/** A value label above a bar or point; turned upright when the space is narrow. */
export function valueLabel(x: number, y: number, text: string, narrow: boolean): string {
  if (narrow) {
    return `<text class="value" x="${num(x)}" y="${num(y - 4)}" font-size="10" fill="#333333" transform="rotate(-90 ${num(x)} ${num(y - 4)})" dy="3">${escapeXml(text)}</text>`;
  }
  return `<text class="value" x="${num(x)}" y="${num(y - 5)}" text-anchor="middle" font-size="11" fill="#333333">${escapeXml(text)}</text>`;
}
