// The OpenAPI document: generated from the catalogue, committed, served, and valid for a third-party validator.

import fs from 'node:fs';
import { expect } from 'chai';
import SwaggerParser from '@apidevtools/swagger-parser';
import { OPENAPI_FILE, renderOpenApi } from '../../../scripts/write-openapi.js';
import { startWorld, type World } from '../../helpers/world.js';

describe('OpenAPI document', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ dialect: 'sqlite' });
  });
  after(async () => world?.close());

  it('matches the committed docs/openapi.json (run `npm run openapi` after changing an operation or schema)', () => {
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).to.equal(renderOpenApi());
  });

  it('is served at /v1/openapi.json without credentials, equal to the committed file', async () => {
    const reply = await world.request('GET', '/v1/openapi.json');
    expect(reply.status).to.equal(200);
    expect(reply.body).to.deep.equal(JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('is a valid OpenAPI 3.1 document for @apidevtools/swagger-parser', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(renderOpenApi()))) as { openapi: string };
    expect(api.openapi).to.equal('3.1.0');
  });

  it('documents every catalogue operation once, with its scope and the error responses', () => {
    const doc = JSON.parse(renderOpenApi());
    const ids: string[] = [];
    for (const item of Object.values<any>(doc.paths)) for (const op of Object.values<any>(item)) ids.push(op.operationId);
    // Beside the catalogue: the inbound hook of video_review workflows, signed by its sender instead of authenticated.
    expect(ids.filter((id) => id !== 'receive-workflow-hook').sort()).to.deep.equal(
      world.service.catalogue
        .list()
        .map((o) => o.name)
        .sort(),
    );
    expect(doc.paths['/workflow-hooks/{hookId}'].post.operationId).to.equal('receive-workflow-hook');
    const brands = doc.paths['/brands'].get;
    expect(brands['x-scope']).to.equal('read');
    expect(Object.keys(brands.responses)).to.include.members(['200', '400', '401', '403', '404', '429', '500', '503', '504']);
    expect(brands.parameters.map((p: any) => p.name)).to.deep.equal(['cursor', 'limit']);
  });

  it('shows a request example on every operation that takes a body and an answer example on every operation', () => {
    const doc = JSON.parse(renderOpenApi());
    const missingRequest: string[] = [];
    const missingAnswer: string[] = [];
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        if (op.requestBody && op.requestBody.content['application/json']?.example === undefined) missingRequest.push(op.operationId);
        const success = Object.entries<any>(op.responses).filter(([status]) => /^2\d\d$/.test(status) && status !== '204');
        if (!success.length || !success.some(([, r]) => r.content?.['application/json']?.example !== undefined)) missingAnswer.push(op.operationId);
      }
    }
    expect(missingRequest, 'operations with a body but no request example (schemas/examples/<operation>.json request.body)').to.deep.equal([]);
    expect(missingAnswer, 'operations with no answer example').to.deep.equal([]);
  });
});
