import { reportBlocks, type ReportBlock } from './report-content.js';
import type { RunReport } from './run-report.js';

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function href(target: string): string {
  return escapeHtml(encodeURI(target.split('\\').join('/')));
}

// Cells that carry a verdict get a class, so a missed goal or a regression stands out.
function cellClass(text: string): string {
  if (/^(MISSED|REGRESSION|failed|interrupted|not run)/.test(text)) return ' class="bad"';
  if (/^(met|complete|improvement)/.test(text)) return ' class="good"';
  return '';
}

function table(b: Extract<ReportBlock, { kind: 'table' }>): string {
  const align = (i: number): string => {
    const a = b.table.columns[i]?.align;
    return a && a !== 'left' ? ` style="text-align:${a}"` : '';
  };
  const head = b.table.columns.map((c, i) => `<th${align(i)}>${escapeHtml(c.header)}</th>`).join('');
  const rows = b.table.rows
    .map(
      (r) =>
        `<tr>${r.map((cell, i) => `<td${align(i)}${cellClass(cell)}>${escapeHtml(cell)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<figure class="table"${b.id ? ` id="${escapeHtml(b.id)}"` : ''}><figcaption>${escapeHtml(b.table.caption)}</figcaption><table><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table></figure>`;
}

function block(b: ReportBlock): string {
  switch (b.kind) {
    case 'heading':
      return `<h${b.level}${b.id ? ` id="${escapeHtml(b.id)}"` : ''}>${escapeHtml(b.text)}</h${b.level}>`;
    case 'paragraph':
      return `<p>${escapeHtml(b.text)}</p>`;
    case 'banner':
      return `<p class="banner">${escapeHtml(b.text)}</p>`;
    case 'table':
      return table(b);
    case 'links':
      return `<p class="links">${b.links.map((l) => `<a href="${href(l.href)}">${escapeHtml(l.label)}</a>`).join(' · ')}</p>`;
    case 'charts':
      // The SVG is inlined, so the file opens from disk with nothing beside it; the link is to
      // the chart's own file in the scenario's folder.
      return b.charts
        .map(
          (c) =>
            `<figure class="chart"><div class="svg">${c.svg}</div><figcaption>${escapeHtml(c.title)} · <a href="${href(c.file)}">SVG file</a></figcaption></figure>`,
        )
        .join('\n');
    case 'code':
      return `<pre>${escapeHtml(b.text)}</pre>`;
  }
}

const STYLE = `
body { font-family: system-ui, "DejaVu Sans", sans-serif; margin: 2rem auto; max-width: 1200px; padding: 0 1rem; color: #1b1f24; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #d0d7de; padding-bottom: .3rem; } h3 { margin-top: 1.5rem; }
table { border-collapse: collapse; font-size: .9rem; margin: .3rem 0 1rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; vertical-align: top; }
th { background: #f6f8fa; }
figure { margin: 0 0 1rem; } figcaption { font-size: .85rem; color: #57606a; margin: .2rem 0; }
td.bad { color: #a40e26; font-weight: 600; } td.good { color: #116329; }
.banner { background: #fff1e5; border-left: 4px solid #bc4c00; padding: .5rem .8rem; font-weight: 600; }
.chart .svg svg { max-width: 100%; height: auto; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; font-size: .8rem; }
nav ul { columns: 2; }
`;

/** `report.html` of a run of `all`: one self-contained file (styles and charts inline, no script). */
export function runReportHtml(report: RunReport): string {
  const blocks = reportBlocks(report);
  const title = blocks[0]?.kind === 'heading' ? blocks[0].text : 'fastpath benchmarks';
  const nav = report.sections
    .map(
      (s) =>
        `<li><a href="#scenario-${escapeHtml(s.record.name)}">${escapeHtml(s.record.name)}</a> (${escapeHtml(s.record.status)})</li>`,
    )
    .join('');
  const body = blocks.map(block);
  // The contents go after the title and the first paragraphs, before the summary.
  const summaryAt = blocks.findIndex((b) => b.kind === 'heading' && b.id === 'summary');
  body.splice(
    summaryAt < 0 ? 1 : summaryAt,
    0,
    `<nav><ul><li><a href="#summary">Summary</a></li><li><a href="#machine">Machine and command</a></li>${nav}</ul></nav>`,
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}
