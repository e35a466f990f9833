// Naming-convention templates: literal text with `{variable}`, `{variable|filter}` and
// `{date:FORMAT}` placeholders; `{{` and `}}` stand for literal braces.

export const NAMING_VARIABLES: Record<string, { description: string; example: string }> = {
  brand: { description: 'Brand name', example: 'Shoes Co' },
  account: { description: 'Ad account name', example: 'Shoes US' },
  platform: { description: 'meta or tiktok', example: 'meta' },
  objective: { description: 'Campaign objective', example: 'OUTCOME_SALES' },
  country: { description: 'Targeted countries, joined with +', example: 'US' },
  audience: { description: 'Audience or targeting set name', example: 'Lookalike 1%' },
  age: { description: 'Age range', example: '18-65' },
  creative: { description: 'Creative name', example: 'hero' },
  format: { description: 'Creative format: image or video', example: 'image' },
  name: { description: 'The name typed for this object', example: 'Spring sale' },
  index: { description: 'Position among its siblings, from 1', example: '1' },
  date: { description: 'Launch date; {date:YYYY-MM-DD} chooses the format (YYYY, YY, MM, DD)', example: '' },
};

export const NAMING_FILTERS = ['upper', 'lower', 'slug'] as const;

type Token = { text: string } | { variable: string; arg?: string; filter?: (typeof NAMING_FILTERS)[number] };

export interface TemplateProblem {
  message: string;
}

/** Splits a template into tokens, or lists what is wrong with it. */
export function parseTemplate(template: string): { tokens: Token[]; problems: TemplateProblem[] } {
  const tokens: Token[] = [];
  const problems: TemplateProblem[] = [];
  let text = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      text += c;
      i++;
      continue;
    }
    if (c === '}') {
      problems.push({ message: `unmatched "}" at position ${i + 1}; write "}}" for a literal brace` });
      continue;
    }
    if (c !== '{') {
      text += c;
      continue;
    }
    const end = template.indexOf('}', i);
    if (end < 0) {
      problems.push({ message: `"{" at position ${i + 1} is never closed` });
      break;
    }
    const body = template.slice(i + 1, end);
    const m = /^([a-z]+)(?::([A-Za-z0-9 _.\-/]+))?(?:\|([a-z]+))?$/.exec(body);
    if (!m) problems.push({ message: `"{${body}}" is not a placeholder; use {variable}, {variable|filter} or {date:FORMAT}` });
    else if (!(m[1] in NAMING_VARIABLES)) problems.push({ message: `unknown variable "${m[1]}"; known: ${Object.keys(NAMING_VARIABLES).join(', ')}` });
    else if (m[3] && !NAMING_FILTERS.includes(m[3] as never)) problems.push({ message: `unknown filter "${m[3]}"; known: ${NAMING_FILTERS.join(', ')}` });
    else if (m[2] && m[1] !== 'date') problems.push({ message: `only {date:FORMAT} takes a format` });
    else {
      if (text) tokens.push({ text });
      text = '';
      tokens.push({ variable: m[1], arg: m[2], filter: m[3] as (typeof NAMING_FILTERS)[number] | undefined });
    }
    i = end;
  }
  if (text) tokens.push({ text });
  return { tokens, problems };
}

function formatDate(ms: number, format: string): string {
  const d = new Date(ms);
  const parts: Record<string, string> = {
    YYYY: String(d.getUTCFullYear()),
    YY: String(d.getUTCFullYear()).slice(2),
    MM: String(d.getUTCMonth() + 1).padStart(2, '0'),
    DD: String(d.getUTCDate()).padStart(2, '0'),
  };
  return format.replace(/YYYY|YY|MM|DD/g, (t) => parts[t]);
}

function applyFilter(value: string, filter?: string): string {
  if (filter === 'upper') return value.toUpperCase();
  if (filter === 'lower') return value.toLowerCase();
  if (filter === 'slug')
    return value
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
  return value;
}

/** Renders a valid template with `values` (missing variables render empty) at date `now`. */
export function renderTemplate(template: string, values: Record<string, string>, now: number): string {
  return parseTemplate(template)
    .tokens.map((t) =>
      'text' in t ? t.text : applyFilter(t.variable === 'date' ? formatDate(now, t.arg ?? 'YYYY-MM-DD') : (values[t.variable] ?? ''), t.filter),
    )
    .join('')
    .trim();
}

export const DEFAULT_TEMPLATES = {
  campaign: '{brand} | {objective} | {country} | {date:YYYY-MM-DD}',
  adset: '{audience} | {country} | {age}',
  ad: '{creative} | {format} | v{index}',
};
