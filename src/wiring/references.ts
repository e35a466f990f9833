// Installs the loader of the reference resolvers (src/service.ts loads this module for its effect):
// the resolvers read every area's store, so their module loads on the first reference checked.

import { installResolvers } from '../references/resolve.js';

installResolvers(async () => (await import('./reference-resolvers.js')).resolvers);
