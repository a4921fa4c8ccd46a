// Passing features over time: a hand-written SVG step chart (x = time, y = passing features).
import type { ProgressResponse } from '../../api-types.js';
import { svg } from './dom.js';
import { dateTime } from './format.js';

const W = 960;
const H = 200;
const PAD = { left: 40, right: 12, top: 12, bottom: 26 };

/** Height of the value label's glyphs above its baseline (12 px font), so it never leaves the drawing. */
const LABEL_ASCENT = 12;

/** Baseline of the `12 / 40` label: above the line, or below it when the line runs along the top. */
export function valueLabelY(lineY: number): number {
  const above = lineY - 6;
  return above - LABEL_ASCENT >= 0 ? above : lineY + LABEL_ASCENT + 4;
}

/** The horizontal gridlines at 0, ¼, ½, ¾ and all of `total`, each with its value. */
function appendGridlines(root: SVGElement, total: number, y: (n: number) => number): void {
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const value = Math.round(total * tick);
    root.append(
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(value), y2: y(value), class: 'chart-gridline' }),
      svg(
        'text',
        { x: PAD.left - 6, y: y(value) + 4, class: 'chart-label', 'text-anchor': 'end' },
        String(value),
      ),
    );
  }
}

/** The passing count as a step line from zero at the first point to the chart's right edge. */
function stepPath(
  points: ProgressResponse['points'],
  times: number[],
  x: (t: number) => number,
  y: (n: number) => number,
): string {
  let d = `M${x(times[0]!).toFixed(1)},${y(0).toFixed(1)}`;
  points.forEach((point, i) => {
    const px = x(times[i]!).toFixed(1);
    d += ` H${px} V${y(point.passing).toFixed(1)}`;
  });
  return `${d} H${(W - PAD.right).toFixed(1)}`;
}

/** Renders the chart of `progress` as an `<svg>` element. */
export function progressChart(progress: ProgressResponse): SVGElement {
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    id: 'progress-chart',
    preserveAspectRatio: 'xMinYMin meet',
    role: 'img',
    'aria-label': 'passing features over time',
  });
  const points = progress.points;
  const total = Math.max(progress.total, ...points.map((p) => p.passing), 1);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const y = (n: number) => PAD.top + innerH - (n / total) * innerH;
  appendGridlines(root, total, y);
  if (points.length === 0) {
    root.append(
      svg('text', { x: W / 2, y: H / 2, class: 'chart-label', 'text-anchor': 'middle' }, 'no verdicts yet'),
    );
    return root;
  }
  const times = points.map((p) => Date.parse(p.at));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times, t0 + 1);
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * innerW;
  const d = stepPath(points, times, x, y);
  const last = points[points.length - 1]!;
  root.append(
    svg('line', {
      x1: PAD.left,
      x2: W - PAD.right,
      y1: y(progress.total),
      y2: y(progress.total),
      class: 'chart-total',
    }),
    svg('path', { d: `${d} V${y(0)} H${x(t0)} Z`, class: 'chart-area' }),
    svg('path', { d, class: 'chart-line', 'data-points': String(points.length) }),
    svg('text', { x: PAD.left, y: H - 6, class: 'chart-label' }, dateTime(new Date(t0).toISOString())),
    svg(
      'text',
      { x: W - PAD.right, y: H - 6, class: 'chart-label', 'text-anchor': 'end' },
      dateTime(last.at),
    ),
    svg(
      'text',
      { x: W - PAD.right, y: valueLabelY(y(last.passing)), class: 'chart-value', 'text-anchor': 'end' },
      `${last.passing} / ${progress.total}`,
    ),
  );
  return root;
}
