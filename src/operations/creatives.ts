// Creatives of a brand: upload an image or video, list them newest first, get one by id.

import type { Knex } from 'knex';
import { defineOperation } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { activityRecorder } from '../activity/recorder.js';
import { notFound, validationFailed } from '../errors.js';
import { VIDEO_MAX_BYTES, inspectMedia } from '../creatives/media.js';
import { storeCreativeFile } from '../creatives/storage.js';

interface CreativeRow {
  id: number | string;
  name: string;
  type: string;
  mime: string;
  width: number | string;
  height: number | string;
  duration_ms: number | string | null;
  size_bytes: number | string;
  sha256: string;
  created_at: number | string;
}

const COLUMNS = ['id', 'name', 'type', 'mime', 'width', 'height', 'duration_ms', 'size_bytes', 'sha256', 'created_at'];

// Standard alphabet with padding; Buffer.from would silently skip anything else.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function viewOf(r: CreativeRow) {
  return {
    id: Number(r.id),
    name: r.name,
    type: r.type,
    mime: r.mime,
    width: Number(r.width),
    height: Number(r.height),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    sizeBytes: Number(r.size_bytes),
    sha256: r.sha256,
    createdAt: new Date(Number(r.created_at)).toISOString(),
  };
}

function decodeBase64(text: string): Buffer {
  if (text.length % 4 !== 0 || !BASE64.test(text)) {
    throw validationFailed([
      { field: 'file.contentBase64', code: 'invalid_value', message: 'must be standard base64 (A-Z, a-z, 0-9, + and /, padded with =, no line breaks)' },
    ]);
  }
  return Buffer.from(text, 'base64');
}

interface UploadInput {
  brandId: number;
  name?: string;
  file: { fileName: string; contentBase64: string };
}

export const uploadCreative = defineOperation({
  name: 'upload-creative',
  method: 'POST',
  path: '/brands/{brandId}/creatives',
  scope: 'write',
  idempotency: 'optional',
  input: 'upload-creative#/$defs/input',
  output: 'upload-creative#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  tag: 'creatives',
  toolset: 'launch',
  summary: 'Upload a creative: a PNG or JPEG image (at most 10 MB) or an MP4 video (at most 100 MB).',
  description:
    'Send multipart/form-data with the file in field `file` and an optional `name`, or JSON with ' +
    '`file: {fileName, contentBase64}` (JSON bodies are limited to 5 MB, so larger files go as multipart). ' +
    'The type is read from the bytes, not the file name; width and height (and durationMs for a video) are read from the file. ' +
    'Other formats answer 400 validation_failed (code invalid_value on `file`); a file over its limit answers 400 (code too_big). ' +
    'The name defaults to the file name.',
  successStatus: 201,
  upload: { field: 'file', maxBytes: VIDEO_MAX_BYTES },
  // Decoding, hashing and writing a large file happen before any row is written, outside a transaction.
  transactional: false,
  async handler(ctx, input: UploadInput) {
    const bytes = decodeBase64(input.file.contentBase64);
    const media = inspectMedia(bytes, 'file');
    // A file left behind by a failed insert is harmless: it is named by its content and reused.
    const stored = await storeCreativeFile(ctx.config.creativesDir, bytes, media.extension);
    const brand = ctx.brand!;
    const row = {
      organization_id: brand.organizationId,
      brand_id: brand.id,
      name: input.name ?? input.file.fileName,
      type: media.type,
      mime: media.mime,
      width: media.width,
      height: media.height,
      duration_ms: media.durationMs,
      size_bytes: bytes.length,
      sha256: stored.sha256,
      storage_key: stored.storageKey,
      created_at: ctx.now(),
    };
    const id = await inTransaction(ctx.db as Knex, async (trx) => {
      const [inserted] = await trx('creatives').insert(row);
      await activityRecorder(trx, ctx.principal, ctx.now).record({
        brandId: brand.id,
        entityType: 'unknown',
        entityId: String(inserted),
        entityName: row.name,
        action: 'creative.uploaded',
      });
      return Number(inserted);
    });
    return viewOf({ ...row, id });
  },
});

export const listCreatives = defineOperation({
  name: 'list-creatives',
  method: 'GET',
  path: '/brands/{brandId}/creatives',
  scope: 'read',
  idempotency: 'none',
  input: 'list-creatives#/$defs/input',
  output: 'list-creatives#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'creatives',
  toolset: 'launch',
  summary: 'List the creatives of a brand, newest first.',
  async handler(ctx, input: { brandId: number; cursor?: string; limit: number }) {
    const after = ctx.page.position();
    const query = ctx.db('creatives').where('brand_id', ctx.brand!.id).orderBy('id', 'desc').limit(input.limit + 1).select(COLUMNS);
    if (after) query.where('id', '<', Number(after[0]));
    const rows: CreativeRow[] = await query;
    const page = rows.slice(0, input.limit);
    return {
      creatives: page.map(viewOf),
      nextCursor: rows.length > input.limit ? ctx.page.next([Number(page[page.length - 1].id)]) : null,
    };
  },
});

export const getCreative = defineOperation({
  name: 'get-creative',
  method: 'GET',
  path: '/brands/{brandId}/creatives/{creativeId}',
  scope: 'read',
  idempotency: 'none',
  input: 'get-creative#/$defs/input',
  output: 'get-creative#/$defs/output',
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  tag: 'creatives',
  toolset: 'launch',
  summary: 'Get one creative of a brand by id.',
  description: 'A creative of another brand answers 404 not_found, like a missing one.',
  async handler(ctx, input: { brandId: number; creativeId: number }) {
    const row: CreativeRow | undefined = await ctx.db('creatives').where({ id: input.creativeId, brand_id: ctx.brand!.id }).first(COLUMNS);
    if (!row) throw notFound(`Creative ${input.creativeId}`);
    return viewOf(row);
  },
});
