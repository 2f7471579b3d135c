import { existsSync } from 'node:fs';

/** Options of {@link renderPng}. */
export interface PngOptions {
  /**
   * Font files to draw text with; those that do not exist are skipped. Default:
   * {@link DEFAULT_FONT_FILES} (DejaVu Sans, Debian's `fonts-dejavu-core`).
   */
  fontFiles?: readonly string[];
  /** Family used for text whose font-family matches none of the files. Default: `'DejaVu Sans'`. */
  defaultFontFamily?: string;
  /** Output width in px; the height follows the SVG's aspect. Default: twice the SVG width. */
  widthPx?: number;
}

export const DEFAULT_FONT_FILES: readonly string[] = Object.freeze([
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf',
]);

/** A PNG, or why none was made (no fonts, no renderer): charts then stay SVG only. */
export type PngResult = { ok: true; png: Buffer } | { ok: false; reason: string };

interface ResvgModule {
  Resvg: new (
    svg: string,
    options: object,
  ) => { render(): { asPng(): Buffer; width: number; height: number } };
}

/**
 * Renders an SVG chart to PNG with resvg. Text needs real font files, given explicitly so the
 * picture does not depend on what the machine happens to have: when none of them exists, or the
 * renderer cannot load, the result says why instead of drawing a chart without labels.
 *
 * @example
 * ```ts
 * const result = await renderPng(barChartSvg(spec));
 * if (result.ok) writeFileSync('chart.png', result.png);
 * else console.warn(`PNG skipped: ${result.reason}`);
 * ```
 */
export async function renderPng(svg: string, options: PngOptions = {}): Promise<PngResult> {
  const wanted = options.fontFiles ?? DEFAULT_FONT_FILES;
  const fontFiles = wanted.filter((f) => existsSync(f));
  if (fontFiles.length === 0) {
    return {
      ok: false,
      reason: `no font file found (looked for ${wanted.join(', ') || 'nothing'}); install fonts-dejavu-core`,
    };
  }
  let resvg: ResvgModule;
  try {
    const mod = (await import('@resvg/resvg-js')) as unknown as ResvgModule & { default?: ResvgModule };
    resvg = typeof mod.Resvg === 'function' ? mod : mod.default!;
  } catch (cause) {
    return { ok: false, reason: `the PNG renderer @resvg/resvg-js did not load: ${String(cause)}` };
  }
  try {
    const widthMatch = /<svg[^>]*\swidth="(\d+(?:\.\d+)?)"/.exec(svg);
    const svgWidth = widthMatch ? Number(widthMatch[1]) : 960;
    const renderer = new resvg.Resvg(svg, {
      background: '#ffffff',
      fitTo: { mode: 'width', value: Math.round(options.widthPx ?? svgWidth * 2) },
      font: {
        loadSystemFonts: false,
        fontFiles,
        defaultFontFamily: options.defaultFontFamily ?? 'DejaVu Sans',
      },
    });
    return { ok: true, png: renderer.render().asPng() };
  } catch (cause) {
    return { ok: false, reason: `PNG rendering failed: ${String(cause)}` };
  }
}
