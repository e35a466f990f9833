// The console's one layout: a header naming the signed-in person with a sign-out form, the navigation
// (the brands, then the pages of the brand shown), one `main` with one `h1`, and the stylesheet the
// service serves itself. No script: every page works without JavaScript.

import { esc } from '../oauth/html.js';

export { esc };

/** The path of the stylesheet (served by routes.ts with a hash of its text, so it can be cached for good). */
export const STYLESHEET_PATH = '/console/assets/console.css';

/** The pages of a brand, in navigation order: [path under the brand, label]. */
export const BRAND_PAGES: ReadonlyArray<readonly [string, string]> = [
  ['', 'Overview'],
  ['/launches', 'Launches'],
  ['/reviews', 'Reviews'],
  ['/board', 'Board'],
  ['/reports', 'Reports'],
  ['/automations', 'Automations'],
  ['/activity', 'Activity'],
];

export interface Viewer {
  name: string;
  email: string;
  /** e.g. "owner of Demo Agency". */
  roles: string;
  csrf: string;
}

export interface LayoutInput {
  title: string;
  viewer: Viewer | null;
  /** The brand whose pages the navigation lists, and the page shown (a path under it). */
  brand?: { id: number; name: string; current: string };
  /** The page's own h1 and content. */
  body: string;
  /** A sentence shown at the top (after a form did something). */
  notice?: string | null;
  /** A sentence saying what went wrong, shown at the top. */
  error?: string | null;
}

/** Hidden inputs carrying `fields` through a form post. */
export function hidden(fields: Record<string, string | number | null | undefined>): string {
  return Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
}

function header(viewer: Viewer | null): string {
  const who = viewer
    ? `<div class="who"><span>Signed in as <strong id="who">${esc(viewer.name)}</strong> <span class="muted">(${esc(viewer.roles)})</span></span>
<a class="account-link" href="/account">Your account and keys</a>
<form method="post" action="/console/sign-out" class="inline-form">${hidden({ csrf_token: viewer.csrf })}<button type="submit" class="link-button">Sign out</button></form></div>`
    : '';
  return `<header class="top"><a class="app" href="/console">svc console</a>${who}</header>`;
}

function nav(brand: LayoutInput['brand']): string {
  const items = [`<li><a href="/console"${brand ? '' : ' aria-current="page"'}>Brands</a></li>`];
  if (brand) {
    const base = `/console/brands/${brand.id}`;
    items.push(`<li class="brand-name">${esc(brand.name)}</li>`);
    for (const [path, label] of BRAND_PAGES) {
      const current = brand.current === path ? ' aria-current="page"' : '';
      items.push(`<li><a href="${base}${path}"${current}>${label}</a></li>`);
    }
  }
  return `<nav aria-label="Console"><ul>${items.join('')}</ul></nav>`;
}

/** A whole console page. */
export function layout(o: LayoutInput): string {
  const notice = o.notice ? `<div class="notice" role="status" id="notice">${esc(o.notice)}</div>` : '';
  const error = o.error ? `<div class="error" role="alert" id="page-error">${esc(o.error)}</div>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)} · svc console</title><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><a class="skip-link" href="#main">Skip to main content</a>${header(o.viewer)}${o.viewer ? nav(o.brand) : ''}<main id="main" tabindex="-1">${error}${notice}${o.body}</main></body></html>`;
}

/** A table, or the sentence saying what to do when it has no rows. */
export function table(o: { id: string; caption?: string; head: string[]; rows: string[][]; empty: string; numeric?: number[] }): string {
  if (!o.rows.length) return `<p class="empty" id="${esc(o.id)}-empty">${o.empty}</p>`;
  const num = new Set(o.numeric ?? []);
  const cell = (tag: 'th' | 'td', html: string, i: number) =>
    `<${tag}${num.has(i) ? ' class="num"' : ''}${tag === 'th' ? ' scope="col"' : ''}>${html}</${tag}>`;
  return scrollBox(
    `<table id="${esc(o.id)}">${o.caption ? `<caption>${esc(o.caption)}</caption>` : ''}<thead><tr>${o.head.map((h, i) => cell('th', esc(h), i)).join('')}</tr></thead>
<tbody>${o.rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('\n')}</tbody></table>`,
    o.caption ?? o.head.join(', '),
  );
}

/**
 * A wide table in a box of its own that scrolls sideways on a narrow screen, so the page never does
 * (a keyboard reaches it: it is focusable and named, as WCAG's scrollable-region rule asks).
 */
export function scrollBox(html: string, label: string): string {
  return `<div class="table-wrap" tabindex="0" role="region" aria-label="${esc(label)}">${html}</div>`;
}

/** A labelled select; `options` are [value, label]. */
export function select(o: { id: string; name: string; label: string; value: string; options: Array<readonly [string, string]> }): string {
  return `<div class="field"><label for="${esc(o.id)}">${esc(o.label)}</label><select id="${esc(o.id)}" name="${esc(o.name)}">${o.options
    .map(([v, l]) => `<option value="${esc(v)}"${v === o.value ? ' selected' : ''}>${esc(l)}</option>`)
    .join('')}</select></div>`;
}

/** A status word as a small badge. */
export function badge(status: string): string {
  return `<span class="badge badge-${esc(status.toLowerCase().replace(/[^a-z_]/g, ''))}">${esc(status.replace(/_/g, ' '))}</span>`;
}
