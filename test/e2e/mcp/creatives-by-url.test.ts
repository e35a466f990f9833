// upload_creative by URL through the SDK's real Client: an image fetched from a loopback server the
// test starts (WEBHOOK_ALLOW_PRIVATE=true) comes back with its size; without that flag a loopback
// URL is refused before any connection; an oversized or non-image body is refused naming url.

import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dialects } from '../../helpers/databases.js';
import { startFileServer, type FileServer } from '../../helpers/file-server.js';
import { mcpClient, toolError, type ToolResult } from '../../helpers/mcp.js';
import { makePng } from '../../helpers/png.js';
import { startWorld, type World } from '../../helpers/world.js';

for (const dialect of dialects()) {
  describe(`upload_creative by URL over MCP (${dialect})`, function () {
    this.timeout(60_000);
    let files: FileServer;
    let open: World;
    let strict: World;
    let openClient: Client;
    let strictClient: Client;

    before(async () => {
      const big = Buffer.alloc(8 * 1024 * 1024 + 1);
      makePng(8, 8).copy(big);
      files = await startFileServer({
        '/hero.png': { type: 'image/png', body: makePng(1200, 628) },
        '/words.png': { type: 'image/png', body: 'not a picture' },
        '/big.png': { type: 'image/png', body: big },
      });
      open = await startWorld({ dialect, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      strict = await startWorld({ dialect });
      openClient = await mcpClient(open.url, open.key('acme', 'ci'), { toolsets: null });
      strictClient = await mcpClient(strict.url, strict.key('acme', 'ci'), { toolsets: null });
    });
    after(async () => {
      await openClient?.close();
      await strictClient?.close();
      await open?.close();
      await strict?.close();
      await files?.close();
    });

    const upload = (client: Client, w: World, args: Record<string, unknown>) =>
      client.callTool({ name: 'upload_creative', arguments: { brandId: w.brandId('acme', 'shoes'), ...args } }) as Promise<ToolResult>;

    it("lists url beside dataBase64 (one flat string, not REST's file object) in the default toolset", async () => {
      const { tools } = await openClient.listTools();
      const tool = tools.find((t) => t.name === 'upload_creative');
      expect(tool?.inputSchema.required).to.deep.equal(['brandId']);
      expect(Object.keys(tool?.inputSchema.properties ?? {})).to.have.members(['brandId', 'name', 'dataBase64', 'url', 'idempotencyKey']);
      expect((tool?.inputSchema.properties as any).dataBase64).to.deep.include({ type: 'string' });
      expect((tool?.inputSchema.properties as any).url.description).to.contain('not with dataBase64');
    });

    it('takes the bytes as dataBase64 and answers an image with its width and height', async () => {
      const result = await upload(strictClient, strict, { dataBase64: makePng(320, 100).toString('base64') });
      expect(result.isError, result.content[0]?.text).to.not.equal(true);
      expect(result.structuredContent).to.deep.include({ name: 'creative.png', type: 'image', mime: 'image/png', width: 320, height: 100 });
      const both = toolError(await upload(strictClient, strict, { dataBase64: makePng(2, 2).toString('base64'), url: `${files.origin}/hero.png` }));
      expect(both.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
    });

    it('fetches an image from a loopback URL and answers it with its width and height', async () => {
      const result = await upload(openClient, open, { url: `${files.origin}/hero.png` });
      expect(result.isError, result.content[0]?.text).to.not.equal(true);
      expect(result.structuredContent).to.deep.include({ name: 'hero.png', type: 'image', mime: 'image/png', width: 1200, height: 628 });
    });

    it('refuses an oversized image and a body that is not an image, naming url', async () => {
      const big = toolError(await upload(openClient, open, { url: `${files.origin}/big.png` }));
      expect(big.code).to.equal('validation_failed');
      expect(big.details[0]).to.deep.include({ field: 'url', code: 'too_big' });
      expect(big.details[0].message).to.contain('8 MB');
      const words = toolError(await upload(openClient, open, { url: `${files.origin}/words.png` }));
      expect(words.code).to.equal('validation_failed');
      expect(words.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
    });

    it('without WEBHOOK_ALLOW_PRIVATE refuses a loopback URL before any connection', async () => {
      const seen = files.seen.length;
      const err = toolError(await upload(strictClient, strict, { url: `${files.origin}/hero.png` }));
      expect(err.code).to.equal('validation_failed');
      expect(err.details[0]).to.deep.include({ field: 'url', code: 'invalid_value' });
      expect(err.details[0].message).to.contain('WEBHOOK_ALLOW_PRIVATE');
      expect(files.seen.length, 'the loopback server saw a request').to.equal(seen);
    });
  });
}
