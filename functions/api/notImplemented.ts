import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { endpoint } from '#api/endpoint.ts';
import { ApiError } from '#platform/errors.ts';
import { features } from '#contract/features.ts';
import { routeKey, unbuiltRoutes, type RouteDefinition } from '#contract/routes.ts';

/**
 * Every endpoint whose feature is not built answers here: after the same authentication,
 * rate limit, permission and KYB checks as the real handler will make, 501 `not_implemented`
 * naming the feature and why. One module (and one Lambda) serves all of them.
 */
function answer(definition: RouteDefinition) {
  return endpoint(definition, async () => {
    const feature = features[definition.feature];
    throw new ApiError('not_implemented', feature.reason, {
      feature: definition.feature,
      ...('requires' in feature ? { requires: feature.requires } : {}),
    });
  });
}

const byRouteKey = new Map(unbuiltRoutes.map((definition) => [routeKey(definition), answer(definition)]));

export async function handler(event: APIGatewayProxyEventV2, context: Context) {
  const answerFor = byRouteKey.get(event.routeKey);
  if (!answerFor) {
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: 'not_found', message: 'No such endpoint.' }),
    };
  }
  return answerFor(event, context);
}
