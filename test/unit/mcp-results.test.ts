// The one rule for MCP tool results, checked against every tool of the catalogue with the same
// check the SDK's Client makes: an error result is accepted whatever the tool's outputSchema,
// while an error that carried its envelope as structuredContent (the old shape) is refused.

import { expect } from 'chai';
import { operations } from '../../src/wiring/operations.js';
import { ServiceError } from '../../src/errors.js';
import { SchemaRegistry, loadSchemaFiles } from '../../src/schemas/registry.js';
import { asToolAnswer, errorResult, successResult } from '../../surfaces/mcp/results.js';
import { toolsFor } from '../../surfaces/mcp/tools.js';
import { Catalogue } from '../../src/catalogue/define.js';
import { clientAccepts } from '../helpers/mcp.js';

describe('MCP tool results', () => {
  const schemas = new SchemaRegistry(loadSchemaFiles());
  const tools = toolsFor(new Catalogue(schemas, operations).list(), schemas);
  const failures = [
    new ServiceError('validation_failed', 'Invalid request: limit must be at most 100.', [{ field: 'limit', code: 'too_big', message: 'must be at most 100' }]),
    new ServiceError('not_found', 'Launch 9 was not found.'),
    new ServiceError('conflict', 'The node is still a draft.'),
    new Error('a bug whose message must not leak'),
  ];

  it('makes every failure an isError result with the envelope as text and no structuredContent, which every tool accepts', () => {
    for (const tool of tools) {
      for (const failure of failures) {
        const result = errorResult(failure, 'req-1');
        expect(result.isError).to.equal(true);
        expect(result).to.not.have.property('structuredContent');
        const envelope = JSON.parse((result.content[0] as { text: string }).text);
        expect(envelope.error.requestId).to.equal('req-1');
        expect(envelope.error.code).to.equal(failure instanceof ServiceError ? failure.code : 'internal_error');
        expect(clientAccepts(tool, result), tool.name).to.deep.equal({ ok: true });
      }
    }
  });

  it('would break every tool if an error carried the envelope as structuredContent (the check can fail)', () => {
    for (const tool of tools) {
      const result = errorResult(failures[1], 'req-2');
      const oldShape = {
        ...result,
        content: result.content as Array<{ type: string; text?: string }>,
        structuredContent: JSON.parse((result.content[0] as { text: string }).text),
      };
      const verdict = clientAccepts(tool, oldShape);
      expect(verdict.ok, tool.name).to.equal(false);
    }
  });

  it('makes a success carry the answer as structuredContent and as the same JSON text', () => {
    // The last page of list_brands as a tool answers it (a null nextCursor left out).
    const answer = asToolAnswer({ accounts: [], nextCursor: null });
    expect(answer).to.deep.equal({ accounts: [] });
    const { result, json } = successResult(answer);
    expect(result.structuredContent).to.equal(answer);
    expect(JSON.parse((result.content[0] as { text: string }).text)).to.deep.equal(answer);
    expect(JSON.parse(json)).to.deep.equal(result);
    expect(
      clientAccepts(
        tools.find((t) => t.name === 'list_brands')!,
        { ...result, content: result.content as Array<{ type: string; text?: string }> },
      ),
    ).to.deep.equal({ ok: true });
  });
});
