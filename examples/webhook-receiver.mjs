// A webhook receiver that verifies every message with the `standardwebhooks` package, handles each
// webhook-id once, and prints the event's type and data. docs/webhooks.md walks through it.
// Usage: SVC_WEBHOOK_SECRET=whsec_... node examples/webhook-receiver.mjs [PORT]   (default 3000)

import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const port = Number(process.argv[2] ?? 3000);
if (!process.env.SVC_WEBHOOK_SECRET) {
  console.error('Set SVC_WEBHOOK_SECRET to the whsec_... secret create-webhook-endpoint answered.');
  process.exit(2);
}
const wh = new Webhook(process.env.SVC_WEBHOOK_SECRET);
const seen = new Set(); // webhook-ids already handled; a real receiver keeps them in its database

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let event;
      try {
        event = wh.verify(body, req.headers); // throws on a bad signature or a timestamp too old
      } catch (err) {
        console.log(`refused a message: ${err.message}`);
        res.writeHead(400).end();
        return;
      }
      const id = req.headers['webhook-id'];
      if (!seen.has(id)) {
        seen.add(id);
        console.log(`${event.type} ${JSON.stringify(event.data)}`);
      }
      res.writeHead(204).end();
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`webhook receiver listening on http://127.0.0.1:${port}`));
