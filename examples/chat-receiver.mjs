// A stand-in for a Slack-compatible incoming webhook, for trying workflow chat steps on your machine:
// prints the text of every message POSTed to it and answers 200.
// Usage: node examples/chat-receiver.mjs [PORT]   (default 8090; then CHAT_WEBHOOK_URL=http://127.0.0.1:PORT)

import http from 'node:http';

const port = Number(process.argv[2] ?? 8090);

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let text = body;
      try {
        text = JSON.parse(body).text ?? body;
      } catch {
        // Not JSON: print it as it came.
      }
      console.log(`chat: ${text}`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`chat receiver listening on http://127.0.0.1:${port}`));
