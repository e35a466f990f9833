// Ad copy: the brand profile it falls back to, generating copy (template generator or the model at
// COPY_MODEL_URL), and reading stored copy. Copy changes no ad until update-node attaches it.

import type { Knex } from 'knex';
import { defineOperation } from '../catalogue/define.js';
import { ServiceError } from '../errors.js';
import { requireReferences } from '../references/resolve.js';
import type { CopyCreative, CopyPlatform, Tone } from '../copy/port.js';
import { loadProfile, saveProfile, type BrandProfile } from '../copy/profile.js';
import { copyView, loadCopy } from '../copy/store.js';
import { CopyNotWritten, copyGeneratorFor, writeCopy } from '../copy/write.js';

const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

/** Texts of each kind a generation aims for. */
const TEXTS_PER_KIND = 5;

export const getBrandProfile = defineOperation({
  name: 'get-brand-profile',
  method: 'GET',
  path: '/brands/{brandId}/profile',
  scope: 'read',
  idempotency: 'none',
  input: 'get-brand-profile#/$defs/input',
  output: 'get-brand-profile#/$defs/output',
  annotations: read,
  tag: 'copy',
  toolset: 'copy',
  summary: 'Read the brand profile that ad copy falls back to: voice (tone words), product description, website and words to avoid.',
  description: 'A brand that never set one answers empty lists and nulls (updatedAt null).',
  handler: (ctx) => loadProfile(ctx.db, ctx.brand!.id),
});

export const setBrandProfile = defineOperation({
  name: 'set-brand-profile',
  method: 'PUT',
  path: '/brands/{brandId}/profile',
  scope: 'write',
  idempotency: 'none',
  input: 'set-brand-profile#/$defs/input',
  output: 'set-brand-profile#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  tag: 'copy',
  toolset: 'copy',
  summary: 'Replace the brand profile (voice, productDescription, website, wordsToAvoid) and answer it; fields not sent become empty.',
  description: 'wordsToAvoid are matched case-insensitively anywhere in a text: generated copy never contains one.',
  async handler(ctx, input: Partial<Omit<BrandProfile, 'updatedAt'>>) {
    await saveProfile(
      ctx.db,
      ctx.brand!.id,
      {
        voice: input.voice ?? [],
        productDescription: input.productDescription ?? null,
        website: input.website ?? null,
        wordsToAvoid: input.wordsToAvoid ?? [],
      },
      ctx.now(),
    );
    await ctx.activity.record({
      brandId: ctx.brand!.id,
      accountId: null,
      entityType: 'unknown',
      entityId: String(ctx.brand!.id),
      entityName: 'brand profile',
      action: 'brand_profile.updated',
    });
    return loadProfile(ctx.db, ctx.brand!.id);
  },
});

interface GenerateInput {
  platform: CopyPlatform;
  tone?: Tone;
  angle?: string;
  productDescription?: string;
  creativeIds?: number[];
}

export const generateCopy = defineOperation({
  name: 'generate-copy',
  method: 'POST',
  path: '/brands/{brandId}/copies',
  scope: 'write',
  errors: ['unavailable', 'unprocessable'],
  idempotency: 'optional',
  input: 'generate-copy#/$defs/input',
  output: 'generate-copy#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'copy',
  toolset: 'copy',
  successStatus: 201,
  // The model may take seconds: no database transaction is held while it writes.
  transactional: false,
  summary:
    'Generate ad copy (headlines, primary texts, descriptions) for meta or tiktok from the brand profile, a tone and an angle; stores it under a copyGenerationId.',
  description:
    "tone (professional, casual, urgent, friendly) defaults to the brand voice; productDescription overrides the profile's. creativeIds " +
    'matches the copy to those creatives of the brand (their type and size are considered). Every stored text fits the platform ' +
    '(Meta: headline ≤ 255, primary text ≤ 2,200, description ≤ 255 characters; TikTok: 1 to 100 characters, no emoji) and contains none ' +
    "of the brand's wordsToAvoid (case-insensitive); texts that do not are dropped or regenerated (droppedTexts counts them). No ad changes " +
    'until update-node attaches the copy. With COPY_MODEL_URL set a model writes it (model names it), else the built-in template generator ' +
    '(model "template"). Failures: 503 unavailable when the model fails or times out (nothing stored); 422 unprocessable when no text can ' +
    "meet the rules (e.g. the words to avoid rule out every one); 400 validation_failed for a creative that is not the brand's.",
  async handler(ctx, input: GenerateInput) {
    const brand = ctx.brand!;
    // Ids sent as digits arrive as numbers; the same creative named twice counts once.
    const creativeIds = [...new Set(input.creativeIds ?? [])];
    await requireReferences(
      ctx.db,
      ctx.principal,
      (input.creativeIds ?? []).map((id, i) => ({ kind: 'creative' as const, field: `creativeIds[${i}]`, id, brandId: brand.id })),
    );
    const rows = creativeIds.length ? await ctx.db('creatives').where({ brand_id: brand.id }).whereIn('id', creativeIds) : [];
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const creatives: CopyCreative[] = creativeIds.map((id) => {
      const r = byId.get(id)!;
      return {
        id,
        name: r.name,
        type: r.type,
        width: Number(r.width),
        height: Number(r.height),
        durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
      };
    });
    const profile = await loadProfile(ctx.db, brand.id);
    const generator = copyGeneratorFor(ctx.config, ctx.outbound);
    const brief = {
      platform: input.platform,
      tone: input.tone ?? null,
      voice: profile.voice,
      angle: input.angle ?? null,
      brandName: brand.name,
      productDescription: input.productDescription ?? profile.productDescription,
      website: profile.website,
      wordsToAvoid: profile.wordsToAvoid,
      creatives,
      count: TEXTS_PER_KIND,
      rejected: [],
    };
    let written;
    try {
      // COPY_MODEL_TIMEOUT_MS bounds the whole generation: every request, retry and regeneration.
      written = await writeCopy(generator, brief, Date.now() + ctx.config.copyModelTimeoutMs);
    } catch (err) {
      if (!(err instanceof CopyNotWritten)) throw err;
      ctx.log.warn({ requestId: ctx.requestId, model: generator.model, reason: err.message }, 'copy not written');
      if (err.reason === 'rules') throw new ServiceError('unprocessable', err.message, { model: generator.model });
      throw new ServiceError(
        'unavailable',
        `${err.message} Nothing was stored; retry later, or unset COPY_MODEL_URL to use the built-in template generator.`,
        { model: generator.model },
        5,
      );
    }
    const now = ctx.now();
    const id = await (ctx.db as Knex).transaction(async (trx) => {
      const [newId] = await trx('copy_generations').insert({
        organization_id: ctx.principal.organizationId,
        brand_id: brand.id,
        platform: input.platform,
        tone: input.tone ?? null,
        voice: JSON.stringify(input.tone ? [] : profile.voice),
        angle: input.angle ?? null,
        product_description: input.productDescription ?? null,
        creative_ids: JSON.stringify(creativeIds),
        headlines: JSON.stringify(written.texts.headlines),
        primary_texts: JSON.stringify(written.texts.primaryTexts),
        descriptions: JSON.stringify(written.texts.descriptions),
        model: generator.model.slice(0, 200),
        dropped: written.dropped,
        created_at: now,
      });
      await ctx.activity.record(
        { brandId: brand.id, accountId: null, entityType: 'unknown', entityId: String(newId), entityName: `${input.platform} copy`, action: 'copy.generated' },
        trx,
      );
      return Number(newId);
    });
    return loadCopy(ctx.db, brand.id, id);
  },
});

export const listCopies = defineOperation({
  name: 'list-copies',
  method: 'GET',
  path: '/brands/{brandId}/copies',
  scope: 'read',
  idempotency: 'none',
  input: 'list-copies#/$defs/input',
  output: 'list-copies#/$defs/output',
  annotations: read,
  tag: 'copy',
  toolset: 'copy',
  summary: 'List the generated copy of a brand, newest first.',
  async handler(ctx, input: { limit: number; platform?: CopyPlatform }) {
    const after = ctx.page.position();
    const q = ctx
      .db('copy_generations')
      .where({ brand_id: ctx.brand!.id })
      .orderBy('id', 'desc')
      .limit(input.limit + 1);
    if (input.platform) q.where('platform', input.platform);
    if (after) q.where('id', '<', Number(after[0]));
    const rows = await q;
    const page = rows.slice(0, input.limit);
    return { copies: page.map(copyView), nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null };
  },
});

export const getCopy = defineOperation({
  name: 'get-copy',
  method: 'GET',
  path: '/brands/{brandId}/copies/{copyGenerationId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-copy#/$defs/input',
  output: 'get-copy#/$defs/output',
  annotations: read,
  tag: 'copy',
  toolset: 'copy',
  summary: 'Get one generated copy record of a brand by copyGenerationId.',
  handler: (ctx, input: { copyGenerationId: number }) => loadCopy(ctx.db, ctx.brand!.id, input.copyGenerationId),
});

export const copyOperations = [getBrandProfile, setBrandProfile, generateCopy, listCopies, getCopy];
