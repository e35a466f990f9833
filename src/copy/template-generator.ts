// The embedded copy generator: deterministic templates that build varied headlines, primary texts
// and descriptions from the brand profile, the angle, the tone and the creatives' formats, each
// fitted to the platform's limits, so copy works offline. Same brief, same texts.

import { COPY_LIMITS, hasEmoji, textLength } from './limits.js';
import type { CopyBrief, CopyGenerator, CopyTexts, Tone } from './port.js';

/** Voice words that point at one of the four tones; anything else reads as friendly. */
const VOICE_TONES: Record<string, Tone> = {
  professional: 'professional',
  expert: 'professional',
  trusted: 'professional',
  premium: 'professional',
  authoritative: 'professional',
  formal: 'professional',
  confident: 'professional',
  casual: 'casual',
  playful: 'casual',
  fun: 'casual',
  witty: 'casual',
  relaxed: 'casual',
  cheeky: 'casual',
  bold: 'casual',
  urgent: 'urgent',
  direct: 'urgent',
  energetic: 'urgent',
  punchy: 'urgent',
  friendly: 'friendly',
  warm: 'friendly',
  caring: 'friendly',
  helpful: 'friendly',
  kind: 'friendly',
  welcoming: 'friendly',
};

/** The tone the templates write in: the one asked for, else the first voice word that names one. */
export function toneOf(brief: Pick<CopyBrief, 'tone' | 'voice'>): Tone {
  if (brief.tone) return brief.tone;
  for (const word of brief.voice) {
    const t = VOICE_TONES[word.trim().toLowerCase()];
    if (t) return t;
  }
  return 'friendly';
}

/** Cuts `text` to at most `max` characters at a word boundary, without a dangling connector. */
export function fitText(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (textLength(clean) <= max) return clean;
  const chars = [...clean].slice(0, max);
  let cut = chars.join('');
  const space = cut.lastIndexOf(' ');
  if (space > max / 3) cut = cut.slice(0, space);
  return cut.replace(/[\s,;:|\-–—(&]+$/u, '').trim() || chars.join('').trim();
}

function stripEmoji(text: string): string {
  return [...text]
    .filter((c) => !hasEmoji(c))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A short name for the product: the first clause of its description. */
function productPhrase(description: string | null, brandName: string): string {
  if (!description) return `${brandName} favourites`;
  const first = description
    .split(/(?<=[.!?])\s|[\n;]/u)[0]
    .replace(/[.!?]+$/u, '')
    .trim();
  return fitText(first || description, 60);
}

function sentence(text: string): string {
  const t = text.trim();
  if (!t) return '';
  const capital = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/u.test(capital) ? capital : `${capital}.`;
}

const HEADLINES: Record<Tone, string[]> = {
  professional: ['{product} by {brand}', 'Discover {product}', '{Angle}', 'The smarter choice: {product}', '{brand}: {angle}', '{product}, done right'],
  casual: ['Meet {product}', '{Angle}', 'Your new favourite: {product}', 'Treat yourself to {product}', '{product}? Yes please', 'Say hi to {brand}'],
  urgent: ["Don't miss {product}", '{Angle}, while it lasts', 'Act now: {product}', 'Last chance for {product}', 'Get {product} today', '{brand}: {angle}'],
  friendly: [
    'Made for you: {product}',
    '{Angle}',
    "You'll love {product}",
    'Hello from {brand}',
    '{product}, from {brand} with care',
    'Say hello to {product}',
  ],
};

const OPENERS: Record<Tone, string[]> = {
  professional: ['Introducing {product} from {brand}', 'Trusted by people who expect more: {product}', '{brand} brings you {product}'],
  casual: ['Okay, real talk: {product} is kind of great', 'Meet {product}', 'Your day just got better with {product}'],
  urgent: ["Don't wait: {product} is here", 'Now is the time for {product}', 'Move fast: {product} from {brand}'],
  friendly: ['We made {product} with you in mind', 'Say hello to {product} from {brand}', 'Good news: {product} is here for you'],
};

const CLOSERS: Record<Tone, string[]> = {
  professional: ['Learn more today', 'See the details', 'Find out more'],
  casual: ['Take a look', 'Go on, have a look', 'Check it out'],
  urgent: ['Shop now before it is gone', 'Get yours today', 'Act now'],
  friendly: ['Come and see', 'We would love to show you', 'Have a look around'],
};

const DESCRIPTIONS: Record<Tone, string[]> = {
  professional: ['{product} by {brand}', '{Angle}', 'Details at {site}', 'Quality from {brand}'],
  casual: ['{Angle}', 'Meet {product}', 'More at {site}', 'Good stuff from {brand}'],
  urgent: ['{Angle}, act now', 'Get {product} today', 'Shop at {site}', 'Limited time at {brand}'],
  friendly: ['{Angle}', 'Made with care by {brand}', 'Visit us at {site}', 'Say hello to {product}'],
};

/** Texts without product or angle, for when the brand's words to avoid rule the others out. */
const FALLBACK = ['Take a look', 'Learn more', 'See what is new', 'Find out more', 'Have a look'];

function fill(pattern: string, values: { product: string; brand: string; angle: string; site: string }): string | null {
  if (/\{angle\}/iu.test(pattern) && !values.angle) return null;
  if (pattern.includes('{site}') && !values.site) return null;
  const angleCap = values.angle ? values.angle[0].toUpperCase() + values.angle.slice(1) : '';
  return pattern
    .replaceAll('{product}', values.product)
    .replaceAll('{brand}', values.brand)
    .replaceAll('{Angle}', angleCap)
    .replaceAll('{angle}', values.angle)
    .replaceAll('{site}', values.site);
}

export class TemplateCopyGenerator implements CopyGenerator {
  readonly model = 'template';

  async generate(brief: CopyBrief): Promise<CopyTexts> {
    return templateTexts(brief);
  }
}

/** The template generator's candidate texts, longest useful first, every one within the platform's limits. */
export function templateTexts(brief: CopyBrief): CopyTexts {
  const limits = COPY_LIMITS[brief.platform];
  const clean = (s: string) => (limits.emoji ? s.replace(/\s+/g, ' ').trim() : stripEmoji(s));
  const tone = toneOf(brief);
  const values = {
    product: clean(productPhrase(brief.productDescription, brief.brandName)),
    brand: clean(brief.brandName),
    angle: clean(fitText(brief.angle ?? '', 80)),
    site: brief.website ? brief.website.replace(/^https?:\/\//u, '').replace(/\/+$/u, '') : '',
  };
  const video = brief.creatives.some((c) => c.type === 'video');
  const keep = (list: Array<string | null>, max: number) => [
    ...new Set(
      list
        .filter((t): t is string => Boolean(t))
        .map((t) => fitText(clean(t), max))
        .filter((t) => t.length > 0),
    ),
  ];

  const headlines = keep([...HEADLINES[tone].map((p) => fill(p, values)), values.brand, ...FALLBACK], limits.headlines);
  const descriptions = keep([...DESCRIPTIONS[tone].map((p) => fill(p, values)), ...FALLBACK], limits.descriptions);

  const details = brief.productDescription ? sentence(clean(brief.productDescription)) : '';
  const angle = values.angle ? sentence(values.angle) : '';
  const watch = video ? sentence(`Watch ${values.product} in action`) : '';
  const primary: Array<string | null> = OPENERS[tone].map((opener, i) => {
    const closer = CLOSERS[tone][i % CLOSERS[tone].length];
    const site = values.site ? ` ${sentence(`${closer} at ${values.site}`)}` : ` ${sentence(closer)}`;
    const open = sentence(fill(opener, values)!);
    // TikTok's ad text is one short line: the opener, then as much of the rest as fits.
    if (brief.platform === 'tiktok') {
      const short = [open, angle, video && i === 0 ? watch : ''].filter(Boolean).join(' ');
      return textLength(short) <= limits.primaryTexts ? short : open;
    }
    return [open, i === 1 ? angle : '', details, i === 0 ? angle : '', watch, site.trim()].filter(Boolean).join(' ');
  });
  const primaryTexts = keep([...primary, ...CLOSERS[tone].map(sentence), ...FALLBACK.map(sentence)], limits.primaryTexts);
  return { headlines, primaryTexts, descriptions };
}
