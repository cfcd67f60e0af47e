import { endpoint } from '#api/endpoint.ts';
import { getReferenceScript } from '#contract/routes.ts';
import { referenceScriptResponse } from './referenceScript.ts';

export const handler = endpoint(getReferenceScript, async ({ event }) => referenceScriptResponse(event.headers ?? {}));
