// The embedded template generator and the copy screen: every text the templates write fits the
// platform for every tone and platform (a table), the same brief writes the same texts, and the
// screen drops what is too long, carries emoji on TikTok, or contains a word to avoid.

import { expect } from 'chai';
import { screenTexts, textProblem } from '../../src/copy/limits.js';
import { COPY_LIMITS, hasEmoji, textLength } from '../../src/platforms/text-limits.js';
import { TONES, type CopyBrief, type CopyPlatform } from '../../src/copy/port.js';
import { fitText, productWords, templateTexts, toneOf } from '../../src/copy/template-generator.js';
import { writeCopy } from '../../src/copy/write.js';
import { TemplateCopyGenerator } from '../../src/copy/template-generator.js';

const LONG = 'Handmade leather running shoes with recycled soles, stitched in Porto by a family workshop that has made shoes since 1952, '.repeat(12);

function brief(over: Partial<CopyBrief>): CopyBrief {
  return {
    platform: 'meta',
    tone: null,
    voice: [],
    angle: null,
    brandName: 'Shoes Co',
    productDescription: 'Leather running shoes',
    website: 'https://shoes.example.com',
    wordsToAvoid: [],
    creatives: [],
    count: 5,
    rejected: [],
    ...over,
  };
}

const variants: Array<[string, Partial<CopyBrief>]> = [
  ['plain', {}],
  ['with an angle', { angle: 'spring sale: 20% off everything this week' }],
  [
    'a very long product description and angle',
    { productDescription: LONG, angle: LONG.slice(0, 480), brandName: 'The Extraordinarily Long Named Shoe Company of Portugal and Friends' },
  ],
  ['emoji in the inputs', { productDescription: 'Shoes 👟 that fly 🚀', angle: 'summer 🌞 deals 🇵🇹' }],
  ['no profile at all', { productDescription: null, website: null }],
  ['a video creative', { creatives: [{ id: 1, name: 'clip', type: 'video', width: 1080, height: 1920, durationMs: 15000 }] }],
];

describe('copy template generator', () => {
  for (const platform of ['meta', 'tiktok'] as CopyPlatform[]) {
    for (const tone of [...TONES, null]) {
      for (const [what, over] of variants) {
        it(`writes texts within ${platform}'s limits, tone ${tone ?? 'from voice'}, ${what}`, () => {
          const b = brief({ platform, tone, voice: ['warm', 'bold'], ...over });
          const texts = templateTexts(b);
          const limits = COPY_LIMITS[platform];
          for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
            expect(texts[field].length, field).to.be.at.least(3);
            for (const t of texts[field]) {
              expect(textLength(t), `${field}: ${t}`).to.be.within(1, limits[field]);
              if (!limits.emoji) expect(hasEmoji(t), `${field}: ${t}`).to.equal(false);
              expect(textProblem(t, field, platform, []), t).to.equal(null);
            }
            expect(new Set(texts[field]).size, `${field} are varied`).to.equal(texts[field].length);
          }
        });
      }
    }
  }

  it('writes the same texts for the same brief, and different ones for another tone or angle', () => {
    const a = templateTexts(brief({ tone: 'urgent', angle: 'spring sale' }));
    expect(templateTexts(brief({ tone: 'urgent', angle: 'spring sale' }))).to.deep.equal(a);
    expect(templateTexts(brief({ tone: 'friendly', angle: 'spring sale' })).headlines).to.not.deep.equal(a.headlines);
    expect(templateTexts(brief({ tone: 'urgent', angle: 'summer drop' })).primaryTexts).to.not.deep.equal(a.primaryTexts);
  });

  it('names the product once per text, in lower case inside a sentence, and says the rest of the description in its own sentences', () => {
    const description = 'Leather running shoes made in Porto. Free returns for 60 days.';
    for (const platform of ['meta', 'tiktok'] as CopyPlatform[]) {
      for (const tone of TONES) {
        const texts = templateTexts(brief({ platform, tone, productDescription: description, angle: 'spring sale' }));
        for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
          for (const t of texts[field]) {
            expect(t.match(/leather running shoes/giu)?.length ?? 0, `${platform} ${tone} ${field}: ${t}`).to.be.at.most(1);
            expect(t, 'the whole description is never pasted into a text').to.not.include('Leather running shoes made in Porto');
            expect(t, 'mid-sentence the name is lower case').to.not.match(/\S\s+Leather running shoes/u);
            expect(t).to.not.match(/\bour our\b|\.\./u);
            expect(textLength(t)).to.be.within(1, COPY_LIMITS[platform][field]);
          }
        }
        if (platform === 'meta')
          expect(
            texts.primaryTexts.some((t) => t.includes('Made in Porto. Free returns for 60 days.')),
            tone,
          ).to.equal(true);
      }
    }
  });

  it('splits a description into the product name and its details', () => {
    expect(productWords('Leather running shoes made in Porto. Free returns.', 'Shoes Co')).to.deep.equal({
      name: 'leather running shoes',
      Name: 'Leather running shoes',
      details: 'Made in Porto. Free returns.',
    });
    expect(productWords('NASA-grade thermal jackets, tested at -40°C', 'Coats')).to.deep.equal({
      name: 'NASA-grade thermal jackets',
      Name: 'NASA-grade thermal jackets',
      details: 'Tested at -40°C.',
    });
    expect(productWords(null, 'Shoes Co')).to.deep.equal({ name: 'Shoes Co favourites', Name: 'Shoes Co favourites', details: '' });
  });

  it('puts a voice word that describes the product in front of its name', () => {
    const texts = templateTexts(brief({ tone: 'professional', voice: ['warm', 'Premium'], productDescription: 'Leather running shoes' }));
    expect(texts.headlines).to.include('Premium leather running shoes from Shoes Co');
    const plain = templateTexts(brief({ tone: 'professional', voice: ['warm'], productDescription: 'Leather running shoes' }));
    expect(plain.headlines.join(' ')).to.not.match(/premium/iu);
    expect(plain.headlines).to.include('Leather running shoes from Shoes Co');
  });

  it('reads the tone from the brand voice when none is asked for', () => {
    expect(toneOf({ tone: null, voice: ['Playful', 'warm'] })).to.equal('casual');
    expect(toneOf({ tone: null, voice: ['expert'] })).to.equal('professional');
    expect(toneOf({ tone: null, voice: ['zany'] })).to.equal('friendly');
    expect(toneOf({ tone: 'urgent', voice: ['warm'] })).to.equal('urgent');
  });

  it('cuts at a word boundary without a dangling connector', () => {
    expect(fitText('Spring sale: shoes, bags and hats for everyone', 20)).to.equal('Spring sale: shoes');
    expect(fitText('Supercalifragilisticexpialidocious', 10)).to.equal('Supercalif');
  });

  it('never returns a text with a word to avoid, matched case-insensitively', async () => {
    const written = await writeCopy(new TemplateCopyGenerator(), brief({ tone: 'urgent', wordsToAvoid: ["DON'T", 'now'] }));
    for (const t of [...written.texts.headlines, ...written.texts.primaryTexts, ...written.texts.descriptions]) {
      expect(t.toLowerCase()).to.not.contain("don't");
      expect(t.toLowerCase()).to.not.contain('now');
    }
    expect(written.dropped).to.be.above(0);
  });
});

describe('copy screen', () => {
  const table: Array<[string, string, 'headlines' | 'primaryTexts' | 'descriptions', CopyPlatform, string[], RegExp | null]> = [
    ['a Meta headline of 255 characters', 'a'.repeat(255), 'headlines', 'meta', [], null],
    ['a Meta headline of 256 characters', 'a'.repeat(256), 'headlines', 'meta', [], /256 characters; meta allows at most 255/],
    ['a Meta primary text of 2,200 characters', 'a'.repeat(2200), 'primaryTexts', 'meta', [], null],
    ['a Meta primary text of 2,201 characters', 'a'.repeat(2201), 'primaryTexts', 'meta', [], /at most 2200/],
    ['a Meta description of 256 characters', 'a'.repeat(256), 'descriptions', 'meta', [], /at most 255/],
    ['emoji on Meta', 'Run faster 🏃', 'primaryTexts', 'meta', [], null],
    ['a TikTok text of 100 characters', 'a'.repeat(100), 'primaryTexts', 'tiktok', [], null],
    ['a TikTok text of 101 characters', 'a'.repeat(101), 'primaryTexts', 'tiktok', [], /at most 100/],
    ['an empty TikTok text', '', 'headlines', 'tiktok', [], /empty/],
    ['emoji on TikTok', 'Run faster 🏃', 'primaryTexts', 'tiktok', [], /emoji/],
    ['a flag on TikTok', 'Made in 🇵🇹', 'headlines', 'tiktok', [], /emoji/],
    ['a word to avoid in another case', 'The CHEAPEST shoes', 'headlines', 'meta', ['cheapest'], /words to avoid/],
    ['a TikTok text of 50 Chinese characters (100 as TikTok counts them)', '春'.repeat(50), 'primaryTexts', 'tiktok', [], null],
    [
      'a TikTok text of 51 Chinese characters (102 as TikTok counts them)',
      '春'.repeat(51),
      'primaryTexts',
      'tiktok',
      [],
      /102 characters as TikTok counts them/,
    ],
    ['a headline with an escape character', 'Run\u001b[31m lighter', 'headlines', 'meta', [], /one line of text; it holds U\+001B/],
    ['a headline on two lines', 'Run\nlighter', 'headlines', 'meta', [], /one line of text; it holds U\+000A \(a line feed\)/],
    ['primary text on two lines', 'Run\nlighter', 'primaryTexts', 'meta', [], null],
    ['a description with a right-to-left override', 'Free \u202Ereturns', 'descriptions', 'meta', [], /a bidirectional override/],
    ['primary text with a lone surrogate', 'Run \ud800 lighter', 'primaryTexts', 'meta', [], /lone surrogate/],
  ];
  for (const [what, text, field, platform, avoid, expected] of table) {
    it(`${expected ? 'refuses' : 'accepts'} ${what}`, () => {
      const problem = textProblem(text, field, platform, avoid);
      if (expected) expect(problem).to.match(expected);
      else expect(problem).to.equal(null);
    });
  }

  it('keeps each text once, at most count per kind, and lists what it dropped', () => {
    const s = screenTexts({ headlines: ['A', ' A ', 'B', 'x'.repeat(300)], primaryTexts: ['P'], descriptions: ['D', 'E', 'F'] }, 'meta', [], 2);
    expect(s.kept).to.deep.equal({ headlines: ['A', 'B'], primaryTexts: ['P'], descriptions: ['D', 'E'] });
    expect(s.dropped.map((d) => d.field)).to.deep.equal(['headlines']);
  });
});
