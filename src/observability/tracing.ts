// OpenTelemetry traces, exported over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT is set. The
// SDK is imported only then: unset, `inSpan` runs its work directly and no tracing code is loaded.

import type { Attributes, Tracer } from '@opentelemetry/api';

interface Tracing {
  tracer: Tracer;
  api: typeof import('@opentelemetry/api');
  shutdown(): Promise<void>;
}

let tracing: Tracing | null = null;

/** Starts exporting spans to `endpoint` (the collector's base URL; spans go to `/v1/traces`). */
export async function startTracing(endpoint: string, serviceName = 'svc'): Promise<void> {
  if (tracing) return;
  const [api, node, base, exporter, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new base.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }))],
  });
  // Registers the async-hooks context manager, so a span started inside another's work is its child.
  provider.register();
  tracing = {
    tracer: provider.getTracer('svc'),
    api,
    shutdown: async () => {
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
    },
  };
}

/** Sends the spans still buffered and stops tracing (at shutdown). */
export async function stopTracing(): Promise<void> {
  const t = tracing;
  tracing = null;
  await t?.shutdown();
}

/** True while spans are exported (callers skip building a span's name and attributes otherwise). */
export function tracingOn(): boolean {
  return tracing !== null;
}

/** Runs `work` inside a span named `name` (a child of the span it runs in), or directly when tracing is off. */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!tracing) return work();
  const { tracer, api } = tracing;
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes on the span the caller runs in (the answer's status, say), when tracing is on. */
export function annotateSpan(attributes: Attributes): void {
  tracing?.api.trace.getActiveSpan()?.setAttributes(attributes);
}
