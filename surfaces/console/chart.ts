// The reports chart, drawn on the server as SVG: spend per day as bars and, with a connected tracker,
// revenue per day as a line and ROAS as a dashed line on its own axis. It carries role="img" and an
// aria-label that says in words what it shows (the numbers are also in the table below it).

import { formatMoney } from '../../src/money/convert.js';
import { esc } from './layout.js';

export interface DayPoint {
  day: string;
  spend: number;
  revenue?: number;
  roas?: number | null;
}

const W = 960;
const H = 300;
const M = { top: 20, right: 64, bottom: 44, left: 84 };

/** A round upper bound for an axis holding `max`. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

function describe(points: DayPoint[], currency: string, tracker: boolean, totals: { spend: number; revenue?: number; roas?: number | null }): string {
  if (!points.length) return 'Chart of spend per day: there is no day in this period.';
  const from = points[0].day;
  const to = points[points.length - 1].day;
  const top = points.reduce((a, b) => (b.spend > a.spend ? b : a));
  const parts = [
    `Spend per day from ${from} to ${to}, ${points.length} ${points.length === 1 ? 'day' : 'days'}: ${formatMoney(totals.spend, currency)} in all`,
    top.spend > 0 ? `highest ${formatMoney(top.spend, currency)} on ${top.day}` : 'nothing was spent',
  ];
  if (tracker) {
    parts.push(`tracker revenue ${formatMoney(totals.revenue ?? 0, currency)} in all`);
    parts.push(totals.roas === null || totals.roas === undefined ? 'ROAS not defined (no spend)' : `ROAS ${totals.roas.toFixed(2)} over the period`);
  }
  return `${parts.join('; ')}.`;
}

/**
 * The chart as an SVG element (a figure with its caption and legend around it); `points` has one
 * entry per day of the period, days without delivery at zero.
 */
export function spendChart(points: DayPoint[], currency: string, totals: { spend: number; revenue?: number; roas?: number | null }): string {
  const tracker = totals.revenue !== undefined;
  const label = describe(points, currency, tracker, totals);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const moneyMax = niceMax(Math.max(0, ...points.map((p) => Math.max(p.spend, p.revenue ?? 0))));
  const roasMax = niceMax(Math.max(0, ...points.map((p) => p.roas ?? 0)));
  const slot = points.length ? plotW / points.length : plotW;
  const x = (i: number) => M.left + slot * i + slot / 2;
  const y = (v: number) => M.top + plotH - (v / moneyMax) * plotH;
  const yr = (v: number) => M.top + plotH - (v / roasMax) * plotH;
  const parts: string[] = [];
  const anyMoney = points.some((p) => p.spend > 0 || (p.revenue ?? 0) > 0);
  const roasDrawn = tracker && points.some((p) => p.roas !== null && p.roas !== undefined);
  // Grid and the money axis: 0, half, the top; a period with nothing in it has its zero line alone
  // (no axis of repeated zeros), and an axis label is never written twice.
  const written = new Set<string>();
  for (const f of anyMoney ? [0, 0.5, 1] : [0]) {
    const v = moneyMax * f;
    parts.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#d0d5dd" stroke-width="1"/>`);
    const text = formatMoney(Math.round(v), currency);
    if (!written.has(text))
      parts.push(`<text x="${M.left - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#3b4351">${esc(text)}</text>`);
    written.add(text);
    if (roasDrawn)
      parts.push(`<text x="${M.left + plotW + 8}" y="${(yr(roasMax * f) + 4).toFixed(1)}" font-size="12" fill="#7a4500">${(roasMax * f).toFixed(1)}</text>`);
  }
  const barW = Math.max(2, Math.min(36, slot * 0.6));
  const every = Math.max(1, Math.ceil(points.length / 12));
  points.forEach((p, i) => {
    const top = y(p.spend);
    parts.push(
      `<rect class="bar" x="${(x(i) - barW / 2).toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${(M.top + plotH - top).toFixed(1)}" fill="#1a4fc4" data-day="${esc(p.day)}" data-spend="${p.spend}"/>`,
    );
    if (i % every === 0)
      parts.push(`<text x="${x(i).toFixed(1)}" y="${H - M.bottom + 18}" text-anchor="middle" font-size="12" fill="#3b4351">${esc(p.day.slice(5))}</text>`);
  });
  if (tracker && points.some((p) => p.revenue !== undefined)) {
    const line = (f: (p: DayPoint) => number | null | undefined, scale: (v: number) => number) =>
      points
        .map((p, i) => [i, f(p)] as const)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([i, v], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)} ${scale(v!).toFixed(1)}`)
        .join(' ');
    parts.push(`<path class="revenue" d="${line((p) => p.revenue ?? 0, y)}" fill="none" stroke="#1d7a3e" stroke-width="2.5"/>`);
    points.forEach((p, i) => {
      if (p.revenue === undefined) return;
      parts.push(
        `<circle class="revenue-point" cx="${x(i).toFixed(1)}" cy="${y(p.revenue).toFixed(1)}" r="3.5" fill="#1d7a3e" data-day="${esc(p.day)}" data-revenue="${p.revenue}" data-roas="${p.roas ?? ''}"/>`,
      );
    });
    if (roasDrawn) {
      parts.push(`<path class="roas" d="${line((p) => p.roas, yr)}" fill="none" stroke="#a05a00" stroke-width="2" stroke-dasharray="6 4"/>`);
      // Each day's ROAS is a mark of its own too, so a single day (a line of one point) is seen.
      points.forEach((p, i) => {
        if (p.roas === null || p.roas === undefined) return;
        parts.push(
          `<rect class="roas-point" x="${(x(i) - 4).toFixed(1)}" y="${(yr(p.roas) - 4).toFixed(1)}" width="8" height="8" fill="#a05a00" data-day="${esc(p.day)}" data-roas="${p.roas}"/>`,
        );
      });
    }
  }
  if (!points.length) parts.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-size="14" fill="#3b4351">No data in this period</text>`);
  else if (!anyMoney)
    parts.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" font-size="14" fill="#3b4351">Nothing spent or earned in this period</text>`);
  parts.push(`<line x1="${M.left}" x2="${M.left + plotW}" y1="${M.top + plotH}" y2="${M.top + plotH}" stroke="#6b7382" stroke-width="1"/>`);
  const svg = `<svg id="chart" role="img" aria-label="${esc(label)}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
  const drawn = tracker && points.some((p) => p.revenue !== undefined);
  const legend = `<ul class="legend"><li><span class="swatch sw-spend"></span>Spend per day (${esc(currency)})</li>${
    drawn ? `<li><span class="swatch sw-revenue"></span>Tracker revenue per day</li>` : ''
  }${roasDrawn ? `<li><span class="swatch sw-roas"></span>ROAS (right axis)</li>` : ''}</ul>`;
  return `<figure class="chart">${svg}${legend}<figcaption id="chart-caption">${esc(label)}</figcaption></figure>`;
}
