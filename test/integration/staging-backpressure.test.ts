// The staging stream holds what is in flight, not what the client has sent (paths.md "Limits"): the
// multipart parser (formidable) pauses the request for each file chunk and resumes it in that
// chunk's write callback, so a callback called while later chunks still wait in the stream's buffer
// let a request sent as fast as loopback allows queue about a megabyte an upload there. A chunk's
// callback now comes once the stream has drained.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { StagingFile, discard } from '../../src/creatives/staging.js';
import { paddedPng } from '../helpers/upload-memory.js';

describe('the staging stream calls a chunk back once it can take more', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-staging-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('nothing waits in its buffer when a chunk is called back, however fast the chunks come', async () => {
    const stage = new StagingFile(dir, 'file', () => undefined);
    const file = paddedPng(2 * 1024 * 1024);
    const chunks = Array.from({ length: file.length / 65536 }, (_, i) => file.subarray(i * 65536, (i + 1) * 65536));
    const waitingAtCallback: number[] = [];
    // As formidable writes them: every chunk at once, each with a callback (it resumes the request there).
    await new Promise<void>((resolve) => {
      let called = 0;
      for (const chunk of chunks)
        stage.write(chunk, () => {
          waitingAtCallback.push(stage.writableLength);
          if (++called === chunks.length) resolve();
        });
    });
    expect(Math.max(...waitingAtCallback), 'bytes still queued when a chunk was called back').to.equal(0);
    await new Promise<void>((resolve, reject) => stage.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const staged = stage.staged('x.png');
    expect(staged.size).to.equal(file.length);
    expect(staged.sha256).to.equal(crypto.createHash('sha256').update(file).digest('hex'));
    expect(fs.readFileSync(staged.path).equals(file)).to.equal(true);
    await discard(stage);
  });
});
