// Every operation of the service with its handler, each area's module loaded at once: for the
// generators (scripts/) and the tests. The service itself starts from the generated index and loads
// an area on the first call of one of its operations (operation-areas.ts, src/catalogue/lazy.ts).

import { internalAreas, loadAreas, operationAreas } from './operation-areas.js';

/** Operations the service invokes itself, offered on no surface (catalogue.get finds them, catalogue.list leaves them out). */
export const internalOperations = await loadAreas(internalAreas);

export const operations = await loadAreas(operationAreas);
