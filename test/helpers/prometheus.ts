// A strict reader of the Prometheus text exposition format 0.0.4 (prometheus.io/docs/instrumenting/
// exposition_formats): every line is a HELP, a TYPE or a sample of a declared family; label values
// are quoted with \\, \" and \n escapes only; no series appears twice; empty lines are ignored. It throws naming the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the sample `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** A float as Go's strconv.ParseFloat reads it, which the format names: NaN and Inf in any case (prom-client writes "Nan"). */
function parseValue(text: string, where: string): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: "${text}" is not a sample value`);
  return Number(text);
}

/** Reads `{a="x",b="y"}` starting at `i` (at the "{"); answers the labels and the index after "}". */
function parseLabels(line: string, i: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  i++;
  while (line[i] !== '}') {
    const eq = line.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: a label without "="`);
    const name = line.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label "${name}" twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label "${name}" value is not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] !== '\\') {
        value += line[j];
        continue;
      }
      const next = line[++j];
      if (next === '\\' || next === '"') value += next;
      else if (next === 'n') value += '\n';
      else throw new Error(`${where}: bad escape "\\${next}" in label "${name}"`);
    }
    if (line[j] !== '"') throw new Error(`${where}: label "${name}" value is not closed`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`${where}: expected "," or "}" after label "${name}"`);
  }
  return { labels, end: i + 1 };
}

/** The family a sample belongs to: itself, or a histogram's/summary's name without its suffix. */
function familyOf(name: string, types: Map<string, string>): string | null {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const type = types.get(base);
    if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
  }
  return null;
}

/** Parses `text` strictly; throws at the first line that breaks the format. */
export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const seen = new Set<string>();
  const samples: Sample[] = [];
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, n) => {
    const where = `line ${n + 1} (${line.slice(0, 80)})`;
    // "Empty lines are ignored" (the format's own words); prom-client puts one between families.
    if (line === '') return;
    if (/^\s/.test(line)) throw new Error(`${where}: leading whitespace`);
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!m) throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type "${rest}"`);
        if (types.has(name)) throw new Error(`${where}: TYPE of ${name} twice`);
        if (samples.some((s) => familyOf(s.name, new Map([[name, rest]])) === name)) throw new Error(`${where}: TYPE after samples of ${name}`);
        types.set(name, rest);
      } else {
        if (helps.has(name)) throw new Error(`${where}: HELP of ${name} twice`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`${where}: bad escape in HELP`);
        helps.add(name);
      }
      return;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`${where}: no sample name`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`${where}: bad sample name`);
    let labels: Record<string, string> = {};
    let i = nameEnd;
    if (line[i] === '{') ({ labels, end: i } = parseLabels(line, i, where));
    if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`);
    const parts = line.slice(i + 1).split(' ');
    if (parts.length > 2 || (parts.length === 2 && !/^-?\d+$/.test(parts[1]))) throw new Error(`${where}: expected a value and an optional timestamp`);
    const value = parseValue(parts[0], where);
    const family = familyOf(name, types);
    if (!family) throw new Error(`${where}: ${name} belongs to no declared family`);
    if (types.get(family) === 'histogram' && name.endsWith('_bucket') && !('le' in labels)) throw new Error(`${where}: a bucket without "le"`);
    const key = `${name}{${Object.entries(labels)
      .sort()
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(',')}}`;
    if (seen.has(key)) throw new Error(`${where}: series ${key} twice`);
    seen.add(key);
    samples.push({ name, labels, value });
  });
  return {
    types,
    samples,
    value(name, want = {}) {
      const hits = samples.filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v));
      return hits.reduce((sum, s) => sum + s.value, 0);
    },
  };
}
