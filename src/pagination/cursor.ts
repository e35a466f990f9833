// Opaque, signed page cursors bound to one operation, its filters and its page size.
// A cursor carries a keyset position, so a deep page costs what the first page costs.

import crypto from 'node:crypto';
import { ServiceError } from '../errors.js';

const VERSION = 1;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

export type Position = Array<string | number>;

interface Payload {
  v: number;
  o: string;
  f: string;
  l: number;
  k: Position;
  t: number;
}

export interface PageCursor {
  /** The keyset position the caller's cursor points at; null on the first page. */
  position(): Position | null;
  /** A cursor for the page after `position`. */
  next(position: Position): string;
  /** Where a newest-first list by id continues: below the id the cursor holds; undefined on the first page. */
  beforeId(): number | undefined;
  /**
   * One page of `rows` read with the page size plus one: the first rows up to the page size, and the
   * cursor of the next page (at `key` of the last row kept) when there was one more; null otherwise.
   */
  pageOf<T>(rows: T[], key: (row: T) => Position): { rows: T[]; nextCursor: string | null };
}

const invalid = () =>
  new ServiceError('validation_failed', 'cursor is invalid or expired', [
    { field: 'cursor', code: 'invalid_value', message: 'cursor is invalid or expired; start again from the first page with the same filters and limit' },
  ]);

/** Canonical JSON (sorted keys) so that equal filters always hash the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export class CursorCodec {
  constructor(
    private readonly secret: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  private sign(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }

  /** Binds the codec to one call: its operation name, its input (filters) and its limit. */
  bind(operation: string, input: Record<string, unknown>): PageCursor {
    const { cursor, limit, ...filters } = input;
    // Hashed only when a cursor is read or written: most calls never page.
    let hash: string | null = null;
    const filterHash = () => (hash ??= crypto.createHash('sha256').update(canonicalJson(filters)).digest('base64url').slice(0, 16));
    const pageSize = typeof limit === 'number' ? limit : 0;
    const position = () => (typeof cursor === 'string' ? this.decode(cursor, operation, filterHash(), pageSize) : null);
    const next = (at: Position) => {
      const payload: Payload = { v: VERSION, o: operation, f: filterHash(), l: pageSize, k: at, t: this.now() };
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${this.sign(body)}`;
    };
    return {
      position,
      next,
      beforeId: () => {
        const at = position();
        return at ? Number(at[0]) : undefined;
      },
      pageOf: (rows, key) => {
        const page = rows.slice(0, pageSize);
        return { rows: page, nextCursor: rows.length > pageSize ? next(key(page[page.length - 1])) : null };
      },
    };
  }

  private decode(token: string, operation: string, filterHash: string, pageSize: number): Position {
    const [body, sig, extra] = token.split('.');
    if (!body || !sig || extra !== undefined) throw invalid();
    const expected = this.sign(body);
    if (sig.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) throw invalid();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    } catch {
      throw invalid();
    }
    const fresh = typeof payload.t === 'number' && this.now() - payload.t <= MAX_AGE_MS;
    if (payload.v !== VERSION || payload.o !== operation || payload.f !== filterHash || payload.l !== pageSize || !fresh || !Array.isArray(payload.k)) {
      throw invalid();
    }
    return payload.k;
  }
}
