// The copy area's operations: the brand profile ad copy falls back to, generating copy (template
// generator or the model at COPY_MODEL_URL), and reading stored copy. Copy changes no ad until
// update-node attaches it.

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { creativesAmong } from '../creatives/store.js';
import { inTransaction } from '../db/connection.js';
import { ServiceError } from '../errors.js';
import { requireReferences } from '../references/resolve.js';
import { adUrlProblem } from '../schemas/ad-addresses.js';
import type { CopyCreative } from './port.js';
import { copiesOf, insertCopy, loadCopy, loadProfile, saveProfile } from './store.js';
import { CopyNotWritten, copyGeneratorFor, writeCopy } from './write.js';

const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

/** Texts of each kind a generation aims for. */
const TEXTS_PER_KIND = 5;

const getBrandProfile = defineOperation({
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
  uses: [],
  handler: (ctx) => loadProfile(ctx.db, ctx.brand.id),
});

const setBrandProfile = defineOperation({
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
  uses: ['activity'],
  async handler(ctx, input) {
    await saveProfile(
      ctx.db,
      ctx.brand.id,
      {
        voice: input.voice ?? [],
        productDescription: input.productDescription ?? null,
        website: input.website ?? null,
        wordsToAvoid: input.wordsToAvoid ?? [],
      },
      ctx.now(),
    );
    await ctx.activity.record({
      brandId: ctx.brand.id,
      accountId: null,
      entityType: 'unknown',
      entityId: String(ctx.brand.id),
      entityName: 'brand profile',
      action: 'brand_profile.updated',
    });
    return loadProfile(ctx.db, ctx.brand.id);
  },
});

const generateCopy = defineOperation({
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
  uses: ['config', 'outbound', 'activity'],
  async handler(ctx, input) {
    const brand = ctx.brand;
    // Ids sent as digits arrive as numbers; the same creative named twice counts once.
    const creativeIds = [...new Set(input.creativeIds ?? [])];
    await requireReferences(
      ctx.db,
      ctx.principal,
      (input.creativeIds ?? []).map((id, i) => ({ kind: 'creative' as const, field: `creativeIds[${i}]`, id, brandId: brand.id })),
    );
    const byId = new Map((await creativesAmong(ctx.db, brand.id, creativeIds)).map((c) => [c.id, c]));
    const creatives: CopyCreative[] = creativeIds.map((id) => {
      const c = byId.get(id)!;
      return { id, name: c.name, type: c.type, width: c.width, height: c.height, durationMs: c.durationMs };
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
      // A website saved before the address rule and breaking it is left out of the ads' text.
      website: profile.website !== null && adUrlProblem(profile.website) === null ? profile.website : null,
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
    const id = await inTransaction(ctx.db, async (trx) => {
      const newId = await insertCopy(trx, {
        organizationId: ctx.principal.organizationId,
        brandId: brand.id,
        platform: input.platform,
        tone: input.tone ?? null,
        voice: input.tone ? [] : profile.voice,
        angle: input.angle ?? null,
        productDescription: input.productDescription ?? null,
        creativeIds,
        headlines: written.texts.headlines,
        primaryTexts: written.texts.primaryTexts,
        descriptions: written.texts.descriptions,
        model: generator.model.slice(0, 200),
        dropped: written.dropped,
        createdAt: now,
      });
      await ctx.activity.record(
        { brandId: brand.id, accountId: null, entityType: 'unknown', entityId: String(newId), entityName: `${input.platform} copy`, action: 'copy.generated' },
        trx,
      );
      return newId;
    });
    return loadCopy(ctx.db, brand.id, id);
  },
});

const listCopies = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const rows = await copiesOf(ctx.db, ctx.brand.id, input.limit + 1, { platform: input.platform, beforeId: ctx.page.beforeId() });
    const { rows: copies, nextCursor } = ctx.page.pageOf(rows, (c) => [c.copyGenerationId]);
    return { copies, nextCursor };
  },
});

const getCopy = defineOperation({
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
  uses: [],
  handler: (ctx, input) => loadCopy(ctx.db, ctx.brand.id, input.copyGenerationId),
});

/** The copy area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [getBrandProfile, setBrandProfile, generateCopy, listCopies, getCopy];
