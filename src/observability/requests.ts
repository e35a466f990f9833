// One observation per operation a surface or a job asks of the pipeline: a span (when tracing is
// on) carrying the Service-Request-Id, and the request counter and duration histogram.

import { ServiceError, httpStatusOf } from '../errors.js';
import { countRequest, type RequestSurface } from './metrics.js';
import { annotateSpan, inSpan } from './tracing.js';

/** Runs one top-level operation `work` under its span and counts its answer (the status of its error when it throws). */
export async function observeRequest<T extends { status: number }>(
  surface: RequestSurface,
  operation: string,
  requestId: string,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  let status = 500;
  try {
    const result = await inSpan(`${surface} ${operation}`, { 'svc.surface': surface, 'svc.operation': operation, 'svc.request_id': requestId }, async () => {
      const r = await work();
      annotateSpan({ 'http.response.status_code': r.status });
      return r;
    });
    status = result.status;
    return result;
  } catch (err) {
    status = err instanceof ServiceError ? httpStatusOf[err.code] : 500;
    throw err;
  } finally {
    countRequest(surface, operation, status, (performance.now() - started) / 1000);
  }
}
