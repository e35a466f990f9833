// Defaults of src/config.ts that follow the machine: the delivery threads leave a core to the loop
// that serves requests (on two cores a second delivery thread delivered less: docs/benchmarks.md).

import os from 'node:os';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';

describe('configuration defaults that follow the machine', () => {
  it('runs one delivery thread per core beside the request loop, at least 1 and at most 4; DELIVERY_THREADS sets it', () => {
    const cores = os.availableParallelism();
    expect(loadConfig({}).deliveryThreads).to.equal(Math.min(4, Math.max(1, cores - 1)));
    expect(loadConfig({ DELIVERY_THREADS: '3' }).deliveryThreads).to.equal(3);
    expect(() => loadConfig({ DELIVERY_THREADS: '0' })).to.throw('DELIVERY_THREADS must be a whole number of at least 1; got "0"');
  });
});
