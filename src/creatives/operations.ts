// The creatives area's operations: upload an image or video to a brand, list them newest first,
// get one by id.

import { defineOperation, type OperationDefinition } from '../catalogue/define.js';
import { inTransaction } from '../db/connection.js';
import { notFound, validationFailed } from '../errors.js';
import type { UploadCreativeInput } from '../catalogue/inputs.generated.js';
import type { StagedUpload } from '../catalogue/invoke-types.js';
import type { OutboundClient } from '../outbound/client.js';
import { fetchCreative } from './fetch.js';
import { VIDEO_MAX_BYTES, checkHead, inspectMedia, inspectMediaFile, type MediaInfo } from './media.js';
import { keepStagedFile, storeCreativeFile, type StoredFile } from './storage.js';
import { creativesOf, findCreative, insertCreative, type CreativeRow } from './store.js';

function viewOf(c: CreativeRow) {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    mime: c.mime,
    width: c.width,
    height: c.height,
    durationMs: c.durationMs,
    sizeBytes: c.sizeBytes,
    sha256: c.sha256,
    createdAt: new Date(c.createdAt).toISOString(),
  };
}

// Standard alphabet with padding; Buffer.from would silently skip anything else.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(text: string, field: string): Buffer {
  if (text.length % 4 !== 0 || !BASE64.test(text)) {
    throw validationFailed([{ field, code: 'invalid_value', message: 'must be standard base64 (A-Z, a-z, 0-9, + and /, padded with =, no line breaks)' }]);
  }
  return Buffer.from(text, 'base64');
}

// The fetch ends well inside the request's own budget, so a slow host answers 400 naming url, not 504.
const fetchTimeoutMs = (requestTimeoutMs: number) => Math.max(1_000, requestTimeoutMs - 5_000);

const SOURCES = ['file', 'dataBase64', 'url'] as const;

/** The creative's file from the one source the caller sent, stored, its type read from it, and the name the source gives. */
async function sourceOf(
  input: UploadCreativeInput,
  staged: StagedUpload | null,
  outbound: OutboundClient,
  config: { requestTimeoutMs: number; creativesDir: string },
): Promise<{ stored: StoredFile; size: number; media: MediaInfo; fileName?: string }> {
  const sent = SOURCES.filter((s) => input[s] !== undefined);
  if (sent.length === 0) {
    throw validationFailed([{ field: 'file', code: 'invalid_type', message: 'is required: send file or dataBase64 (the bytes) or url (where to fetch them)' }]);
  }
  if (sent.length > 1) {
    throw validationFailed([
      { field: sent[1], code: 'invalid_value', message: `must not be sent with ${sent[0]}; send exactly one of file, dataBase64 and url` },
    ]);
  }
  // Bytes held in the request (a JSON body, 5 MB at most), checked, then written (a file left behind by a failed insert is harmless: it is named by its content and reused).
  const stored = async (bytes: Buffer, media: MediaInfo, fileName?: string) => ({
    stored: await storeCreativeFile(config.creativesDir, bytes, media.extension),
    size: bytes.length,
    media,
    fileName,
  });
  if (input.url !== undefined) {
    const fetched = await fetchCreative(outbound, input.url, fetchTimeoutMs(config.requestTimeoutMs));
    return stored(fetched.bytes, fetched.media, fetched.fileName);
  }
  if (input.dataBase64 !== undefined) {
    const bytes = decodeBase64(input.dataBase64, 'dataBase64');
    return stored(bytes, inspectMedia(bytes, 'dataBase64'));
  }
  const file = input.file!;
  if (file.contentBase64 !== undefined) {
    const bytes = decodeBase64(file.contentBase64, 'file.contentBase64');
    return stored(bytes, inspectMedia(bytes, 'file'), file.fileName);
  }
  // A multipart file part, streamed to the staging area as it arrived (hashed, its head checked): read from there, then moved into place.
  if (!staged)
    throw validationFailed([
      { field: 'file.contentBase64', code: 'invalid_type', message: "is required: the file's bytes in base64 (or send multipart/form-data)" },
    ]);
  const media = await inspectMediaFile(staged.path, staged.size, staged.head, 'file');
  return { stored: await keepStagedFile(config.creativesDir, staged, media.extension), size: staged.size, media, fileName: file.fileName };
}

const uploadCreative = defineOperation({
  name: 'upload-creative',
  method: 'POST',
  path: '/brands/{brandId}/creatives',
  scope: 'write',
  idempotency: 'optional',
  input: 'upload-creative#/$defs/input',
  output: 'upload-creative#/$defs/output',
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  tag: 'creatives',
  toolset: 'launch',
  summary: 'Upload a creative (its bytes, or a URL to fetch): a PNG or JPEG image (at most 8 MB) or an MP4 video (at most 30 MB).',
  description:
    'Send multipart/form-data with the file in field `file` and an optional `name`, or JSON with the bytes in base64 as ' +
    '`dataBase64` (or `file: {fileName, contentBase64}`; JSON bodies are limited to 5 MB, so larger files go as multipart). ' +
    'The type is read from the bytes, not the file name; width and height (and durationMs for a video) are read from the file. ' +
    'Other formats answer 400 validation_failed (code invalid_value on the field that held them); a file over its limit answers 400 (code too_big), ' +
    'a multipart body past 32 MB 413. An image over 16,384 pixels a side or 100 megapixels, or a video over 4,096 a side, answers 400 on its field. ' +
    'Or send JSON `{url, name?}`: the file is fetched from that URL (https and a public address; no redirects; ' +
    'at most 8 MB for an image and 30 MB for a video), its type read from the bytes, not the Content-Type. ' +
    'A URL that is refused, unreachable, slow or answers other than 2xx answers 400 validation_failed naming `url` with what went wrong. ' +
    "Send exactly one of `file`, `dataBase64` and `url`. The name defaults to the file name, the URL's last path segment, " +
    'or `creative.<extension>` for `dataBase64`.',
  successStatus: 201,
  upload: { field: 'file', maxBytes: VIDEO_MAX_BYTES, checkHead },
  // Reading, hashing and moving a large file happen before any row is written, outside a transaction.
  transactional: false,
  uses: ['config', 'activity', 'outbound', 'upload'],
  async handler(ctx, input) {
    const { stored, size, media, fileName } = await sourceOf(input, ctx.upload, ctx.outbound, ctx.config);
    const creative: Omit<CreativeRow, 'id'> = {
      organizationId: ctx.brand.organizationId,
      brandId: ctx.brand.id,
      name: input.name ?? fileName ?? `creative.${media.extension}`,
      type: media.type,
      mime: media.mime,
      width: media.width,
      height: media.height,
      durationMs: media.durationMs,
      sizeBytes: size,
      sha256: stored.sha256,
      storageKey: stored.storageKey,
      createdAt: ctx.now(),
    };
    const id = await inTransaction(ctx.db, async (trx) => {
      const inserted = await insertCreative(trx, creative);
      await ctx.activity.record(
        { brandId: creative.brandId, entityType: 'unknown', entityId: String(inserted), entityName: creative.name, action: 'creative.uploaded' },
        trx,
      );
      return inserted;
    });
    return viewOf({ ...creative, id });
  },
});

const listCreatives = defineOperation({
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
  uses: ['page'],
  async handler(ctx, input) {
    const { rows, nextCursor } = ctx.page.pageOf(await creativesOf(ctx.db, ctx.brand.id, input.limit + 1, ctx.page.beforeId()), (c) => [c.id]);
    return { creatives: rows.map(viewOf), nextCursor };
  },
});

const getCreative = defineOperation({
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
  uses: [],
  async handler(ctx, input) {
    const creative = await findCreative(ctx.db, ctx.brand.id, input.creativeId);
    if (!creative) throw notFound(`Creative ${input.creativeId}`);
    return viewOf(creative);
  },
});

/** The creatives area's operations, in catalogue order. */
export const operations: OperationDefinition[] = [uploadCreative, listCreatives, getCreative];
