// The job kind and lane of webhook deliveries: one job per delivery (key = delivery id), the
// deliveries of one endpoint in one lane, so an endpoint receives its events in order.

export const DELIVERY_JOB = 'deliver-webhook';

/** Every endpoint's lane starts with it (the delivery thread claims those lanes). */
export const DELIVERY_LANE_PREFIX = 'webhooks:';

export const endpointLane = (endpointId: number): string => `${DELIVERY_LANE_PREFIX}${endpointId}`;
