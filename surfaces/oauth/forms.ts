// The bodies of the OAuth and account pages' endpoints (paths.md "Limits"): decoded as their
// Content-Encoding says (gzip, deflate, br) by REST's reader, read as they arrive up to 64 KB after
// decoding (413 past it: a decompression bomb is never inflated whole), strict UTF-8 (no U+FFFD stands
// in for a bad byte), a form's percent-escapes decoded to bytes and checked the same way, JSON nested
// at most 64 deep, and every string text (no NUL, no lone surrogate). A refusal is answered by the
// endpoint's own `refuse` (OAuth JSON, or an HTML page), never as a 500.

import type Koa from 'koa';
import { readBodyBytes } from '../json-body.js';
import { textIssues, textProblem } from '../../src/schemas/text.js';

/** The largest body these endpoints read. */
export const FORM_LIMIT_BYTES = 64 * 1024;

export type Refuse = (ctx: Koa.Context, status: number, message: string) => void;

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function utf8(bytes: Uint8Array, what: string): string {
  try {
    return strict.decode(bytes);
  } catch {
    throw new Refusal(400, `${what} is not valid UTF-8.`);
  }
}

/** `%XX` escapes and `+` of a form value, decoded to bytes, then read as strict UTF-8. */
function formText(raw: string, what: string): string {
  if (!/[%+]/.test(raw)) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x25 /* % */ && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === 0x2b /* + */) bytes.push(0x20);
    else if (c < 0x80) bytes.push(c);
    else for (const b of Buffer.from(raw[i], 'utf8')) bytes.push(b);
  }
  return utf8(Uint8Array.from(bytes), what);
}

/** An application/x-www-form-urlencoded body: a name sent more than once gives the list of its values. */
export function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const pair of text.split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const name = formText(eq < 0 ? pair : pair.slice(0, eq), 'A field name');
    const value = formText(eq < 0 ? '' : pair.slice(eq + 1), `The field "${name.slice(0, 40)}"`);
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) throw new Refusal(400, `The field "${name.replace(/\0/g, '')}" ${problem}.`);
    const had = out[name];
    out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return { ...out };
}

/** A JSON body: an object, nested at most 64 deep, every string text. */
function parseJson(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new Refusal(400, 'The request body is not valid JSON.');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Refusal(400, 'The request body must be a JSON object.');
  const [issue] = textIssues(body);
  if (issue) throw new Refusal(400, `${issue.field || 'The body'} ${issue.message}.`);
  return body as Record<string, unknown>;
}

/**
 * The body parser of these endpoints: urlencoded forms (and JSON where `json`), into
 * `ctx.request.body`; any other type leaves an empty body. A refusal goes to `refuse`.
 */
export function limitedForm(options: { json: boolean }, refuse: Refuse): Koa.Middleware {
  return async (ctx, next) => {
    try {
      const declared = Number(ctx.get('content-length') || 0);
      if (!(declared > 0 || ctx.get('transfer-encoding'))) {
        ctx.request.body = {};
        return next();
      }
      const isForm = Boolean(ctx.is('application/x-www-form-urlencoded'));
      const isJson = options.json && Boolean(ctx.is('application/json'));
      const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(ctx.get('content-type'))?.[1]?.toLowerCase();
      if ((isForm || isJson) && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        throw new Refusal(400, `The body must be UTF-8, not charset=${charset}.`);
      }
      const tooLarge = () => new Refusal(413, `The request body is larger than ${FORM_LIMIT_BYTES / 1024} KB.`);
      // Declared past the limit: refused unread (the limit holds for the bytes sent as for the bytes decoded).
      if (declared > FORM_LIMIT_BYTES) {
        // The rest is read and dropped, so the answer reaches the caller.
        ctx.req.resume();
        throw tooLarge();
      }
      const bytes = await readBodyBytes(ctx.req, FORM_LIMIT_BYTES, tooLarge);
      if (!isForm && !isJson) {
        ctx.request.body = {};
        return next();
      }
      const text = utf8(bytes, 'The request body');
      ctx.request.body = (isJson ? parseJson(text) : parseForm(text)) as Koa.Request['body'];
    } catch (err) {
      if (err instanceof Refusal) return refuse(ctx, err.status, err.message);
      // A body that broke off, or any other reading failure, is the caller's: 400.
      if (err instanceof Error && (err as { code?: string }).code === 'validation_failed') return refuse(ctx, 400, err.message);
      throw err;
    }
    return next();
  };
}
