// The copy model adapter: an OpenAI-compatible chat completions API (OpenAI, Ollama, vLLM, ...)
// through the `openai` package, asked for structured output (a JSON schema). The package retries
// 429, 5xx and dropped connections (`maxRetries`); its requests go through the outbound client (the
// model is the operator's COPY_MODEL_URL), and every one of them, retries included, ends by the
// deadline of the copy generation (COPY_MODEL_TIMEOUT_MS).

import type OpenAIPackage from 'openai';

/** The `openai` package, loaded on the first request to the model (not at start-up). */
const loadOpenAI = async (): Promise<typeof OpenAIPackage> => (await import('openai')).default;
import type { OutboundClient } from '../outbound/client.js';
import { DeadlineExceeded, withinDeadline } from '../outbound/deadline.js';
import { COPY_LIMITS } from '../platforms/text-limits.js';
import { CopyModelError, type CopyBrief, type CopyGenerator, type CopyTexts } from './port.js';

export interface ModelSettings {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  /** The whole generation's time when the caller gives no deadline. */
  timeoutMs: number;
  maxRetries: number;
}

/** The JSON schema the model must answer with (strict structured output). */
export const COPY_ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['headlines', 'primaryTexts', 'descriptions'],
  properties: {
    headlines: { type: 'array', items: { type: 'string' } },
    primaryTexts: { type: 'array', items: { type: 'string' } },
    descriptions: { type: 'array', items: { type: 'string' } },
  },
} as const;

function instructions(brief: CopyBrief): string {
  const limits = COPY_LIMITS[brief.platform];
  const rules = [
    `Write ad copy for ${brief.platform === 'meta' ? 'Meta (Facebook and Instagram)' : 'TikTok'}.`,
    `Answer with JSON only: ${brief.count} headlines, ${brief.count} primaryTexts and ${brief.count} descriptions, each one different.`,
    `Headlines at most ${limits.headlines} characters, primary texts at most ${limits.primaryTexts}, descriptions at most ${limits.descriptions}.`,
    limits.emoji ? 'Emoji are allowed but not required.' : 'Never use emoji.',
    brief.wordsToAvoid.length ? `Never use these words or phrases, in any letter case: ${brief.wordsToAvoid.map((w) => JSON.stringify(w)).join(', ')}.` : '',
    'Make no claims the brief does not support.',
  ];
  return rules.filter(Boolean).join('\n');
}

function briefText(brief: CopyBrief): string {
  const lines = [
    `Brand: ${brief.brandName}`,
    brief.productDescription ? `Product: ${brief.productDescription}` : '',
    brief.website ? `Website: ${brief.website}` : '',
    `Tone: ${brief.tone ?? (brief.voice.length ? brief.voice.join(', ') : 'friendly')}`,
    brief.angle ? `Angle: ${brief.angle}` : '',
    brief.creatives.length
      ? `The copy runs with these creatives: ${brief.creatives.map((c) => `${c.type} ${c.width ?? '?'}x${c.height ?? '?'}${c.durationMs ? ` ${Math.round(c.durationMs / 1000)}s` : ''} ("${c.name}")`).join('; ')}.`
      : '',
    brief.rejected.length
      ? `Your previous answer had texts that were refused; do not repeat them:\n${brief.rejected
          .slice(0, 20)
          .map((r) => `- ${r.field}: ${JSON.stringify(r.text)} ${r.reason}`)
          .join('\n')}`
      : '',
  ];
  return lines.filter(Boolean).join('\n');
}

function asTexts(content: string): CopyTexts {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new CopyModelError('The copy model answered something that is not JSON.', true);
  }
  const p = parsed as Record<string, unknown>;
  const list = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!p || typeof p !== 'object' || !list(p.headlines) || !list(p.primaryTexts) || !list(p.descriptions)) {
    throw new CopyModelError('The copy model answered JSON without the headlines, primaryTexts and descriptions lists of strings.', true);
  }
  return { headlines: p.headlines as string[], primaryTexts: p.primaryTexts as string[], descriptions: p.descriptions as string[] };
}

export class OpenAICopyGenerator implements CopyGenerator {
  constructor(
    private readonly settings: ModelSettings,
    private readonly outbound: OutboundClient,
  ) {}

  /** A client whose every exchange (the package's retries included) ends by `deadline`. */
  private clientUntil(OpenAI: typeof OpenAIPackage, deadline: number): OpenAIPackage {
    return new OpenAI({
      baseURL: this.settings.baseUrl,
      // Local servers (Ollama, vLLM) take any key; the package insists on one.
      apiKey: this.settings.apiKey ?? 'not-needed',
      maxRetries: this.settings.maxRetries,
      fetch: this.outbound.fetch('operator', { timeoutMs: 0, deadline, maxResponseBytes: 4 * 1024 * 1024 }),
    });
  }

  get model(): string {
    return this.settings.model;
  }

  async generate(brief: CopyBrief, deadline = Date.now() + this.settings.timeoutMs): Promise<CopyTexts> {
    let completion: OpenAIPackage.Chat.Completions.ChatCompletion;
    const OpenAI = await loadOpenAI();
    const client = this.clientUntil(OpenAI, deadline);
    try {
      completion = await withinDeadline(
        deadline,
        (signal) =>
          client.chat.completions.create(
            {
              model: this.settings.model,
              messages: [
                { role: 'system', content: instructions(brief) },
                { role: 'user', content: briefText(brief) },
              ],
              response_format: {
                type: 'json_schema',
                json_schema: { name: 'ad_copy', strict: true, schema: COPY_ANSWER_SCHEMA as unknown as Record<string, unknown> },
              },
            },
            { signal, timeout: Math.max(1, deadline - Date.now()) },
          ),
        'the copy model',
      );
    } catch (err) {
      if (err instanceof DeadlineExceeded || err instanceof OpenAI.APIUserAbortError || Date.now() >= deadline) {
        throw new CopyModelError(`The copy model did not answer within COPY_MODEL_TIMEOUT_MS (${this.settings.timeoutMs} ms), retries included.`, false);
      }
      throw describe(err, OpenAI);
    }
    const message = completion.choices?.[0]?.message;
    if (message?.refusal) throw new CopyModelError(`The copy model refused: ${String(message.refusal).slice(0, 200)}`, false);
    if (typeof message?.content !== 'string') throw new CopyModelError('The copy model answered without content.', true);
    return asTexts(message.content);
  }
}

/** A model failure in words a caller can act on (never the key or the raw answer). */
function describe(err: unknown, OpenAI: typeof OpenAIPackage): CopyModelError {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new CopyModelError('The copy model did not answer in time, after retries.', false);
  if (err instanceof OpenAI.APIConnectionError) return new CopyModelError('The copy model could not be reached, after retries.', false);
  if (err instanceof OpenAI.RateLimitError) return new CopyModelError('The copy model is rate limiting requests (429), after retries.', false);
  if (err instanceof OpenAI.APIError)
    return new CopyModelError(`The copy model answered HTTP ${err.status ?? 'error'}${(err.status ?? 0) >= 500 ? ', after retries' : ''}.`, false);
  return new CopyModelError('The copy model failed.', false);
}
