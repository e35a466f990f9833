// The job kind and lane of webhook deliveries: one job per delivery (key = delivery id), the
// deliveries of one endpoint in one lane, so an endpoint receives its events in order.

export const DELIVERY_JOB = 'deliver-webhook';

export const endpointLane = (endpointId: number): string => `webhooks:${endpointId}`;
