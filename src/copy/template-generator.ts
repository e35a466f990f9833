// The embedded copy generator: deterministic templates that build varied headlines, primary texts
// and descriptions from the brand profile, the angle, the tone and the creatives' formats, each
// fitted to the platform's limits, so copy works offline. Same brief, same texts.

import { COPY_LIMITS, hasEmoji, textLength } from '../platforms/text-limits.js';
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

/**
 * Words that introduce what follows the product's name in a description ("leather running shoes
 * *made in Porto*"): the name ends there, and the rest becomes a sentence of its own.
 */
const NAME_ENDS = /[,;:(]|\s[-–—]\s|\s(?:made|with|for|from|that|which|designed|built|crafted|handmade|stitched|now|in)\s/iu;

/** Voice words that read well in front of a product's name ("premium leather running shoes"). */
const PRODUCT_ADJECTIVES = new Set([
  'premium',
  'bold',
  'fresh',
  'modern',
  'classic',
  'elegant',
  'simple',
  'sustainable',
  'handmade',
  'playful',
  'comfortable',
  'honest',
  'natural',
  'timeless',
]);

interface ProductWords {
  /** The product's name as it reads inside a sentence: "leather running shoes". */
  name: string;
  /** The same at the start of a sentence: "Leather running shoes". */
  Name: string;
  /** What the description says beyond the name, as sentences ("Made in Porto. Free returns."), or ''. */
  details: string;
}

/** Lower-cases the first letter of a phrase that is not a name (its first word starts with no acronym and is not CamelCase). */
function inSentence(phrase: string): string {
  const first = phrase.split(' ')[0] ?? '';
  const properName = /^\p{Lu}{2}/u.test(first) || /\p{Ll}\p{Lu}/u.test(first);
  return properName ? phrase : phrase[0].toLowerCase() + phrase.slice(1);
}

function capital(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : '';
}

/**
 * The product's name (the head of its description's first sentence) and the rest of the description,
 * so a text names the product once and says the rest in its own words, never the same text twice.
 */
export function productWords(description: string | null, brandName: string): ProductWords {
  if (!description?.trim()) return { name: `${brandName} favourites`, Name: `${brandName} favourites`, details: '' };
  const text = description.replace(/\s+/g, ' ').trim();
  const [first, ...others] = text.split(/(?<=[.!?])\s/u);
  const head = first.replace(/[.!?]+$/u, '');
  const cut = NAME_ENDS.exec(head.slice(1));
  const rawName = cut ? head.slice(0, cut.index + 1) : head;
  const name = inSentence(fitText(rawName, 40));
  const rest = (cut ? head.slice(cut.index + 1) : head.slice(rawName.length)).replace(/^[\s,;:(–—-]+/u, '').replace(/\)$/u, '');
  const details = [rest ? sentence(rest) : '', ...others.map(sentence)].filter(Boolean).join(' ');
  return { name, Name: capital(name), details };
}

function sentence(text: string): string {
  const t = text.trim();
  if (!t) return '';
  const cap = capital(t);
  return /[.!?]$/u.test(cap) ? cap : `${cap}.`;
}

// {product} is the name inside a sentence, {Product} at its start; {voice} a voice word that reads
// in front of it (a template using it is left out when the profile has none).
const HEADLINES: Record<Tone, string[]> = {
  professional: ['{Product} by {brand}', 'Discover our {product}', '{Angle}', '{Voice} {product} from {brand}', '{brand}: {angle}', '{Product}, done right'],
  casual: [
    'Meet our {product}',
    '{Angle}',
    'Your new favourite: {product}',
    'Treat yourself to {product}',
    '{Voice} {product}? Yes please',
    'Say hi to {brand}',
  ],
  urgent: [
    "Don't miss our {product}",
    '{Angle}, while it lasts',
    'Get your {product} today',
    'Last chance: {product}',
    '{Voice} {product}, now at {brand}',
    '{brand}: {angle}',
  ],
  friendly: [
    'Made for you: {product}',
    '{Angle}',
    "You'll love our {product}",
    'Hello from {brand}',
    '{Voice} {product}, made with care',
    'Say hello to our {product}',
  ],
};

const OPENERS: Record<Tone, string[]> = {
  professional: ['Introducing our {product}, from {brand}', '{Product} for people who expect more', '{brand} brings you {voice} {product}'],
  casual: ['Real talk: you need to see our {product}', 'Meet our {product}', 'Your day just got better with {product}'],
  urgent: ["Don't wait: get our {product} now", 'Now is the time for {product}', 'Move fast: {voice} {product} from {brand}'],
  friendly: ['We made our {product} with you in mind', 'Say hello to {voice} {product} from {brand}', 'Good news: our {product} just arrived'],
};

const CLOSERS: Record<Tone, string[]> = {
  professional: ['Learn more today', 'See the details', 'Find out more'],
  casual: ['Take a look', 'Go on, have a look', 'Check it out'],
  urgent: ['Shop now while stock lasts', 'Get yours today', 'Act now'],
  friendly: ['Come and see us', 'We would love to show you around', 'Have a look around'],
};

const DESCRIPTIONS: Record<Tone, string[]> = {
  professional: ['{Product} by {brand}', '{Angle}', 'Details at {site}', 'Quality from {brand}'],
  casual: ['{Angle}', 'Meet our {product}', 'More at {site}', 'Good stuff from {brand}'],
  urgent: ['{Angle}, act now', 'Get your {product} today', 'Shop at {site}', 'Limited time at {brand}'],
  friendly: ['{Angle}', 'Made with care by {brand}', 'Visit us at {site}', 'Say hello to our {product}'],
};

/** Texts without product or angle, for when the brand's words to avoid rule the others out. */
const FALLBACK = ['Take a look', 'Learn more', 'See what is new', 'Find out more', 'Have a look'];

interface Values {
  product: ProductWords;
  brand: string;
  angle: string;
  site: string;
  voice: string;
}

function fill(pattern: string, values: Values): string | null {
  if (/\{angle\}/iu.test(pattern) && !values.angle) return null;
  if (pattern.includes('{site}') && !values.site) return null;
  const voice = values.voice;
  // A template built around a voice word reads as the plain one without it ("our {product}").
  const withVoice = voice ? pattern : pattern.replace(/^\{Voice\} \{product\}/u, '{Product}').replace(/\{voice\} \{product\}/u, 'our {product}');
  const filled = withVoice
    .replaceAll('{Voice}', capital(voice))
    .replaceAll('{voice}', voice)
    .replaceAll('{product}', values.product.name)
    .replaceAll('{Product}', values.product.Name)
    .replaceAll('{brand}', values.brand)
    .replaceAll('{Angle}', capital(values.angle))
    .replaceAll('{angle}', values.angle)
    .replaceAll('{site}', values.site);
  // "our Demo favourites" and "our our" read badly: drop the article before a name that has its own.
  return filled.replace(/\bour (?=\S+ favourites\b)/u, '');
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
  const product = productWords(brief.productDescription ? clean(brief.productDescription) : null, clean(brief.brandName));
  const values: Values = {
    product,
    brand: clean(brief.brandName),
    angle: clean(fitText(brief.angle ?? '', 80)),
    site: brief.website ? brief.website.replace(/^https?:\/\//u, '').replace(/\/+$/u, '') : '',
    voice: brief.voice.map((w) => w.trim().toLowerCase()).find((w) => PRODUCT_ADJECTIVES.has(w)) ?? '',
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

  const angle = values.angle ? sentence(values.angle) : '';
  const watch = video ? sentence('Watch the video to see more') : '';
  const primary: Array<string | null> = OPENERS[tone].map((opener, i) => {
    const closer = CLOSERS[tone][i % CLOSERS[tone].length];
    const site = values.site ? sentence(`${closer} at ${values.site}`) : sentence(closer);
    const open = sentence(fill(opener, values)!);
    // TikTok's ad text is one short line: the opener, then as much of the rest as fits.
    if (brief.platform === 'tiktok') {
      const short = [open, angle, video && i === 0 ? watch : ''].filter(Boolean).join(' ');
      return textLength(short) <= limits.primaryTexts ? short : open;
    }
    // The product is named once, in the opener; the details say the rest of the description.
    return [open, i === 1 ? angle : '', product.details, i === 0 ? angle : '', watch, site].filter(Boolean).join(' ');
  });
  const primaryTexts = keep([...primary, ...CLOSERS[tone].map(sentence), ...FALLBACK.map(sentence)], limits.primaryTexts);
  return { headlines, primaryTexts, descriptions };
}
