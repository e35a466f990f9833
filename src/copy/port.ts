// The copy-generation port: what a generator is told (the brief) and what it answers (texts).
// Adapters: the embedded template generator (default) and an OpenAI-compatible chat model.

export type CopyPlatform = 'meta' | 'tiktok';
export const TONES = ['professional', 'casual', 'urgent', 'friendly'] as const;
export type Tone = (typeof TONES)[number];

/** A creative the copy is matched to: the model sees its type and size. */
export interface CopyCreative {
  id: number;
  name: string;
  type: 'image' | 'video';
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

/** Everything a generator needs to write copy for one platform. */
export interface CopyBrief {
  platform: CopyPlatform;
  /** The tone asked for, or the brand voice's tone words when none was. */
  tone: Tone | null;
  voice: string[];
  angle: string | null;
  brandName: string;
  productDescription: string | null;
  website: string | null;
  wordsToAvoid: string[];
  creatives: CopyCreative[];
  /** How many texts of each kind to aim for. */
  count: number;
  /** Texts an earlier attempt wrote that broke a rule, with the reason (sent back to a model). */
  rejected: Array<{ field: CopyField; text: string; reason: string }>;
}

export type CopyField = 'headlines' | 'primaryTexts' | 'descriptions';

export interface CopyTexts {
  headlines: string[];
  primaryTexts: string[];
  descriptions: string[];
}

/** A failure of the copy model (it did not answer, answered an error, or answered nonsense). */
export class CopyModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'CopyModelError';
  }
}

export interface CopyGenerator {
  /** Names the generator in the stored record (`template` or the model's name). */
  readonly model: string;
  /** Writes candidate texts by `deadline` (epoch ms, when given); throws CopyModelError when the model fails or runs out of time. */
  generate(brief: CopyBrief, deadline?: number): Promise<CopyTexts>;
}
