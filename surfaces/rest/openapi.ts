// Builds the OpenAPI 3.1 document of /v1 from the operation catalogue and the JSON Schemas.

import type { Catalogue, OperationDefinition } from '../../src/catalogue/define.js';
import { pathParams } from '../../src/catalogue/define.js';
import type { JsonSchema, SchemaRegistry } from '../../src/schemas/registry.js';
import { EVENT_TYPES } from '../../src/events/catalogue.js';
import { loadOperationExamples, type OperationExample } from '../../src/schemas/examples.js';

const ERROR_STATUSES: Record<string, string> = {
  '400': 'validation_failed (details list each invalid field), idempotency_key_required.',
  '401': 'unauthenticated: no, unrecognised, revoked or expired credential.',
  '403': 'plan_required, surface_disabled, insufficient_scope (details.requiredScope), brand_not_allowed, forbidden.',
  '404': 'not_found: no such endpoint, or no such resource in the brand.',
  '408': 'request_timeout: the headers or body did not arrive within REQUEST_TIMEOUT_MS of the first byte; the connection is closed.',
  '409': 'idempotency_conflict, conflict, stale_read.',
  '413': 'validation_failed: body larger than 5 MB.',
  '422': 'capability_unsupported, account_ambiguous, unprocessable.',
  '429': 'rate_limited: wait Retry-After seconds.',
  '431': 'validation_failed: request headers larger than the server limit.',
  '500': 'internal_error: retry with backoff.',
  '503': 'unavailable: a dependency could not answer; nothing was changed. webhooks_unavailable: webhooks are off in this environment.',
  '504': 'timeout: not finished within 30 seconds; may still complete. Retry with the same Idempotency-Key.',
};

const headerRefs = {
  'Service-Request-Id': { $ref: '#/components/headers/Service-Request-Id' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};

/** The multipart form of an upload body: the file as a binary part, the other fields as text parts. */
function multipartSchema(body: JsonSchema, field: string): JsonSchema {
  const props = { ...(body.properties as Record<string, JsonSchema>) };
  const description = props[field]?.description;
  props[field] = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', ...(description ? { description } : {}) };
  return { ...body, properties: props };
}

function operationObject(op: OperationDefinition, schemas: SchemaRegistry, example: OperationExample | undefined): Record<string, unknown> {
  const input = schemas.bundle(op.input);
  const props = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((input.required as string[] | undefined) ?? []);
  const inPath = pathParams(op.path);
  const parameters: unknown[] = inPath.map((name) => ({ name, in: 'path', required: true, schema: props[name] }));
  const takesBody = op.method !== 'GET' && op.method !== 'DELETE';
  if (!takesBody) {
    for (const [name, schema] of Object.entries(props)) {
      if (inPath.includes(name)) continue;
      const param: Record<string, unknown> = { name, in: 'query', required: required.has(name), schema };
      if (schema.type === 'array') Object.assign(param, { style: 'form', explode: true });
      parameters.push(param);
    }
  }
  if (op.idempotency !== 'none') {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: op.idempotency === 'required',
      description: 'A retry with the same key within 24 hours returns the first response without acting again.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  // The example's values go beside the parameters and bodies they belong to.
  const request = example?.request ?? {};
  for (const p of parameters as Array<Record<string, unknown>>) {
    const value =
      p.in === 'path' ? request.path?.[p.name as string] : p.in === 'query' ? request.query?.[p.name as string] : request.headers?.[p.name as string];
    if (value !== undefined) p.example = value;
  }
  const answer = example ? { example: example.response.body } : {};
  const out: Record<string, unknown> = {
    operationId: op.name,
    summary: op.summary,
    description: [op.description, `Scope: \`${op.scope}\`.`].filter(Boolean).join('\n\n'),
    tags: [op.tag],
    'x-scope': op.scope,
    parameters,
    responses: {
      [String(op.successStatus ?? 200)]: {
        description: 'Success.',
        headers: headerRefs,
        content: { 'application/json': { schema: schemas.bundle(op.output), ...answer } },
      },
      ...Object.fromEntries(Object.keys(ERROR_STATUSES).map((s) => [s, { $ref: `#/components/responses/E${s}` }])),
    },
  };
  if (takesBody) {
    const bodyProps = Object.fromEntries(Object.entries(props).filter(([k]) => !inPath.includes(k)));
    const bodyRequired = [...required].filter((k) => !inPath.includes(k));
    const body: JsonSchema = { ...input, properties: bodyProps };
    if (bodyRequired.length) body.required = bodyRequired;
    else delete body.required;
    const content: Record<string, unknown> = op.upload ? { 'multipart/form-data': { schema: multipartSchema(body, op.upload.field) } } : {};
    content['application/json'] = { schema: body, ...(request.body !== undefined ? { example: request.body } : {}) };
    out.requestBody = { required: bodyRequired.length > 0, content };
  }
  return out;
}

/** One OpenAPI `webhooks` entry per event type: the Standard Webhooks message a receiver gets. */
function eventWebhooks(schemas: SchemaRegistry): Record<string, unknown> {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    EVENT_TYPES.map((e) => {
      const data = schemas.bundle(e.schema);
      return [
        e.type,
        {
          post: {
            operationId: `event-${e.type.replace(/[._]/g, '-')}`,
            summary: String(data.title ?? e.type),
            tags: ['webhooks'],
            parameters: [
              header('webhook-id', 'The event id (evt_...): the same on every retry and redelivery; dedupe on it.'),
              header('webhook-timestamp', 'Seconds since the epoch when this attempt was signed.'),
              header(
                'webhook-signature',
                'v1,<base64 HMAC-SHA256 of id.timestamp.body> per signing secret, space-separated (two for 24 hours after a rotation).',
              ),
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['type', 'timestamp', 'data'],
                    properties: { type: { const: e.type }, timestamp: { type: 'string', format: 'date-time' }, data },
                  },
                },
              },
            },
            responses: {
              '2XX': {
                description:
                  'Delivered. Anything else, or no answer within 10 s, is retried (5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h for three days); 410 disables the endpoint.',
              },
            },
          },
        },
      ];
    }),
  );
}

/** The inbound endpoint of a workflow's video_review trigger: signed by the sender, not authenticated by a credential. */
function workflowHookPath(): Record<string, unknown> {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string', maxLength: 191 } });
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
  const answer = {
    type: 'object',
    additionalProperties: false,
    required: ['executionId', 'status', 'duplicate'],
    properties: {
      executionId: { type: 'integer' },
      status: { type: 'string' },
      duplicate: { type: 'boolean', description: 'true: this webhook-id already started a run; that run is answered.' },
    },
  };
  return {
    post: {
      operationId: 'receive-workflow-hook',
      summary: "Report a video review (for example an asset approved) to a workflow with a video_review trigger; starts a run as the workflow's saver.",
      description:
        'Send a JSON body of up to 256 KB, signed with Standard Webhooks 1.0 using the secret (whsec_...) shown once when the trigger was saved. ' +
        'A timestamp more than 5 minutes away, or no matching v1 signature: 401 unauthenticated. An inactive workflow: 409 conflict. The body is ' +
        "stored as the run's trigger payload. Each webhook-id starts one run; a redelivery answers 200 with that run.",
      tags: ['workflows'],
      security: [],
      parameters: [
        { name: 'hookId', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } },
        header('webhook-id', 'Unique message id; a redelivery keeps it.'),
        header('webhook-timestamp', 'Seconds since the epoch when the message was signed.'),
        header('webhook-signature', 'v1,<base64 HMAC-SHA256 of id.timestamp.body>, space-separated when several.'),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object' }, example: { assetId: 'vid_2841', status: 'approved', reviewer: 'maria@agency.example' } } },
      },
      responses: {
        '202': {
          description: 'A run started.',
          content: { 'application/json': { schema: answer, example: { executionId: 12, status: 'running', duplicate: false } } },
        },
        '200': { description: 'This webhook-id already started a run.', content: { 'application/json': { schema: answer } } },
        '400': error('The body is not JSON.'),
        '401': error("Not signed with the workflow's secret, or the timestamp is too far from now."),
        '404': error('No such hook.'),
        '409': error('The workflow is not active.'),
        '413': error('Body larger than 256 KB.'),
      },
    },
  };
}

/**
 * The whole OpenAPI document, with each operation's example (schemas/examples); deterministic, so
 * the committed copy can be drift-checked.
 */
export function buildOpenApi(catalogue: Catalogue, schemas: SchemaRegistry, examples = loadOperationExamples()): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const ops = [...catalogue.list()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const op of ops) {
    paths[op.path] ??= {};
    paths[op.path][op.method.toLowerCase()] = operationObject(op, schemas, examples.get(op.name));
  }
  paths['/workflow-hooks/{hookId}'] = workflowHookPath();
  const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Ad Campaign Launch Service',
      version: '1.0.0',
      description:
        'Prepare ad campaigns as drafts, publish them to ad platforms, edit live budgets and watch them, per brand. ' +
        'Authenticate with `Authorization: Bearer <API key or access token>`. Errors share one envelope; every response carries ' +
        '`Service-Request-Id`. Lists are cursor-paginated (`cursor`, `limit` 1 to 100, `nextCursor`); a cursor is bound to its ' +
        'endpoint, filters and limit. Unknown query or body fields are refused with `validation_failed`.',
    },
    servers: [{ url: '/v1' }],
    security: [{ bearer: [] }],
    tags: [...new Set(ops.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    webhooks: eventWebhooks(schemas),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An organization API key (svc_sk_...) or an OAuth access token (svc_at_...).' },
      },
      schemas: { Error: schemas.bundle('error') },
      headers: {
        'Service-Request-Id': { description: 'Id of this request; equals error.requestId.', schema: { type: 'string' } },
        'RateLimit-Limit': intHeader('Requests allowed per minute for the organization.'),
        'RateLimit-Remaining': intHeader('Requests left in the current minute.'),
        'RateLimit-Reset': intHeader('Seconds until the current minute window resets.'),
        'Retry-After': intHeader('Seconds to wait before retrying.'),
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_STATUSES).map(([status, description]) => [
          `E${status}`,
          {
            description,
            headers: {
              'Service-Request-Id': headerRefs['Service-Request-Id'],
              ...(status === '429' || status === '409' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}
