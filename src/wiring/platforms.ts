// Where the ad-platform registry reads a brand's ad accounts: the brands store. Handed to the
// registry here, so src/platforms/ never imports an area above it.

import { brandNameOf, findAdAccount } from '../brands/store.js';
import type { AdAccountReader } from '../platforms/registry.js';

export const adAccountReader: AdAccountReader = { find: findAdAccount, brandName: brandNameOf };
