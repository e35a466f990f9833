// Structured JSON logs (pino) on standard output; every request's lines carry its requestId.

import { pino, type Logger } from 'pino';

export function createLogger(level: string, destination: NodeJS.WritableStream = process.stdout): Logger {
  return pino({ level, base: { service: 'svc' }, timestamp: pino.stdTimeFunctions.isoTime }, destination as pino.DestinationStream);
}
