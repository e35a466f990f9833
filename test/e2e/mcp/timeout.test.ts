// MCP keeps the contract's request budget: a tool call past REQUEST_TIMEOUT_MS answers a `timeout`
// result, the work finishes anyway, and a retry with the same idempotencyKey gets its result.

import { expect } from 'chai';
import { waitUntil } from '../../helpers/launches.js';
import { mcpClient, toolError } from '../../helpers/mcp.js';
import { testOperations, testSchemas } from '../../helpers/test-operations.js';
import { startWorld, type World } from '../../helpers/world.js';

type Result = { isError?: boolean; structuredContent?: any };

describe('MCP request timeout', function () {
  this.timeout(30_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', env: { REQUEST_TIMEOUT_MS: '300' }, extraOperations: testOperations, extraSchemas: testSchemas });
  });
  after(async () => w?.close());

  it('answers timeout after the budget, then the finished result to a retry with the same key', async () => {
    const client = await mcpClient(w.url, w.key('acme', 'ci'));
    const args = { brandId: w.brandId('acme', 'shoes'), ms: 1200, idempotencyKey: 'mcp-slow-1' };
    const first = (await client.callTool({ name: 'test_sleep', arguments: args })) as Result;
    expect(first.isError).to.equal(true);
    expect(toolError(first).code).to.equal('timeout');
    expect(toolError(first).message).to.match(/may still complete/);
    // The work goes on after the timeout answer: its activity entry commits with its stored result.
    const slept = async () => Number((await w.service.knex('activity_entries').where({ action: 'test.sleep' }).count({ n: '*' }).first())?.n);
    await waitUntil(async () => (await slept()) === 1, 'the timed-out call to finish its work', 10_000, 50);
    const retry = (await client.callTool({ name: 'test_sleep', arguments: { ...args } })) as Result;
    expect(retry.isError).to.not.equal(true);
    expect(retry.structuredContent.slept).to.equal(1200);
    expect(await slept(), 'the retry replays: the work ran once').to.equal(1);
    await client.close();
  });
});
