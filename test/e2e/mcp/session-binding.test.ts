// Issue 43, finding 8: an MCP session belongs to the credential that opened it. Another credential
// (another organization's key) presenting its Mcp-Session-Id gets 404 (session not found) and changes
// nothing in it; resource links run only tools of the session's toolsets.

import { expect } from 'chai';
import { standardWorld } from '../../helpers/fixture.js';
import { startWorld, type World } from '../../helpers/world.js';
import { readUri } from '../../../surfaces/mcp/resources.js';

describe('MCP sessions bound to their credential', function () {
  this.timeout(60_000);
  let w: World;
  before(async () => {
    w = await startWorld({ dialect: 'sqlite', bootstrap: standardWorld });
  });
  after(async () => w?.close());

  let seq = 0;
  async function post(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await fetch(`${w.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++seq, ...body }),
    });
    const text = await res.text();
    const json = text.startsWith('event:') ? JSON.parse(text.split('\ndata: ')[1].split('\n')[0]) : text ? JSON.parse(text) : null;
    return { status: res.status, headers: res.headers, body: json };
  }
  const initialize = (key: string, headers: Record<string, string>) =>
    post(key, { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, headers);

  it("another organization's key presenting the session id gets 404 and cannot see or change the session's toolsets", async () => {
    const owner = w.key('acme', 'ci');
    const stranger = w.key('other', 'otherKey');
    const dynamic = { 'x-mcp-toolsets': 'dynamic' };
    const opened = await initialize(owner, dynamic);
    expect(opened.status).to.equal(200);
    const session = opened.headers.get('mcp-session-id')!;
    const withSession = { ...dynamic, 'mcp-session-id': session };
    const names = async (key: string) => {
      const r = await post(key, { method: 'tools/list' }, withSession);
      return r.status === 200 ? (r.body.result.tools as Array<{ name: string }>).map((t) => t.name) : r.status;
    };
    expect(await names(owner)).to.not.include('list_webhook_endpoints');

    // The stranger: 404 for a read, a call, an enable; nothing of the session changes.
    expect(await names(stranger)).to.equal(404);
    const enable = await post(stranger, { method: 'tools/call', params: { name: 'enable_toolset', arguments: { toolset: 'integrate' } } }, withSession);
    expect(enable.status).to.equal(404);
    expect(enable.body.error.message).to.match(/Session not found/);
    expect(await names(owner), 'the stranger enabled nothing').to.not.include('list_webhook_endpoints');

    const own = await post(owner, { method: 'tools/call', params: { name: 'enable_toolset', arguments: { toolset: 'integrate' } } }, withSession);
    expect(own.status).to.equal(200);
    expect(await names(owner)).to.include('list_webhook_endpoints');
    expect(await names(stranger), 'still not the stranger’s').to.equal(404);
    // Without the session id the stranger works as always.
    expect((await post(stranger, { method: 'tools/list' }, dynamic)).status).to.equal(200);
  });

  it("resource links run only tools of the connection's toolsets", async () => {
    const key = w.key('acme', 'ci');
    const uri = readUri('list_webhook_endpoints', {});
    const outside = await post(key, { method: 'resources/read', params: { uri } }, { 'x-mcp-toolsets': 'default' });
    expect(outside.body.error, JSON.stringify(outside.body)).to.exist;
    expect(outside.body.error.message).to.match(/not in the toolsets of this connection/);
    const inside = await post(key, { method: 'resources/read', params: { uri } }, { 'x-mcp-toolsets': 'integrate' });
    expect(inside.body.result, JSON.stringify(inside.body)).to.exist;
    expect(JSON.parse(inside.body.result.contents[0].text)).to.have.property('webhookEndpoints');
  });
});
