import { endpoint } from '#api/endpoint.ts';
import { page } from '#platform/page.ts';
import { getReference } from '#contract/routes.ts';
import { referencePage, referencePolicy } from './referencePage.ts';

/** GET /docs: the API reference (docs/decisions/114), a page Redoc renders under its own policy (referencePage.ts, 115). */
export const handler = endpoint(getReference, async () => page(referencePage, referencePolicy));
