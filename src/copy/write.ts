// Writing one copy record: ask the generator, screen every text against the platform's limits and
// the brand's words to avoid, and ask again (telling a model what was refused) until each kind of
// text has at least one that fits. Nothing that breaks a rule is ever returned.

import type { Config } from '../config.js';
import type { OutboundClient } from '../outbound/client.js';
import { screenTexts } from './limits.js';
import { OpenAICopyGenerator } from './openai-generator.js';
import { CopyModelError, type CopyBrief, type CopyGenerator, type CopyTexts } from './port.js';
import { TemplateCopyGenerator } from './template-generator.js';

/** Generator calls per copy record: the first, then up to two regenerations. */
export const COPY_ATTEMPTS = 3;

export interface WrittenCopy {
  texts: CopyTexts;
  /** Texts the generator wrote that were refused and not stored. */
  dropped: number;
}

/** Why a copy could not be written: the model failed (`model`) or no text met the rules (`rules`). */
export class CopyNotWritten extends Error {
  constructor(
    message: string,
    readonly reason: 'model' | 'rules',
  ) {
    super(message);
    this.name = 'CopyNotWritten';
  }
}

/** Writes one copy record; every generator call (regenerations included) ends by `deadline` when one is given. */
export async function writeCopy(generator: CopyGenerator, brief: CopyBrief, deadline?: number): Promise<WrittenCopy> {
  const kept: CopyTexts = { headlines: [], primaryTexts: [], descriptions: [] };
  let dropped = 0;
  let lastProblem = '';
  const rejected: CopyBrief['rejected'] = [];
  for (let attempt = 0; attempt < COPY_ATTEMPTS; attempt++) {
    if (deadline !== undefined && attempt > 0 && Date.now() >= deadline) break;
    let texts: CopyTexts;
    try {
      texts = await generator.generate({ ...brief, rejected: [...rejected] }, deadline);
    } catch (err) {
      if (err instanceof CopyModelError && err.retryable) {
        lastProblem = err.message;
        continue;
      }
      throw new CopyNotWritten(err instanceof CopyModelError ? err.message : 'The copy generator failed.', 'model');
    }
    const screened = screenTexts(texts, brief.platform, brief.wordsToAvoid, brief.count);
    dropped += screened.dropped.length;
    rejected.push(...screened.dropped);
    for (const field of ['headlines', 'primaryTexts', 'descriptions'] as const) {
      for (const t of screened.kept[field]) if (!kept[field].includes(t) && kept[field].length < brief.count) kept[field].push(t);
    }
    if (kept.headlines.length && kept.primaryTexts.length && kept.descriptions.length) return { texts: kept, dropped };
    lastProblem = screened.dropped.length
      ? `every ${['headlines', 'primaryTexts', 'descriptions'].filter((f) => !kept[f as keyof CopyTexts].length).join(' and ')} text broke a rule (for example: ${screened.dropped[0].field} ${screened.dropped[0].reason})`
      : 'the answer had no texts of some kind';
    if (generator instanceof TemplateCopyGenerator) break;
  }
  if (generator instanceof TemplateCopyGenerator) {
    throw new CopyNotWritten(
      `No copy could be written within the rules: ${lastProblem}. Shorten or change the brand's words to avoid, the angle or the product description.`,
      'rules',
    );
  }
  throw new CopyNotWritten(`The copy model gave no usable answer in ${COPY_ATTEMPTS} attempts: ${lastProblem}`, 'model');
}

const generators = new WeakMap<Config, CopyGenerator>();

/** The configured generator: the model at COPY_MODEL_URL (called through `outbound`), else the embedded templates (one per configuration). */
export function copyGeneratorFor(config: Config, outbound: OutboundClient): CopyGenerator {
  let g = generators.get(config);
  if (!g) {
    g = config.copyModelUrl
      ? new OpenAICopyGenerator(
          {
            baseUrl: config.copyModelUrl,
            model: config.copyModel!,
            apiKey: config.copyModelApiKey,
            timeoutMs: config.copyModelTimeoutMs,
            maxRetries: config.copyModelMaxRetries,
          },
          outbound,
        )
      : new TemplateCopyGenerator();
    generators.set(config, g);
  }
  return g;
}
