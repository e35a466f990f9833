// A delivery thread itself (see src/delivery-thread.ts): opens the service with its own database
// connection and a job worker that claims only its share of the webhook deliveries, starts claiming,
// and answers the process's messages (nudges, stop, and a benchmark's probe when one was loaded).

import { parentPort, threadId, workerData } from 'node:worker_threads';
import { loadConfig } from './config.js';
import { createLogger } from './log.js';
import { Service } from './service.js';
import type { DeliveryThreadData, FromThread, ToThread } from './delivery-thread.js';

/** A benchmark's probe: answers requests from the process with figures read inside the thread. */
export type DeliveryProbe = (service: Service, request: unknown) => Promise<unknown>;

const data = workerData as DeliveryThreadData;
const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);

const config = loadConfig(data.env);
const shard = data.shard ?? { count: 1, index: 0 };
const log = createLogger(config.logLevel).child({ thread: 'deliveries', shard: shard.index });
const service = await Service.open({ config, log, deliveriesOnly: shard });
const probe = data.probe ? ((await import(data.probe)) as { probe: DeliveryProbe }).probe : null;

let claiming = false;
const report = () => {
  const now = service.jobs.claiming();
  if (now !== claiming) send({ type: 'claiming', claiming: (claiming = now) });
};
const reporting = setInterval(report, 1_000);

port.on('message', (m: ToThread) => {
  if (m.type === 'nudge') service.jobs.nudge();
  else if (m.type === 'probe' && probe)
    void probe(service, m.request).then(
      (answer) => send({ type: 'probe', id: m.id, answer }),
      (err: Error) => send({ type: 'probe', id: m.id, answer: { error: err.message } }),
    );
  else if (m.type === 'stop') {
    clearInterval(reporting);
    void service
      .close(m.graceMs)
      .catch((err) => log.error({ err }, 'the delivery thread could not close cleanly'))
      .finally(() => {
        send({ type: 'stopped' });
        // Ends this thread only, as `svc-server` ends its process: a request still held open by a
        // receiver past the grace (its job already released) keeps nothing waiting.
        process.exit(0);
      });
  }
});

await service.startJobs();
log.info({ threadId, of: shard.count }, 'delivery thread claiming webhook deliveries');
report();
