// The example of every operation (schemas/examples, shown in docs/openapi.json) is sent, in an
// order that makes each valid, to a fresh demo server as `npm start` seeds it, and each answer
// must have the example's status and match the operation's response schema in docs/openapi.json.
// After an answer changes on purpose, UPDATE_EXAMPLES=1 on this file writes each example again
// from what the server sent and answered (then `npm run generate`).

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { operations } from '../../../src/wiring/operations.js';
import { projectPath } from '../../../src/paths.js';
import { EXAMPLES_DIR, loadOperationExamples } from '../../../src/schemas/examples.js';
import { IdTranslator, replayExample, replayOrder } from '../../helpers/api-examples.js';
import { waitUntil } from '../../helpers/launches.js';
import { startSvcServer, stopAllServers, type ServerProcess } from '../../helpers/processes.js';
import { requestJson, type RequestOptions } from '../../helpers/http.js';
import { tokensFor } from '../../helpers/oauth.js';
import { brandApi, buildLaunch, uploadCreative } from '../../helpers/launch-builders.js';
import type { World } from '../../helpers/world.js';

// Creations before the reads, changes and deletions that use what they made. An operation whose
// example is not listed here runs right after the operation its example names in `after`, or else
// after these, in name order: a new operation places itself from its example file.
const ORDER = [
  'list-brands',
  'get-brand-profile',
  'set-brand-profile',
  'upload-creative',
  'list-creatives',
  'get-creative',
  'generate-copy',
  'list-copies',
  'get-copy',
  'get-naming-convention',
  'set-naming-convention',
  'list-campaigns',
  'list-lead-forms',
  'list-options',
  'get-overview',
  'list-activity',
  'create-launch',
  'list-launches',
  'update-launch',
  'create-node',
  'update-node',
  'create-snapshot-template',
  'list-snapshot-templates',
  'create-launch-from-snapshot',
  'remove-nodes',
  'delete-launch',
  'create-structure-template',
  'list-structure-templates',
  'get-structure-template',
  'edit-structure-template',
  'apply-structure-template',
  'get-launch',
  'get-ad-set',
  'duplicate-node',
  'launch-campaign',
  'edit-live-campaign',
  'delete-structure-template',
  'create-automation',
  'list-automations',
  'get-automation',
  'update-automation',
  'preview-automation',
  'run-automation',
  'list-automation-runs',
  'set-automation-status',
  'delete-automation',
  'create-workflow',
  'list-workflows',
  'get-workflow',
  'save-workflow',
  'activate-workflow',
  'deactivate-workflow',
  'run-workflow',
  'list-workflow-executions',
  'get-workflow-execution',
  'review-workflow-step',
  'create-pipeline-column',
  'update-pipeline-column',
  'create-pipeline-card',
  'get-pipeline',
  'move-pipeline-card',
  'delete-pipeline-card',
  'delete-pipeline-column',
  'delete-workflow',
  'create-webhook-endpoint',
  'list-webhook-endpoints',
  'get-webhook-endpoint',
  'update-webhook-endpoint',
  'test-webhook-endpoint',
  'list-webhook-deliveries',
  'redeliver-webhook',
  'rotate-webhook-secret',
  'delete-webhook-endpoint',
  'get-tracker-connection',
  'list-tracker-mappings',
  'update-tracker-mapping',
  'get-tracker-push',
  'set-tracker-push',
  'run-tracker-push',
  'get-tracker-push-run',
  'connect-tracker',
  'disconnect-tracker',
  // Last: from here on the organization's agents prepare and a person decides (agentPublishes: person).
  'get-organization-settings',
  'update-organization-settings',
  'list-approvals',
  'get-approval',
];

// A review is decided by someone other than the run's author: the demo's second key.
const AS_REVIEWER = new Set(['review-workflow-step']);
// The organization's settings are a person's (owner or admin) to read and change: the demo owner's OAuth token.
const AS_PERSON = new Set(['get-organization-settings', 'update-organization-settings']);

// The example webhook address; the run sends to a receiver of its own on loopback instead.
const EXAMPLE_HOOK = 'https://hooks.example.com/svc';

const examples = loadOperationExamples();
const byName = new Map(operations.map((op) => [op.name, op]));
const sequence = replayOrder(ORDER, examples);
const openapi = JSON.parse(fs.readFileSync(projectPath('docs', 'openapi.json'), 'utf8'));
const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * With agentPublishes person, the demo key's publish of a new draft waits for a person: an approval
 * for the approvals' examples to read.
 */
async function requestApproval(baseUrl: string, key: string): Promise<void> {
  const w = { url: baseUrl, request: (method: string, p: string, o: RequestOptions = {}) => requestJson(baseUrl, method, p, o) } as unknown as World;
  const brandId = 1;
  const creativeId = await uploadCreative(w, key, brandId);
  const built = await buildLaunch(brandApi(w, key, brandId), { creativeId, title: 'Waits for a person' });
  const asked = await requestJson(baseUrl, 'POST', `/v1/brands/${brandId}/launches/${built.launchId}/publish`, {
    key,
    body: { confirm: true },
    headers: { 'Idempotency-Key': 'examples-approval' },
  });
  expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
}

/** The response schema docs/openapi.json gives the operation for `status`. */
function responseSchema(name: string, status: number): object {
  const op = byName.get(name)!;
  const schema = openapi.paths[op.path]?.[op.method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`docs/openapi.json has no ${status} response schema for ${op.method} ${op.path}`);
  return schema;
}

function check(name: string, status: number, body: unknown): void {
  const validate = ajv.compile(responseSchema(name, status));
  expect(validate(body), `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`).to.equal(true);
}

describe('API examples: every operation has one, in docs/openapi.json, and it works on a fresh demo server', function () {
  this.timeout(60_000);

  it('every operation of the catalogue has an example, and every example names an operation', () => {
    expect(
      operations.map((op) => op.name).filter((n) => !examples.has(n)),
      'operations without schemas/examples/<name>.json',
    ).to.deep.equal([]);
    expect(
      [...examples.keys()].filter((n) => !byName.has(n)),
      'examples of no operation',
    ).to.deep.equal([]);
  });

  it("every example answer has the operation's success status and matches its response schema", () => {
    for (const [name, example] of examples) {
      expect(example.response.status, name).to.equal(byName.get(name)!.successStatus ?? 200);
      check(name, example.response.status, example.response.body);
    }
  });

  it('docs/openapi.json carries each example beside its parameters, body and answer', () => {
    for (const [name, example] of examples) {
      const op = byName.get(name)!;
      const entry = openapi.paths[op.path][op.method.toLowerCase()];
      expect(entry.responses[String(example.response.status)].content['application/json'].example, name).to.deep.equal(example.response.body);
      if (example.request.body !== undefined) expect(entry.requestBody.content['application/json'].example, name).to.deep.equal(example.request.body);
      for (const [param, value] of Object.entries({ ...example.request.path, ...example.request.query })) {
        expect(entry.parameters.find((p: { name: string }) => p.name === param)?.example, `${name} ${param}`).to.deep.equal(value);
      }
    }
  });

  describe('sent in order to a fresh demo server', () => {
    let server: ServerProcess;
    let receiver: http.Server;
    let dir: string;
    const keys = { owner: '', reviewer: '', person: '' };
    const ids = new IdTranslator();
    let hook = '';

    before(async () => {
      receiver = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(204).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
      hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/svc`;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-examples-'));
      // A known port and BASE_URL naming it, so the owner's OAuth token is for this server's /v1.
      const port = await freePort();
      server = await startSvcServer(['serve', '--demo'], {
        env: {
          DATABASE_URL: `sqlite:${path.join(dir, 'svc.sqlite')}`,
          CREATIVES_DIR: path.join(dir, 'creatives'),
          WEBHOOK_ALLOW_PRIVATE: 'true',
          PORT: String(port),
          BASE_URL: `http://127.0.0.1:${port}`,
        },
      });
      keys.owner = /API key:\s+(\S+)/.exec(server.stdout)![1];
      keys.reviewer = /Reviewer key:\s+(\S+)/.exec(server.stdout)![1];
      const [email, password] = /Owner login:\s+(\S+) \/ (\S+)/.exec(server.stdout)!.slice(1);
      keys.person = (await tokensFor(server.url, { email, password }, { resource: `${server.url}/v1`, scope: 'read write' })).access_token;
    });
    after(async () => {
      await server?.stop();
      await stopAllServers();
      await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const name of sequence) {
      it(`${name}: the example request answers ${examples.get(name)!.response.status} and a body that matches the response schema`, async () => {
        const op = byName.get(name)!;
        const example = examples.get(name)!;
        if (AS_REVIEWER.has(name)) {
          // The run reaches its review gate in the background.
          const { workflowId, executionId, brandId } = example.request.path!;
          const url = `${server.url}/v1/brands/${brandId}/workflows/${ids.id(workflowId)}/executions/${ids.id(executionId)}`;
          await waitUntil(
            async () => (await (await fetch(url, { headers: { authorization: `Bearer ${keys.owner}` } })).json()).status === 'waiting_review',
            'the run to wait at its review gate',
            20_000,
            100,
          );
        }
        if (name === 'list-approvals') await requestApproval(server.url, keys.owner);
        const reply = await replayExample(op, example, {
          baseUrl: server.url,
          key: AS_REVIEWER.has(name) ? keys.reviewer : AS_PERSON.has(name) ? keys.person : keys.owner,
          ids,
          rewrite: { [EXAMPLE_HOOK]: hook },
        });
        expect(reply.status, JSON.stringify(reply.body)).to.equal(example.response.status);
        check(name, reply.status, reply.body);
        if (process.env.UPDATE_EXAMPLES === '1') {
          // Written back as the docs show them: the example host, not this run's receiver.
          const asShown = (v: unknown) => JSON.parse(JSON.stringify(v).split(hook).join(EXAMPLE_HOOK));
          const file = path.join(EXAMPLES_DIR, `${name}.json`);
          fs.writeFileSync(
            file,
            JSON.stringify({ after: example.after, request: asShown(reply.sent), response: { status: reply.status, body: asShown(reply.body) } }, null, 2) +
              '\n',
          );
        }
      });
    }
  });
});
