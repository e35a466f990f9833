// The failure codes a caller of an operation can meet, derived from what the operation declares
// (path, scope, idempotency) plus the codes of its own rules. Tool descriptions list them.

import type { ErrorCode } from '../errors.js';
import { pathParams, type OperationDefinition } from './define.js';

/** Codes `op` may answer with, beyond authentication, rate limits and service failures. */
export function failureCodes(op: OperationDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>(['validation_failed', 'insufficient_scope']);
  const params = pathParams(op.path);
  if (op.idempotency === 'required') codes.add('idempotency_key_required');
  if (op.idempotency !== 'none') codes.add('idempotency_conflict');
  if (params.length) codes.add('not_found');
  if (params.includes('brandId')) codes.add('brand_not_allowed');
  if (op.scope === 'publish') for (const c of ['spend_ceiling_required', 'spend_ceiling_exceeded', 'unavailable'] as const) codes.add(c);
  for (const c of op.errors ?? []) codes.add(c);
  return [...codes];
}
