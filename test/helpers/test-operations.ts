// Test-only operations and their schemas, registered through
// `startWorld({ dialect, extraOperations: testOperations, extraSchemas: testSchemas })`.
// They run through the real pipeline (scope, validation, brand access, idempotency, transaction,
// activity, output shaping) and let the e2e tests reach error rules no real operation produces yet.

import type { Knex } from 'knex';
import { defineOperation, type OperationDefinition } from '../../src/catalogue/define.js';
import type { JsonSchema } from '../../src/schemas/registry.js';

/** The text `test-crash` throws; a 500 answer must never show it. */
export const CRASH_SECRET = 'db-password=hunter2-do-not-leak';

const S = 'https://json-schema.org/draft/2020-12/schema';

const brandId = { $ref: 'common#/$defs/brandId' };
const executions = { type: 'integer', minimum: 0 };
const requestId = { type: 'string', maxLength: 64 };

/** An object with the `properties` given and no others, `required` among them required. */
const closedObject = (required: string[], properties: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: false, required, properties });

/** The schema document `id` of a test operation: its input at `id#/$defs/input`, its output at `id#/$defs/output`. */
const operationSchema = (id: string, title: string, input: JsonSchema, output: JsonSchema): JsonSchema => ({
  $schema: S,
  $id: id,
  title,
  $defs: { input, output },
});

const echoSchema = operationSchema(
  'test-echo',
  'Test echo',
  closedObject(['brandId', 'echo'], {
    brandId,
    echo: { type: 'string', minLength: 1, maxLength: 200 },
    mode: { enum: ['plain', 'loud'] },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', minLength: 1, maxLength: 20 } },
    entityId: { type: 'string', minLength: 1, maxLength: 64 },
    accountId: { type: 'string', minLength: 1, maxLength: 64 },
    // Failure injection: the first `failAttempts` calls carrying `token` throw after recording activity.
    failAttempts: { type: 'integer', minimum: 0, maximum: 5 },
    token: { type: 'string', minLength: 1, maxLength: 64 },
  }),
  closedObject(['echo', 'executions', 'requestId'], { echo: { type: 'string', maxLength: 2000 }, executions, requestId }),
);

const requiredKeySchema = operationSchema(
  'test-required-key',
  'Test operation whose Idempotency-Key is required',
  closedObject(['brandId'], { brandId, note: { type: 'string', minLength: 1, maxLength: 100 } }),
  closedObject(['executions', 'requestId'], { executions, requestId }),
);

const sleepSchema = operationSchema(
  'test-sleep',
  'Test operation that sleeps',
  closedObject(['brandId', 'ms'], { brandId, ms: { type: 'integer', minimum: 0, maximum: 10_000 } }),
  closedObject(['slept', 'executions', 'requestId'], { slept: { type: 'integer', minimum: 0 }, executions, requestId }),
);

const crashSchema = operationSchema(
  'test-crash',
  'Test operation that crashes',
  closedObject(['brandId'], { brandId }),
  // It never answers: an empty object.
  { type: 'object', additionalProperties: false, properties: {} },
);

export const testSchemas: JsonSchema[] = [echoSchema, requiredKeySchema, sleepSchema, crashSchema];

const annotations = { readOnly: false, destructive: false, idempotent: false, openWorld: false };

/** Activity rows of a brand: each acting call adds one, so a replay can be told from a re-run. */
export async function activityCount(db: Knex | Knex.Transaction, brand: number): Promise<number> {
  const [row] = await db('activity_entries').where('brand_id', brand).count({ n: '*' });
  return Number(row.n);
}

const attempts = new Map<string, number>();

export const testEcho = defineOperation({
  name: 'test-echo',
  uses: ['activity'],
  method: 'POST',
  path: '/brands/{brandId}/test-echo',
  scope: 'write',
  idempotency: 'optional',
  input: 'test-echo#/$defs/input',
  output: 'test-echo#/$defs/output',
  annotations,
  tag: 'test',
  toolset: 'launch',
  summary: 'Test: records one activity entry and echoes the text back.',
  successStatus: 201,
  async handler(
    ctx,
    input: { brandId: number; echo: string; mode?: string; count?: number; entityId?: string; accountId?: string; failAttempts?: number; token?: string },
  ) {
    await ctx.activity.record({
      brandId: input.brandId,
      accountId: input.accountId ?? null,
      entityType: 'campaign',
      entityId: input.entityId ?? 'echo',
      entityName: input.echo,
      action: 'test.echo',
    });
    if (input.failAttempts) {
      const key = input.token ?? input.echo;
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      if (n <= input.failAttempts) throw new Error(`injected failure ${n} of ${input.failAttempts}`);
    }
    const text = input.mode === 'loud' ? input.echo.toUpperCase() : input.echo;
    return { echo: text.repeat(input.count ?? 1), executions: await activityCount(ctx.db, input.brandId), requestId: ctx.requestId };
  },
});

export const testRequiredKey = defineOperation({
  name: 'test-required-key',
  uses: ['activity'],
  method: 'POST',
  path: '/brands/{brandId}/test-required-key',
  scope: 'write',
  idempotency: 'required',
  input: 'test-required-key#/$defs/input',
  output: 'test-required-key#/$defs/output',
  annotations,
  tag: 'test',
  toolset: 'launch',
  summary: 'Test: like test-echo, but the Idempotency-Key is required.',
  async handler(ctx, input: { brandId: number; note?: string }) {
    await ctx.activity.record({ brandId: input.brandId, entityType: 'unknown', entityId: 'required-key', action: 'test.required' });
    return { executions: await activityCount(ctx.db, input.brandId), requestId: ctx.requestId };
  },
});

export const testSleep = defineOperation({
  name: 'test-sleep',
  uses: ['activity'],
  method: 'POST',
  path: '/brands/{brandId}/test-sleep',
  scope: 'write',
  idempotency: 'optional',
  input: 'test-sleep#/$defs/input',
  output: 'test-sleep#/$defs/output',
  annotations,
  tag: 'test',
  toolset: 'launch',
  summary: 'Test: sleeps `ms` milliseconds, then records one activity entry and answers.',
  // Outside a transaction, so the sleep holds no connection (SQLite has a pool of one).
  transactional: false,
  async handler(ctx, input: { brandId: number; ms: number }) {
    await new Promise((r) => setTimeout(r, input.ms));
    await ctx.activity.record({ brandId: input.brandId, entityType: 'unknown', entityId: 'sleep', action: 'test.sleep' });
    return { slept: input.ms, executions: await activityCount(ctx.db, input.brandId), requestId: ctx.requestId };
  },
});

export const testCrash = defineOperation({
  name: 'test-crash',
  uses: [],
  method: 'POST',
  path: '/brands/{brandId}/test-crash',
  scope: 'write',
  idempotency: 'optional',
  input: 'test-crash#/$defs/input',
  output: 'test-crash#/$defs/output',
  annotations,
  tag: 'test',
  toolset: 'launch',
  summary: 'Test: throws a plain Error whose message holds a secret.',
  async handler() {
    throw new Error(`connection failed: ${CRASH_SECRET}`);
  },
});

export const testOperations: OperationDefinition[] = [testEcho, testRequiredKey, testSleep, testCrash];
